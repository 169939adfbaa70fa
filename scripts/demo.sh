#!/usr/bin/env bash
# Fresh machine -> the embedded demo built into ./site, offline.
#   scripts/demo.sh
# Installs what is missing, builds matsite (release), and runs `matsite build` with no
# config, which builds the procedural radar demo. The Swift runtime and Foundation are
# linked in (--static-swift-stdlib): one file to copy to the machine that runs cron, and
# a faster start (an unchanged rebuild is mostly process start). Serve it with:
#   .build/release/matsite serve      (http://127.0.0.1:8000)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh build
swift build -c release --product matsite --static-swift-stdlib
.build/release/matsite build
