"""Helpers for the player's browser tests: a static server on 127.0.0.1 that can
hold back a response, add a CSP header, serve extra pages and log requests, and
a few page-side probes.
"""
from __future__ import annotations

import base64
import functools
import http.server
import json
import os
import re
import struct
import subprocess
import threading
import zlib
from pathlib import Path
from urllib.parse import urlsplit

# Exactly what the README promises pages work under: not even data: images.
STRICT_CSP = "default-src 'self'"
REPO = Path(__file__).resolve().parents[2]
XSS_TITLE = "</script><script>alert(1)</script>"

DEMO_CONFIG = """\
title: Test site
base_map: { demo: true }
animations:
  - id: radar
    title: Demo radar
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 5
    frame_duration_ms: 200
    last_frame_duration_ms: 600
    crossfade_ms: 100
    source: { demo: radar }
    frames:
      times: [2026-11-21T10:00:00Z, 2026-11-21T10:10:00Z, 2026-11-21T10:20:00Z,
              2026-11-21T10:30:00Z, 2026-11-21T10:40:00Z, 2026-11-21T10:50:00Z]
    fallback: { levels: 1 }
    legend: { unit: dBZ, stops: [[10, "#78c8e6"], [40, "#f0e628", heavy], [60, "#c81414"]] }
"""

# The player's presentation keys, end to end from the config to the page.
FEATURES_CONFIG = """\
title: Features
animations:
  - id: radar
    title: Zoned radar
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 4
    frame_duration_ms: 200
    crossfade_ms: 100
    source: { demo: radar }
    frames: { times: [2026-11-21T10:30:00Z, 2026-11-21T10:40:00Z, 2026-11-21T10:50:00Z] }
    opacity: 0.7
    time_zone: Asia/Tokyo
    time_label: both
    legend:
      unit: mm/h
      stops: [[0.5, "#78c8e6", light], [4, "#149632"], [16, "#c81414", heavy]]
      image: colour-bar.png
      image_alt: Rain rate from light blue (0.5 mm/h) to red (16 mm/h and more)
"""

XSS_CONFIG = """\
title: '{t}'
base_map: {{ demo: true }}
animations:
  - id: radar
    title: '{t}'
    attribution: '<img src=x onerror=alert(2)> <a href="javascript:alert(3)">js</a> <a href="https://example.org/">ok</a>'
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 4
    frame_duration_ms: 200
    crossfade_ms: 100
    source: {{ demo: radar }}
    frames: {{ count: 3 }}
""".format(t=XSS_TITLE)



# Frames published as levels (issue 12): zoom 7 gives a 1820 x 1581 px frame, two levels
# (6 and 7). `publish: always` so that a small, quick build has levels.
PYRAMID_CONFIG = """\
title: Pyramid
base_map: { demo: true }
animations:
  - id: radar
    title: Demo radar in levels
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 7
    frame_duration_ms: 200
    last_frame_duration_ms: 400
    crossfade_ms: 100
    source: { demo: radar }
    frames: { count: 5 }
    fallback: { levels: 1 }
    pyramid: { publish: always }
"""


# Issue 35: single-image frames with reduced levels. Zoom 7 gives 1820 x 1581 px frames, which
# the build also writes at a half (r1, 910 px wide) and a quarter (r2, 455 px). No fallback
# tiles: the tests stay within the frames' detail, and the build stays quick.
LEVELS_CONFIG = """\
title: Levels
base_map: { demo: true }
animations:
  - id: radar
    title: Demo radar in reduced levels
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 7
    frame_duration_ms: 200
    last_frame_duration_ms: 400
    crossfade_ms: 100
    source: { demo: radar }
    frames: { count: 6 }
"""


# Issue 28: two data layers on one timeline of 8 steps, 5 minutes apart. Bottom, a JPEG
# "infrared satellite" every 10 minutes from 10:10 (opaque tiles in a local folder, made by
# satellite_tiles; grey, so `format: jpeg` asks for JPEG over a palette PNG), none for the
# first two steps; on top, the demo radar every 5 minutes (PNG, with fallback tiles one level
# deeper). layers_config(steps) sets the span (the benchmark's 24-step loop uses it too).
LAYERS_CONFIG = """\
title: Layers
base_map: {{ demo: true }}
animations:
  - id: storm
    title: Radar over satellite
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 4
    frame_duration_ms: 300
    last_frame_duration_ms: 600
    crossfade_ms: 120
    frames: {{ range: {{ start: 2026-11-21T10:00:00Z, end: {steps_end}, step: PT5M }} }}
    layers:
      - id: satellite
        title: Infrared satellite
        source: {{ path: "sat/{{time}}/{{z}}/{{x}}/{{y}}.jpg" }}
        time_format: "%Y%m%d%H%M"
        format: jpeg
        frames: {{ range: {{ start: 2026-11-21T10:10:00Z, end: {sat_end}, step: PT10M }} }}
        max_age: PT20M
      - id: radar
        title: Radar
        source: {{ demo: radar }}
        fallback: {{ levels: 1 }}
        legend: {{ unit: dBZ, stops: [[10, "#78c8e6"], [40, "#f0e628", heavy], [60, "#c81414"]] }}
"""


# The same two layers as two one-source animations, `satellite` and `radar` (entries of
# `animations:`), for the benchmark's comparison.
SEPARATE_LAYERS = """\
  - id: satellite
    title: Infrared satellite
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 4
    frame_duration_ms: 600
    crossfade_ms: 120
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


def layers_span(steps: int) -> dict:
    """The last time of the timeline (steps_end) and of the satellite (sat_end) for `steps` steps."""
    def at(minutes: int) -> str:
        return f"2026-11-21T{10 + minutes // 60:02d}:{minutes % 60:02d}:00Z"
    last = 5 * (steps - 1)
    return {"steps_end": at(last), "sat_end": at(last - last % 10)}


def layers_config(steps: int = 8, separate: bool = False, levels: bool = False) -> str:
    """LAYERS_CONFIG for a timeline of `steps` steps (the satellite's frames span it from 10:10);
    `separate` adds SEPARATE_LAYERS over the same span; `levels` publishes the radar's frames
    as levels too (`pyramid: { publish: always }`)."""
    span = layers_span(steps)
    text = LAYERS_CONFIG.format(**span) + (SEPARATE_LAYERS.format(**span) if separate else "")
    return with_levels(text) if levels else text


def with_levels(config: str) -> str:
    """`config` with the radar's frames published as levels as well."""
    return re.sub(r"^( +)fallback: \{ levels: 1 \}\n", r"\g<0>\1pyramid: { publish: always }\n", config, flags=re.M)


def satellite_tiles(folder: Path, steps: int = 8) -> None:
    """Opaque JPEG tiles of a drifting cloud field, as an infrared satellite shows it (bright
    cloud over dark ground), for the path source of LAYERS_CONFIG: folder/sat/<time>/4/x/y.jpg
    for every 10 minutes from 10:10 over `steps` 5-minute steps, tiles x 7-8, y 5-6."""
    import io
    import random
    from PIL import Image, ImageFilter
    rng = random.Random(28)
    # A field larger than the tiles, so each time cuts it a little further east.
    coarse = Image.new("L", (64, 40))
    coarse.putdata([rng.randrange(256) for _ in range(64 * 40)])
    field = coarse.resize((1024 + 256, 640), Image.BICUBIC).filter(ImageFilter.GaussianBlur(24))
    field = field.point(lambda v: max(40, min(235, (v - 110) * 4 + 60)))
    for minutes in range(10, 5 * steps, 10):
        shift = minutes * 3
        name = f"20261121{10 + minutes // 60:02d}{minutes % 60:02d}"
        for x in range(7, 9):
            for y in range(5, 7):
                box = (shift + (x - 7) * 256, (y - 5) * 256, shift + (x - 6) * 256, (y - 4) * 256)
                tile = field.crop(box).convert("RGB")
                out = folder / "sat" / name / "4" / str(x)
                out.mkdir(parents=True, exist_ok=True)
                buffer = io.BytesIO()
                tile.save(buffer, "JPEG", quality=85)
                (out / f"{y}.jpg").write_bytes(buffer.getvalue())


class BuildFailed(Exception):
    pass


def colour_bar_png(width: int = 96, height: int = 12) -> bytes:
    """A real PNG (RGB, made with zlib): a blue-to-red bar, as a product's legend image is."""
    rows = b"".join(b"\x00" + b"".join(bytes((int(255 * x / (width - 1)), 80, int(255 * (1 - x / (width - 1)))))
                                         for x in range(width)) for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def build_site(folder: Path, config: str, expect: str = "radar", args: list[str] | None = None) -> Path:
    """Writes `config` to folder/matsite.yml (and the legend image the features config
    names) and runs `$MATSITE_BIN build` into folder/site (with `args` too, e.g. `--at`),
    which must then hold the animation `expect`."""
    binary = os.environ.get("MATSITE_BIN", str(REPO / ".build" / "debug" / "matsite"))
    if not os.path.exists(binary):
        raise BuildFailed(f"matsite binary not found at {binary}: run `swift build --product matsite` or set MATSITE_BIN")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "colour-bar.png").write_bytes(colour_bar_png())
    # Player files under test from a folder instead of the ones compiled into the binary.
    templates = os.environ.get("MATSITE_TEMPLATES")
    if templates:
        config = f"templates: {json.dumps(str(Path(templates).resolve()))}\n" + config
    (folder / "matsite.yml").write_text(config, encoding="utf-8")
    site = folder / "site"
    proc = subprocess.run([binary, "build", "--config", str(folder / "matsite.yml"), "--output", str(site), "--quiet", *(args or [])],
                          cwd=folder, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise BuildFailed(f"matsite build failed ({proc.returncode}):\n{proc.stderr}")
    if not (site / expect / "manifest.json").exists():
        raise BuildFailed(f"matsite build wrote no {expect}/manifest.json into {site}")
    return site


def build_pyramid_site(folder: Path, config: str, stand_in: bool) -> Path:
    """Builds a site whose config has a `pyramid:` key. With `stand_in`, the binary
    builds without it and Tests/browser/pyramid_standin.py cuts the levels, doing
    what `publish` and `above_px` say (until `matsite build` publishes levels)."""
    if not stand_in:
        return build_site(folder, config)
    import re
    import pyramid_standin
    m = re.search(r"^\s*pyramid:\s*\{([^}]*)\}\s*$", config, re.M)
    opts = dict(kv.split(":", 1) for kv in m.group(1).split(",")) if m else {}
    opts = {k.strip(): v.strip() for k, v in opts.items()}
    site = build_site(folder, config[: m.start()] + config[m.end():] if m else config)
    publish = opts.get("publish", "auto")
    manifest = read_manifest(str(site))
    pixels = manifest["width"] * manifest["height"]
    if publish == "always" or (publish == "auto" and pixels > int(opts.get("above_px", 4194304))):
        pyramid_standin.cut(site)
    return site


class SiteServer:
    """Serves a site folder on 127.0.0.1 on a free port, in a background thread."""

    def __init__(self, root: str, csp: str | None = None):
        self.root = root
        self.csp = csp
        self.requests: list[str] = []
        self._holds: dict[str, threading.Event] = {}
        self._overrides: dict[str, tuple[bytes, str]] = {}
        self._override_left: dict[str, int] = {}
        self._lock = threading.Lock()
        handler = functools.partial(_Handler, directory=root)
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._httpd.site = self  # type: ignore[attr-defined]
        self.port = self._httpd.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        return f"{self.origin}/{path.lstrip('/')}"

    def hold(self, path_part: str) -> threading.Event:
        """Holds back every response whose path contains `path_part` until the
        returned event is set."""
        event = threading.Event()
        with self._lock:
            self._holds[path_part] = event
        return event

    def release_all(self) -> None:
        with self._lock:
            for event in self._holds.values():
                event.set()
            self._holds.clear()

    def override(self, path: str, body: bytes, content_type: str, times: int | None = None) -> None:
        """Serves `body` at `path` (e.g. a test parent page or a changed manifest); with
        `times`, only for that many requests, then the file again."""
        with self._lock:
            self._overrides["/" + path.lstrip("/")] = (body, content_type)
            if times is not None:
                self._override_left["/" + path.lstrip("/")] = times

    def clear(self) -> None:
        self.release_all()
        with self._lock:
            self._overrides.clear()
            self.requests.clear()

    def requested(self, path_part: str) -> int:
        with self._lock:
            return sum(1 for p in self.requests if path_part in p)

    def stop(self) -> None:
        self.release_all()
        self._httpd.shutdown()
        self._httpd.server_close()


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - quiet test output
        pass

    @property
    def site(self) -> SiteServer:
        return self.server.site  # type: ignore[attr-defined]

    def end_headers(self):
        if self.site.csp:
            self.send_header("Content-Security-Policy", self.site.csp)
        super().end_headers()

    def do_GET(self):  # noqa: N802
        self._common(send_body=True)

    def do_HEAD(self):  # noqa: N802
        self._common(send_body=False)

    def _common(self, send_body: bool):
        path = urlsplit(self.path).path
        site = self.site
        with site._lock:
            site.requests.append(path)
            holds = [e for part, e in site._holds.items() if part in path]
            override = site._overrides.get(path)
            if override is not None and path in site._override_left:
                site._override_left[path] -= 1
                if site._override_left[path] <= 0:
                    del site._overrides[path], site._override_left[path]
        for event in holds:
            event.wait(60)
        if override is not None:
            body, ctype = override
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if send_body:
                self.wfile.write(body)
            return
        if send_body:
            super().do_GET()
        else:
            super().do_HEAD()


def read_manifest(site_dir: str, anim_id: str = "radar") -> dict:
    with open(os.path.join(site_dir, anim_id, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def open_holding_frames(page, url: str) -> None:
    """Opens `url` while the test's server holds a frame back, without waiting for the page's
    load event: a frame image the loader starts before that event delays it, and the held one
    never comes (whether the loader starts first depends on the machine's load)."""
    page.goto(url, wait_until="domcontentloaded")


def player_state(page) -> dict:
    """The root element's data attributes and a few control facts."""
    return page.evaluate(
        """() => {
            const r = document.querySelector('[data-matsite-player]');
            const play = r.querySelector('button[aria-label="Play"], button[aria-label="Pause"]');
            return {
                state: r.dataset.state, frame: r.dataset.frame === undefined ? null : Number(r.dataset.frame),
                reason: r.dataset.pausedReason || null, error: r.dataset.error || null,
                progress: (r.querySelector('.matsite-progress') || {}).textContent || '',
                playLabel: play ? play.getAttribute('aria-label') : null,
                playDisabled: play ? play.disabled : null,
            };
        }"""
    )


def wait_state(page, states, timeout=20000):
    if isinstance(states, str):
        states = [states]
    page.wait_for_function(
        "(s) => { const r = document.querySelector('[data-matsite-player]'); return r && s.includes(r.dataset.state); }",
        arg=list(states), timeout=timeout,
    )


def decode_png(page, png: bytes):
    """Decodes PNG bytes with the browser itself (no imaging library needed).
    Returns (width, height, flat RGBA bytes). `page` should be a blank page."""
    data_url = "data:image/png;base64," + base64.b64encode(png).decode()
    res = page.evaluate(
        """async (u) => {
            const img = new Image(); img.src = u; await img.decode();
            const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
            const g = c.getContext('2d'); g.drawImage(img, 0, 0);
            const d = g.getImageData(0, 0, c.width, c.height).data;
            let s = ''; const step = 0x8000;
            for (let i = 0; i < d.length; i += step) s += String.fromCharCode.apply(null, d.subarray(i, i + step));
            return [c.width, c.height, btoa(s)];
        }""",
        data_url,
    )
    return res[0], res[1], base64.b64decode(res[2])
