#!/usr/bin/env bash
# A live feed, unattended: figures, not a pass/fail test.
#
#   bench/live.sh          # release build, then the runs below
#
# The anchor job (bbox W-95.5 S29 E-74.5 N43.5, zoom 7, 8x8 tiles of bench/corpus.py's
# palette corpus) served by nginx on 127.0.0.1 as a feed with the time in the URL:
# /feed/YYYYMMDDHHMM/{z}/{x}/{y}.png, a new time every 5 minutes (the corpus' 24 frames,
# reused in turn). Tiles say max-age=600; times the feed has not published yet are 404
# with max-age=600 too. The config is `frames: { last: PT115M, step: PT5M }`, 24 frames.
#
# 1. A cold build (empty cache), then builds with --at moved on by one step each: requests,
#    bytes and wall time per rebuild, frames stitched.
# 2. A build whose newest time is not published yet (left out), then the same build again:
#    what a known-missing newest frame costs.
# 3. A default config's cold build: requests against its frames' tiles.
# Work dir: $BENCH_DIR (default /tmp/matsite-live). Stops its own nginx.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
work=${BENCH_DIR:-/tmp/matsite-live}
port=${PORT:-8079}
mkdir -p "$work"
cd "$repo"

command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >/dev/null; }
python3 -c 'import numpy' 2>/dev/null || pip install -q numpy
bash scripts/install-deps.sh build
scratch=${SCRATCH_PATH:-$repo/.build}
swift build -c release --product matsite --static-swift-stdlib --scratch-path "$scratch" >&2
bin="$scratch/release/matsite"

if [ ! -f "$work/tiles/pal/frames/23/7/37/53.png" ]; then
    python3 "$here/corpus.py" --out "$work/tiles" >&2
fi
# The feed: 28 times from 2026-11-21T10:00Z, every 5 minutes; the last 4 reuse frames 0-3.
stamp() { date -u -d "2026-11-21T10:00:00Z + $(($1 * 5)) minutes" +%Y%m%d%H%M; }
iso() { date -u -d "2026-11-21T10:00:00Z + $(($1 * 5)) minutes" +%Y-%m-%dT%H:%M:%SZ; }
rm -rf "$work/feed"; mkdir -p "$work/feed"
for i in $(seq 0 27); do ln -s "$work/tiles/pal/frames/$((i % 24))" "$work/feed/$(stamp "$i")"; done

mkdir -p "$work/nginx/logs" "$work/nginx/tmp"
cat > "$work/nginx.conf" <<NGINX
daemon off;
worker_processes 2;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log $work/nginx/logs/access.log;
    sendfile on; tcp_nodelay on; keepalive_timeout 65; keepalive_requests 100000;
    types { image/png png; }
    client_body_temp_path $work/nginx/tmp/body; proxy_temp_path $work/nginx/tmp/proxy;
    fastcgi_temp_path $work/nginx/tmp/fastcgi; uwsgi_temp_path $work/nginx/tmp/uwsgi; scgi_temp_path $work/nginx/tmp/scgi;
    server {
        listen 127.0.0.1:$port; root $work;
        location /feed/ { disable_symlinks off; add_header Cache-Control "max-age=600" always; }
    }
}
NGINX
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
"$nginx_bin" -p "$work/nginx" -c "$work/nginx.conf" &
nginx_pid=$!
trap 'kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/feed/$(stamp 0)/7/30/46.png" && break; sleep 0.1; done

cat > "$work/matsite.yml" <<YAML
title: live bench
output: site
cache: cache
animations:
  - id: radar
    bbox: [-95.5, 29.0, -74.5, 43.5]
    zoom: 7
    missing: transparent
    source: { url: "http://127.0.0.1:$port/feed/{time}/{z}/{x}/{y}.png" }
    time_format: "%Y%m%d%H%M"
    frames: { last: PT115M, step: PT5M }
YAML
rm -rf "$work/site" "$work/cache"

requests() { wc -l < "$work/nginx/logs/access.log"; }
bytes() { awk '{s += $10} END {print s + 0}' "$work/nginx/logs/access.log"; }
statuses() { awk '{c[$9]++} END {for (k in c) printf "%s%s x%d", (n++ ? ", " : ""), k, c[k]}' "$work/nginx/logs/access.log"; }
run() { # label, --at index
    : > "$work/nginx/logs/access.log"
    local started ended out
    started=$(date +%s.%N)
    out=$(cd "$work" && "$bin" build --at "$(iso "$2")" 2>&1) || { echo "$out" >&2; exit 1; }
    ended=$(date +%s.%N)
    local frames kept
    frames=$(echo "$out" | grep -o '): [0-9]* frames' | tr -dc 0-9 || true)
    kept=$(echo "$out" | grep -o '([0-9]* unchanged)' | tr -dc 0-9 || true)
    printf "| %-44s | %5s | %9s | %-22s | %6.3f | %s |\n" "$1" "$(requests)" "$(bytes)" "$(statuses)" \
        "$(echo "$ended - $started" | bc)" "$((${frames:-0} - ${kept:-0})) of ${frames:-0}"
}

echo
echo "matsite $("$bin" --version | cut -d' ' -f2), $(nproc) cores; a 24-frame window of 5-minute frames, 64 tiles a frame"
echo
echo "| build | requests | bytes | statuses | wall s | frames stitched of published |"
echo "|---|---|---|---|---|---|"
run "cold, --at 11:55 (24 frames)" 23
run "unchanged rebuild, same --at" 23
run "window moved one step (--at 12:00)" 24
run "window moved one step (--at 12:05)" 25
run "window moved one step (--at 12:10)" 26
run "newest not published yet (--at 12:20)" 28
run "the same again, its 404s cached" 28

# A default config's cold build: its requests against its frames' tiles.
cat > "$work/default.yml" <<YAML
output: site-default
cache: cache-default
animations:
  - id: radar
    bbox: [-95.5, 29.0, -74.5, 43.5]
    zoom: 7
    source: { url: "http://127.0.0.1:$port/feed/{time}/{z}/{x}/{y}.png" }
    time_format: "%Y%m%d%H%M"
    frames: { last: PT115M, step: PT5M }
YAML
rm -rf "$work/site-default" "$work/cache-default"
: > "$work/nginx/logs/access.log"
(cd "$work" && "$bin" build --quiet --config default.yml --at "$(iso 23)")
echo
echo "default config, cold: $(requests) requests for 24 x 64 = 1536 frame tiles ($(echo "scale=2; $(requests) / 1536" | bc)x)"
