#!/usr/bin/env bash
# Issue 27's frame bytes: the anchor job's 24 frames written by matsite's default, by its
# zlib path (compression: 6, the default before), as lossless WebP (format: webp-lossless)
# and by ImageMagick (the anchors' montage + convert), in one run: bytes against
# ImageMagick's, the build's CPU, every frame decoded and compared with ImageMagick's
# pixels, and Chromium's decode time per frame (bench/decode.py). Figures, not a test.
#
#   bench/frame-bytes.sh                          # release binary of this tree
#   MATSITE=path/to/matsite BEFORE=path/to/old/matsite RUNS=3 THROTTLE=4 bench/frame-bytes.sh
#
# With BEFORE, that binary's default frames join the table (run in the same session: this
# machine's times drift between runs). THROTTLE also times decoding under Chromium's CPU
# throttling (4: about a phone).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
work=${BENCH_DIR:-/tmp/matsite-bench}
out=$work/frame-bytes
bin=${MATSITE:-$repo/.build/release/matsite}
before=${BEFORE:-}
runs=${RUNS:-3}
mkdir -p "$out"
[ -x "$bin" ] || { echo "no matsite binary at $bin: swift build -c release --product matsite, or set MATSITE" >&2; exit 1; }
command -v montage >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends imagemagick >/dev/null; }
[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends time >/dev/null; }
python3 -c 'import numpy, PIL, playwright' 2>/dev/null || pip install -q numpy Pillow playwright
if [ ! -f "$work/tiles/pal/frames/23/7/37/53.png" ]; then python3 "$here/corpus.py" --out "$work/tiles" >&2; fi

config() { # extra line
    cat <<YAML
title: frame bytes
animations:
  - id: loop
    bbox: [-95.5, 29.0, -74.5, 43.5]
    zoom: 7
    fallback: { levels: 0 }
    source: { path: "$work/tiles/pal/frames/{frame}/{z}/{x}/{y}.png" }
    frames: { count: 24 }
$1
YAML
}

# ImageMagick, as the anchors run it (the same crop of the same 8 x 8 tiles).
rm -rf "$out/imagemagick" && mkdir -p "$out/imagemagick"
for f in $(seq 0 23); do
    list=""
    for y in $(seq 46 53); do for x in $(seq 30 37); do list="$list $work/tiles/pal/frames/$f/7/$x/$y.png"; done; done
    # shellcheck disable=SC2086
    montage $list -tile 8x8 -geometry +0+0 -background none miff:- | /usr/bin/convert miff:- -crop 1912x1646+11+202 +repage "$out/imagemagick/$(printf %02d "$f").png"
done

candidates="default zlib webp-lossless${before:+ before}"
for name in $candidates; do
    b=$bin
    case $name in
    default) config "" > "$out/$name.yml" ;;
    zlib) config "    compression: 6" > "$out/$name.yml" ;;
    webp-lossless) config "    format: webp-lossless" > "$out/$name.yml" ;;
    before) config "" > "$out/$name.yml"; b=$before ;;
    esac
    for _ in $(seq "$runs"); do
        rm -rf "$out/site-$name"
        /usr/bin/time -f "%U %S" -o "$out/time.txt" "$b" build --config "$out/$name.yml" --output "$out/site-$name" --no-cache --quiet
        awk '{printf "%.2f\n", $1 + $2}' "$out/time.txt"
    done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}' > "$out/$name.cpu"
    rm -rf "$out/frames/$name" && mkdir -p "$out/frames/$name"
    i=0
    for f in "$out/site-$name/loop/frames/"*.*; do cp "$f" "$out/frames/$name/$(printf %02d $i).${f##*.}"; i=$((i + 1)); done
done
rm -rf "$out/frames/imagemagick" && cp -r "$out/imagemagick" "$out/frames/imagemagick"

echo "matsite $("$bin" --version | cut -d' ' -f2)${before:+, before: $before}; $(nproc) cores; build CPU: median of $runs cold builds (--no-cache)"
echo
python3 - "$out" "$candidates imagemagick" <<'PY'
import os, sys
import numpy as np
from PIL import Image
out, names = sys.argv[1], sys.argv[2].split()
def rgba(path):
    a = np.asarray(Image.open(path).convert("RGBA")).copy()
    a[a[..., 3] == 0] = 0          # a transparent pixel's colour is never seen
    return a
reference = [rgba(os.path.join(out, "frames/imagemagick", f)) for f in sorted(os.listdir(os.path.join(out, "frames/imagemagick")))]
im_bytes = sum(os.path.getsize(os.path.join(out, "frames/imagemagick", f)) for f in os.listdir(os.path.join(out, "frames/imagemagick")))
print("| frames | bytes (24 frames) | / ImageMagick's | build CPU s | pixels equal to ImageMagick's |")
print("|---|---|---|---|---|")
for name in names:
    folder = os.path.join(out, "frames", name)
    files = sorted(os.listdir(folder))
    size = sum(os.path.getsize(os.path.join(folder, f)) for f in files)
    same = sum(np.array_equal(rgba(os.path.join(folder, f)), ref) for f, ref in zip(files, reference))
    cpu = open(os.path.join(out, name + ".cpu")).read().strip() if name != "imagemagick" else "-"
    print(f"| {name} | {size:,} | {size / im_bytes:.3f} | {cpu} | {same} of {len(reference)} |")
PY
echo
echo "Chromium's decode time per frame (bench/decode.py, each folder twice):"
ROUNDS=${ROUNDS:-3} python3 "$here/decode.py" "$out/frames" "$(echo "$candidates" | tr ' ' ','),$(echo "$candidates" | tr ' ' ',')"
if [ -n "${THROTTLE:-}" ]; then
    echo "The same under Chromium's CPU throttling x$THROTTLE:"
    THROTTLE=$THROTTLE ROUNDS=${ROUNDS:-3} python3 "$here/decode.py" "$out/frames" "$(echo "$candidates" | tr ' ' ',')"
fi
