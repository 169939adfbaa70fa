#!/usr/bin/env bash
# Issue 16's benchmark: what exporting the loop (export: [mp4, gif, webp]) costs beside a
# cold build of the same animation, and how large each format is. Figures, not a test.
#
#   bench/export.sh                       # release binary; makes the anchor corpus if missing
#   RUNS=3 MATSITE=path/to/matsite bench/export.sh
#
# Jobs: the anchor job (../shared/bench/anchors: bbox W-95.5 S29 E-74.5 N43.5, zoom 7, 24
# palette frames of 1912 x 1646, tiles read from the corpus folder, no server) and the
# embedded demo's animation (12 frames over the demo base map). Each is built cold without
# export, then cold with it; the build prints each format's encode time and bytes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
anchors=${ANCHORS:-$repo/../shared/bench/anchors}
work=${BENCH_DIR:-/tmp/matsite-bench}
runs=${RUNS:-3}
bin=${MATSITE:-$repo/.build/release/matsite}
mkdir -p "$work/export"
[ -x "$bin" ] || { echo "no matsite binary at $bin: swift build -c release --static-swift-stdlib, or set MATSITE" >&2; exit 1; }
python3 -c 'import numpy, PIL' 2>/dev/null || pip install -q numpy Pillow
if [ ! -f "$work/tiles/pal/frames/23/7/37/53.png" ]; then python3 "$anchors/make_tiles.py" --out "$work/tiles" >&2; fi

anchor() { # export line
    cat <<YAML
title: Export bench
animations:
  - id: radar
    bbox: [-95.5, 29.0, -74.5, 43.5]
    zoom: 7
    frame_duration_ms: 500
    last_frame_duration_ms: 1500
    attribution: "Radar: anchor corpus"
    source: { path: "$work/tiles/pal/frames/{frame}/{z}/{x}/{y}.png" }
    frames: { count: 24 }
$1
YAML
}

demo() { # export line
    cat <<YAML
title: Export bench
base_map: { demo: true }
animations:
  - id: radar
    bbox: [-95.5, 29.0, -74.5, 43.5]
    zoom: 6
    frame_duration_ms: 400
    last_frame_duration_ms: 1500
    attribution: "Demo radar: procedural, made by matsite"
    source: { demo: radar }
    frames: { count: 12 }
$1
YAML
}

seconds() { # config file -> wall seconds of one cold build; its stderr in $work/export/last.log
    rm -rf "$work/export/site"
    local start end
    start=$(date +%s.%N)
    "$bin" build --config "$1" --output "$work/export/site" --no-cache 2>"$work/export/last.log"
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "matsite $("$bin" --version | cut -d' ' -f2), $(nproc) cores, $runs runs, ffmpeg $(ffmpeg -version | head -1 | cut -d' ' -f3)"
for job in anchor demo; do
    "$job" "" > "$work/export/plain.yml"
    "$job" "    export: [mp4, gif, webp]" > "$work/export/export.yml"
    plain=$(for _ in $(seq "$runs"); do seconds "$work/export/plain.yml"; done | median)
    with=$(for _ in $(seq "$runs"); do seconds "$work/export/export.yml"; done | median)
    echo
    echo "== $job: cold build ${plain} s without export, ${with} s with it (medians)"
    grep ": export " "$work/export/last.log" | sed 's/^/   /'
    gif=$(stat -c %s "$work"/export/site/radar/loop-*.gif)
    for f in mp4 webp; do
        bytes=$(stat -c %s "$work"/export/site/radar/loop-*."$f")
        echo "   $f / gif bytes: $(echo "scale=1; 100 * $bytes / $gif" | bc)%"
    done
    # An unchanged rebuild keeps the three files (hard links): no encode.
    start=$(date +%s.%N)
    "$bin" build --config "$work/export/export.yml" --output "$work/export/site" --no-cache 2>"$work/export/last.log"
    echo "   unchanged rebuild: $(echo "$(date +%s.%N) - $start" | bc) s; $(grep -c 'kept (unchanged)' "$work/export/last.log") of 3 exports kept"
done
