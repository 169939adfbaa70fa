#!/usr/bin/env bash
# Exported loops (export: [mp4, gif, webp]) beside the tools people use for the same job,
# on the same pictures, in one run: ffmpeg's two-pass GIF (palettegen, then paletteuse) and
# libwebp's img2webp (its defaults: lossless). Figures, not a test.
#
#   bench/export.sh                       # release binary; makes the anchor corpus if missing
#   RUNS=3 MATSITE=path/to/matsite bench/export.sh
#
# Jobs: the anchor job (bench/anchors.sh, corpus from bench/corpus.py: bbox W-95.5 S29 E-74.5 N43.5, zoom 7, 24
# palette frames of 1912 x 1646, tiles read from the corpus folder, no server) and the
# embedded demo's animation (12 frames over the demo base map). For each:
#   - matsite, cold, each format alone and the three together: the export's wall time (the
#     build's "export took" line: composing and encoding, after the frames are stitched),
#     and each file's bytes; medians of RUNS;
#   - the tools on the very pictures matsite encodes (read back from its lossless WebP,
#     saved as PNG, which the tools take as input): wall and CPU time, bytes; medians;
#   - the anchor job as a live window moved by one frame with the cache folder on: the
#     export of the 24 frames of which 23 were exported before;
#   - an unchanged rebuild, which keeps the three files (hard links).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
work=${BENCH_DIR:-/tmp/matsite-bench}
runs=${RUNS:-3}
bin=${MATSITE:-$repo/.build/release/matsite}
out=$work/export
mkdir -p "$out"
[ -x "$bin" ] || { echo "no matsite binary at $bin: swift build -c release --product matsite, or set MATSITE" >&2; exit 1; }
command -v img2webp >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends webp >/dev/null; }
[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends time >/dev/null; }
python3 -c 'import numpy, PIL' 2>/dev/null || pip install -q numpy Pillow
if [ ! -f "$work/tiles/pal/frames/23/7/37/53.png" ]; then python3 "$here/corpus.py" --out "$work/tiles" >&2; fi
# The corpus by hour, for a window of times: hour HH shows frame HH (the next day's 00, frame 0 again).
mkdir -p "$work/tiles-by-hour"
for h in $(seq 0 23); do ln -sfn "$work/tiles/pal/frames/$h" "$work/tiles-by-hour/$(printf %02d "$h")"; done

anchor() { # export line [first hour]
    local first=${2:-0}
    cat <<YAML
title: Export bench
cache: $out/cache
animations:
  - id: radar
    bbox: [-95.5, 29.0, -74.5, 43.5]
    zoom: 7
    frame_duration_ms: 500
    last_frame_duration_ms: 1500
    attribution: "Radar: anchor corpus"
    source: { path: "$work/tiles-by-hour/{time}/{z}/{x}/{y}.png" }
    time_format: "%H"
    frames: { times: [$(for h in $(seq "$first" $((first + 23))); do printf '2026-11-%02dT%02d:00:00Z, ' $((21 + h / 24)) $((h % 24)); done | sed 's/, $//')] }
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

build() { # config [cache] -> the build's stderr in $out/last.log
    if [ "${2:-}" = cache ]; then
        "$bin" build --config "$1" --output "$out/site" 2>"$out/last.log"
    else
        rm -rf "$out/site"
        "$bin" build --config "$1" --output "$out/site" --no-cache 2>"$out/last.log"
    fi
}
took() { grep -o 'export took [0-9.]*' "$out/last.log" | awk '{print $3}'; }
bytes() { stat -c %s "$out"/site/radar/loop-*."$1"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timed() { # command... -> "wall cpu" (seconds)
    /usr/bin/time -f "%e %U %S" -o "$out/time.txt" "$@" >/dev/null 2>&1
    awk '{printf "%.2f %.2f\n", $1, $2 + $3}' "$out/time.txt"
}

echo "matsite $("$bin" --version | cut -d' ' -f2), $(nproc) cores, $runs runs; ffmpeg $(ffmpeg -version | head -1 | cut -d' ' -f3), img2webp $(img2webp -version 2>&1 | head -1)"
for job in anchor demo; do
    duration=$([ "$job" = anchor ] && echo 500 || echo 400)
    echo
    echo "== $job"
    echo
    echo "| format | matsite export s (median) | matsite bytes | tool | tool wall s / CPU s (median) | tool bytes | matsite / tool bytes |"
    echo "|---|---|---|---|---|---|---|"
    # The pictures the tools get: matsite's own, read back from its lossless WebP.
    "$job" "    export: [webp]" > "$out/webp.yml"
    build "$out/webp.yml"
    rm -rf "$out/frames" && mkdir -p "$out/frames"
    python3 - "$out/site/radar" "$out/frames" <<'PY'
import glob, sys
from PIL import Image
image = Image.open(glob.glob(sys.argv[1] + "/loop-*.webp")[0])
for i in range(image.n_frames):
    image.seek(i)
    image.convert("RGB").save(f"{sys.argv[2]}/{i:03d}.png", compress_level=1)
PY
    for format in gif webp mp4 all; do
        line=$([ $format = all ] && echo "    export: [mp4, gif, webp]" || echo "    export: [$format]")
        "$job" "$line" > "$out/$format.yml"
        seconds=$(for _ in $(seq "$runs"); do build "$out/$format.yml"; took; done | median)
        case $format in
        gif)
            tool=$(for _ in $(seq "$runs"); do
                read -r w1 c1 < <(timed ffmpeg -v error -y -framerate 2 -i "$out/frames/%03d.png" -vf palettegen "$out/palette.png")
                read -r w2 c2 < <(timed ffmpeg -v error -y -framerate 2 -i "$out/frames/%03d.png" -i "$out/palette.png" -lavfi paletteuse "$out/tool.gif")
                echo "$(echo "$w1 + $w2" | bc) $(echo "$c1 + $c2" | bc)"
            done | sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}')
            theirs=$(stat -c %s "$out/tool.gif")
            mine=$(bytes gif)
            echo "| GIF | $seconds | $mine | ffmpeg palettegen + paletteuse | ${tool/ / \/ } | $theirs | $(echo "scale=3; $mine / $theirs" | bc) |"
            ;;
        webp)
            tool=$(for _ in $(seq "$runs"); do timed img2webp -loop 0 -d "$duration" "$out"/frames/*.png -o "$out/tool.webp"; done |
                sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}')
            theirs=$(stat -c %s "$out/tool.webp")
            mine=$(bytes webp)
            echo "| WebP (lossless) | $seconds | $mine | img2webp (lossless, -q 75 -m 4) | ${tool/ / \/ } | $theirs | $(echo "scale=3; $mine / $theirs" | bc) |"
            ;;
        mp4) echo "| MP4 (ffmpeg libx264, veryfast) | $seconds | $(bytes mp4) | | | | |" ;;
        all) echo "| the three together | $seconds | | | | | |" ;;
        esac
    done
    grep ": export " "$out/last.log" | sed 's/^/    /'
    # An unchanged rebuild keeps the three files (hard links): no encode.
    start=$(date +%s.%N)
    "$bin" build --config "$out/all.yml" --output "$out/site" --no-cache 2>"$out/last.log"
    echo "    unchanged rebuild: $(echo "$(date +%s.%N) - $start" | bc) s; $(grep -c 'kept (unchanged)' "$out/last.log") of 3 exports kept"
    if [ "$job" = anchor ]; then
        # A live window moved by one hour, the cache folder on: 23 of the 24 pictures and
        # their GIF and WebP frames were made by the build before.
        rm -rf "$out/cache" "$out/site"
        "$job" "    export: [mp4, gif, webp]" 0 > "$out/window0.yml"
        "$job" "    export: [mp4, gif, webp]" 1 > "$out/window1.yml"
        build "$out/window0.yml" cache
        build "$out/window1.yml" cache
        echo "    window moved by one frame, cache on: export took $(took) s"
        grep ": export " "$out/last.log" | sed 's/^/      /'
    fi
done
