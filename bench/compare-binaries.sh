#!/usr/bin/env bash
# Two matsite binaries on the same jobs, their sites compared file by file: a check that a
# change meant to alter no output (a refactor) writes the same bytes. Figures, not a test.
#
#   OLD=path/to/old/matsite NEW=.build/release/matsite bash bench/compare-binaries.sh
#   JOBS="anchor golden" OLD=... NEW=... bash bench/compare-binaries.sh
#
# Jobs (JOBS, default all; every build with --at AT, default 2026-11-21T12:00:00Z, so that
# times match):
#   anchor   the anchor job of bench/run.sh and bench/anchors.sh (24 frames of 1912 x 1646
#            from 8 x 8 tiles at zoom 7, bench/corpus.py's tiles over nginx on 127.0.0.1),
#            palette and RGBA tiles, cold (--no-cache); then once more without --at, as
#            bench/run.sh runs it, to show which keys only the build's own time changes
#   golden   Tests/MatsiteKitTests/Layers/Golden/{one-source,layered}.yml (demo source),
#            and each built manifest against the golden file beside it
#   layers   the site bench/layers_browser.py builds (two layers on one timeline, a JPEG
#            satellite from files and the demo radar, and the same two as separate loops)
#   demo     the embedded demo: `matsite build` with no config in an empty folder
# For each job: the files of the two sites by name and sha256 (links followed); for JSON
# files that differ, the keys that differ with both values. Exit 1 if any job differs.
# Work dir: $COMPARE_DIR (/tmp/matsite-compare). Stops its own nginx.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
work=${COMPARE_DIR:-/tmp/matsite-compare}
port=${PORT:-8077}
at=${AT:-2026-11-21T12:00:00Z}
jobs=${JOBS:-"anchor golden layers demo"}
absolute() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
[ -n "${OLD:-}" ] && [ -n "${NEW:-}" ] || { echo "set OLD= and NEW= to two matsite binaries" >&2; exit 2; }
old=$(absolute "$OLD")
new=$(absolute "$NEW")
mkdir -p "$work"
echo "old: $old ($("$old" --version))"
echo "new: $new ($("$new" --version))"
status=0

# compare JOB SITE_OLD SITE_NEW: one line of totals, then each difference.
compare() {
    python3 - "$@" <<'PY' || status=1
import hashlib, json, os, sys

job, a, b = sys.argv[1:4]

def files(root):
    out = {}
    for folder, _, names in os.walk(root, followlinks=True):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = f.read()
    return out

def keys(x, y, path=""):
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            yield from keys(x.get(k, "(absent)"), y.get(k, "(absent)"), f"{path}.{k}")
    elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for i, (p, q) in enumerate(zip(x, y)):
            yield from keys(p, q, f"{path}[{i}]")
    elif x != y:
        yield f"{path or '.'}: {json.dumps(x)[:120]} -> {json.dumps(y)[:120]}"

fa, fb = files(a), files(b)
same = [n for n in fa if n in fb and fa[n] == fb[n]]
print(f"{job}: {len(fa)} files old, {len(fb)} new, {len(same)} byte-identical "
      f"({sum(len(fa[n]) for n in same):,} bytes; frames: "
      f"{sum(1 for n in same if '/frames/' in n or n.startswith('frames/'))})")
differ = False
for n in sorted(set(fa) - set(fb)):
    differ = True; print(f"  only old: {n} ({len(fa[n]):,} bytes)")
for n in sorted(set(fb) - set(fa)):
    differ = True; print(f"  only new: {n} ({len(fb[n]):,} bytes)")
for n in sorted(set(fa) & set(fb)):
    if fa[n] == fb[n]:
        continue
    differ = True
    print(f"  differs: {n} ({len(fa[n]):,} -> {len(fb[n]):,} bytes; sha256 "
          f"{hashlib.sha256(fa[n]).hexdigest()[:12]} -> {hashlib.sha256(fb[n]).hexdigest()[:12]})")
    if n.endswith(".json"):
        try:
            for line in keys(json.loads(fa[n]), json.loads(fb[n])):
                print(f"    {line}")
        except ValueError:
            pass
sys.exit(1 if differ else 0)
PY
}

# golden_check JOB SITE MANIFEST GOLDEN: the built manifest against the golden file.
golden_check() {
    if cmp -s "$2/$3" "$4"; then echo "  $1: $3 is byte for byte $(basename "$4")"
    else echo "  $1: $3 DIFFERS from $(basename "$4")"; status=1; fi
}

for job in $jobs; do
    case $job in
    anchor)
        [ -f "$work/tiles/rgba/frames/23/7/37/53.png" ] || python3 "$here/corpus.py" --out "$work/tiles" >&2
        mkdir -p "$work/nginx/logs" "$work/nginx/tmp"
        cat > "$work/nginx.conf" <<NGINX
daemon off;
worker_processes 2;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off; sendfile on; tcp_nodelay on; keepalive_requests 100000;
    types { image/png png; }
    client_body_temp_path $work/nginx/tmp/body; proxy_temp_path $work/nginx/tmp/proxy;
    fastcgi_temp_path $work/nginx/tmp/fastcgi; uwsgi_temp_path $work/nginx/tmp/uwsgi; scgi_temp_path $work/nginx/tmp/scgi;
    server { listen 127.0.0.1:$port; root $work/tiles; expires 1h; }
}
NGINX
        "$(command -v nginx || echo /usr/sbin/nginx)" -p "$work/nginx" -c "$work/nginx.conf" &
        nginx_pid=$!
        trap 'kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null || true' EXIT
        until curl -sf -o /dev/null "http://127.0.0.1:$port/pal/frames/0/7/30/46.png"; do
            kill -0 $nginx_pid 2>/dev/null || { cat "$work/nginx/logs/error.log" >&2; exit 1; }
            sleep 0.1
        done
        for corpus in pal rgba; do
            for side in old new; do
                dir=$work/anchor-$corpus-$side && rm -rf "$dir" && mkdir -p "$dir"
                {   # bench/run.sh's config
                    printf 'title: bench\noutput: %s/site\ncache: %s/cache\nhttp: { concurrency: 6 }\n' "$dir" "$dir"
                    printf 'animations:\n  - id: loop\n    title: Anchor job\n    bbox: [-95.5, 29.0, -74.5, 43.5]\n'
                    printf '    zoom: 7\n    fallback: { levels: 0 }\n    source: { tile_size: 256 }\n    frames:\n      templates:\n'
                    for f in $(seq 0 23); do echo "        - \"http://127.0.0.1:$port/$corpus/frames/$f/{z}/{x}/{y}.png\""; done
                } > "$dir/matsite.yml"
                bin=${!side}
                "$bin" build --config "$dir/matsite.yml" --no-cache --quiet --at "$at"
                "$bin" build --config "$dir/matsite.yml" --no-cache --quiet --output "$dir/site-now"
            done
            compare "anchor $corpus" "$work/anchor-$corpus-old/site" "$work/anchor-$corpus-new/site"
            compare "anchor $corpus, no --at" "$work/anchor-$corpus-old/site-now" "$work/anchor-$corpus-new/site-now"
        done
        kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null || true
        trap - EXIT
        ;;
    golden)
        golden=$repo/Tests/MatsiteKitTests/Layers/Golden
        for name in one-source layered; do
            for side in old new; do
                dir=$work/golden-$name-$side && rm -rf "$dir" && mkdir -p "$dir"
                cp "$golden/$name.yml" "$dir/matsite.yml"
                (cd "$dir" && "${!side}" build --quiet --at "$at")
            done
            compare "golden $name" "$work/golden-$name-old/site" "$work/golden-$name-new/site"
            animation=$([ "$name" = layered ] && echo storm || echo radar)
            for side in old new; do
                golden_check "$side" "$work/golden-$name-$side/site" "$animation/manifest.json" "$golden/$name-manifest.json"
            done
        done
        ;;
    layers)
        for side in old new; do
            dir=$work/layers-$side && rm -rf "$dir" && mkdir -p "$dir"
            (cd "$repo/Tests/browser" && python3 - "$dir" <<'PY'
import sys
from pathlib import Path
from helpers import layers_config, satellite_tiles
folder = Path(sys.argv[1])
satellite_tiles(folder, 24)
(folder / "matsite.yml").write_text(layers_config(24, separate=True), encoding="utf-8")
PY
            )
            (cd "$dir" && "${!side}" build --quiet --at "$at")
        done
        compare "layers" "$work/layers-old/site" "$work/layers-new/site"
        ;;
    demo)
        for side in old new; do
            dir=$work/demo-$side && rm -rf "$dir" && mkdir -p "$dir"
            (cd "$dir" && "${!side}" build --quiet --at "$at")
        done
        compare "demo" "$work/demo-old/site" "$work/demo-new/site"
        ;;
    *) echo "unknown job: $job" >&2; exit 2 ;;
    esac
done
exit $status
