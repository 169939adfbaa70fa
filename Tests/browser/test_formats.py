"""Issue 15, item 2: the player plays frames in every format a build writes (PNG, JPEG,
lossy and lossless WebP), with their manifest URLs, under the strict CSP the other tests
use. The demo source has transparent pixels, so `format: jpeg` writes WebP (JPEG has no
alpha); the JPEG frames come from a source of opaque tiles built from the demo's own
frames, served by a local server as JPEG files."""
from __future__ import annotations

import io

import pytest
from PIL import Image

from helpers import SiteServer, build_site, read_manifest, wait_state

CONFIG = """\
title: Formats
animations:
  - id: radar
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 4
    frame_duration_ms: 150
    crossfade_ms: 50
    format: {format}
    source: {{ {source} }}
    frames: {{ count: 3 }}
"""


def jpeg_tiles(folder):
    """Opaque JPEG tiles for a file source (z/x/y.jpg, one folder per frame), from Pillow."""
    for frame in range(3):
        for x in range(7, 9):
            for y in range(5, 7):
                # Photographic: thousands of colours (few colours would make a palette PNG).
                noise = Image.effect_noise((256, 256), 40 + 10 * frame).convert("RGB")
                image = Image.blend(Image.new("RGB", (256, 256), (60 + 40 * frame, 90 + 20 * x, 120 + 10 * y)), noise, 0.5)
                out = folder / "tiles" / str(frame) / "4" / str(x)
                out.mkdir(parents=True, exist_ok=True)
                buffer = io.BytesIO()
                image.save(buffer, "JPEG", quality=85)
                (out / f"{y}.jpg").write_bytes(buffer.getvalue())


@pytest.mark.parametrize("fmt,source,extension", [
    ("png", "demo: radar", "png"),
    ("webp", "demo: radar", "webp"),
    ("webp-lossless", "demo: radar", "webp"),
    ("jpeg", "demo: radar", "webp"),
    ("auto", "path: \"tiles/{frame}/{z}/{x}/{y}.jpg\"", "jpg"),
])
def test_every_frame_format_plays(tab, tmp_path, fmt, source, extension):
    if source.startswith("path"):
        jpeg_tiles(tmp_path)
    site = build_site(tmp_path, CONFIG.format(format=fmt, source=source))
    m = read_manifest(str(site))
    # Named by their content only, in their format's extension.
    assert all(f["url"] == f"frames/{f['sha256'][:16]}.{extension}" for f in m["frames"]), m["frames"]
    srv = SiteServer(str(site), csp="default-src 'self'")
    try:
        page = tab.page
        page.goto(srv.url("radar/index.html?autoplay=1"))
        wait_state(page, "playing")
        # Both frame layers hold decoded images of the manifest's URLs.
        sizes = page.evaluate("""() => [...document.querySelectorAll('img.matsite-frame')]
            .filter((i) => i.getAttribute('src')).map((i) => [i.getAttribute('src'), i.complete && i.naturalWidth])""")
        assert sizes and all(src.endswith("." + extension) and width == m["width"] for src, width in sizes), sizes
        seen = set()
        for _ in range(40):
            seen.add(page.evaluate("() => document.querySelector('[data-matsite-player]').dataset.frame"))
            if len(seen) == 3:
                break
            page.wait_for_timeout(50)
        assert seen == {"0", "1", "2"}, seen
        assert not tab.console_errors, tab.console_errors
    finally:
        srv.stop()
