"""What an animation's posters cost (issue 26): figures, not a test.

Builds three small loops from scratch with one binary, RUNS times each, and prints per
loop the poster files' bytes, a frame's bytes for scale, and the build's CPU seconds
(user + system of the `matsite build` process, the median of the runs; CPU time, not wall
time, so a loaded machine changes it little):

  demo   the offline demo source over its demo base map, 6 frames at zoom 5 (palette PNG
         frames; the build also draws the demo base map's 341 tiles)
  jpeg   opaque photographic JPEG tiles from a local folder, 6 frames at zoom 5 (JPEG frames),
         no base map
  webp   the demo source with `format: webp`, 6 frames at zoom 5 (lossy WebP frames, with
         alpha), no base map

    python3 bench/poster.py [--runs 3] [--work DIR]      # MATSITE=path/to/matsite

Needs Pillow (the JPEG tiles).
"""
from __future__ import annotations

import argparse
import io
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

from PIL import Image

REPO = Path(__file__).resolve().parents[1]

LOOP = """\
title: Poster bench
{base_map}
animations:
  - id: radar
    title: Poster bench
    bbox: [-11.0, 38.0, 12.0, 53.0]
    zoom: 5
    frame_duration_ms: 300
    {extra}
    source: {{ {source} }}
    frames: {{ count: 6 }}
"""

LOOPS = {
    "demo": LOOP.format(base_map="base_map: { demo: true }", extra="format: auto", source="demo: radar"),
    "jpeg": LOOP.format(base_map="", extra="format: auto", source='path: "tiles/{frame}/{z}/{x}/{y}.jpg"'),
    "webp": LOOP.format(base_map="", extra="format: webp", source="demo: radar"),
}


def jpeg_tiles(folder: Path) -> None:
    """Opaque, photographic JPEG tiles (thousands of colours) under the box at zoom 5."""
    for frame in range(6):
        for x in range(14, 18):
            for y in range(9, 13):
                out = folder / "tiles" / str(frame) / "5" / str(x)
                if (out / f"{y}.jpg").exists():
                    continue
                noise = Image.effect_noise((256, 256), 30 + 5 * frame).convert("RGB")
                base = Image.linear_gradient("L").convert("RGB").resize((256, 256))
                tint = Image.new("RGB", (256, 256), (50 + 30 * (x - 14), 90 + 20 * frame, 120 + 25 * (y - 9)))
                image = Image.blend(Image.blend(base, tint, 0.6), noise, 0.35)
                out.mkdir(parents=True, exist_ok=True)
                buffer = io.BytesIO()
                image.save(buffer, "JPEG", quality=85)
                (out / f"{y}.jpg").write_bytes(buffer.getvalue())


def build(binary: str, folder: Path) -> float:
    """One build from nothing; the CPU seconds of the child process."""
    site = folder / "site"
    subprocess.run(["rm", "-rf", str(site), str(folder / ".matsite-cache")], check=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([binary, "build", "--config", str(folder / "matsite.yml"), "--output", str(site), "--quiet"],
                          cwd=folder, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"build failed in {folder}: {proc.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", default="/tmp/matsite-bench-poster")
    args = ap.parse_args()
    binary = os.environ.get("MATSITE", str(REPO / ".build" / "debug" / "matsite"))
    work = Path(args.work)
    print(f"binary: {binary}")
    print(f"{'loop':6} {'frame format':12} {'a frame':>9} {'poster files':42} {'build CPU s':>11}")
    for name, config in LOOPS.items():
        folder = work / name
        folder.mkdir(parents=True, exist_ok=True)
        if name == "jpeg":
            jpeg_tiles(folder)
        (folder / "matsite.yml").write_text(config, encoding="utf-8")
        cpu = [build(binary, folder) for _ in range(args.runs)]
        animation = folder / "site" / "radar"
        manifest = json.loads((animation / "manifest.json").read_text(encoding="utf-8"))
        frame = animation / manifest["frames"][-1]["url"]
        posters = sorted(p for p in animation.iterdir() if p.name.startswith(("poster", "preview")))
        files = ", ".join(f"{p.name.split('-')[0] if '-' in p.name else p.name} {p.stat().st_size}" for p in posters)
        print(f"{name:6} {frame.suffix[1:]:12} {frame.stat().st_size:>9} {files:42} {statistics.median(cpu):>11.2f}"
              f"   (runs: {', '.join(f'{c:.2f}' for c in cpu)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
