#!/usr/bin/env bash
# Runs the Swift test suite under AddressSanitizer, then under ThreadSanitizer, each in its
# own scratch folder (.build-asan, .build-tsan) so the shared .build is left alone.
#
#   scripts/sanitizers.sh [address|thread]... [-- extra swift test arguments]
#
# Slow on a small machine (two full instrumented builds): run it niced, in the background.
# ld.gold crashes on ASan objects with debug info, hence lld.
set -uo pipefail
cd "$(dirname "$0")/.."

kinds=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do kinds+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#kinds[@]} -gt 0 ] || kinds=(address thread)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0:second_deadlock_stack=1}
results=()
for kind in "${kinds[@]}"; do
    case "$kind" in address) scratch=.build-asan ;; thread) scratch=.build-tsan ;; *) echo "unknown: $kind"; exit 2 ;; esac
    log=$scratch.log
    echo "== swift test --sanitize=$kind (scratch $scratch, log $log)"
    start=$(date +%s)
    nice -n 10 swift test --sanitize="$kind" --scratch-path "$scratch" -Xswiftc -use-ld=lld "$@" >"$log" 2>&1
    code=$?
    took=$(( $(date +%s) - start ))
    reports=$(grep -cE "ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer" "$log")
    passed=$(grep -oE "Test run with [0-9]+ tests? in [0-9]+ suites? passed" "$log" | tail -1)
    failed=$(grep -oE "Test run with [0-9]+ tests? in [0-9]+ suites? failed.*" "$log" | tail -1)
    results+=("$kind: exit $code, ${passed:-${failed:-no Swift Testing summary}}, sanitizer reports: $reports, ${took} s")
    grep -E "SUMMARY: (AddressSanitizer|ThreadSanitizer)" "$log" | sort | uniq -c | head -20
done
echo
echo "== sanitizer summary"
printf '%s\n' "${results[@]}"
