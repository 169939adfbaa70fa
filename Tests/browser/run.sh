#!/bin/sh
# Runs the player's real-browser tests (headless Debian chromium + Playwright).
#
#   Tests/browser/run.sh [pytest args...]
#
# MATSITE_BIN     the matsite binary that builds the test sites. When unset, this
#                 script runs `swift build --product matsite` first (the binary
#                 embeds templates/, so it must be fresh) and uses .build/debug/matsite.
# MATSITE_CHROMIUM  chromium to drive (default /usr/bin/chromium).
# MATSITE_TEST_SITE a prebuilt site to test instead of building one (development).
# MATSITE_TEST_PYRAMID_SITE likewise for the pyramid tests (test_pyramid.py).
# MATSITE_TEMPLATES a templates folder whose player files the test sites use instead of
#                 the ones compiled into the binary (config key templates:).
# Exits with pytest's exit code.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
python=${PYTHON:-python3}

if ! "$python" -c 'import playwright, pytest, axe_playwright_python' 2>/dev/null; then
    "$python" -m pip install -q playwright pytest axe-playwright-python || exit 2
fi

if [ -z "${MATSITE_BIN:-}" ] && [ -z "${MATSITE_TEST_SITE:-}" ]; then
    (cd "$repo" && swift build --product matsite) >&2 || exit 2
    MATSITE_BIN="$repo/.build/debug/matsite"
    export MATSITE_BIN
fi

cd "$repo" || exit 2
"$python" -m pytest -q "$here" "$@"
exit $?
