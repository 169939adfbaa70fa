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

from helpers import SEPARATE_LAYERS, build_site, layers_span, with_levels


def build(folder: Path, steps: int, levels: bool = False) -> Path:
    head = "title: Layers\nbase_map: { demo: true }\nanimations:\n"
    config = head + SEPARATE_LAYERS.format(**layers_span(steps))
    site = build_site(folder, with_levels(config) if levels else config)
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
        # Each layer's files in its folder, as a one-source animation has them in its own.
        shutil.copytree(site / i / "frames", out / i / "frames")
        frames = []
        for f in m["frames"]:
            g = {k: f[k] for k in ("index", "time", "bytes", "sha256") if k in f}
            g["url"] = f"{i}/{f['url']}"
            if "tiles" in f:
                g["tiles"] = f"{i}/{f['tiles']}"
            frames.append(g)
        layer = {"id": i, "title": m["title"], "opacity": 1, "frames": frames}
        for key in ("legend", "pyramid"):
            if key in m:
                layer[key] = m[key]
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
    manifest = {k: v for k, v in top.items() if k not in ("frames", "legend", "fallback", "pyramid", "id", "title", "skipped")}
    manifest.update({"id": "storm", "title": "Radar over satellite", "frames": steps, "layers": layers})
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    for page in ("index.html", "embed.html", "poster.png"):
        shutil.copy(site / ids[-1] / page, out / page)
