"""Stand-in for the Swift side of issue 35, item 1 (reduced levels of single-image
frames), for the browser tests with a binary that does not write them
(conftest.LEVELS_STAND_IN); the player's tests were written against it first.

For every frame of <site>/<id>/manifest.json whose longer side exceeds 640 px, writes
halvings beside it, `frames/<hash>/r1.png` (half), `r2.png` (a quarter)... down to the
first at most 640 px on its longer side, and lists them in the frame's `levels`,
coarsest first: {"url", "width", "height", "bytes"}. Box-filtered with Pillow: the
player does not care how a level was made, only which one it asks for.

    python3 Tests/browser/levels_standin.py SITE [ID]     (needs Pillow)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

SMALL = 640


def cut(site: Path, anim: str = "radar") -> None:
    from PIL import Image
    folder = site / anim
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    frames = [f for layer in manifest.get("layers") or [] for f in layer["frames"]] or manifest["frames"]
    for frame in frames:
        image = Image.open(folder / frame["url"])
        image.load()
        if max(image.size) <= SMALL:
            frame.pop("levels", None)
            continue
        stem = Path(frame["url"]).with_suffix("")
        ext = Path(frame["url"]).suffix
        levels, k, current = [], 1, image.convert("RGBA")
        while max(current.size) > SMALL:
            size = ((image.width + 2 ** k - 1) // 2 ** k, (image.height + 2 ** k - 1) // 2 ** k)
            current = image.convert("RGBA").resize(size, Image.BOX)
            url = f"{stem}/r{k}{ext}"
            out = folder / url
            out.parent.mkdir(parents=True, exist_ok=True)
            current.save(out)
            levels.append({"url": url, "width": size[0], "height": size[1], "bytes": out.stat().st_size})
            k += 1
        frame["levels"] = list(reversed(levels))
    path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")


if __name__ == "__main__":
    cut(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "radar")
