#!/usr/bin/env bash
# `matsite deploy` in figures, SFTP, WebDAV and S3 side by side: a cold deploy of the anchor
# job, an unchanged redeploy (0 uploads) and a one-frame window move, each with the files
# and bytes matsite sent, what the server itself logged (files written, requests) and the
# wall time; then the same for a 12-frame window with one level of fallback tiles (a folder
# of tiles per frame). Figures, not a pass/fail test.
#
#   bench/deploy.sh                       # .build/debug/matsite, the rclone it finds
#   MATSITE_BIN=/path/matsite RCLONE=/usr/bin/rclone bench/deploy.sh   # another binary, rclone
#   TARGETS="sftp s3" bench/deploy.sh     # some targets only
#
# The anchor job (bbox W-95.5 S29 E-74.5 N43.5, zoom 7, 8x8 tiles of bench/corpus.py's
# palette corpus) as a local feed: feed/YYYYMMDDHHMM/{z}/{x}/{y}.png, a new time every
# 5 minutes (times 24-27 reuse frames 0-3), `frames: { last: PT110M, step: PT5M }`: 23
# frames, so the frame a move brings in (frame 0's bytes) is new to the target. Targets
# (Tests/deploy/servers.py, on 127.0.0.1, started and stopped here): OpenSSH's sshd (its
# sftp-server logs each file written), nginx's WebDAV module and `rclone serve webdav`
# (each request logged), moto's S3 server (each request logged; a server-side copy is a
# PUT too). RCLONE sets deploy.rclone (to compare rclone versions). Work dir: $BENCH_DIR.
# The fallback job's feed is the deploy tests' (Tests/deploy/test_deploy.py, write_feed):
# 64-px tiles over W-10 S40 E10 N52 at zooms 4 and 5, every 10 minutes, each time its own colours.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
work=${BENCH_DIR:-/tmp/matsite-deploy-bench}
bin=${MATSITE_BIN:-$repo/.build/debug/matsite}
mkdir -p "$work"
python3 -c 'import numpy' 2>/dev/null || pip install -q numpy
if [ ! -f "$work/tiles/pal/frames/23/7/37/53.png" ]; then
    python3 "$here/corpus.py" --out "$work/tiles" >&2
fi
stamp() { date -u -d "2026-11-21T10:00:00Z + $(($1 * 5)) minutes" +%Y%m%d%H%M; }
rm -rf "$work/feed"; mkdir -p "$work/feed"
for i in $(seq 0 27); do ln -s "$work/tiles/pal/frames/$((i % 24))" "$work/feed/$(stamp "$i")"; done
REPO="$repo" MATSITE_BIN="$bin" BENCH_WORK="$work" RCLONE="${RCLONE:-}" TARGETS="${TARGETS:-sftp webdav-nginx webdav-rclone s3}" python3 - <<'PY'
import json, os, re, subprocess, sys, time
from pathlib import Path
sys.path.insert(0, os.path.join(os.environ["REPO"], "Tests", "deploy"))
from servers import KINDS, rclone_binary
from test_deploy import write_feed

work = Path(os.environ["BENCH_WORK"])
binary = os.environ["MATSITE_BIN"]
rclone = os.environ["RCLONE"] or rclone_binary()

# The anchor job as a 23-frame window of its feed (a new time every 5 minutes), and a
# 12-frame window every 10 minutes with one level of fallback tiles (16 frame tiles and 6
# fallback tiles a frame): each as (its animation, seconds between times, the cold build's time).
JOBS = {
    "anchor": ("""\
    bbox: [-95.5, 29.0, -74.5, 43.5]
    zoom: 7
    missing: transparent
    source: { path: "feed/{time}/{z}/{x}/{y}.png" }
    time_format: "%Y%m%d%H%M"
    frames: { last: PT110M, step: PT5M }
""", 300, 23),
    "fallback": ("""\
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 4
    source: { path: "feed-fallback/{time}/{z}/{x}/{y}.png", tile_size: 64 }
    time_format: "%Y%m%d%H%M"
    frames: { last: PT110M, step: PT10M }
    fallback: { levels: 1 }
""", 600, 11),
}

if not (work / "feed-fallback").exists():
    write_feed(work, first=1795255200, count=13, name="feed-fallback")

def config(target, animation):
    (work / "matsite.yml").write_text(f"""\
title: deploy bench
output: site
cache: cache
animations:
  - id: radar
{animation}deploy:
  target: "{target}"
  rclone: "{rclone}"
""")

def build(i, step):
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1795255200 + i * step))
    subprocess.run([binary, "build", "--quiet", "--at", at], cwd=work, check=True)

def deploy(server):
    mark = server.mark()
    started = time.monotonic()
    proc = subprocess.run([binary, "deploy"], cwd=work, env=server.env(), capture_output=True, text=True)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        sys.exit(proc.stderr)
    m = re.search(r"uploaded (\d+) files, ([^;:]+).*?(?:; copied (\d+) on the target)?; \d+ unchanged", proc.stderr)
    writes = server.writes(mark)
    ledger = sum(1 for w in writes if w.path in ("matsite-deploy.json", ".matsite-deploy.json"))
    return m[1], m[2].strip(), m[3] or "0", len(writes) - ledger, ledger, server.requests(mark), wall

version = subprocess.run([rclone, "version"], capture_output=True, text=True).stdout.split()[1]
matsite = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.split()[-1]
print(f"\nmatsite {matsite} ({binary}), rclone {version}, {os.cpu_count()} cores; the anchor job: 23 frames of 1912 x 1646; "
      "the fallback job: 12 frames of 16 64-px tiles at zoom 4, with their zoom-5 fallback tiles\n")
print("| target | job | deploy | files uploaded | bytes uploaded | copied on the server | files the server wrote (+ ledger) | requests logged | wall s |")
print("|---|---|---|---|---|---|---|---|---|")
folder = work / "servers"
subprocess.run(["rm", "-rf", str(folder)])
for kind in os.environ["TARGETS"].split():
    for number, (job, (animation, step, first)) in enumerate(JOBS.items()):
        # Each job on a server of its own, empty at first.
        (folder / f"{kind}-{number}").mkdir(parents=True)
        server = KINDS[kind](folder / f"{kind}-{number}")
        try:
            config(server.target(), animation)
            subprocess.run(["rm", "-rf", str(work / "site"), str(work / "cache")])
            build(first, step)
            for label, at in (("cold", None), ("unchanged redeploy", None), ("window moved one frame", first + 1)):
                if at is not None:
                    build(at, step)
                files, size, copied, written, ledger, requests, wall = deploy(server)
                print(f"| {kind} | {job} | {label} | {files} | {size} | {copied} | {written} (+{ledger}) | {requests} | {wall:.2f} |",
                      flush=True)
        finally:
            server.stop()
PY
