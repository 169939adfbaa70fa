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

    def __init__(self, seed=36, width=WIDTH, height=HEIGHT):
        """The benchmark block's weather by default; a larger `width` x `height` gets as many
        cells per area and a texture of the same grain (bench/tileplayer.py's national loop)."""
        rng = np.random.default_rng(seed)
        self.width, self.height = width, height
        area = width * height / (WIDTH * HEIGHT)
        self.cells = [
            dict(x=rng.uniform(-200, width), y=rng.uniform(0, height), rx=rng.uniform(80, 320), ry=rng.uniform(50, 200),
                 peak=rng.uniform(35, 72), dx=rng.uniform(12, 30), dy=rng.uniform(-10, 4))
            for _ in range(round(22 * area))
        ]
        # Texture one and a half times the block (larger ones: what 24 frames' drift needs),
        # so that it can drift with the cells.
        if (width, height) == (WIDTH, HEIGHT):
            big = (height * 3 // 2, width * 3 // 2)
        else:
            big = (height + 128, width + 256)
        grain = big[1] / (WIDTH * 3 // 2)
        self.texture = (0.55 * smooth_noise(rng, round(24 * grain), big) + 0.3 * smooth_noise(rng, round(96 * grain), big)
                        + 0.15 * smooth_noise(rng, round(320 * grain), big))
        if (width, height) != (WIDTH, HEIGHT):
            self.texture = self.texture.astype(np.float32)
        self.yy, self.xx = np.mgrid[0:height, 0:width].astype(np.float32)

    def frame(self, t):
        """The mosaic's palette indices (0-15) at frame `t`."""
        height, width = self.height, self.width
        dbz = np.zeros((height, width), np.float32)
        for c in self.cells:
            cx, cy = c["x"] + c["dx"] * t, c["y"] + c["dy"] * t
            # Within four radii: further out a cell adds under 0.001 dBZ, which no colour shows.
            x0, x1 = max(0, int(cx - 4 * c["rx"])), min(width, int(cx + 4 * c["rx"]) + 1)
            y0, y1 = max(0, int(cy - 4 * c["ry"])), min(height, int(cy + 4 * c["ry"]) + 1)
            if x0 >= x1 or y0 >= y1:
                continue
            xx, yy = self.xx[y0:y1, x0:x1], self.yy[y0:y1, x0:x1]
            d = ((xx - cx) / c["rx"]) ** 2 + ((yy - cy) / c["ry"]) ** 2
            dbz[y0:y1, x0:x1] = np.maximum(dbz[y0:y1, x0:x1], c["peak"] * np.exp(-d))
        ox, oy = 8 * t, 3 * t
        texture = self.texture[oy:oy + height, ox:ox + width]
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


def palette_png(index, file):
    """Palette indices (0-15) saved as an 8-bit palette PNG, as radar tile servers publish them."""
    palette = [v for colour in COLOURS for v in colour] + [0] * (3 * (256 - len(COLOURS)))
    image = Image.fromarray(index, "P")
    image.putpalette(palette)
    image.save(file, transparency=bytes(OPACITY), compress_level=6)


def write_pyramid(out, frames, zoom, xs, ys, min_zoom, scale=1):
    """A loop's palette tiles as a tile server has them: the block of tiles xs x ys at `zoom`,
    and every coarser zoom down to `min_zoom` (each pixel the top-left one of its 2 x 2,
    clear where the block does not reach), as out/<frame>/<z>/<x>/<y>.png. The weather is
    drawn at 1/`scale` of the zoom's pixels and enlarged (a radar mosaic of about 1 km
    shown at zoom 8 is); xs x ys = XS x YS at scale 1 is the corpus's own block, its tiles
    at `zoom` the same bytes as main()'s `pal` tiles. Returns the files written."""
    weather = Weather(width=len(xs) * SIZE // scale, height=len(ys) * SIZE // scale)
    written = 0
    for t in range(frames):
        mosaic = weather.frame(t)
        if scale > 1:
            mosaic = np.repeat(np.repeat(mosaic, scale, axis=0), scale, axis=1)
        left, top = xs[0] * SIZE, ys[0] * SIZE
        for z in range(zoom, min_zoom - 1, -1):
            if z < zoom:
                # Pad to even pixel coordinates, then keep every other pixel.
                pad_left, pad_top = left % 2, top % 2
                h, w = mosaic.shape
                padded = np.zeros((h + pad_top + (h + pad_top) % 2, w + pad_left + (w + pad_left) % 2), np.uint8)
                padded[pad_top:pad_top + h, pad_left:pad_left + w] = mosaic
                mosaic, left, top = padded[::2, ::2], (left - pad_left) // 2, (top - pad_top) // 2
            h, w = mosaic.shape
            for y in range(top // SIZE, (top + h - 1) // SIZE + 1):
                for x in range(left // SIZE, (left + w - 1) // SIZE + 1):
                    tile = np.zeros((SIZE, SIZE), np.uint8)
                    x0, y0 = max(left, x * SIZE), max(top, y * SIZE)
                    x1, y1 = min(left + w, (x + 1) * SIZE), min(top + h, (y + 1) * SIZE)
                    tile[y0 - y * SIZE:y1 - y * SIZE, x0 - x * SIZE:x1 - x * SIZE] = mosaic[y0 - top:y1 - top, x0 - left:x1 - left]
                    folder = os.path.join(out, str(t), str(z), str(x))
                    os.makedirs(folder, exist_ok=True)
                    palette_png(tile, os.path.join(folder, f"{y}.png"))
                    written += 1
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--frames", type=int, default=24)
    args = parser.parse_args()
    lookup = np.array([colour + (alpha,) for colour, alpha in zip(COLOURS, OPACITY)], np.uint8)
    weather = Weather()
    for t in range(args.frames):
        for x, y, index in tiles(weather.frame(t)):
            palette_png(index, path(args.out, "pal", t, x, y))
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
