#!/usr/bin/env bash
# The tile cache over a day of a 5-minute feed (issue 33 item 4): figures, not a pass/fail test.
#
#   bench/cache.sh                 # debug build of the tests, then the run below
#   CONFIG=release bench/cache.sh  # release build (slower to build, figures nearer production)
#   BUILDS=1000 bench/cache.sh     # more builds (default 288, a day)
#
# HTTPCacheGrowthTests simulates 288 builds on a simulated clock, each knowing the last 370
# entries fresh from the index (as an unchanged frame's tiles are) and storing 30 new ones
# of about 3 KB, then ending as a whole build does (evicting) or as a shard does (not).
# Prints, at builds 10, 100 and 288: entries, entry files, index bytes, folder bytes and the
# median wall and CPU time of the last 10 builds (the cache's own work: index, entry files,
# eviction). Run it alone: the CPU figure is the test process's.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
config=${CONFIG:-debug}
swift build --build-tests -c "$config" >&2
CACHE_BENCH_BUILDS=${BUILDS:-288} swift test --skip-build -c "$config" --filter HTTPCacheGrowthTests 2>&1 | grep -E "^cache bench|passed|failed"
