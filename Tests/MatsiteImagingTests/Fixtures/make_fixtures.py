#!/usr/bin/env python3
"""Makes the JPEG/WebP tile fixtures of TileFormatTests with the tools that make such tiles
in the wild, and the independent expected mosaic of each case.

    python3 Tests/MatsiteImagingTests/Fixtures/make_fixtures.py    # needs Pillow, numpy, gdal-bin

Each case folder holds tiles named {x}_{y}.{ext} (source tile column and row), case.json
(tile size, grid, frame window, tolerance) and expected.png: the tiles decoded by Pillow,
placed side by side and cropped to the window (RGBA, lossless). Run once; the outputs are
committed, so the Swift tests need neither Python nor GDAL.
"""
import io, json, os, shutil, sqlite3, subprocess, tempfile
import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
R = 20037508.342789244


def photo(width, height, seed):
    """A photograph-like RGB picture: smooth fields plus grain (thousands of colours)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    r = 128 + 90 * np.sin(x / 23.0 + seed) * np.cos(y / 31.0)
    g = 120 + 80 * np.sin((x + y) / 40.0) + 30 * np.cos(x / 7.0)
    b = 100 + 60 * np.cos(y / 17.0 - seed) + 0.2 * x
    img = np.stack([r, g, b], axis=-1) + rng.normal(0, 6, (height, width, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def save_case(name, tiles, tile_size, window, tolerance, note):
    """tiles: {(x, y): (bytes, ext)}; window: (originX, originY, width, height) in global px."""
    folder = os.path.join(HERE, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    xs = sorted({x for x, _ in tiles}); ys = sorted({y for _, y in tiles})
    mosaic = np.zeros(((ys[-1] - ys[0] + 1) * tile_size, (xs[-1] - xs[0] + 1) * tile_size, 4), np.uint8)
    for (x, y), (data, ext) in tiles.items():
        with open(os.path.join(folder, f"{x}_{y}.{ext}"), "wb") as f:
            f.write(data)
        if data:
            tile = np.array(Image.open(io.BytesIO(data)).convert("RGBA"))
            mosaic[(y - ys[0]) * tile_size:(y - ys[0] + 1) * tile_size, (x - xs[0]) * tile_size:(x - xs[0] + 1) * tile_size] = tile
    ox, oy, w, h = window
    crop = mosaic[oy - ys[0] * tile_size:oy - ys[0] * tile_size + h, ox - xs[0] * tile_size:ox - xs[0] * tile_size + w]
    Image.fromarray(crop, "RGBA").save(os.path.join(folder, "expected.png"))
    with open(os.path.join(folder, "case.json"), "w") as f:
        json.dump({"tileSize": tile_size, "columns": [xs[0], xs[-1]], "rows": [ys[0], ys[-1]],
                   "window": list(window), "tolerance": tolerance, "note": note}, f, indent=1)


def encoded(array, fmt, **options):
    out = io.BytesIO()
    Image.fromarray(array).save(out, fmt, **options)
    return out.getvalue()


def pillow_cases():
    ts = 64
    src = photo(3 * ts, 2 * ts, 1)
    cells = {(x, y): src[(y - 5) * ts:(y - 4) * ts, (x - 10) * ts:(x - 9) * ts] for x in range(10, 13) for y in range(5, 7)}
    window = (10 * ts + 9, 5 * ts + 5, 3 * ts - 20, 2 * ts - 13)
    save_case("pillow-jpeg", {k: (encoded(v, "JPEG", quality=85), "jpg") for k, v in cells.items()}, ts, window, 2,
              "Pillow JPEG, quality 85, 4:2:0")
    save_case("pillow-jpeg-progressive", {k: (encoded(v, "JPEG", quality=90, progressive=True, subsampling=0), "jpg")
                                           for k, v in cells.items()}, ts, window, 2, "Pillow progressive JPEG, 4:4:4")
    save_case("pillow-webp-lossy", {k: (encoded(v, "WEBP", quality=80), "webp") for k, v in cells.items()}, ts, window, 3,
              "Pillow lossy WebP, quality 80")
    # Lossless WebP with an alpha channel: a transparent band across every tile.
    rgba = {}
    for k, v in cells.items():
        a = np.dstack([v, np.full(v.shape[:2], 255, np.uint8)])
        a[20:36, :, 3] = 0
        a[36:44, :, 3] = 128
        rgba[k] = a
    save_case("pillow-webp-lossless", {k: (encoded(v, "WEBP", lossless=True, exact=True), "webp") for k, v in rgba.items()},
              ts, window, 0, "Pillow lossless WebP with alpha (exact)")
    # Mixed: JPEG photo tiles beside PNG tiles with transparency and a lossless WebP, one cell empty.
    mixed = {}
    for (x, y), v in cells.items():
        kind = (x + 2 * y) % 4
        if kind == 0:
            mixed[(x, y)] = (encoded(v, "JPEG", quality=85), "jpg")
        elif kind == 1:
            mixed[(x, y)] = (encoded(rgba[(x, y)], "PNG"), "png")
        elif kind == 2:
            mixed[(x, y)] = (encoded(rgba[(x, y)], "WEBP", lossless=True, exact=True), "webp")
        else:
            mixed[(x, y)] = (b"", "empty")
    save_case("mixed", mixed, ts, window, 2, "JPEG, RGBA PNG with transparency, lossless WebP, one empty cell")


def georeferenced(path, array, zoom, tile_size, x0, y0):
    """Writes an EPSG:3857 GeoTIFF whose pixels are exactly the zoom's pixel grid from tile (x0, y0)."""
    res = 2 * R / (tile_size * 2 ** zoom)
    h, w, _ = array.shape
    plain = path + ".png"
    Image.fromarray(array).save(plain)
    ulx, uly = -R + x0 * tile_size * res, R - y0 * tile_size * res
    subprocess.run(["gdal_translate", "-q", "-a_srs", "EPSG:3857", "-a_ullr", repr(ulx), repr(uly),
                    repr(ulx + w * res), repr(uly - h * res), plain, path], check=True)


def gdal_cases():
    tmp = tempfile.mkdtemp()
    try:
        # gdal2tiles, WebP tiles of 64 px (XYZ numbering), zoom 4: tiles x 5..7, y 6..7.
        ts, z, x0, y0 = 64, 4, 5, 6
        src = photo(3 * ts, 2 * ts, 2)
        tif = os.path.join(tmp, "src.tif")
        georeferenced(tif, src, z, ts, x0, y0)
        out = os.path.join(tmp, "g2t")
        subprocess.run(["gdal2tiles.py", "-q", "--xyz", "-z", str(z), f"--tilesize={ts}", "--tiledriver=WEBP",
                        "--webp-quality=80", "-r", "near", "-w", "none", tif, out], check=True)
        tiles = {}
        for x in range(x0, x0 + 3):
            for y in range(y0, y0 + 2):
                with open(os.path.join(out, str(z), str(x), f"{y}.webp"), "rb") as f:
                    tiles[(x, y)] = (f.read(), "webp")
        save_case("gdal2tiles-webp", tiles, ts, (x0 * ts + 3, y0 * ts + 11, 3 * ts - 9, 2 * ts - 20), 3,
                  "gdal2tiles --xyz --tilesize=64 --tiledriver=WEBP --webp-quality=80 (GDAL 3.6)")
        # GDAL MBTiles with TILE_FORMAT=JPEG: 256 px tiles at zoom 3, x 2..3, y 3.
        ts, z, x0, y0 = 256, 3, 2, 3
        src = photo(2 * ts, ts, 3)
        tif = os.path.join(tmp, "src256.tif")
        georeferenced(tif, src, z, ts, x0, y0)
        mb = os.path.join(tmp, "out.mbtiles")
        subprocess.run(["gdal_translate", "-q", "-of", "MBTILES", "-co", "TILE_FORMAT=JPEG", "-co", "QUALITY=75",
                        "-co", "RESAMPLING=NEAREST", tif, mb], check=True)
        db = sqlite3.connect(mb)
        tiles = {}
        for zz, col, tms_row, data in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
            if zz == z:
                tiles[(col, (1 << z) - 1 - tms_row)] = (bytes(data), "jpg")
        db.close()
        assert sorted(tiles) == [(2, 3), (3, 3)], sorted(tiles)
        save_case("gdal-mbtiles-jpeg", tiles, ts, (x0 * ts + 17, y0 * ts + 4, 2 * ts - 40, ts - 30), 2,
                  "gdal_translate -of MBTILES -co TILE_FORMAT=JPEG -co QUALITY=75 (GDAL 3.6)")
    finally:
        shutil.rmtree(tmp)


def damaged():
    folder = os.path.join(HERE, "damaged")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    src = photo(64, 64, 4)
    Image.fromarray(src).convert("CMYK").save(os.path.join(folder, "cmyk.jpg"), quality=85)
    Image.fromarray(src).save(os.path.join(folder, "good.jpg"), quality=85)
    Image.fromarray(src).save(os.path.join(folder, "good-lossless.webp"), lossless=True)
    Image.fromarray(src).save(os.path.join(folder, "good-lossy.webp"), quality=80)


def tile_512():
    """One 512-pixel JPEG tile, as TiTiler and many modern servers send by default: for the
    checks that a tile's size is probed, not guessed (MatsiteKitTests reads it by path)."""
    folder = os.path.join(HERE, "pillow-jpeg-512")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "tile.jpg"), "wb") as f:
        f.write(encoded(photo(512, 512, 5), "JPEG", quality=80))


def gdal_mbtiles_archive():
    """A whole MBTiles archive as GDAL writes it (JPEG tiles, zoom 3, metadata with format,
    minzoom, maxzoom and bounds), for the MBTiles metadata checks (MatsiteKitTests reads it)."""
    folder = os.path.join(HERE, "gdal-mbtiles-archive")
    os.makedirs(folder, exist_ok=True)
    tmp = tempfile.mkdtemp()
    try:
        tif = os.path.join(tmp, "src.tif")
        georeferenced(tif, photo(512, 256, 4), 3, 256, 2, 3)
        out = os.path.join(folder, "sat.mbtiles")
        if os.path.exists(out):
            os.remove(out)
        subprocess.run(["gdal_translate", "-q", "-of", "MBTILES", "-co", "TILE_FORMAT=JPEG", "-co", "QUALITY=75",
                        "-co", "RESAMPLING=NEAREST", tif, out], check=True)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    pillow_cases()
    gdal_cases()
    damaged()
    tile_512()
    gdal_mbtiles_archive()
    print("fixtures written under", HERE)
