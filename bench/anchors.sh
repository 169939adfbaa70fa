#!/usr/bin/env bash
# The anchors: what a user would run instead of matsite, on the same job and the same tiles,
# beside matsite. Figures, not a pass/fail test. Runs from a clone alone: it installs what
# is missing (Debian: nginx, GDAL, libvips, ImageMagick, curl, a C compiler, zlib and
# libdeflate headers; PyPI: numpy, Pillow, pysupercluster-problematy, supercluster's
# algorithm in C++), makes the corpus (bench/corpus.py) and serves it with nginx on 127.0.0.1.
#
#   bash bench/anchors.sh                       # release build of matsite, then every tool
#   MATSITE=.build/release/matsite RUNS=5 CORPORA="pal rgba" bash bench/anchors.sh
#   TOOLS="matsite vips" POINTS=0 bash bench/anchors.sh
#
# The job (the one bench/run.sh times): 24 frames of the box W-95.5 S29 E-74.5 N43.5 at zoom 7
# (8 x 8 tiles a frame, a 1912 x 1646 frame by the pixel-centre rule), one PNG a frame:
#   matsite     matsite build --no-cache (no fallback tiles)
#   vips        curl (6 at once) + vips arrayjoin + crop, PNG
#   gdal        gdal_translate over GDAL's TMS minidriver (6 connections), PNG
#   magick      curl (6 at once) + ImageMagick's convert (+append/-append, crop), PNG
#   limit_zlib  bench/limit.c on the tiles on disk: inflate, copy, deflate once (zlib 6), 2 processes
#   limit_libdeflate   the same with libdeflate 6
# and, unless POINTS=0, N points (POINT_COUNT, 200000) clustered: matsite's point layer (a whole
# build: read the CSV, cluster zooms 0-16, write the levels) against pysupercluster (read
# the CSV, build the index, zooms 0-16, radius 40 px).
# Prints a markdown table of median wall seconds (RUNS, 3) and each frame-maker's frames
# against matsite's, pixel by pixel. Work dir: $ANCHORS_DIR (/tmp/matsite-anchors). Stops its nginx.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
work=${ANCHORS_DIR:-/tmp/matsite-anchors}
port=${PORT:-8079}
runs=${RUNS:-3}
corpora=${CORPORA:-"pal rgba"}
tools=${TOOLS:-"matsite vips gdal magick limit_zlib limit_libdeflate"}
points=${POINT_COUNT:-200000}
frames=24
mkdir -p "$work"

# Installs: only what is missing.
need=()
for pair in nginx:nginx gdal_translate:gdal-bin vips:libvips-tools curl:curl cc:gcc; do
    command -v "${pair%%:*}" >/dev/null || [ -x "/usr/sbin/${pair%%:*}" ] || need+=("${pair#*:}")
done
[ -x /usr/bin/time ] || need+=(time)
# Debian's ImageMagick by its path: another `convert` may come first on PATH.
[ -x /usr/bin/convert ] || need+=(imagemagick)
[ -f /usr/include/zlib.h ] || need+=(zlib1g-dev)
[ -f /usr/include/libdeflate.h ] || need+=(libdeflate-dev)
if [ ${#need[@]} -gt 0 ]; then
    echo "installing: ${need[*]}" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
pip_install() { python3 -m pip install -q "$@" 2>/dev/null || python3 -m pip install -q --break-system-packages "$@"; }
python3 -c 'import numpy, PIL' 2>/dev/null || pip_install numpy Pillow
if [ "${POINTS:-1}" != 0 ]; then
    python3 -c 'import pysupercluster' 2>/dev/null || pip_install pysupercluster-problematy
fi
if [ -n "${MATSITE:-}" ]; then
    bin=$(cd "$(dirname "$MATSITE")" && pwd)/$(basename "$MATSITE")
else
    (cd "$repo" && bash scripts/install-deps.sh build && swift build -c release --product matsite >&2)
    bin=$repo/.build/release/matsite
fi
cc -O2 -Wall -DWITH_LIBDEFLATE -o "$work/limit" "$here/limit.c" -lz -ldeflate

# The corpus, made once.
[ -f "$work/tiles/rgba/frames/$((frames - 1))/7/37/53.png" ] || python3 "$here/corpus.py" --out "$work/tiles" --frames "$frames" >&2

# The box at zoom 7: its pixel window (a pixel is in when its centre is), the tiles under
# it and, for GDAL, the window in the zoom's pixel grid.
eval "$(python3 - <<'PY'
import math
west, south, east, north, zoom = -95.5, 29.0, -74.5, 43.5, 7
world = 256 * 2 ** zoom
px = lambda lon: (lon + 180) / 360 * world
py = lambda lat: (1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * world
x0, x1, y0, y1 = round(px(west)), round(px(east)), round(py(north)), round(py(south))
print(f"X0={x0} Y0={y0} W={x1 - x0} H={y1 - y0} TX0={x0 // 256} TY0={y0 // 256} "
      f"NX={(x1 - 1) // 256 - x0 // 256 + 1} NY={(y1 - 1) // 256 - y0 // 256 + 1} CX={x0 % 256} CY={y0 % 256}")
PY
)"

mkdir -p "$work/nginx/logs" "$work/nginx/tmp"
cat > "$work/nginx.conf" <<NGINX
daemon off;
worker_processes 2;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on; tcp_nodelay on; keepalive_requests 100000;
    types { image/png png; }
    client_body_temp_path $work/nginx/tmp/body; proxy_temp_path $work/nginx/tmp/proxy;
    fastcgi_temp_path $work/nginx/tmp/fastcgi; uwsgi_temp_path $work/nginx/tmp/uwsgi; scgi_temp_path $work/nginx/tmp/scgi;
    server { listen 127.0.0.1:$port; root $work/tiles; }
}
NGINX
"$(command -v nginx || echo /usr/sbin/nginx)" -p "$work/nginx" -c "$work/nginx.conf" &
nginx_pid=$!
trap 'kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null || true' EXIT
# Ready when it answers (or gone, which ends the script).
until curl -sf -o /dev/null "http://127.0.0.1:$port/pal/frames/0/7/$TX0/$TY0.png"; do
    kill -0 $nginx_pid 2>/dev/null || { cat "$work/nginx/logs/error.log" >&2; exit 1; }
    sleep 0.1
done
base=http://127.0.0.1:$port

# fetch CORPUS FRAME DIR: the frame's tiles into DIR/<row>-<column>.png, 6 requests at once.
fetch() {
    local list=() j i
    for j in $(seq 0 $((NY - 1))); do
        for i in $(seq 0 $((NX - 1))); do
            list+=(-o "$3/$j-$i.png" "$base/$1/frames/$2/7/$((TX0 + i))/$((TY0 + j)).png")
        done
    done
    curl -sf --no-progress-meter --parallel --parallel-max 6 "${list[@]}"
}
# The tiles of DIR in row order, for the mosaic tools.
in_rows() { local j i; for j in $(seq 0 $((NY - 1))); do for i in $(seq 0 $((NX - 1))); do echo "$1/$j-$i.png"; done; done; }

# job TOOL CORPUS OUT: the 24 frames as OUT/<frame>.png.
job() {
    local tool=$1 corpus=$2 out=$3 f t
    rm -rf "$out" && mkdir -p "$out"
    case $tool in
    matsite)
        {
            printf 'title: anchors\noutput: %s/site\nanimations:\n  - id: loop\n    bbox: [-95.5, 29.0, -74.5, 43.5]\n' "$out"
            printf '    zoom: 7\n    fallback: { levels: 0 }\n    source: { tile_size: 256 }\n    frames:\n      templates:\n'
            for f in $(seq 0 $((frames - 1))); do echo "        - \"$base/$corpus/frames/$f/{z}/{x}/{y}.png\""; done
        } > "$out/matsite.yml"
        "$bin" build --config "$out/matsite.yml" --no-cache --quiet
        ;;
    vips)
        for f in $(seq 0 $((frames - 1))); do
            t=$out/t$f && mkdir -p "$t" && fetch "$corpus" "$f" "$t"
            vips arrayjoin "$(in_rows "$t" | tr '\n' ' ')" "$t/mosaic.v" --across "$NX"
            vips crop "$t/mosaic.v" "$out/$(printf %04d "$f").png" "$CX" "$CY" "$W" "$H"
            rm -rf "$t"
        done
        ;;
    magick)
        for f in $(seq 0 $((frames - 1))); do
            t=$out/t$f && mkdir -p "$t" && fetch "$corpus" "$f" "$t"
            local rows=() j
            for j in $(seq 0 $((NY - 1))); do rows+=("(" $(in_rows "$t" | sed -n "$((j * NX + 1)),$((j * NX + NX))p") +append ")"); done
            /usr/bin/convert -background none "${rows[@]}" -append -crop "${W}x${H}+$CX+$CY" +repage "PNG32:$out/$(printf %04d "$f").png"
            rm -rf "$t"
        done
        ;;
    gdal)
        for f in $(seq 0 $((frames - 1))); do
            cat > "$out/tms.xml" <<XML
<GDAL_WMS>
  <Service name="TMS"><ServerUrl>$base/$corpus/frames/$f/\${z}/\${x}/\${y}.png</ServerUrl></Service>
  <DataWindow><UpperLeftX>-20037508.34</UpperLeftX><UpperLeftY>20037508.34</UpperLeftY>
    <LowerRightX>20037508.34</LowerRightX><LowerRightY>-20037508.34</LowerRightY>
    <TileLevel>7</TileLevel><TileCountX>1</TileCountX><TileCountY>1</TileCountY><YOrigin>top</YOrigin></DataWindow>
  <Projection>EPSG:3857</Projection><BlockSizeX>256</BlockSizeX><BlockSizeY>256</BlockSizeY>
  <BandsCount>4</BandsCount><MaxConnections>6</MaxConnections>
</GDAL_WMS>
XML
            gdal_translate -q -of PNG -srcwin "$X0" "$Y0" "$W" "$H" "$out/tms.xml" "$out/$(printf %04d "$f").png"
            rm -f "$out"/*.aux.xml
        done
        ;;
    limit_zlib | limit_libdeflate)
        local engine=${tool#limit_} half=$((frames / 2))
        "$work/limit" "$work/tiles/$corpus" "$out" 0 $((half - 1)) "$TX0" "$TY0" "$NX" "$NY" "$CX" "$CY" "$W" "$H" 6 "$engine" &
        "$work/limit" "$work/tiles/$corpus" "$out" "$half" $((frames - 1)) "$TX0" "$TY0" "$NX" "$NY" "$CX" "$CY" "$W" "$H" 6 "$engine"
        wait $!
        ;;
    *) echo "unknown tool $tool" >&2; exit 2 ;;
    esac
}

# The frames a tool made, in loop order (matsite names them by content: its manifest says the order).
frames_of() {
    if [ "$1" = matsite ]; then
        python3 -c 'import json, sys; d = sys.argv[1]; [print(d + "/site/loop/" + f["url"]) for f in json.load(open(d + "/site/loop/manifest.json"))["frames"]]' "$2"
    else
        ls "$2"/*.png
    fi
}

# Every frame of OTHER against matsite's, as RGBA: "identical" or the largest difference.
compare() {
    python3 - "$1" "$2" <<'PY'
import sys
import numpy as np
from PIL import Image
ours, theirs = open(sys.argv[1]).read().split(), open(sys.argv[2]).read().split()
if len(ours) != len(theirs):
    print(f"{len(theirs)} frames against {len(ours)}"); sys.exit()
worst = 0
for a, b in zip(ours, theirs):
    x, y = (np.asarray(Image.open(p).convert("RGBA"), np.int16) for p in (a, b))
    worst = max(worst, 255 if x.shape != y.shape else int(np.abs(x - y).max()))
print("identical" if worst == 0 else f"differs (max {worst})")
PY
}

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

echo
echo "matsite $("$bin" --version | cut -d' ' -f2), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), median of $runs runs;" \
    "${W}x$H frames of ${NX}x$NY tiles, $frames frames; nginx on 127.0.0.1:$port"
echo
echo "| tool | corpus | wall s (median) | frames bytes | pixels against matsite's |"
echo "|---|---|---|---|---|"
for corpus in $corpora; do
    job matsite "$corpus" "$work/out/matsite"
    frames_of matsite "$work/out/matsite" > "$work/reference.txt"
    for tool in $tools; do
        seconds=()
        for _ in $(seq "$runs"); do
            started=$EPOCHREALTIME
            job "$tool" "$corpus" "$work/out/$tool"
            seconds+=("$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')")
        done
        frames_of "$tool" "$work/out/$tool" > "$work/frames.txt"
        bytes=$(xargs du -cbL < "$work/frames.txt" | tail -1 | cut -f1)
        verdict=$([ "$tool" = matsite ] && echo "(reference)" || compare "$work/reference.txt" "$work/frames.txt")
        printf "| %s | %s | %s | %s | %s |\n" "$tool" "$corpus" "$(printf '%s\n' "${seconds[@]}" | median)" "$bytes" "$verdict"
    done
done

[ "${POINTS:-1}" != 0 ] || exit 0
# Points: the same CSV through matsite's point layer and through pysupercluster.
csv=$work/points-$points.csv
[ -f "$csv" ] || python3 - "$points" > "$csv" <<'PY'
import random, sys
count, rng = int(sys.argv[1]), random.Random(36)
hubs = [(rng.uniform(-55, 65), rng.uniform(-160, 160)) for _ in range(40)]
print("lat,lon")
for i in range(count):
    if i % 3 == 0:
        lat, lon = rng.uniform(-80, 80), rng.uniform(-180, 180)
    else:
        lat, lon = hubs[i % len(hubs)]
        lat, lon = max(-85, min(85, lat + rng.gauss(0, 1.0))), max(-180, min(180, lon + rng.gauss(0, 1.5)))
    print(f"{lat:.5f},{lon:.5f}")
PY
mkdir -p "$work/points"
cat > "$work/points/matsite.yml" <<YAML
title: points
output: site
animations:
  - id: pts
    bbox: [-10, 40, 10, 50]
    zoom: 3
    source: { demo: radar }
    frames: { count: 1 }
    points:
      - id: p
        csv: $csv
        cluster: { radius_px: 40, max_zoom: 16 }
YAML
cat > "$work/points/cluster.py" <<'PY'
import sys
import numpy as np
import pysupercluster
points = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)[:, ::-1].copy()  # lon, lat
index = pysupercluster.SuperCluster(points, min_zoom=0, max_zoom=16, radius=40, extent=256)
print(len(index.getClusters(top_left=(-180, 85), bottom_right=(180, -85), zoom=0)), "clusters at zoom 0", file=sys.stderr)
PY
echo
echo "| clustering $points points, zooms 0-16, radius 40 px | wall s (median) | peak RSS MB (median) |"
echo "|---|---|---|"
for tool in matsite pysupercluster; do
    walls=() rss=()
    for _ in $(seq "$runs"); do
        rm -rf "$work/points/site" "$work/points/.matsite-cache"
        if [ $tool = matsite ]; then
            (cd "$work/points" && /usr/bin/time -f "%e %M" -o t.txt "$bin" build --config matsite.yml --no-cache --quiet)
        else
            (cd "$work/points" && /usr/bin/time -f "%e %M" -o t.txt python3 cluster.py "$csv" 2>/dev/null)
        fi
        read -r wall kb < "$work/points/t.txt"
        walls+=("$wall") rss+=("$((kb / 1024))")
    done
    printf "| %s | %s | %s |\n" "$tool" "$(printf '%s\n' "${walls[@]}" | median)" "$(printf '%s\n' "${rss[@]}" | median)"
done
