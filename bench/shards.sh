#!/usr/bin/env bash
# Shards against one whole build: figures, not a pass/fail test.
#
#   bench/shards.sh                      # release build, then the runs below
#   DELAY_MS=80 FRAMES=12 bench/shards.sh
#
# Eight animations, each the anchor job's box (W-95.5 S29 E-74.5 N43.5, zoom 7, 8x8 tiles
# of bench/corpus.py's palette corpus) with FRAMES frames (default 6) of its own, served on
# 127.0.0.1 by a small Python server that waits DELAY_MS (default 40) before each answer,
# as a tile server across a network would. Each run starts with an empty site and an
# empty tile cache. Runs: one whole build; 2 shards and 4 shards as parallel processes
# (`build --only`, same config, shared output and cache), as a CI matrix or several cron
# lines would start them. Prints wall and CPU time per run, requests served, and whether
# the shards' site equals the whole build's file for file.
# Work dir: $BENCH_DIR (default /tmp/matsite-shards). Stops its own server.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
work=${BENCH_DIR:-/tmp/matsite-shards}
delay=${DELAY_MS:-40}
frames=${FRAMES:-6}
mkdir -p "$work"
cd "$repo"
python3 -c 'import numpy' 2>/dev/null || pip install -q numpy
scratch=${SCRATCH_PATH:-$repo/.build}
if [ -z "${MATSITE_BIN:-}" ]; then
    swift build -c release --product matsite --static-swift-stdlib --scratch-path "$scratch" >&2
    bin="$scratch/release/matsite"
else
    bin=$MATSITE_BIN
fi
[ -f "$work/tiles/pal/frames/23/7/37/53.png" ] || python3 "$here/corpus.py" --out "$work/tiles" >&2

# The tile server: files under $work/tiles, each answer DELAY_MS late; counts requests.
python3 - "$work/tiles" "$delay" "$work/port" "$work/requests" <<'PY' &
import http.server, os, sys, threading, time
root, delay, port_file, count_file = sys.argv[1], int(sys.argv[2]) / 1000, sys.argv[3], sys.argv[4]
count = 0
lock = threading.Lock()
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
    def do_GET(self):
        global count
        with lock:
            count += 1
            if self.path == "/count":
                body = str(count).encode()
            else:
                body = None
        time.sleep(delay)
        if body is None:
            path = os.path.join(root, self.path.lstrip("/").split("?")[0])
            if ".." in self.path or not os.path.isfile(path):
                self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers(); return
            body = open(path, "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
open(port_file, "w").write(str(server.server_address[1]))
server.serve_forever()
PY
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
rm -f "$work/port"

ids=(a b c d e f g h)
{
    echo "title: Shards benchmark"
    echo "output: $work/site"
    echo "cache: $work/cache"
    echo "animations:"
    for n in "${!ids[@]}"; do
        echo "  - id: ${ids[$n]}"
        echo "    bbox: [-95.5, 29.0, -74.5, 43.5]"
        echo "    zoom: 7"
        echo "    fallback: { levels: 0 }"
        echo "    source: { tile_size: 256 }"
        echo "    frames:"
        echo "      templates:"
        for f in $(seq 0 $((frames - 1))); do
            echo "        - \"http://127.0.0.1:$port/pal/frames/$(((n * frames + f) % 24))/{z}/{x}/{y}.png\""
        done
    done
} > "$work/shards.yml"

requests() { curl -sf "http://127.0.0.1:$port/count"; }
# run LABEL SHARDS: an empty site and cache, then SHARDS parallel builds (1: the whole site)
run() {
    rm -rf "$work/site" "$work/cache" "$work/.site.matsite-lock"
    local before; before=$(requests)
    local start; start=$(date +%s.%N)
    local pids=()
    if [ "$2" = 1 ]; then
        /usr/bin/time -f "%U %S" -o "$work/cpu-0" "$bin" build --config "$work/shards.yml" --quiet &
        pids+=($!)
    else
        local per=$((8 / $2))
        for s in $(seq 0 $(($2 - 1))); do
            local only; only=$(IFS=,; echo "${ids[*]:$((s * per)):$per}")
            /usr/bin/time -f "%U %S" -o "$work/cpu-$s" "$bin" build --config "$work/shards.yml" --only "$only" --quiet &
            pids+=($!)
        done
    fi
    for p in "${pids[@]}"; do wait "$p"; done
    local end; end=$(date +%s.%N)
    local cpu; cpu=$(cat "$work"/cpu-* | awk '{s += $1 + $2} END {printf "%.2f", s}')
    rm -f "$work"/cpu-*
    local after; after=$(requests)
    printf "| %s | %.2f | %s | %d |\n" "$1" "$(echo "$end - $start" | bc)" "$cpu" $((after - before - 1))
}
command -v bc >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bc >/dev/null; }
echo "8 animations x $frames frames x 64 tiles, ${delay} ms per answer, $(nproc) cores"
echo "| run | wall s | CPU s (all processes) | requests |"
echo "|---|---|---|---|"
run "one whole build" 1
rm -rf "$work/whole"; cp -a "$work/site" "$work/whole"
run "2 shards in parallel" 2
diff -r "$work/whole" "$work/site" >/dev/null && two=equal || two=DIFFERENT
run "4 shards in parallel" 4
diff -r "$work/whole" "$work/site" >/dev/null && four=equal || four=DIFFERENT
echo "site after 2 shards vs one build: $two; after 4 shards: $four"
