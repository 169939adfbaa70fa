#!/usr/bin/env bash
# `matsite deploy` in figures: bytes, files and S3 requests for a cold deploy of the anchor
# job, an unchanged redeploy (target: 0 uploads) and a one-frame window move; the same
# three over SFTP (files, bytes, wall time). Figures, not a pass/fail test.
#
#   bench/deploy.sh        # uses .build/debug/matsite unless MATSITE_BIN is set
#
# The anchor job (bbox W-95.5 S29 E-74.5 N43.5, zoom 7, 8x8 tiles of make_tiles.py's
# palette corpus) as a local feed: feed/YYYYMMDDHHMM/{z}/{x}/{y}.png, a new time every
# 5 minutes (times 24-27 reuse frames 0-3), `frames: { last: PT110M, step: PT5M }`: 23
# frames, so the frame a move brings in (frame 0's bytes) is new to the target. Targets: moto's S3
# server (requests counted from its request log) and OpenSSH's sshd, both on 127.0.0.1,
# started and stopped here (Tests/deploy/servers.py). Work dir: $BENCH_DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
anchors=${ANCHORS:-$repo/../shared/bench/anchors}
work=${BENCH_DIR:-/tmp/matsite-deploy-bench}
bin=${MATSITE_BIN:-$repo/.build/debug/matsite}
mkdir -p "$work"
python3 -c 'import numpy' 2>/dev/null || pip install -q numpy
if [ ! -f "$work/tiles/pal/frames/23/7/37/53.png" ]; then
    python3 "$anchors/make_tiles.py" --out "$work/tiles" >&2
fi
stamp() { date -u -d "2026-11-21T10:00:00Z + $(($1 * 5)) minutes" +%Y%m%d%H%M; }
rm -rf "$work/feed"; mkdir -p "$work/feed"
for i in $(seq 0 27); do ln -s "$work/tiles/pal/frames/$((i % 24))" "$work/feed/$(stamp "$i")"; done
REPO="$repo" MATSITE_BIN="$bin" BENCH_WORK="$work" python3 - <<'PY'
import os, re, subprocess, sys, time
from pathlib import Path
sys.path.insert(0, os.path.join(os.environ.get("REPO", "."), "Tests", "deploy"))
from servers import S3Server, SFTPServer

work = Path(os.environ["BENCH_WORK"])
binary = os.environ["MATSITE_BIN"]

def iso(i):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1795255200 + i * 300))

def config(target):
    (work / "matsite.yml").write_text(f"""\
title: deploy bench
output: site
cache: cache
animations:
  - id: radar
    bbox: [-95.5, 29.0, -74.5, 43.5]
    zoom: 7
    missing: transparent
    source: {{ path: "feed/{{time}}/{{z}}/{{x}}/{{y}}.png" }}
    time_format: "%Y%m%d%H%M"
    frames: {{ last: PT110M, step: PT5M }}
deploy:
  target: "{target}"
""")

def build(i):
    subprocess.run([binary, "build", "--quiet", "--at", iso(i)], cwd=work, check=True)

def deploy(server, requests):
    before = requests()
    started = time.monotonic()
    proc = subprocess.run([binary, "deploy"], cwd=work, env=server.env(), capture_output=True, text=True)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        sys.exit(proc.stderr)
    m = re.search(r"uploaded (\d+) files, ([^;:]+).*?(?:; copied (\d+) on the target)?; \d+ unchanged", proc.stderr)
    return m[1], m[2].strip(), m[3] or "0", (requests() - before) if before is not None else "-", wall

folder = work / "servers"
subprocess.run(["rm", "-rf", str(folder)])
folder.mkdir()
(folder / "s3").mkdir(); (folder / "sftp").mkdir()
print(f"\nmatsite {subprocess.run([binary, '--version'], capture_output=True, text=True).stdout.split()[-1]}, rclone "
      f"{subprocess.run(['rclone', 'version'], capture_output=True, text=True).stdout.split()[1]}, {os.cpu_count()} cores; "
      "the anchor job: 23 frames of 1912 x 1646\n")
print("| target | deploy | files uploaded | bytes uploaded | copied on the target | S3 requests | wall s |")
print("|---|---|---|---|---|---|---|")
for kind in ("s3", "sftp"):
    server = S3Server(folder / "s3") if kind == "s3" else SFTPServer(folder / "sftp")
    server.kind = kind
    try:
        if kind == "s3":
            log = folder / "s3" / "moto.log"
            requests = lambda: sum(1 for line in log.read_text(errors="replace").splitlines() if '" 2' in line or '" 3' in line or '" 4' in line)
        else:
            requests = lambda: None
        config(server.target())
        subprocess.run(["rm", "-rf", str(work / "site"), str(work / "cache")])
        build(23)
        for label, step in (("cold (23 frames)", None), ("unchanged redeploy", None), ("window moved one frame", 24)):
            if step is not None:
                build(step)
            files, size, copied, reqs, wall = deploy(server, requests)
            print(f"| {kind} | {label} | {files} | {size} | {copied} | {reqs} | {wall:.2f} |")
    finally:
        server.stop()
PY
