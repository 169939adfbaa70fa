#!/usr/bin/env bash
# Issue 27's levels benchmark: peak memory of a build whose frame is published with its
# pyramid levels, for one 8192 x 8192 and one 16384 x 16384 frame of the offline demo
# source (no network), and, given a second binary, the levels of both compared byte for
# byte on frames of every kind (palette, RGBA, lossy WebP, odd boxes). Figures, not a test.
#
#   bench/levels.sh                                   # release binary of this tree
#   MATSITE=path/to/matsite BEFORE=path/to/old/matsite bench/levels.sh
#
# Peak RSS is /usr/bin/time -v's "Maximum resident set size" of the whole build. With
# BEFORE, both binaries build each job in turn (same session: this machine's times drift)
# and every level tile of every frame is compared (frames are matched by their place in the
# manifest, since a frame's file name carries its bytes' hash).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
work=${BENCH_DIR:-/tmp/matsite-bench}/levels
tiles=${BENCH_DIR:-/tmp/matsite-bench}/tiles
bin=${MATSITE:-$repo/.build/release/matsite}
before=${BEFORE:-}
mkdir -p "$work"
[ -x "$bin" ] || { echo "no matsite binary at $bin: swift build -c release --product matsite, or set MATSITE" >&2; exit 1; }
[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends time >/dev/null; }
python3 -c 'import numpy, PIL' 2>/dev/null || pip install -q numpy Pillow
if [ ! -f "$tiles/rgb/frames/23/7/37/53.png" ]; then python3 "$here/corpus.py" --out "$tiles" >&2; fi

# A box of `size` pixels at zoom 8 from global pixel (x0, y0), as the bbox the frame's
# pixel-centre rule turns back into exactly that box.
box() {
    python3 - "$@" <<'PY'
import math, sys
size_x, size_y, x0, y0, z = map(int, sys.argv[1:6])
world = 256 * 2 ** z
lon = lambda px: px / world * 360 - 180
lat = lambda py: math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * py / world))))
print(f"[{lon(x0 + 0.2)}, {lat(y0 + size_y - 0.2)}, {lon(x0 + size_x - 0.2)}, {lat(y0 + 0.2)}]")
PY
}

demo() { # id size_x size_y x0 y0 zoom frames
    cat <<YAML
  - id: $1
    bbox: $(box "$2" "$3" "$4" "$5" "$6")
    zoom: $6
    fallback: { levels: 0 }
    pyramid: { publish: always }
    source: { demo: radar }
    frames: { count: $7 }
YAML
}

anchor() { # id corpus extra
    cat <<YAML
  - id: $1
    bbox: [-95.5, 29.0, -74.5, 43.5]
    zoom: 7
    fallback: { levels: 0 }
    pyramid: { publish: always }
    source: { path: "$tiles/$2/frames/{frame}/{z}/{x}/{y}.png" }
    frames: { count: 3 }
$3
YAML
}

{ echo "title: levels"; echo "animations:"; demo big 8192 8192 20000 20000 8 1; } > "$work/big8192.yml"
{ echo "title: levels"; echo "animations:"; demo big 16384 16384 20000 20000 8 1; } > "$work/big16384.yml"
{
    echo "title: levels"
    echo "animations:"
    demo odd 5001 3003 20001 20003 9 2
    anchor pal pal ""
    anchor rgba rgb ""
    anchor lossy rgb "    format: webp"
} > "$work/kinds.yml"

peak() { # binary config output -> "wall_s peak_MB"
    rm -rf "$3"
    /usr/bin/time -v -o "$work/time.txt" "$1" build --config "$2" --output "$3" --no-cache --quiet
    awk -F': ' '/Maximum resident set size/ {rss = $2} /Elapsed \(wall clock\)/ {wall = $2} END {
        n = split(wall, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f %.0f\n", s, rss / 1024 }' "$work/time.txt"
}

echo "matsite $("$bin" --version | cut -d' ' -f2), $(nproc) cores${before:+; before: $before}"
echo
echo "| job | binary | wall s | peak RSS MB | level tiles | level bytes |"
echo "|---|---|---|---|---|---|"
for job in big8192 big16384 kinds; do
    for which in ${before:+before} after; do
        b=$bin
        [ "$which" = before ] && b=$before
        read -r wall rss < <(peak "$b" "$work/$job.yml" "$work/site-$which-$job")
        count=$(find "$work/site-$which-$job" -mindepth 4 -path '*/frames/*/*' -type f | wc -l)
        bytes=$(find "$work/site-$which-$job" -mindepth 4 -path '*/frames/*/*' -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
        echo "| $job | $which | $wall | **$rss** | $count | $bytes |"
    done
done
[ -n "$before" ] || exit 0

echo
echo "Level tiles, before against after (frames matched by index):"
python3 - "$work" <<'PY'
import json, os, sys, filecmp
work = sys.argv[1]
bad = 0
for job in ("big8192", "big16384", "kinds"):
    a_root, b_root = f"{work}/site-before-{job}", f"{work}/site-after-{job}"
    for animation in sorted(os.listdir(a_root)):
        frames_a = os.path.join(a_root, animation, "frames")
        if not os.path.isdir(frames_a):
            continue
        frames_b = os.path.join(b_root, animation, "frames")
        # The manifest's frame order: a frame's name need not carry its index.
        def folders(site):
            with open(os.path.join(site, animation, "manifest.json")) as f:
                urls = [frame["url"] for frame in json.load(f)["frames"]]
            return {f"{i:04d}": os.path.splitext(os.path.basename(u))[0] for i, u in enumerate(urls)
                    if os.path.isdir(os.path.join(site, animation, "frames", os.path.splitext(os.path.basename(u))[0]))}
        fa, fb = folders(a_root), folders(b_root)
        if sorted(fa) != sorted(fb):
            print(f"  {job}/{animation}: frames with levels differ: {sorted(fa)} against {sorted(fb)}"); bad += 1
            continue
        same = tiles = 0
        for index in sorted(fa):
            ta, tb = os.path.join(frames_a, fa[index]), os.path.join(frames_b, fb[index])
            list_a = sorted(os.path.relpath(os.path.join(d, f), ta) for d, _, fs in os.walk(ta) for f in fs)
            list_b = sorted(os.path.relpath(os.path.join(d, f), tb) for d, _, fs in os.walk(tb) for f in fs)
            if list_a != list_b:
                print(f"  {job}/{animation} frame {index}: different tiles ({len(list_a)} against {len(list_b)})"); bad += 1
                continue
            tiles += len(list_a)
            same += sum(filecmp.cmp(os.path.join(ta, t), os.path.join(tb, t), shallow=False) for t in list_a)
        print(f"  {job}/{animation}: {len(fa)} frames, {tiles} level tiles, {same} byte-identical")
        bad += tiles - same
print("levels byte-identical" if bad == 0 else f"{bad} differences")
sys.exit(1 if bad else 0)
PY
