#!/usr/bin/env bash
# Fresh machine -> the embedded demo built into ./site, offline.
#   scripts/demo.sh
# Installs what is missing, builds matsite (release), and runs `matsite build` with no
# config, which builds the procedural radar demo. Serve it with:
#   .build/release/matsite serve      (http://127.0.0.1:8000)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh build
swift build -c release --product matsite
.build/release/matsite build
