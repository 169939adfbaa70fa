#!/usr/bin/env bash
# matsite's build benchmark: figures, not a pass/fail test.
#
#   bench/run.sh                  # release build, then every job below
#   RUNS=5 CORPORA="pal rgba" bench/run.sh
#   MATSITE=path/to/matsite bench/run.sh   # that binary instead (another build, to compare)
#
# 1. The anchor job of bench/anchors.sh (same bbox W-95.5 S29 E-74.5 N43.5, zoom 7,
#    8x8 tiles, 24 frames, corpus from bench/corpus.py, nginx on 127.0.0.1): cold build
#    (--no-cache), warm rebuild with nothing changed, rebuild after one frame's tiles
#    changed. Wall and CPU seconds, peak RSS, requests, bytes fetched, output bytes.
# 2. Issue 2's 24-frame 8x6-tile animation (a 6-row box at the same zoom): cold build.
# 3. Peak RSS for one 8192x8192 frame (the offline demo source).
# Work dir: $BENCH_DIR (default /tmp/matsite-bench). Stops its own nginx.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
work=${BENCH_DIR:-/tmp/matsite-bench}
port=${PORT:-8078}
runs=${RUNS:-3}
corpora=${CORPORA:-"pal rgba"}
mkdir -p "$work"
cd "$repo"

need=""
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need="$need nginx"
[ -x /usr/bin/time ] || need="$need time"
python3 -c 'import numpy' 2>/dev/null || pip install -q numpy
if [ -n "$need" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null; fi
if [ -n "${MATSITE:-}" ]; then
    bin=$MATSITE
else
    bash scripts/install-deps.sh build
    scratch=${SCRATCH_PATH:-$repo/.build}   # a separate one keeps other builds unblocked
    swift build -c release --product matsite --static-swift-stdlib --scratch-path "$scratch" >&2
    bin="$scratch/release/matsite"
fi

# Corpus: bench/corpus.py, the tiles bench/anchors.sh serves to every tool.
if [ ! -f "$work/tiles/rgba/frames/23/7/37/53.png" ]; then
    python3 "$here/corpus.py" --out "$work/tiles" >&2
fi

mkdir -p "$work/nginx/logs" "$work/nginx/tmp"
cat > "$work/nginx.conf" <<NGINX
daemon off;
worker_processes 2;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on; tcp_nopush on; tcp_nodelay on;
    keepalive_timeout 65; keepalive_requests 100000;
    types { image/png png; }
    client_body_temp_path $work/nginx/tmp/body; proxy_temp_path $work/nginx/tmp/proxy;
    fastcgi_temp_path $work/nginx/tmp/fastcgi; uwsgi_temp_path $work/nginx/tmp/uwsgi; scgi_temp_path $work/nginx/tmp/scgi;
    # Tiles fresh for an hour, as radar tile servers commonly say; /rv/ serves the same
    # files with no-cache, so that every rebuild must revalidate every tile (304s).
    server {
        listen 127.0.0.1:$port; root $work/tiles; expires 1h;
        location /rv/ { alias $work/tiles/; expires off; add_header Cache-Control no-cache; }
    }
}
NGINX
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
"$nginx_bin" -p "$work/nginx" -c "$work/nginx.conf" &
nginx_pid=$!
trap 'kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/pal/frames/0/7/30/46.png" && break; sleep 0.1; done

config() { # corpus bbox output [first frame folder, default 0] [URL path prefix]: 24 frames, one URL template each
    local first=${4:-0} prefix=${5:-$1}
    cat <<YAML
title: bench
output: $3
cache: $work/cache-${prefix//\//-}
http: { concurrency: ${CONCURRENCY:-6} }
animations:
  - id: loop
    title: Anchor job
    bbox: $2
    zoom: 7
    fallback: { levels: 0 }
    source: { tile_size: 256 }
    frames:
      templates:
YAML
    for f in $(seq "$first" $((first + 23))); do
        echo "        - \"http://127.0.0.1:$port/$prefix/frames/$f/{z}/{x}/{y}.png\""
    done
}

# run LABEL ARGS... : prints one table row from /usr/bin/time and matsite's summary
run() {
    local label=$1; shift
    /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$bin" "$@" 2>"$work/err.txt" || { cat "$work/err.txt"; exit 1; }
    read -r wall user sys rss < "$work/time.txt"
    local summary; summary=$(tail -n 1 "$work/err.txt")
    local requests; requests=$(echo "$summary" | grep -o '[0-9]* requests' | cut -d' ' -f1 || true)
    local fetched; fetched=$(echo "$summary" | grep -o '[0-9.]* [KMG]*B fetched' | sed 's/ fetched//' || true)
    local out; out=$(du -sbL "$work/out-frames" 2>/dev/null | cut -f1)
    printf "| %-34s | %6.2f | %6.2f | %7.1f | %8s | %9s | %10s |\n" "$label" "$wall" "$(echo "$user + $sys" | bc)" \
        "$(echo "$rss / 1024" | bc -l)" "${requests:-0}" "${fetched:-0 B}" "$out"
}

median_warm() { # config file: the median of 10 unchanged rebuilds (each is a few tens of ms)
    local all=()
    for i in $(seq 10); do
        local start; start=$(date +%s%N)
        "$bin" build --config "$1" --quiet
        all+=("$(( $(date +%s%N) - start ))")
    done
    printf "%s\n" "${all[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", (a[5] + a[6]) / 2 / 1e9}'
}

median_cold() { # corpus bbox label
    local best=()
    for i in $(seq "$runs"); do
        rm -rf "$work/site" "$work/cache-$1"
        config "$1" "$2" "$work/site" > "$work/bench.yml"
        /usr/bin/time -f "%e" -o "$work/t.txt" "$bin" build --config "$work/bench.yml" --no-cache --quiet
        best+=("$(cat "$work/t.txt")")
    done
    printf "%s\n" "${best[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

echo
echo "matsite $("$bin" --version | cut -d' ' -f2), $(nproc) cores, $runs runs; nginx on 127.0.0.1:$port"
echo
echo "| job | wall s | CPU s | peak RSS MB | requests | fetched | frames bytes |"
echo "|---|---|---|---|---|---|---|"
anchor_box="[-95.5, 29.0, -74.5, 43.5]"
for corpus in $corpora; do
    rm -rf "$work/site" "$work/cache-$corpus"
    config "$corpus" "$anchor_box" "$work/site" > "$work/bench.yml"
    ln -sfn "$work/site/loop/frames" "$work/out-frames"
    run "$corpus: cold (--no-cache)" build --config "$work/bench.yml" --no-cache
    rm -rf "$work/site"
    run "$corpus: cold, filling the cache" build --config "$work/bench.yml"
    run "$corpus: warm, nothing changed" build --config "$work/bench.yml"
    echo "| $corpus: warm, nothing changed, median of 10 | $(median_warm "$work/bench.yml") | | | 0 | | |"
    # The same with a server that makes every tile be revalidated: 304s, no bodies.
    rm -rf "$work/site-rv" "$work/cache-rv-$corpus"
    config "$corpus" "$anchor_box" "$work/site-rv" 0 "rv/$corpus" > "$work/bench-rv.yml"
    "$bin" build --config "$work/bench-rv.yml" --quiet
    run "$corpus: warm, every tile revalidated (304)" build --config "$work/bench-rv.yml"
    # A rolling window, as cron sees it: the oldest frame leaves, a new one arrives (frame
    # folder 24: new URLs, and new content — frame 0's tile rows in reverse order — so it
    # must really be stitched).
    if [ ! -d "$work/tiles/$corpus/frames/24" ]; then
        for src in "$work/tiles/$corpus/frames/0/7/"*/*.png; do
            x=$(basename "$(dirname "$src")"); y=$(basename "$src" .png)
            mkdir -p "$work/tiles/$corpus/frames/24/7/$x"
            cp "$src" "$work/tiles/$corpus/frames/24/7/$x/$((46 + 53 - y)).png"
        done
    fi
    config "$corpus" "$anchor_box" "$work/site" 1 > "$work/bench.yml"
    run "$corpus: window moved by one frame" build --config "$work/bench.yml"
    echo "| $corpus: cold, median of $runs | $(median_cold "$corpus" "$anchor_box") | | | | | |"
done
# Issue 2's job: 8 x 6 tiles (rows 47..52 of the same block).
six_box="[-95.4, 29.9, -73.4, 42.7]"
config pal "$six_box" "$work/site6" > "$work/bench6.yml"
rm -rf "$work/site6"; ln -sfn "$work/site6/loop/frames" "$work/out-frames"
run "pal: 8x6 tiles, cold (--no-cache)" build --config "$work/bench6.yml" --no-cache

# One 8192 x 8192 frame from the offline demo source: peak memory.
box=$(python3 - <<'PY'
import math
world = 256 * 2 ** 8
lon = lambda px: px / world * 360 - 180
lat = lambda py: math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * py / world))))
x0, y0 = 20000, 20000
print(f"[{lon(x0 + 0.2)}, {lat(y0 + 8192 - 0.2)}, {lon(x0 + 8192 - 0.2)}, {lat(y0 + 0.2)}]")
PY
)
cat > "$work/big.yml" <<YAML
title: big
output: $work/site-big
animations:
  - id: big
    bbox: $box
    zoom: 8
    fallback: { levels: 0 }
    source: { demo: radar }
    frames: { count: 1 }
YAML
rm -rf "$work/site-big"; ln -sfn "$work/site-big/big/frames" "$work/out-frames"
run "one 8192x8192 frame (demo source)" build --config "$work/big.yml"
file "$work"/site-big/big/frames/*.png | sed 's/.*: /  frame: /'
