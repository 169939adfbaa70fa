"""Stand-in for the Swift side of issue 12 (publishing frame levels), used by the
browser tests only until `matsite build` publishes levels itself.

Cuts every published frame of <site>/<id>/ into the levels /work/PYRAMID.md
fixes (256 px tiles on the global Web Mercator grid, finest level = the frame's
own zoom, coarser levels halving down to the first whose box is at most 1024 px
on its longest side) and adds `pyramid` and each frame's `tiles` to the
manifest. Coarser levels take the top-left pixel of each 2 x 2 block (nearest),
not the palette mode the real build uses: the player does not care how a level
was made, only where its pixels are.

    python3 Tests/browser/pyramid_standin.py SITE [ID]     (needs Pillow)
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

TILE = 256


def _global_px(lon: float, lat: float, zoom: int) -> tuple[float, float]:
    size = TILE * 2 ** zoom
    x = (lon + 180.0) / 360.0 * size
    lat = max(-85.0511287798, min(85.0511287798, lat))
    s = math.sin(math.radians(lat))
    y = (0.5 - math.log((1 + s) / (1 - s)) / (4 * math.pi)) * size
    return x, y


def frame_box(manifest: dict) -> tuple[int, int, int, int]:
    """The frame's pixel box (x0, y0, width, height) at its zoom, by the
    pixel-centre rule of CONTRACT.md."""
    b, z = manifest["bounds"], manifest["zoom"]
    east = b["east"] + 360 if b["east"] < b["west"] else b["east"]
    x0, y0 = _global_px(b["west"], b["north"], z)
    x1, y1 = _global_px(east, b["south"], z)
    x0, y0, x1, y1 = round(x0), round(y0), round(x1), round(y1)
    if "width" in manifest and (x1 - x0, y1 - y0) != (manifest["width"], manifest["height"]):
        raise ValueError(f"pixel box {x1 - x0}x{y1 - y0} does not match the manifest's "
                         f"{manifest['width']}x{manifest['height']}")
    return x0, y0, x1 - x0, y1 - y0


def levels_for(manifest: dict) -> list[dict]:
    x0, y0, w, h = frame_box(manifest)
    z = manifest["zoom"]
    levels = [{"zoom": z, "x0": x0, "y0": y0, "width": w, "height": h}]
    while z > 0 and max(w, h) > 1024:
        nx0, ny0 = x0 // 2, y0 // 2
        nx1, ny1 = -(-(x0 + w) // 2), -(-(y0 + h) // 2)
        x0, y0, w, h, z = nx0, ny0, nx1 - nx0, ny1 - ny0, z - 1
        levels.append({"zoom": z, "x0": x0, "y0": y0, "width": w, "height": h})
    return list(reversed(levels))


def cut(site: Path, anim: str = "radar") -> dict:
    # Pillow only here: the tests import frame_box without it.
    from PIL import Image

    folder = site / anim
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    levels = levels_for(manifest)
    for frame in manifest["frames"]:
        stem = frame["url"][: -len(".png")]
        img = Image.open(folder / frame["url"]).convert("RGBA")
        # Finest first; each coarser level from the one below it.
        for i, lv in enumerate(reversed(levels)):
            if i > 0:
                prev = levels[len(levels) - i]
                # Place the finer level on its level-aligned canvas, then take every other pixel.
                off_x, off_y = prev["x0"] - 2 * lv["x0"], prev["y0"] - 2 * lv["y0"]
                big = Image.new("RGBA", (2 * lv["width"], 2 * lv["height"]), (0, 0, 0, 0))
                big.paste(img, (off_x, off_y))
                img = big.resize((lv["width"], lv["height"]), Image.NEAREST, reducing_gap=None)
            z = lv["zoom"]
            for ty in range(lv["y0"] // TILE, (lv["y0"] + lv["height"] - 1) // TILE + 1):
                for tx in range(lv["x0"] // TILE, (lv["x0"] + lv["width"] - 1) // TILE + 1):
                    tile = Image.new("RGBA", (TILE, TILE), (0, 0, 0, 0))
                    tile.paste(img, (lv["x0"] - tx * TILE, lv["y0"] - ty * TILE))
                    out = folder / stem / str(z) / str(tx) / f"{ty}.png"
                    out.parent.mkdir(parents=True, exist_ok=True)
                    tile.save(out, optimize=False)
        frame["tiles"] = stem + "/{z}/{x}/{y}.png"
    manifest["pyramid"] = {"tile_size": TILE, "min_zoom": levels[0]["zoom"], "max_zoom": levels[-1]["zoom"],
                           "levels": levels}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return manifest


if __name__ == "__main__":
    m = cut(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "radar")
    print(json.dumps(m["pyramid"]))
