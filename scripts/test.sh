#!/usr/bin/env bash
# Fresh machine -> every test: the Swift suites, the real-browser player tests, then
# `matsite deploy` against real SFTP (OpenSSH), WebDAV (nginx, rclone serve webdav) and S3
# (moto) servers on 127.0.0.1.
#   scripts/test.sh
# Installs what is missing (C libraries, Leaflet, Chromium, Playwright, pytest), checks the
# style with the toolchain's swift-format (.swift-format; `swift format --in-place -r
# Sources Tests` fixes what it reports), builds everything, runs `swift test`, then
# Tests/browser with headless Chromium, then Tests/deploy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh test
swift format lint --strict --recursive --parallel Sources Tests
swift build --build-tests
swift test --skip-build
MATSITE_BIN="$PWD/.build/debug/matsite" bash Tests/browser/run.sh
MATSITE_BIN="$PWD/.build/debug/matsite" python3 -m pytest -q Tests/deploy
