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
#   MOVES=10 JOBS="fallback anchor" bench/deploy.sh   # moves per job (10), jobs (fallback)
#   JOBS="points points-feed" POINTS=5000 bench/deploy.sh   # the fallback job with a timed point layer
#
# Per target and job: a cold deploy, an unchanged one, then MOVES one-frame window moves
# with the default grace, each beside `rclone sync` of the same site to a second server of
# the same kind: the change (site files whose bytes at their path changed), what matsite
# uploaded (site files, ledger bytes), the bytes each sent on the wire (a counting proxy,
# Tests/deploy/servers.py's FaultProxy) and the requests each server logged. The anchor
# job's feed has 24 frames, so its moves past the first bring back frames still on the
# target (in their grace period): the fallback job, a new frame every move, is the default.
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
# The points jobs add a timed point layer to it (POINTS seeded reports, window PT30M, zooms
# 0-14): "points" from one document covering every move, "points-feed" from a document of
# the last three hours' reports, rewritten before each build; the column "of which point
# data" is the part of the change under <id>/points/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
work=${BENCH_DIR:-/tmp/matsite-deploy-bench}
bin=${MATSITE_BIN:-$repo/.build/debug/matsite}
mkdir -p "$work"
if [[ " ${JOBS:-fallback} " == *" anchor "* ]]; then
    python3 -c 'import numpy' 2>/dev/null || pip install -q numpy
    if [ ! -f "$work/tiles/pal/frames/23/7/37/53.png" ]; then
        python3 "$here/corpus.py" --out "$work/tiles" >&2
    fi
    stamp() { date -u -d "2026-11-21T10:00:00Z + $(($1 * 5)) minutes" +%Y%m%d%H%M; }
    rm -rf "$work/feed"; mkdir -p "$work/feed"
    for i in $(seq 0 $((27 + ${MOVES:-10}))); do ln -s "$work/tiles/pal/frames/$((i % 24))" "$work/feed/$(stamp "$i")"; done
fi
REPO="$repo" MATSITE_BIN="$bin" BENCH_WORK="$work" RCLONE="${RCLONE:-}" TARGETS="${TARGETS:-sftp webdav-nginx webdav-rclone s3}" MOVES="${MOVES:-10}" JOBS="${JOBS:-fallback}" python3 - <<'PY'
import json, os, re, subprocess, sys, time
from pathlib import Path
sys.path.insert(0, os.path.join(os.environ["REPO"], "Tests", "deploy"))
from servers import KINDS, FaultProxy, rclone_binary
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
# The fallback job with a timed point layer of POINTS reports (default 5,000, window PT30M,
# zooms 0-14: 16 levels): "points" reads one document that covers every move (its levels
# should stay as they are), "points-feed" a feed of the last three hours' reports, which
# changes with every move as a live feed does.
POINT_LAYER = """    points:
      - id: reports
        geojson: reports.geojson
        time: time
        window: PT30M
        label: kind
"""
JOBS["points"] = (JOBS["fallback"][0] + POINT_LAYER, 600, 11)
JOBS["points-feed"] = JOBS["points"]


def reports(first, last):
    """The bench's reports whose times fall from `first` through `last` (epoch seconds), as
    GeoJSON: POINTS reports in all, seeded, over the fallback job's box, their times spread
    from an hour before the cold build's first frame to the last move's frame."""
    import random
    rng = random.Random(38)
    start, end = 1795255200 - 3600, 1795255200 + (11 + int(os.environ.get("MOVES", "10"))) * 600
    features = []
    for i in range(int(os.environ.get("POINTS", "5000"))):
        lon, lat, t = rng.uniform(-10, 10), rng.uniform(40, 52), rng.randrange(start, end + 1)
        if first <= t <= last:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
            features.append(f'{{"type":"Feature","geometry":{{"type":"Point","coordinates":[{lon:.5f},{lat:.5f}]}},'
                            f'"properties":{{"time":"{stamp}","kind":"r{i}"}}}}')
    (work / "reports.geojson").write_text('{"type":"FeatureCollection","features":[\n' + ",\n".join(features) + "\n]}\n")


# Before each build of a job at time index i: its point document.
PREPARE = {
    "points": lambda i: reports(0, 2**40),
    "points-feed": lambda i: reports(1795255200 + i * 600 - 3 * 3600, 1795255200 + i * 600),
}

# Times enough for the cold window and every move, each its own colours (a new frame per move).
count = 12 + int(os.environ.get("MOVES", "10")) + 1
if not (work / "feed-fallback" / time.strftime("%Y%m%d%H%M", time.gmtime(1795255200 + (count - 1) * 600))).exists():
    write_feed(work, first=1795255200, count=count, name="feed-fallback")
JOBS = {name: JOBS[name] for name in os.environ.get("JOBS", "fallback").split()}

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

LEDGER = ("matsite-deploy.json", ".matsite-deploy.json")


def ledger_files(tree):
    return {p: b for p, b in tree.items() if p in LEDGER or p.startswith("matsite-deploy/")}


def deploy(server, proxy):
    """One deploy through `proxy`: files and bytes of the site uploaded, ledger bytes
    written (its files new or changed on the target), bytes sent to the server on the
    wire, requests the server logged (reads of the test aside: there are none here), wall s."""
    before = ledger_files(server.tree())
    mark, sent = server.mark(), proxy.sent
    started = time.monotonic()
    proc = subprocess.run([binary, "deploy"], cwd=work, env=proxy.env(server), capture_output=True, text=True)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        sys.exit(proc.stderr)
    m = re.search(r"uploaded (\d+) files, ([\d.]+) (B|KB|MB|GB)", proc.stderr)
    uploaded = float(m[2]) * 1000 ** ["B", "KB", "MB", "GB"].index(m[3])
    after = ledger_files(server.tree())
    # Every ledger write, where the server logs its size (sftp-server, nginx); elsewhere
    # the ledger files new or changed (a file written twice counts once).
    sized = [w.bytes for w in server.writes(mark) if w.path and (w.path in LEDGER or w.path.startswith("matsite-deploy/")) and w.bytes]
    ledger = sum(sized) if sized else sum(len(b) for p, b in after.items() if before.get(p) != b)
    return int(m[1]), uploaded, ledger, proxy.sent - sent, server.requests(mark), wall


def rclone_sync(server, proxy, target):
    """`rclone sync` of the same site to a server of its own, as people do instead."""
    mark, sent = server.mark(), proxy.sent
    started = time.monotonic()
    proc = subprocess.run([rclone, "sync", str(work / "site"), target, "--exclude", ".*", "--exclude", ".*/**"],
                          env=proxy.env(server), capture_output=True, text=True)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        sys.exit(proc.stderr)
    return proxy.sent - sent, server.requests(mark), wall


def site_files():
    root = work / "site"
    return {str(p.relative_to(root)): p.stat().st_size for p in root.rglob("*")
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)}


def site_bytes():
    root = work / "site"
    return {path: (root / path).read_bytes() for path in site_files()}


MOVES = int(os.environ.get("MOVES", "10"))
version = subprocess.run([rclone, "version"], capture_output=True, text=True).stdout.split()[1]
matsite = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.split()[-1]
print(f"\nmatsite {matsite} ({binary}), rclone {version}, {os.cpu_count()} cores; the anchor job: 23 frames of 1912 x 1646; "
      f"the fallback job: 12 frames of 16 64-px tiles at zoom 4, with their zoom-5 fallback tiles; the points jobs: the fallback "
      f"job with a timed layer of {os.environ.get('POINTS', '5000')} reports (points-feed: the last 3 hours' of them); "
      f"{MOVES} one-frame moves, default grace (PT24H)\n")
print("change: the site files whose bytes at their path changed (new frames and tiles, rewritten manifests, pages, poster); "
      "matsite: site files uploaded + ledger bytes written; wire: bytes sent to the server through a counting proxy; "
      "requests: the server's own log\n")
print("| target | job | deploy | change | of which point data | matsite: files uploaded + ledger written | (files + ledger) / change | "
      "matsite wire | matsite requests | rclone sync wire | rclone sync requests |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
folder = work / "servers"
subprocess.run(["rm", "-rf", str(folder)])


def kb(n):
    return f"{n / 1000:.1f} KB"


for kind in os.environ["TARGETS"].split():
    for number, (job, (animation, step, first)) in enumerate(JOBS.items()):
        # Each job on a server of its own for matsite and one for rclone sync, empty at first.
        (folder / f"{kind}-{number}").mkdir(parents=True)
        (folder / f"{kind}-{number}-sync").mkdir(parents=True)
        server = KINDS[kind](folder / f"{kind}-{number}")
        other = KINDS[kind](folder / f"{kind}-{number}-sync")
        proxy, other_proxy = FaultProxy(server.port), FaultProxy(other.port)
        try:
            config(server.target(), animation)
            subprocess.run(["rm", "-rf", str(work / "site"), str(work / "cache")])
            prepare = PREPARE.get(job, lambda i: None)
            prepare(first)
            build(first, step)
            previous = {}
            for move in range(MOVES + 2):
                label = "cold" if move == 0 else "unchanged" if move == 1 else f"move {move - 1}"
                if move >= 2:
                    prepare(first + move - 1)
                    build(first + move - 1, step)
                files = site_bytes()
                change = sum(len(b) for p, b in files.items() if previous.get(p) != b) if move != 1 else 0
                points = sum(len(b) for p, b in files.items() if previous.get(p) != b and "/points/" in p) if move != 1 else 0
                previous = files
                files_up, uploaded, ledger, wire, requests, wall = deploy(server, proxy)
                sync_wire, sync_requests, _ = rclone_sync(other, other_proxy, other.target())
                ratio = f"{(uploaded + ledger) / change:.2f}" if change else "-"
                print(f"| {kind} | {job} | {label} | {kb(change)} | {kb(points)} | {files_up} files {kb(uploaded)} + {kb(ledger)} | {ratio} | "
                      f"{kb(wire)} | {requests} | {kb(sync_wire)} | {sync_requests} |", flush=True)
        finally:
            proxy.stop()
            other_proxy.stop()
            server.stop()
            other.stop()
PY
