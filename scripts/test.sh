#!/usr/bin/env bash
# Fresh machine -> every test: the Swift suites, then the real-browser player tests.
#   scripts/test.sh
# Installs what is missing (C libraries, Leaflet, Chromium, Playwright, pytest), builds
# everything, runs `swift test`, then Tests/browser with headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh test
swift build --build-tests
swift test --skip-build
MATSITE_BIN="$PWD/.build/debug/matsite" bash Tests/browser/run.sh
