#!/usr/bin/env python3
"""The benchmark tile corpus: 24 frames of a radar-like loop as XYZ tiles, made here.

    python3 bench/corpus.py --out DIR [--frames 24]

Writes DIR/<corpus>/frames/<frame>/7/<x>/<y>.png for the 8 x 8 tiles at zoom 7 (x 30-37,
y 46-53) that cover the benchmark box, W-95.5 S29 E-74.5 N43.5:
  pal   palette PNGs (16 colours, the weakest two echoes half transparent, no echo clear),
        as radar tile servers publish them
  rgba  the same pixels as RGBA PNGs
  rgb   an opaque base map (the same in every frame: frames 1-23 are hard links to frame 0)
The pictures are drawn from a fixed seed (numpy, Pillow), so every run makes the same bytes.
"""
import argparse
import os

import numpy as np
from PIL import Image

ZOOM, XS, YS, SIZE = 7, range(30, 38), range(46, 54), 256
WIDTH, HEIGHT = len(XS) * SIZE, len(YS) * SIZE
# Reflectivity in 5 dBZ steps; index 0 is no echo.
COLOURS = [(0, 0, 0), (120, 200, 240), (60, 150, 230), (20, 80, 220), (40, 220, 60), (20, 170, 40),
           (10, 120, 30), (250, 240, 40), (235, 190, 20), (250, 140, 10), (245, 30, 20),
           (205, 20, 20), (170, 10, 30), (240, 40, 240), (150, 90, 200), (250, 250, 250)]
OPACITY = [0, 128, 192] + [255] * 13


def smooth_noise(rng, cells, shape):
    """Random values on a coarse grid, bilinearly enlarged to `shape`: soft blobs."""
    grid = rng.random((cells + 2, cells + 2))
    ys = np.linspace(0, cells, shape[0], endpoint=False)
    xs = np.linspace(0, cells, shape[1], endpoint=False)
    y0, x0 = ys.astype(int), xs.astype(int)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    a, b = grid[y0][:, x0], grid[y0][:, x0 + 1]
    c, d = grid[y0 + 1][:, x0], grid[y0 + 1][:, x0 + 1]
    return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy


class Weather:
    """Storm cells drifting east-north-east over a textured field, one step per frame."""

    def __init__(self, seed=36):
        rng = np.random.default_rng(seed)
        self.cells = [
            dict(x=rng.uniform(-200, WIDTH), y=rng.uniform(0, HEIGHT), rx=rng.uniform(80, 320), ry=rng.uniform(50, 200),
                 peak=rng.uniform(35, 72), dx=rng.uniform(12, 30), dy=rng.uniform(-10, 4))
            for _ in range(22)
        ]
        # Texture one and a half times the mosaic, so that it can drift with the cells.
        big = (HEIGHT * 3 // 2, WIDTH * 3 // 2)
        self.texture = 0.55 * smooth_noise(rng, 24, big) + 0.3 * smooth_noise(rng, 96, big) + 0.15 * smooth_noise(rng, 320, big)
        self.yy, self.xx = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float32)

    def frame(self, t):
        """The mosaic's palette indices (0-15) at frame `t`."""
        dbz = np.zeros((HEIGHT, WIDTH), np.float32)
        for c in self.cells:
            cx, cy = c["x"] + c["dx"] * t, c["y"] + c["dy"] * t
            d = ((self.xx - cx) / c["rx"]) ** 2 + ((self.yy - cy) / c["ry"]) ** 2
            dbz = np.maximum(dbz, c["peak"] * np.exp(-d))
        ox, oy = 8 * t, 3 * t
        texture = self.texture[oy:oy + HEIGHT, ox:ox + WIDTH]
        dbz = dbz * (0.45 + 0.9 * texture) - 8
        return np.clip(dbz // 5, 0, 15).astype(np.uint8)


def base_map(seed=7):
    """An opaque land-and-water picture: the corpus of tiles that have no transparency."""
    rng = np.random.default_rng(seed)
    height = 0.6 * smooth_noise(rng, 12, (HEIGHT, WIDTH)) + 0.4 * smooth_noise(rng, 160, (HEIGHT, WIDTH))
    land = height > 0.5
    shade = (height * 60).astype(np.int16)
    rgb = np.empty((HEIGHT, WIDTH, 3), np.int16)
    rgb[..., 0] = np.where(land, 170 + shade, 90 + shade // 2)
    rgb[..., 1] = np.where(land, 160 + shade, 130 + shade // 2)
    rgb[..., 2] = np.where(land, 120 + shade // 2, 190 + shade // 2)
    return np.clip(rgb, 0, 255).astype(np.uint8)


def tiles(mosaic):
    """(x, y, tile array) for every tile of the block."""
    for j, y in enumerate(YS):
        for i, x in enumerate(XS):
            yield x, y, mosaic[j * SIZE:(j + 1) * SIZE, i * SIZE:(i + 1) * SIZE]


def path(out, corpus, frame, x, y):
    folder = os.path.join(out, corpus, "frames", str(frame), str(ZOOM), str(x))
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, f"{y}.png")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--frames", type=int, default=24)
    args = parser.parse_args()
    # Padded to 256 entries, so that the tiles are 8-bit palette PNGs as servers write them.
    palette = [v for colour in COLOURS for v in colour] + [0] * (3 * (256 - len(COLOURS)))
    lookup = np.array([colour + (alpha,) for colour, alpha in zip(COLOURS, OPACITY)], np.uint8)
    weather = Weather()
    for t in range(args.frames):
        for x, y, index in tiles(weather.frame(t)):
            image = Image.fromarray(index, "P")
            image.putpalette(palette)
            image.save(path(args.out, "pal", t, x, y), transparency=bytes(OPACITY), compress_level=6)
            Image.fromarray(lookup[index], "RGBA").save(path(args.out, "rgba", t, x, y), compress_level=6)
    for x, y, tile in tiles(base_map()):
        first = path(args.out, "rgb", 0, x, y)
        Image.fromarray(np.ascontiguousarray(tile), "RGB").save(first, compress_level=6)
        for t in range(1, args.frames):
            later = path(args.out, "rgb", t, x, y)
            if os.path.exists(later):
                os.unlink(later)
            os.link(first, later)
    print(f"{args.frames} frames x {len(XS) * len(YS)} tiles of pal, rgba and rgb in {args.out}")


if __name__ == "__main__":
    main()
