"""A stand-in for `matsite build` of LAYERS_CONFIG, for a binary without `layers:` (until the
Swift side lands): builds the two layers as one-source animations with the real binary, then
writes the layered animation `storm` over their frames as CONTRACT.md describes it
(timeline frames with per-layer indexes, newest layer frame at or before each time, no older
than max_age 20 minutes). To be deleted with LAYERS_STAND_IN in conftest.py."""
from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path

from helpers import build_site, layers_span

ONE_SOURCE = """\
title: Layers
base_map: {{ demo: true }}
animations:
  - id: satellite
    title: Infrared satellite
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 4
    source: {{ path: "sat/{{time}}/{{z}}/{{x}}/{{y}}.jpg" }}
    time_format: "%Y%m%d%H%M"
    format: jpeg
    frames: {{ range: {{ start: 2026-11-21T10:10:00Z, end: {sat_end}, step: PT10M }} }}
  - id: radar
    title: Radar
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 4
    frame_duration_ms: 300
    last_frame_duration_ms: 600
    crossfade_ms: 120
    source: {{ demo: radar }}
    frames: {{ range: {{ start: 2026-11-21T10:00:00Z, end: {steps_end}, step: PT5M }} }}
    fallback: {{ levels: 1 }}
    legend: {{ unit: dBZ, stops: [[10, "#78c8e6"], [40, "#f0e628", heavy], [60, "#c81414"]] }}
"""


def build(folder: Path, steps: int) -> Path:
    site = build_site(folder, ONE_SOURCE.format(**layers_span(steps)))
    compose(site, ["satellite", "radar"])
    return site


def compose(site: Path, ids: list[str]) -> None:
    def t(s):
        return datetime.fromisoformat(s.replace("Z", "+00:00"))
    out = site / "storm"
    out.mkdir()
    sources = {i: json.loads((site / i / "manifest.json").read_text()) for i in ids}
    layers = []
    for i in ids:
        m = sources[i]
        (out / i).mkdir()
        frames = []
        for f in m["frames"]:
            name = Path(f["url"]).name
            shutil.copy(site / i / f["url"], out / i / name)
            frames.append({"index": f["index"], "url": f"{i}/{name}", "time": f["time"], "bytes": f["bytes"], "sha256": f["sha256"]})
        layer = {"id": i, "title": m["title"], "opacity": 1, "frames": frames}
        if "legend" in m:
            layer["legend"] = m["legend"]
        if "fallback" in m and (site / i / "tiles").exists():
            shutil.copytree(site / i / "tiles", out / i / "tiles")
            layer["fallback"] = dict(m["fallback"], url=f"{i}/" + m["fallback"]["url"])
        layers.append(layer)
    top = sources[ids[-1]]
    steps = []
    for n, f in enumerate(top["frames"]):
        row = []
        for layer in layers:
            shown = [lf["index"] for lf in layer["frames"]
                     if t(lf["time"]) <= t(f["time"]) and t(f["time"]) - t(lf["time"]) <= timedelta(minutes=20)]
            row.append(shown[-1] if shown else None)
        steps.append({"index": n, "time": f["time"], "duration_ms": f["duration_ms"], "layers": row})
    manifest = {k: v for k, v in top.items() if k not in ("frames", "legend", "fallback", "id", "title", "skipped")}
    manifest.update({"id": "storm", "title": "Radar over satellite", "frames": steps, "layers": layers})
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    for page in ("index.html", "embed.html", "poster.png"):
        shutil.copy(site / ids[-1] / page, out / page)
