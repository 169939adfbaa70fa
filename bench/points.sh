#!/usr/bin/env bash
# Point layer clustering (issue 13): figures, not a pass/fail test.
#
#   bench/points.sh                 # 1,000,000 points, zooms 0-16, release build
#   N=200000 TIMED=1 bench/points.sh
#
# Builds an offline site (the demo source, one small frame) whose one point layer is a CSV
# of N points, 60% spread over the world and 40% in 50 dense clusters (seeded), clustered
# from zoom 0 to 16 (published levels 0-17). Prints: the build's wall time and peak RSS
# (/usr/bin/time -v), the time matsite reports for clustering and writing the layer, and
# the published bytes per zoom (and how a large level is split into tiles), then an unchanged
# rebuild (the layer linked, not clustered again). TIMED=1 gives every point a time over 24 frames (PT5M,
# window PT30M), so each level also carries counts over time (per slot). A build without the layer is
# timed too, so what the points cost stands apart.
# Work dir: $BENCH_DIR (default /tmp/matsite-bench-points).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
work=${BENCH_DIR:-/tmp/matsite-bench-points}
n=${N:-1000000}
timed=${TIMED:-0}
mkdir -p "$work"
cd "$repo"
[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends time >/dev/null; }
scratch=${SCRATCH_PATH:-$repo/.build}
if [ -z "${MATSITE_BIN:-}" ]; then
    swift build -c release --product matsite --scratch-path "$scratch" >&2
    bin="$scratch/release/matsite"
else
    bin=$MATSITE_BIN
fi

csv="$work/points-$n-$timed.csv"
if [ ! -f "$csv" ]; then
    python3 - "$n" "$timed" > "$csv" <<'PY'
import random, sys
n, timed = int(sys.argv[1]), sys.argv[2] == "1"
rng = random.Random(13)
centres = [(rng.uniform(-60, 60), rng.uniform(-170, 170)) for _ in range(50)]
out = sys.stdout
out.write("lat,lon,time\n" if timed else "lat,lon\n")
base = 1795255200  # 2026-11-21T10:00:00Z
for i in range(n):
    if i % 5 < 3:
        lat, lon = rng.uniform(-85, 85), rng.uniform(-180, 180)
    else:
        c = centres[i % 50]
        lat, lon = c[0] + rng.gauss(0, 0.5), c[1] + rng.gauss(0, 0.5)
        lat = max(-85, min(85, lat))
        lon = max(-180, min(180, lon))
    if timed:
        out.write(f"{lat:.5f},{lon:.5f},{base - 1800 + rng.randrange(0, 2 * 3600)}\n")
    else:
        out.write(f"{lat:.5f},{lon:.5f}\n")
PY
fi

frames="frames: { count: 1 }"
time_keys=""
if [ "$timed" = 1 ]; then
    frames="frames: { range: { start: 2026-11-21T10:00:00Z, end: 2026-11-21T11:55:00Z, step: PT5M } }"
    time_keys="time: time, window: PT30M,"
fi
config() {
    cat <<YML
title: Points benchmark
output: site
cache: cache
animations:
  - id: bench
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 2
    source: { demo: radar }
    $frames
$1
YML
}
config "" > "$work/none.yml"
config "    points:
      - { id: pts, csv: $(basename "$csv"), $time_keys max_points: 20000000, cluster: { radius_px: 40, min_zoom: 0, max_zoom: 16 } }" > "$work/points.yml"

run() { # name config [keep: rebuild over the site the run before made]
    [ "${3:-}" = keep ] || rm -rf "$work/site" "$work/.site.matsite-lock"
    /usr/bin/time -v "$bin" build --config "$work/$2" --verbose 2> "$work/$1.log" >/dev/null || { cat "$work/$1.log" >&2; exit 1; }
    local wall rss user sys cpu
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/$1.log")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/$1.log")
    user=$(sed -n 's/.*User time (seconds): //p' "$work/$1.log")
    sys=$(sed -n 's/.*System time (seconds): //p' "$work/$1.log")
    cpu=$(sed -n 's/.*Percent of CPU this job got: //p' "$work/$1.log")
    # CPU seconds say what the work costs when other jobs share the cores (CPU% below 100).
    echo "$1: wall $wall, CPU user ${user} s + system ${sys} s (${cpu} of a core), peak RSS $((rss / 1024)) MB"
}
echo "points: $n ($( [ "$timed" = 1 ] && echo "timed, 24 frames" || echo "untimed")), zooms 0-16, radius 40 px, $(nproc) cores"
run without-points none.yml
run with-points points.yml
grep -o "points pts: .*" "$work/with-points.log" || true
# The same input again: the layer is not read or clustered, its files are linked.
run unchanged-rebuild points.yml keep
grep -o "points pts: .*" "$work/unchanged-rebuild.log" || true
python3 - "$work/site/bench/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
layer = m["points"][0]
total = 0
print("zoom  items      bytes  files (largest tiled level: bytes of its largest tile)")
folder = sys.argv[1].rsplit("/", 1)[0]
for l in layer["levels"]:
    total += l["bytes"]
    note = "1"
    if "tiles" in l:
        tiles = json.load(open(folder + "/" + l["url"]))["tiles"]
        import os
        largest = max(os.path.getsize(folder + "/" + t) for t in tiles.values())
        zooms = sorted({int(k.split("/")[0]) for k in tiles})
        note = f"{l['tiles']} tiles of zoom {zooms[0]}-{zooms[-1]} + index; largest tile {largest}"
    print(f"{l['zoom']:>4}  {l['items']:>9}  {l['bytes']:>10}  {note}")
print(f"all   {'':>9}  {total:>10}")
PY
