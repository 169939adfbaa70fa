#!/usr/bin/env bash
# Fresh machine -> the embedded demo built into ./site, offline.
#   scripts/demo.sh
# Installs what is missing, builds matsite (release), and runs `matsite build` with no
# config, which builds the embedded demo. The Swift runtime and Foundation are linked in
# (--static-swift-stdlib) and the symbols stripped (-Xlinker -s): one smaller file to copy
# to the machine that runs cron, which needs no Swift toolchain, and a faster start (an
# unchanged rebuild is mostly process start). docs/operations.md lists the libraries that
# machine needs. Serve the demo with:
#   .build/release/matsite serve      (http://127.0.0.1:8000)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh build
swift build -c release --product matsite --static-swift-stdlib -Xlinker -s
.build/release/matsite build
