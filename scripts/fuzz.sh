#!/usr/bin/env bash
# Builds matsite's libFuzzer targets (Fuzz/, a separate package depending on this one) with
# AddressSanitizer and runs each for a bounded time, printing executions and findings.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     # default 60 s; targets: png jpeg webp config capabilities
#
# Seeds: Fuzz/Corpus/<target>/ (committed). Inputs libFuzzer finds interesting go to
# Fuzz/.build/corpus/<target>/, crashing ones to Fuzz/findings/<target>/ (neither committed:
# a crash becomes a regression test in Tests/MatsiteKitTests/Hostile/FuzzRegressionTests.swift).
#
# Why not `swift build --sanitize fuzzer`: SwiftPM then adds -parse-as-library to every
# executable, which breaks the root package's embed-templates tool (top-level main.swift).
# So every module gets ASan plus libFuzzer's coverage instrumentation here, and only the
# fuzz targets link libFuzzer (Fuzz/Package.swift). ld.gold crashes on ASan
# objects with debug info (internal error in format_file_lineno), hence lld.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(png jpeg webp config capabilities)

# libFuzzer without its main: each target's own entry point calls LLVMFuzzerRunDriver.
swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
libfuzzer=$(ls "$swift_bin"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-"$(uname -m)".a 2>/dev/null | head -1)
[ -n "$libfuzzer" ] || { echo "libclang_rt.fuzzer_no_main not found beside $swift_bin"; exit 1; }
export MATSITE_LIBFUZZER_NO_MAIN=$(readlink -f "$libfuzzer")

echo "== building fuzz targets (Fuzz/.build; the first build takes a while)"
nice -n 10 swift build -c debug --package-path Fuzz --scratch-path Fuzz/.build \
    -Xswiftc -sanitize=address \
    -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
    -Xswiftc -use-ld=lld 2>&1 | grep -E "error|Compiling Fuzz|Linking Fuzz|Build complete" || true

bin=$(swift build -c debug --package-path Fuzz --scratch-path Fuzz/.build --show-bin-path)
# Swift's runtime keeps metadata caches for the process's life: not leaks.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0:symbolize=1}

summary=()
status=0
for target in "${targets[@]}"; do
    case "$target" in
        png) exe=FuzzPNG; maxlen=16384 ;;
        jpeg) exe=FuzzJPEG; maxlen=16384 ;;
        webp) exe=FuzzWebP; maxlen=16384 ;;
        config) exe=FuzzConfig; maxlen=4096 ;;
        capabilities) exe=FuzzCapabilities; maxlen=16384 ;;
        *) echo "unknown target $target"; exit 2 ;;
    esac
    [ -x "$bin/$exe" ] || { echo "missing $bin/$exe (build failed?)"; exit 1; }
    work=Fuzz/.build/corpus/$target
    findings=Fuzz/findings/$target
    mkdir -p "$work" "$findings"
    log=Fuzz/.build/fuzz-$target.log
    echo "== $target: $seconds s ($exe)"
    set +e
    nice -n 10 "$bin/$exe" "$work" "Fuzz/Corpus/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$maxlen" \
        -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1
    code=$?
    set -e
    execs=$(grep -E "^stat::number_of_executed_units" "$log" | awk '{print $2}' | tail -1)
    rate=$(grep -E "^stat::average_exec_per_sec" "$log" | awk '{print $2}' | tail -1)
    cov=$(grep -oE "cov: [0-9]+" "$log" | tail -1)
    crashes=$(find "$findings" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    if [ "$code" -ne 0 ]; then
        status=1
        grep -E "ERROR|SUMMARY|Fatal error|Test unit written" "$log" | head -5 || true
    fi
    summary+=("$target: ${execs:-0} executions (${rate:-?}/s), ${cov:-cov: ?}, exit $code, findings $crashes in $findings")
done

echo
echo "== fuzz summary ($seconds s per target)"
printf '%s\n' "${summary[@]}"
exit $status
