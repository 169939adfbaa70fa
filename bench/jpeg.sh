#!/usr/bin/env bash
# Issue 15's benchmark: a 24-frame true-colour loop from JPEG tiles, built by matsite
# (format: auto, so JPEG frames at the tiles' quality), by GDAL (gdal_translate over a TMS
# description, JPEG out) and by libvips (curl, arrayjoin, crop, jpegsave), in one run on
# one machine. Figures, not a test.
#
#   bench/jpeg.sh                 # needs bench/run.sh's corpus (it makes it if missing)
#   RUNS=3 MATSITE=path/to/matsite bench/jpeg.sh
#
# Tiles: the anchor job's block (zoom 7, x 30-37, y 46-53), each frame's radar (the RGBA
# corpus) over the opaque base map (the RGB corpus), saved as JPEG at quality 85 by Pillow.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
work=${BENCH_DIR:-/tmp/matsite-bench}
port=${PORT:-8079}
runs=${RUNS:-3}
bin=${MATSITE:-$repo/.build/release/matsite}
quality=85
mkdir -p "$work"

need=""
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need="$need nginx"
command -v gdal_translate >/dev/null || need="$need gdal-bin"
command -v vips >/dev/null || need="$need libvips-tools"
if [ -n "$need" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null; fi
python3 -c 'import numpy, PIL' 2>/dev/null || pip install -q numpy Pillow
[ -x "$bin" ] || { echo "no matsite binary at $bin: run bench/run.sh once, or set MATSITE" >&2; exit 1; }
if [ ! -f "$work/tiles/rgb/frames/0/7/30/46.png" ]; then python3 "$here/corpus.py" --out "$work/tiles" >&2; fi

# The JPEG corpus: radar over base map, flattened, quality 85.
if [ ! -f "$work/tiles/jpeg/frames/23/7/37/53.jpg" ]; then
    python3 - "$work/tiles" "$quality" <<'PY'
import os, sys
from PIL import Image
root, quality = sys.argv[1], int(sys.argv[2])
for t in range(24):
    for x in range(30, 38):
        for y in range(46, 54):
            base = Image.open(f"{root}/rgb/frames/{t}/7/{x}/{y}.png").convert("RGBA")
            radar = Image.open(f"{root}/rgba/frames/{t}/7/{x}/{y}.png").convert("RGBA")
            out = f"{root}/jpeg/frames/{t}/7/{x}"
            os.makedirs(out, exist_ok=True)
            Image.alpha_composite(base, radar).convert("RGB").save(f"{out}/{y}.jpg", "JPEG", quality=quality)
PY
fi

mkdir -p "$work/nginx-jpeg/logs" "$work/nginx-jpeg/tmp"
cat > "$work/nginx-jpeg.conf" <<NGINX
daemon off;
worker_processes 2;
pid $work/nginx-jpeg/nginx.pid;
error_log $work/nginx-jpeg/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off; sendfile on; tcp_nodelay on; keepalive_requests 100000;
    types { image/jpeg jpg; }
    client_body_temp_path $work/nginx-jpeg/tmp/body; proxy_temp_path $work/nginx-jpeg/tmp/proxy;
    fastcgi_temp_path $work/nginx-jpeg/tmp/fastcgi; uwsgi_temp_path $work/nginx-jpeg/tmp/uwsgi; scgi_temp_path $work/nginx-jpeg/tmp/scgi;
    server { listen 127.0.0.1:$port; root $work/tiles/jpeg/frames; }
}
NGINX
"$(command -v nginx || echo /usr/sbin/nginx)" -p "$work/nginx-jpeg" -c "$work/nginx-jpeg.conf" &
nginx_pid=$!
trap 'kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/0/7/30/46.jpg" && break; sleep 0.1; done

# The box in pixels at zoom 7 (the pixel-centre rule), relative to tile (30, 46).
read -r cropx cropy width height < <(python3 - <<'PY'
import math
world = 256 * 2 ** 7
px = lambda lon: (lon + 180) / 360 * world
py = lambda lat: (1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * world
x0, x1, y0, y1 = round(px(-95.5)), round(px(-74.5)), round(py(43.5)), round(py(29.0))
print(x0 - 30 * 256, y0 - 46 * 256, x1 - x0, y1 - y0)
PY
)

jobs=$work/jpeg-jobs
rm -rf "$jobs" && mkdir -p "$jobs/gdal"
for f in $(seq 0 23); do
    cat > "$jobs/gdal/$f.xml" <<XML
<GDAL_WMS>
  <Service name="TMS"><ServerUrl>http://127.0.0.1:$port/$f/\${z}/\${x}/\${y}.jpg</ServerUrl></Service>
  <DataWindow>
    <UpperLeftX>-20037508.342789244</UpperLeftX><UpperLeftY>20037508.342789244</UpperLeftY>
    <LowerRightX>20037508.342789244</LowerRightX><LowerRightY>-20037508.342789244</LowerRightY>
    <TileLevel>7</TileLevel><TileCountX>1</TileCountX><TileCountY>1</TileCountY><YOrigin>top</YOrigin>
  </DataWindow>
  <Projection>EPSG:3857</Projection>
  <BlockSizeX>256</BlockSizeX><BlockSizeY>256</BlockSizeY><BandsCount>3</BandsCount>
</GDAL_WMS>
XML
done
{
    echo "title: jpeg bench"
    echo "output: $jobs/site"
    echo "animations:"
    echo "  - id: loop"
    echo "    bbox: [-95.5, 29.0, -74.5, 43.5]"
    echo "    zoom: 7"
    echo "    fallback: { levels: 0 }"
    echo "    source: { tile_size: 256 }"
    echo "    frames:"
    echo "      templates:"
    for f in $(seq 0 23); do echo "        - \"http://127.0.0.1:$port/$f/{z}/{x}/{y}.jpg\""; done
} > "$jobs/matsite.yml"

job_matsite() { rm -rf "$jobs/site"; "$bin" build --config "$jobs/matsite.yml" --no-cache --quiet; }
job_gdal() {
    rm -rf "$jobs/out-gdal" && mkdir -p "$jobs/out-gdal"
    for f in $(seq 0 23); do
        gdal_translate -q -of JPEG -co QUALITY=$quality -projwin_srs EPSG:4326 -projwin -95.5 43.5 -74.5 29.0 \
            "$jobs/gdal/$f.xml" "$jobs/out-gdal/$f.jpg"
    done
}
job_vips() {
    rm -rf "$jobs/out-vips" "$jobs/t" && mkdir -p "$jobs/out-vips" "$jobs/t"
    curl -sS --fail --parallel --parallel-max 16 --create-dirs -o "$jobs/t/#1/#2_#3.jpg" \
        "http://127.0.0.1:$port/[0-23]/7/[30-37]/[46-53].jpg"
    for f in $(seq 0 23); do
        list=""
        for y in $(seq 46 53); do for x in $(seq 30 37); do list="$list $jobs/t/$f/${x}_${y}.jpg"; done; done
        vips arrayjoin "${list# }" "$jobs/t/$f.v" --across 8
        vips crop "$jobs/t/$f.v" "$jobs/out-vips/$f.jpg[Q=$quality]" "$cropx" "$cropy" "$width" "$height"
        rm -f "$jobs/t/$f.v"
    done
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo
echo "24 frames, ${width}x${height} px from 64 JPEG tiles each (quality $quality), nginx on 127.0.0.1:$port; median of $runs"
echo
echo "| tool | wall s | frame bytes (24) |"
echo "|---|---|---|"
for tool in matsite gdal vips; do
    times=$(for _ in $(seq "$runs"); do
        start=$(date +%s%N); "job_$tool" >/dev/null 2>&1; echo "scale=3; ($(date +%s%N) - $start) / 1000000000" | bc
    done | median)
    case $tool in
        matsite) bytes=$(du -cb "$jobs"/site/loop/frames/* | tail -1 | cut -f1) ;;
        *) bytes=$(du -cb "$jobs/out-$tool"/*.jpg | tail -1 | cut -f1) ;;
    esac
    printf "| %s | %s | %s |\n" "$tool" "$times" "$bytes"
done
echo
file "$jobs"/site/loop/frames/0000-* | sed 's/.*: /  matsite frame: /'
file "$jobs/out-gdal/0.jpg" | sed 's/.*: /  gdal frame: /'
