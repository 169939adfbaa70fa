"""Issue 16: the loop exported as MP4, GIF and animated WebP. Every file is read back with
tools that are not matsite's (Pillow for GIF and WebP, ffprobe and ffmpeg for MP4): frame
counts, sizes, durations, looping, that the labels are burned in, and that the pixels
away from the labels are the player's composition (the frame over the background at the
animation's opacity), exactly for GIF and lossless WebP, within a tolerance for H.264."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from axe_playwright_python.sync_playwright import Axe

from helpers import STRICT_CSP, SiteServer, build_site, read_manifest, wait_state

BACKGROUND = (0x33, 0x66, 0x99)
OPACITY = 0.8
DURATIONS = [200, 200, 200, 600]

CONFIG = """\
title: Exports
animations:
  - id: radar
    title: Exported radar
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 5
    frame_duration_ms: 200
    last_frame_duration_ms: 600
    crossfade_ms: 100
    attribution: 'Radar: <a href="https://example.org/">test source</a>'
    source: { demo: radar }
    frames: { times: [2026-11-21T10:00:00Z, 2026-11-21T10:10:00Z, 2026-11-21T10:20:00Z, 2026-11-21T10:30:00Z] }
    opacity: 0.8
    export: [mp4, gif, webp]
    export_background: "#336699"
"""


def binary() -> str:
    return os.environ.get("MATSITE_BIN", str(Path(__file__).resolve().parents[2] / ".build" / "debug" / "matsite"))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_site(tmp_path_factory.mktemp("export"), CONFIG)


def composition(site: Path, frame: dict, width: int, height: int, background=BACKGROUND) -> np.ndarray:
    """The player's picture, computed here: the frame's pixels over the background at
    alpha x opacity, rounded as 8-bit blending rounds, cut to the export's even size."""
    rgba = np.asarray(Image.open(site / "radar" / frame["url"]).convert("RGBA"), dtype=np.int64)[:height, :width]
    o = int(OPACITY * 255 + 0.5)
    a = (rgba[..., 3:4] * o + 127) // 255
    bg = np.array(background, dtype=np.int64)
    return ((rgba[..., :3] * a + bg * (255 - a) + 127) // 255).astype(np.uint8)


def export_size(manifest: dict) -> tuple[int, int]:
    return manifest["width"] & ~1, manifest["height"] & ~1


def away_from_labels(image: np.ndarray) -> np.ndarray:
    """Rows between the time label (top) and the attribution (bottom)."""
    return image[40:-40]


def test_manifest_lists_the_exports_and_the_pages_link_them(site):
    m = read_manifest(str(site))
    exports = m["exports"]
    assert set(exports) == {"mp4", "gif", "webp"}
    for fmt, url in exports.items():
        assert re.fullmatch(r"loop-[0-9a-f]{16}\." + fmt, url), url
        assert (site / "radar" / url).stat().st_size > 0
    player = (site / "radar" / "index.html").read_text()
    assert f'<meta property="og:video" content="{exports["mp4"]}">' in player
    assert '<meta property="og:image" content="poster.png">' in player
    for url in exports.values():
        assert f'href="{url}"' in player
    index = (site / "index.html").read_text()
    for url in exports.values():
        assert f'href="radar/{url}"' in index
    embed = (site / "radar" / "embed.html").read_text()
    assert "loop-" not in embed and "og:video" not in embed


def test_download_links_work_and_pass_axe_under_the_strict_csp(tab, site):
    m = read_manifest(str(site))
    srv = SiteServer(str(site), csp=STRICT_CSP)
    try:
        page = tab.page
        for path in ("index.html", "radar/index.html?autoplay=0"):
            page.goto(srv.url(path))
            if path.startswith("radar"):
                wait_state(page, "ready")
            links = page.evaluate("""() => [...document.querySelectorAll('a[download]')]
                .map((a) => [a.textContent.trim(), a.href, a.type])""")
            assert [label for label, _, _ in links] == ["MP4", "GIF", "WebP"], links
            for (label, href, kind), fmt in zip(links, ("mp4", "gif", "webp")):
                assert href.endswith(m["exports"][fmt]) and kind.endswith(fmt)
                assert page.request.get(href).body() == (site / "radar" / m["exports"][fmt]).read_bytes()
            violations = Axe().run(page).response["violations"]
            assert not violations, [(v["id"], [n["target"] for n in v["nodes"]][:5]) for v in violations]
        assert not tab.console_errors, tab.console_errors
    finally:
        srv.stop()


@pytest.mark.parametrize("fmt,pillow_format", [("gif", "GIF"), ("webp", "WEBP")])
def test_animated_image_has_every_frame_timed_looping_and_exact(site, fmt, pillow_format):
    m = read_manifest(str(site))
    width, height = export_size(m)
    image = Image.open(site / "radar" / m["exports"][fmt])
    assert image.format == pillow_format
    assert image.size == (width, height)
    assert image.n_frames == len(m["frames"]) == 4
    assert image.info.get("loop") == 0
    durations = []
    for i, frame in enumerate(m["frames"]):
        image.seek(i)
        shown = np.asarray(image.convert("RGB"))
        # Pillow reads a WebP frame's duration when it decodes the frame.
        durations.append(image.info["duration"])
        expected = composition(site, frame, width, height)
        assert np.array_equal(away_from_labels(shown), away_from_labels(expected)), f"frame {i}"
        # The time label's band and text at the top left, the attribution at the bottom right.
        assert (shown[2:14, 2:40] != expected[2:14, 2:40]).any(axis=2).mean() > 0.5, f"frame {i} lacks its time"
        assert (shown[-12:-2, -60:-2] != expected[-12:-2, -60:-2]).any(axis=2).mean() > 0.5, f"frame {i} lacks its credit"
    assert durations == DURATIONS


def ffprobe(path: Path) -> dict:
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
         "stream=codec_name,width,height,pix_fmt,nb_read_frames:format=duration", "-of", "json", str(path)],
        capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def test_mp4_is_h264_yuv420p_faststart_with_the_loops_duration(site):
    m = read_manifest(str(site))
    width, height = export_size(m)
    path = site / "radar" / m["exports"]["mp4"]
    info = ffprobe(path)
    stream = info["streams"][0]
    assert stream["codec_name"] == "h264" and stream["pix_fmt"] == "yuv420p"
    assert (stream["width"], stream["height"]) == (width, height)
    # One tick is the durations' common divisor (200 ms): 1 + 1 + 1 + 3 ticks.
    assert int(stream["nb_read_frames"]) == sum(DURATIONS) // 200
    assert abs(float(info["format"]["duration"]) - sum(DURATIONS) / 1000) < 0.05
    data = path.read_bytes()
    assert data.find(b"moov") < data.find(b"mdat"), "+faststart puts the index first"
    # The last frame decoded with ffmpeg is the composition within H.264's loss.
    raw = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(path), "-vf", "select=eq(n\\,5)", "-frames:v", "1",
         "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], capture_output=True, check=True).stdout
    shown = np.frombuffer(raw, dtype=np.uint8).reshape(height, width, 3).astype(np.int64)
    expected = composition(site, m["frames"][-1], width, height).astype(np.int64)
    assert np.abs(away_from_labels(shown) - away_from_labels(expected)).mean() < 6
    assert np.abs(shown[2:14, 2:40] - expected[2:14, 2:40]).mean() > 20, "the time label is burned in"


def test_an_unchanged_rebuild_keeps_the_exports_without_encoding(tmp_path):
    site = build_site(tmp_path, CONFIG)
    m = read_manifest(str(site))
    inodes = {fmt: (site / "radar" / url).stat().st_ino for fmt, url in m["exports"].items()}
    proc = subprocess.run([binary(), "build", "--config", str(tmp_path / "matsite.yml"), "--output", str(site)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    for fmt in ("mp4", "gif", "webp"):
        assert f"radar: export {fmt} kept (unchanged)" in proc.stderr, proc.stderr
    again = read_manifest(str(site))
    assert again["exports"] == m["exports"]
    assert {fmt: (site / "radar" / url).stat().st_ino for fmt, url in again["exports"].items()} == inodes
    # A changed option makes a new file.
    changed = CONFIG.replace('"#336699"', '"#000000"')
    site = build_site(tmp_path, changed)
    assert read_manifest(str(site))["exports"]["gif"] != m["exports"]["gif"]


def test_export_width_scales_keeping_the_aspect_ratio_and_the_legend_is_drawn(tmp_path):
    legend = '    legend: { unit: dBZ, stops: [[10, "#ff00ff"], [40, "#00ff00", heavy]] }\n'
    site = build_site(tmp_path, CONFIG.replace("export: [mp4, gif, webp]", "export: [gif]\n    export_width: 301") + legend)
    m = read_manifest(str(site))
    assert set(m["exports"]) == {"gif"}
    gif = Image.open(site / "radar" / m["exports"]["gif"])
    expected_height = round(301 * m["height"] / m["width"]) & ~1
    assert gif.size == (300, expected_height)
    # The legend's swatches, in their exact colours, at the top right.
    top_right = {tuple(p) for p in np.asarray(gif.convert("RGB"))[:30, 150:].reshape(-1, 3)}
    assert (255, 0, 255) in top_right and (0, 255, 0) in top_right


def test_check_names_the_export_tools(tmp_path):
    (tmp_path / "matsite.yml").write_text(CONFIG)
    proc = subprocess.run([binary(), "check", "--config", str(tmp_path / "matsite.yml")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"export: mp4, gif, webp \(font \S+DejaVuSans\.ttf, ffmpeg \S*ffmpeg\)", proc.stdout), proc.stdout


def test_check_and_build_refuse_mp4_without_ffmpeg(tmp_path):
    (tmp_path / "matsite.yml").write_text(CONFIG)
    env = dict(os.environ, MATSITE_FFMPEG=str(tmp_path / "no-such-ffmpeg"))
    for command in (["check"], ["build", "--output", str(tmp_path / "site")]):
        proc = subprocess.run([binary(), *command, "--config", str(tmp_path / "matsite.yml")], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert "animations[0].export" in proc.stderr and "ffmpeg" in proc.stderr and "no-such-ffmpeg" in proc.stderr
        assert "matsite.yml:14" in proc.stderr, proc.stderr
    assert not (tmp_path / "site").exists()


def test_a_tile_source_background_is_fetched_once_and_drawn_under_every_frame(tmp_path):
    """export_background as an XYZ template: a tile server on 127.0.0.1 whose every tile is
    one green; the GIF's pixels away from the labels are the frames over that green."""
    import io
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    green = (0, 160, 0)
    buf = io.BytesIO()
    Image.new("RGB", (256, 256), green).save(buf, format="PNG")
    tile = buf.getvalue()
    asked: list[str] = []

    class Tiles(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            asked.append(self.path)
            ok = re.fullmatch(r"/5/[0-9]+/[0-9]+\.png", self.path) is not None
            self.send_response(200 if ok else 404)
            self.send_header("Content-Type", "image/png")
            self.send_header("Cache-Control", "max-age=3600")
            self.send_header("Content-Length", str(len(tile) if ok else 0))
            self.end_headers()
            if ok:
                self.wfile.write(tile)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Tiles)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        template = f"http://127.0.0.1:{server.server_address[1]}/{{z}}/{{x}}/{{y}}.png"
        config = CONFIG.replace("export: [mp4, gif, webp]", "export: [gif]").replace('"#336699"', f'"{template}"')
        site = build_site(tmp_path, config)
        m = read_manifest(str(site))
        width, height = export_size(m)
        assert asked and all(p.startswith("/5/") for p in asked), asked
        gif = Image.open(site / "radar" / m["exports"]["gif"])
        for i, frame in enumerate(m["frames"]):
            gif.seek(i)
            shown = np.asarray(gif.convert("RGB"))
            expected = composition(site, frame, width, height, background=green)
            assert np.array_equal(away_from_labels(shown), away_from_labels(expected)), f"frame {i}"
        # Rebuilt: the tiles come from the cache, and the loop is kept.
        before = len(asked)
        proc = subprocess.run([binary(), "build", "--config", str(tmp_path / "matsite.yml"), "--output", str(site)],
                              cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        assert "radar: export gif kept (unchanged)" in proc.stderr, proc.stderr
        assert len(asked) == before
    finally:
        server.shutdown()
        server.server_close()


def test_an_openstreetmap_background_is_refused_at_check(tmp_path):
    config = CONFIG.replace('"#336699"', '"https://tile.openstreetmap.org/{z}/{x}/{y}.png"')
    (tmp_path / "matsite.yml").write_text(config)
    proc = subprocess.run([binary(), "check", "--config", str(tmp_path / "matsite.yml")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "animations[0].export_background" in proc.stderr and "tile policy" in proc.stderr, proc.stderr
