#!/usr/bin/env python3
"""A simulated day of cron on a live feed: figures, not a pass/fail test.

    python3 bench/day.py [--builds 288] [--bin .build/release/matsite] [--work /tmp/matsite-day]

Starts bench/day_feed.py (a 5-minute radar feed on 127.0.0.1 whose tiles say max-age=300),
then runs `matsite build --at T` 288 times with T moved on 5 minutes each time, as a
5-minute cron would over a day, on one animation: a rolling window of two hours
(`last: PT2H, step: PT5M`, 25 frames) at zoom 6 over the eastern US. For every build it
records the requests the feed answered (200, 304, 404), the frames made new, the tiles a
new frame needs, the cache folder's entries and bytes, the build's CPU time and peak
memory (/usr/bin/time); it prints one line an hour and a summary comparing hours 3 and 24. Run it on an
otherwise idle machine for CPU figures; requests and entries do not depend on load.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(here)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def count_entries(folder):
    files = size = 0
    for root, _, names in os.walk(folder):
        for name in names:
            if name.startswith("."):
                continue
            path = os.path.join(root, name)
            try:
                size += os.lstat(path).st_size
                files += 1
            except FileNotFoundError:
                pass
    return files, size


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--builds", type=int, default=288)
    parser.add_argument("--bin", default=os.environ.get("MATSITE_BIN", os.path.join(repo, ".build/release/matsite")))
    parser.add_argument("--work", default=os.environ.get("BENCH_DIR", "/tmp/matsite-day"))
    args = parser.parse_args()
    if not os.access(args.bin, os.X_OK):
        sys.exit(f"no matsite binary at {args.bin}: swift build -c release --product matsite, or --bin")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    clock, counts = os.path.join(args.work, "now.txt"), os.path.join(args.work, "counts.json")
    start = datetime.datetime(2026, 11, 21, 0, 0, tzinfo=datetime.timezone.utc)
    port = free_port()
    with open(clock, "w") as f:
        f.write(start.strftime("%Y-%m-%dT%H:%M:%SZ"))
    feed = subprocess.Popen([sys.executable, os.path.join(here, "day_feed.py"), "--port", str(port), "--clock", clock, "--counts", counts])
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        config = os.path.join(args.work, "matsite.yml")
        with open(config, "w") as f:
            f.write(f"""title: A day of radar
output: {args.work}/site
cache: {args.work}/cache
http: {{ user_agent: "matsite-bench/1.0 (bench@example.org)" }}
animations:
  - id: radar
    bbox: [-95.5, 29.0, -74.5, 43.5]
    zoom: 6
    source: {{ url: "http://127.0.0.1:{port}/radar/{{time}}/{{z}}/{{x}}/{{y}}.png" }}
    time_format: "%Y%m%d%H%M"
    frames: {{ last: PT2H, step: PT5M }}
""")
        rows, last = [], {"200": 0, "304": 0, "404": 0}
        print("hour  build  requests (200/304/404)  new frames x tiles  ratio  cache entries  cache MB  CPU s  peak MB  wall s", flush=True)
        for i in range(args.builds):
            at = start + datetime.timedelta(minutes=5 * i)
            stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
            with open(clock, "w") as f:
                f.write(stamp)
            began = time.monotonic()
            run = subprocess.run(
                ["/usr/bin/time", "-f", "TIME %U %S %M", args.bin, "build", "--config", config, "--at", stamp], capture_output=True, text=True)
            wall = time.monotonic() - began
            user, system, peak_kb = next(line for line in run.stderr.splitlines() if line.startswith("TIME ")).split()[1:]
            if run.returncode not in (0, 3):
                sys.exit(f"build {i} at {stamp} exited {run.returncode}:\n{run.stderr}")
            summary = next((line for line in run.stderr.splitlines() if line.startswith("built ")), "")
            m = re.search(r"(\d+) frames(?: \((\d+) unchanged\))?, (\d+) tiles", summary)
            frames, unchanged, tiles = int(m.group(1)), int(m.group(2) or 0), int(m.group(3))
            now = json.load(open(counts)) if os.path.exists(counts) else last
            delta = {k: now.get(k, 0) - last.get(k, 0) for k in ("200", "304", "404")}
            last = now
            entries, size = count_entries(os.path.join(args.work, "cache"))
            row = {
                "build": i, "hour": i / 12, "requests": sum(delta.values()), "delta": delta,
                "new": frames - unchanged, "tiles_per_frame": tiles // max(frames, 1),
                "entries": entries, "bytes": size, "cpu": float(user) + float(system),
                "peak": int(peak_kb) / 1024, "wall": wall,
            }
            rows.append(row)
            if i % 12 == 11 or i == 0:
                need = row["new"] * row["tiles_per_frame"]
                ratio = row["requests"] / need if need else float("nan")
                print(f"{row['hour']:4.1f}  {i:5d}  {row['requests']:8d} ({delta['200']}/{delta['304']}/{delta['404']})"
                      f"  {row['new']:6d} x {row['tiles_per_frame']:3d}        {ratio:5.2f}  {entries:13d}  {size / 1e6:8.1f}"
                      f"  {row['cpu']:5.2f}  {row['peak']:7.1f}  {wall:6.2f}", flush=True)
        def window(lo, hi):
            part = [r for r in rows if lo <= r["hour"] < hi]
            if not part:
                return None
            need = sum(r["new"] * r["tiles_per_frame"] for r in part)
            return {
                "requests_per_build": sum(r["requests"] for r in part) / len(part),
                "ratio": sum(r["requests"] for r in part) / need if need else float("nan"),
                "entries": sum(r["entries"] for r in part) / len(part),
                "cpu": sum(r["cpu"] for r in part) / len(part),
                "peak": max(r["peak"] for r in part),
                "wall": sum(r["wall"] for r in part) / len(part),
            }
        print()
        for name, (lo, hi) in (("hour 1-3", (1, 3)), ("hour 3-4", (3, 4)), ("hour 23-24", (23, 24))):
            w = window(lo, hi)
            if w:
                print(f"{name}: {w['requests_per_build']:.1f} requests a build, {w['ratio']:.2f}x the new frames' tiles, "
                      f"{w['entries']:.0f} cache entries, {w['cpu']:.3f} CPU s, {w['wall']:.2f} s wall a build, peak {w['peak']:.1f} MB")
    finally:
        feed.terminate()
        feed.wait()


if __name__ == "__main__":
    main()
