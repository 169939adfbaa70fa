#!/usr/bin/env bash
# SIGKILLs `matsite build` at random points many times and checks after each kill that the
# site is byte-for-byte the old one or the complete new one (every file its manifests list,
# with its sha256), then that the next build succeeds with no cleanup.
#
#   scripts/kill-test.sh [TRIALS]      # default 25
#
# The trial logic is the Swift test InterruptedBuildTests (3 trials in the normal suite);
# this runs it with more. Needs the debug build: swift build --build-tests.
set -euo pipefail
cd "$(dirname "$0")/.."
trials=${1:-25}
MATSITE_KILL_TRIALS=$trials nice -n 5 swift test --skip-build --filter InterruptedBuildTests 2>&1 \
    | grep -E "kill trials|✔|✘|passed|failed|error" 
