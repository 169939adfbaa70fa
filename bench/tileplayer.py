"""matsite's player beside a tile-per-frame Leaflet page (issue 35 item 4): figures, not a test.

The same 24 radar times shown two ways, from one nginx on 127.0.0.1:
  matsite  the loop's site/<loop>/index.html, as `matsite build` wrote it (autoplaying);
  tiles    a Leaflet page written here (tiles-<loop>.html): one L.tileLayer per time over
           the source tiles the frames were stitched from, all added to the map at once so
           every layer's tiles load, then shown in turn (opacity 1 for the current time, 0
           for the others), with the frames' own durations: what RainViewer's public example
           and weather-radar-card do. Leaflet picks the tiles' zoom from the map's zoom (no
           retina tiles, as those pages). Its map opens on matsite's view (height, centre,
           zoom, measured in the matsite run before it), so both show the same part of the
           loop; alone, it fits the loop's box (fitBounds, zoomSnap 0.5). It writes each
           frame's time over the map as RainViewer's example does (Date's toString).
The times are every 5 minutes from 10:00 UTC (TIMES): matsite's frames carry them (a
{time} template over the same tiles, through links named by the time, HHMM), so its page
makes and shows its time labels as a radar loop's does.
Loops (tiles made by bench/corpus.py's weather, every zoom a tile server has):
  regional  bench/corpus.py's block at zoom 7 (1912 x 1646 frames, 24 times), tiles of zooms 3-7
  national  the contiguous US at zoom 8 (about 10,700 x 6,000 frames, published with levels),
            the weather drawn at zoom 7's grain and enlarged, tiles of zooms 2-8
Devices: phone 390 x 844 CSS px at a device pixel ratio of 3, touch, CPU throttled 4x (CDP
Emulation.setCPUThrottlingRate); desk 1280 x 800 at 1. Links (CDP
Network.emulateNetworkConditions; latency is added to every request): 20mbit, 20 Mbit/s both
ways and 40 ms; fast4g, Chrome DevTools' "Fast 4G" preset, 8.1 Mbit/s down, 1.35 Mbit/s up,
165 ms. Protocols: h1, HTTP/1.1 over plain TCP; h2, HTTP/2 over TLS (a self-signed
certificate made here with openssl; chromium told to ignore certificate errors).

Each run is a fresh browser context (empty cache); runs alternate matsite, tiles, matsite...
Figures per run (medians of the runs are printed; every run is in WORK/results.json):
  playable   navigation start to the root's data-state leaving "loading" (matsite: every frame
             decoded; the tile page: every layer has fired Leaflet's `load`, all its tiles in)
  bytes, requests   resource timing (transferSize, headers included) of the page and every
             response that ended before playable
  rss        the renderer process's resident memory after 10 s of playback, from /proc/<pid>
             (the browser's largest renderer, found by CDP SystemInfo.getProcessInfo); the JS
             heap (CDP Performance.getMetrics JSHeapUsedSize) is in results.json
  gaps       requestAnimationFrame deltas over 50 ms during 10 s of playback
  holes      after a zoom-in by two about the view's centre (Leaflet's animated setZoom), in
             every animation frame from the zoom's end until the end of the watch below: the
             share of the view's part of the loop's box that no loaded frame pixel covers,
             sampled on a 16 px grid (matsite: its frame elements over 0.5 opacity, an <img>
             only once complete, the canvases of a multi-level frame always; the tiles: the
             shown layer's tiles Leaflet marked loaded, of any zoom it keeps). Printed: the
             largest share, and the seconds with more than 1% uncovered
  sharp      after that zoom-in, from the zoom's start to the start of the run of animation
             frames, lasting a whole loop (every frame shown), in which the shown frame is drawn
             at the view's detail: matsite, the front frame complete (an <img>'s load; a
             level's data-complete="true") at the level it settled on (`.matsite-pyramid`'s
             data-level); the tiles, every tile of the shown layer at Leaflet's tile zoom
             loaded. Watched for at most 60 s ("-": not sharp by then)
  held       seconds of that watch in which matsite held playback (data-paused-reason set;
             players before issue 35 item 3 waited there for the view's detail of every
             frame, now they play on at coarser detail); the tile page never holds
  (a run never playable within PLAYABLE_TIMEOUT s, 300, is kept without figures, with what
  had arrived; a median over runs that lack a figure is printed "-")

    python3 bench/tileplayer.py          # every row, RUNS (5) runs of each player
    QUICK=1 python3 bench/tileplayer.py  # one run, one row (regional, desk, 20mbit, h1)
    REPORT=1 python3 bench/tileplayer.py # the table again from WORK/results.json, running nothing
    RUNS=1 ROWS=national:phone python3 bench/tileplayer.py   # rows whose name has these parts

Env: MATSITE_BIN (default .build/release/matsite, else .build/debug/matsite: the player's
figures do not depend on how the binary was compiled), MATSITE_TEMPLATES (player files from
a folder), WORK (/tmp/matsite-bench-tileplayer: corpus, site and nginx kept between runs;
the site is built again when MATSITE_BIN or MATSITE_TEMPLATES differ from its build's),
PORT (8093: HTTP/1.1; PORT + 1: HTTP/2), CHROMIUM (/usr/bin/chromium), SECONDS (10).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "browser"))
sys.path.insert(0, str(REPO / "bench"))
if "MATSITE_BIN" not in os.environ:
    release = REPO / ".build" / "release" / "matsite"
    os.environ["MATSITE_BIN"] = str(release if release.exists() else REPO / ".build" / "debug" / "matsite")

from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

import corpus  # noqa: E402
from bench_player import BYTES, RAF, renderer_rss_mb  # noqa: E402
from helpers import build_site, read_manifest  # noqa: E402

FRAMES = 24
# The frames' times, ms since the epoch: every 5 minutes from 2026-11-21T10:00:00Z.
TIMES = [1795255200000 + t * 300000 for t in range(FRAMES)]
LOOPS = {
    "regional": dict(bbox=(-95.5, 29.0, -74.5, 43.5), zoom=7, min_zoom=3, scale=1),
    "national": dict(bbox=(-124.5, 24.0, -66.0, 49.5), zoom=8, min_zoom=2, scale=2),
}
DEVICES = {
    "phone": dict(width=390, height=844, dpr=3, mobile=True, cpu=4),
    "desk": dict(width=1280, height=800, dpr=1, mobile=False, cpu=1),
}
LINKS = {
    "20mbit": dict(down=20e6, up=20e6, latency=40),
    "fast4g": dict(down=9e6 * 0.9, up=1.5e6 * 0.9, latency=60 * 2.75),
}
PROTOCOLS = ("h1", "h2")
SHARP_CAP_MS = 60000
PLAYABLE_TIMEOUT_S = float(os.environ.get("PLAYABLE_TIMEOUT", "300"))
FIGURES = ("playable_ms", "bytes", "requests", "rss_mb", "js_heap_mb", "gaps50", "longest_gap_ms", "hole_max", "hole_s",
           "sharp_ms", "held_s")

TILE_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>tile player: {loop}</title>
<link rel="stylesheet" href="leaflet/leaflet.css">
<style>html, body {{ margin: 0; height: 100%; }} #map {{ width: 100%; height: 100%; background: #ddd; }}</style>
</head><body>
<div id="map" data-state="loading" data-frame="0"></div>
<div id="time" style="position: absolute; top: 0; left: 50px; right: 0; z-index: 1000; font: 14px sans-serif;"></div>
<script src="leaflet/leaflet.js"></script>
<script>
(function () {{
  var config = {config};
  var el = document.getElementById('map');
  var q = new URLSearchParams(location.search), h = Number(q.get('h'));
  if (h > 0) {{ el.style.height = h + 'px'; }}
  var b = config.bbox, box = L.latLngBounds([[b[1], b[0]], [b[3], b[2]]]);
  var map = L.map(el, {{zoomSnap: 0.5, keyboard: false}});
  if (q.get('z')) {{
    map.setView([Number(q.get('lat')), Number(q.get('lon'))], Number(q.get('z')), {{animate: false}});
  }} else {{
    map.fitBounds(box, {{animate: false, maxZoom: config.zoom + 1}});
  }}
  // One layer per time, every one on the map from the start so that its tiles load.
  var layers = config.urls.map(function (url, i) {{
    return L.tileLayer(url, {{opacity: i === 0 ? 1 : 0, bounds: box, minNativeZoom: config.min_zoom,
      maxNativeZoom: config.zoom, maxZoom: config.zoom + 6}}).addTo(map);
  }});
  var loaded = 0, shown = 0, loads = [], time = document.getElementById('time');
  function showTime() {{ time.textContent = new Date(config.times[shown]).toString(); }}
  showTime();
  layers.forEach(function (layer) {{
    layer.once('load', function () {{ loads.push(Math.round(performance.now())); if (++loaded === layers.length) {{ play(); }} }});
  }});
  function play() {{
    el.dataset.state = 'playing';
    var due = performance.now() + config.durations[0];
    requestAnimationFrame(function tick(now) {{
      if (now >= due) {{
        layers[shown].setOpacity(0);
        shown = (shown + 1) % layers.length;
        layers[shown].setOpacity(1);
        el.dataset.frame = String(shown);
        showTime();
        due = Math.max(due + config.durations[shown], now);
      }}
      requestAnimationFrame(tick);
    }});
  }}
  window.tilePlayer = {{
    map: map,
    loads: loads,
    box: box,
    // The shown layer's elements that show pixels: its tiles Leaflet marked loaded.
    covering: function () {{ return layers[shown].getContainer().querySelectorAll('img.leaflet-tile-loaded'); }},
    // Sharp: every tile the shown layer wants at its tile zoom is loaded.
    sharp: function () {{
      var layer = layers[shown], tiles = layer._tiles, any = false;
      for (var key in tiles) {{
        var t = tiles[key];
        if (t.coords.z !== layer._tileZoom || !t.current) {{ continue; }}
        if (!t.loaded) {{ return false; }}
        any = true;
      }}
      return any;
    }},
    level: function () {{ return layers[shown]._tileZoom; }}
  }};
}})();
</script></body></html>
"""

PROBE = """
window.__bench = {playable: null};
try { performance.setResourceTimingBufferSize(1000000); } catch (e) { /* older engines */ }
new MutationObserver((records) => {
    for (const r of records) {
        const s = r.target.getAttribute && r.target.getAttribute('data-state');
        if (window.__bench.playable === null && s && s !== 'loading') {
            window.__bench.playable = performance.now();
            console.debug('__bench:playable');
        }
    }
}).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-state']});
"""

LAST = """(t) => {
    let last = null;
    for (const e of performance.getEntriesByType('resource')) {
        if (e.responseEnd <= t && (!last || e.responseEnd > last.end)) last = {name: e.name, start: e.startTime, end: e.responseEnd};
    }
    return {last, layerLoads: window.tilePlayer ? window.tilePlayer.loads : null};
}"""

STUCK = """() => {
    const entries = performance.getEntriesByType('resource');
    const tiles = [...document.querySelectorAll('img.leaflet-tile')];
    return {responses: entries.length, lastEnd: Math.max(0, ...entries.map((e) => e.responseEnd)),
            layersLoaded: window.tilePlayer ? window.tilePlayer.loads.length : null,
            tilesPending: tiles.filter((t) => !t.classList.contains('leaflet-tile-loaded')).map((t) => t.src).slice(0, 5),
            state: (document.querySelector('[data-state]') || {dataset: {}}).dataset.state,
            loaded: (document.querySelector('[data-matsite-player]') || {dataset: {}}).dataset.loaded};
}"""

# The view matsite's map opened on: the tile page (and floor.py's page) open on it too.
VIEW = """() => { const map = Matsite.players[0].getMap(), c = map.getCenter();
    return {h: map.getContainer().getBoundingClientRect().height, lat: c.lat, lon: c.lng, z: map.getZoom()}; }"""

# Both players through one face: the map, the loop's box, what covers the view, sharpness.
FACE = """() => {
    if (window.tilePlayer) {
        const p = window.tilePlayer;
        return {map: p.map, box: p.box, covering: p.covering, sharp: p.sharp, level: p.level,
                frame: () => document.getElementById('map').dataset.frame, held: () => null};
    }
    const root = document.querySelector('[data-matsite-player]');
    const player = Matsite.players[0];
    const map = player.getMap();
    const front = () => root.querySelector('.matsite-frames .matsite-front');
    return {
        map, box: BOX,
        covering: () => {
            const out = [];
            for (const el of root.querySelectorAll('.matsite-frames .matsite-frame, .matsite-frames .matsite-pyramid-frame')) {
                if (+getComputedStyle(el).opacity <= 0.5) continue;
                if (el.tagName === 'IMG') { if (el.complete && el.naturalWidth > 0) out.push(el); continue; }
                out.push(el, ...el.querySelectorAll('canvas'));
            }
            return out;
        },
        sharp: () => {
            const f = front();
            if (!f) return false;
            return f.tagName === 'IMG' ? f.complete && f.naturalWidth > 0 : f.dataset.complete === 'true';
        },
        level: () => { const p = root.querySelector('.matsite-pyramid'); return p ? p.dataset.level : null; },
        frame: () => root.dataset.frame,
        held: () => root.dataset.pausedReason || null,
    };
}"""

ZOOM = """async ([frames, capMs]) => {
    const BOX = L.latLngBounds([[BBOX[1], BBOX[0]], [BBOX[3], BBOX[2]]]);
    const face = (FACE)();
    const map = face.map;
    const t0 = performance.now();
    let ended = null;
    map.once('zoomend', () => { ended = performance.now(); });
    map.setZoom(map.getZoom() + 2);
    const samples = [];  // [ms since t0, uncovered share, sharp, level, frame]
    let region = null, last = null, longest = 0;
    const uncovered = () => {
        // The view's part of the box at the zoom's end, in client pixels, on a 16 px grid.
        if (region === null) {
            const c = map.getContainer().getBoundingClientRect();
            const nw = map.latLngToContainerPoint(BOX.getNorthWest()), se = map.latLngToContainerPoint(BOX.getSouthEast());
            const x0 = c.left + Math.max(0, nw.x), y0 = c.top + Math.max(0, nw.y);
            const x1 = c.left + Math.min(c.width, se.x), y1 = c.top + Math.min(c.height, se.y);
            const step = 16, nx = Math.max(0, Math.floor((x1 - x0) / step)), ny = Math.max(0, Math.floor((y1 - y0) / step));
            region = {x0, y0, step, nx, ny, cells: new Uint8Array(nx * ny)};
        }
        const g = region;
        if (g.nx * g.ny === 0) return 0;
        g.cells.fill(0);
        for (const el of face.covering()) {
            const r = el.getBoundingClientRect();
            // Cells whose centre the element covers.
            const i0 = Math.max(0, Math.ceil((r.left - g.x0) / g.step - 0.5)), i1 = Math.min(g.nx - 1, Math.floor((r.right - g.x0) / g.step - 0.5));
            const j0 = Math.max(0, Math.ceil((r.top - g.y0) / g.step - 0.5)), j1 = Math.min(g.ny - 1, Math.floor((r.bottom - g.y0) / g.step - 0.5));
            for (let j = j0; j <= j1; j++) g.cells.fill(1, j * g.nx + i0, j * g.nx + i1 + 1);
        }
        let covered = 0;
        for (let k = 0; k < g.cells.length; k++) covered += g.cells[k];
        return 1 - covered / g.cells.length;
    };
    await new Promise((done) => {
        const tick = (ts) => {
            if (last !== null) longest = Math.max(longest, ts - last);
            last = ts;
            const t = performance.now() - t0;
            if (ended !== null) {
                samples.push([t, uncovered(), face.sharp(), face.level(), face.frame(), face.held()]);
                // Done once the trailing sharp run at the last level has shown every frame.
                const level = samples[samples.length - 1][3];
                const seen = new Set();
                for (let k = samples.length - 1; k >= 0 && samples[k][2] && samples[k][3] === level; k--) seen.add(samples[k][4]);
                if (seen.size >= frames) { done(); return; }
            }
            if (t > capMs) { done(); return; }
            requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
    });
    const level = samples.length ? samples[samples.length - 1][3] : null;
    let start = null, seen = new Set();
    for (let k = samples.length - 1; k >= 0 && samples[k][2] && samples[k][3] === level; k--) { start = samples[k][0]; seen.add(samples[k][4]); }
    // When sharpness, level or a hold changed (ms since the zoom's start), for results.json.
    const changes = [];
    for (let k = 0; k < samples.length; k++) {
        const [t, , sharp, lvl, , held] = samples[k];
        const prev = changes[changes.length - 1];
        if (!prev || prev[1] !== sharp || prev[2] !== lvl || prev[3] !== held) changes.push([Math.round(t), sharp, lvl, held]);
    }
    let heldMs = 0;
    for (let k = 0; k + 1 < samples.length; k++) if (samples[k][5]) heldMs += samples[k + 1][0] - samples[k][0];
    let holeMs = 0, worst = 0;
    for (let k = 0; k < samples.length; k++) {
        worst = Math.max(worst, samples[k][1]);
        if (samples[k][1] > 0.01 && k + 1 < samples.length) holeMs += samples[k + 1][0] - samples[k][0];
    }
    return {sharp: seen.size >= frames ? start : null, level, zoom: map.getZoom(), holeMax: worst, holeMs,
            zoomEnded: ended === null ? null : ended - t0, longestGap: longest, samples: samples.length,
            heldMs, changes: changes.slice(0, 60)};
}"""


def tile_block(bbox, zoom):
    """The tiles under the loop's pixel window at `zoom` (a pixel is in when its centre is)."""
    west, south, east, north = bbox
    world = 256 * 2 ** zoom
    px = (lambda lon: (lon + 180) / 360 * world)
    py = (lambda lat: (1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * world)
    x0, x1, y0, y1 = round(px(west)), round(px(east)), round(py(north)), round(py(south))
    return range(x0 // 256, (x1 - 1) // 256 + 1), range(y0 // 256, (y1 - 1) // 256 + 1)


class Nginx:
    """nginx on 127.0.0.1 serving `root`: HTTP/1.1 on `port`, TLS with HTTP/2 on port + 1."""

    def __init__(self, work: Path, root: Path, port: int):
        self.port = port
        conf = work / "nginx"
        (conf / "logs").mkdir(parents=True, exist_ok=True)
        (conf / "tmp").mkdir(exist_ok=True)
        cert, key = conf / "cert.pem", conf / "key.pem"
        if not cert.exists():
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                           check=True, capture_output=True)
        temp = " ".join(f"{k}_temp_path {conf}/tmp/{k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        (conf / "nginx.conf").write_text(f"""daemon off;
worker_processes 2;
pid {conf}/nginx.pid;
error_log {conf}/logs/error.log warn;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    access_log off;
    sendfile on; tcp_nodelay on; keepalive_requests 100000;
    gzip on; gzip_types application/json application/javascript text/css;
    expires 1h;
    {temp}
    server {{ listen 127.0.0.1:{port}; root {root}; }}
    server {{ listen 127.0.0.1:{port + 1} ssl http2; root {root};
             ssl_certificate {cert}; ssl_certificate_key {key}; }}
}}
""")
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        built = subprocess.run([nginx, "-V"], capture_output=True, text=True).stderr
        lacking = [m for m in ("--with-http_ssl_module", "--with-http_v2_module") if m not in built]
        if lacking:
            raise SystemExit(f"{nginx} was built without {' and '.join(lacking)}: the h2 rows need both")
        self.proc = subprocess.Popen([nginx, "-p", str(conf), "-c", str(conf / "nginx.conf")])
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                if self.proc.poll() is not None:
                    raise SystemExit(f"nginx did not start: {(conf / 'logs' / 'error.log').read_text()}")
                time.sleep(0.1)

    def url(self, protocol: str, path: str) -> str:
        return (f"http://127.0.0.1:{self.port}/" if protocol == "h1" else f"https://127.0.0.1:{self.port + 1}/") + path

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def make_corpus(www: Path) -> None:
    for loop, spec in LOOPS.items():
        out = www / "tiles" / loop
        xs, ys = tile_block(spec["bbox"], spec["zoom"])
        if (out / str(FRAMES - 1) / str(spec["min_zoom"])).exists():
            continue
        print(f"making the {loop} tiles ({len(xs)} x {len(ys)} at zoom {spec['zoom']}) ...", file=sys.stderr, flush=True)
        n = corpus.write_pyramid(str(out), FRAMES, spec["zoom"], xs, ys, spec["min_zoom"], spec["scale"])
        print(f"  {n} tiles", file=sys.stderr, flush=True)
    # Each time's tiles under its time too (HHMM, matsite's {time}): a link to the frame's folder.
    for loop in LOOPS:
        for t, ms in enumerate(TIMES):
            link = www / "tiles" / loop / hhmm(ms)
            if not link.exists():
                link.symlink_to(str(t))


def hhmm(ms: int) -> str:
    return time.strftime("%H%M", time.gmtime(ms / 1000))


def iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms / 1000))


def make_site(www: Path, port: int) -> Path:
    lines = ["title: Tile player benchmark", "animations:"]
    for loop, spec in LOOPS.items():
        lines += [f"  - id: {loop}", f"    bbox: [{', '.join(str(v) for v in spec['bbox'])}]", f"    zoom: {spec['zoom']}",
                  "    fallback: { levels: 0 }",
                  f'    source: {{ url: "http://127.0.0.1:{port}/tiles/{loop}/{{time}}/{{z}}/{{x}}/{{y}}.png", tile_size: 256 }}',
                  f"    frames: {{ times: [{', '.join(iso(ms) for ms in TIMES)}] }}", '    time_format: "%H%M"']
    # Built again when the binary, the player files or this config are not those it was built with.
    binary = Path(os.environ["MATSITE_BIN"]).resolve()
    stamp = (f"{binary} {binary.stat().st_mtime_ns if binary.exists() else 0} {os.environ.get('MATSITE_TEMPLATES', '')} "
             f"{hashlib.sha256(chr(10).join(lines).encode()).hexdigest()[:16]}")
    if (www / "site.stamp").exists() and (www / "site.stamp").read_text() == stamp \
            and all((www / "site" / loop / "manifest.json").exists() for loop in LOOPS):
        return www / "site"
    print("building the matsite site ...", file=sys.stderr, flush=True)
    site = build_site(www / "build", "\n".join(lines) + "\n", expect="regional")
    if (www / "site").exists():
        shutil.rmtree(www / "site")
    shutil.move(str(site), str(www / "site"))
    (www / "site.stamp").write_text(stamp)
    return www / "site"


def make_tile_pages(www: Path, site: Path) -> None:
    leaflet = www / "leaflet"
    if not leaflet.exists():
        shutil.copytree("/usr/share/javascript/leaflet", leaflet)
    for loop, spec in LOOPS.items():
        manifest = read_manifest(str(site), loop)
        config = {"bbox": spec["bbox"], "zoom": spec["zoom"], "min_zoom": spec["min_zoom"],
                  "durations": [f["duration_ms"] for f in manifest["frames"]], "times": TIMES,
                  "urls": [f"tiles/{loop}/{t}/{{z}}/{{x}}/{{y}}.png" for t in range(FRAMES)]}
        (www / f"tiles-{loop}.html").write_text(TILE_PAGE.format(loop=loop, config=json.dumps(config)))


def emulated(browser, device: str, link: str):
    """A fresh context (empty cache) with one page on the device and link, told of playable
    by PROBE: (context, page, CDP session); the caller closes the context."""
    d, n = DEVICES[device], LINKS[link]
    context = browser.new_context(viewport={"width": d["width"], "height": d["height"]}, device_scale_factor=d["dpr"],
                                  is_mobile=d["mobile"], has_touch=d["mobile"], ignore_https_errors=True)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": n["latency"],
                                                  "downloadThroughput": n["down"] / 8, "uploadThroughput": n["up"] / 8})
    if d["cpu"] > 1:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": d["cpu"]})
    page.add_init_script(PROBE)
    return context, page, cdp


def measure(browser, nginx: Nginx, player: str, loop: str, device: str, link: str, protocol: str,
            seconds: float, views: dict) -> dict:
    context, page, cdp = emulated(browser, device, link)
    try:
        cdp.send("Performance.enable")
        if player == "matsite":
            path = f"site/{loop}/index.html"
        else:
            view = views.get((loop, device))
            path = f"tiles-{loop}.html" + (f"?h={view['h']}&lat={view['lat']}&lon={view['lon']}&z={view['z']}" if view else "")
        try:
            # Told by the page (a console message), not polled: Playwright's wait_for_function
            # evaluates its injected script in the page first, 60-85 ms of the main thread at 4x
            # throttling in the middle of either player's loading.
            with page.expect_console_message(lambda m: m.text == "__bench:playable", timeout=PLAYABLE_TIMEOUT_S * 1000):
                page.goto(nginx.url(protocol, path), wait_until="commit")
        except PlaywrightTimeout:
            # Never playable: kept as a run without figures, with what had arrived, and the rows go on.
            stuck = page.evaluate(STUCK)
            print(f"  not playable after {PLAYABLE_TIMEOUT_S} s: {stuck}", file=sys.stderr, flush=True)
            return {**{key: None for key in FIGURES}, "stuck": stuck}
        playable = page.evaluate("window.__bench.playable")
        size, count = page.evaluate(BYTES, playable)
        # The response that ended last before playable, and when each tile layer had loaded.
        last = page.evaluate(LAST, playable)
        if player == "matsite":
            views[(loop, device)] = page.evaluate(VIEW)
            page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.state === 'playing'",
                                   timeout=600000)
        r = page.evaluate(RAF, seconds * 1000)
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        rss = renderer_rss_mb(browser)
        zoom = page.evaluate(ZOOM.replace("(FACE)", f"({FACE})").replace("BBOX", json.dumps(LOOPS[loop]["bbox"])),
                             [FRAMES, SHARP_CAP_MS])
        return {"playable_ms": playable, "bytes": size, "requests": count, "rss_mb": rss,
                "js_heap_mb": metrics.get("JSHeapUsedSize", 0) / 2 ** 20,
                "gaps50": sum(1 for x in r["deltas"] if x > 50), "longest_gap_ms": max(r["deltas"], default=0),
                "hole_max": zoom["holeMax"], "hole_s": zoom["holeMs"] / 1000, "sharp_ms": zoom["sharp"],
                "level_after_zoom": zoom["level"], "zoom_after": zoom["zoom"], "zoom_longest_gap_ms": zoom["longestGap"],
                "held_s": zoom["heldMs"] / 1000, "last_response": last, "zoom_changes": zoom["changes"]}
    finally:
        context.close()


def rows_wanted() -> list[tuple[str, str, str, str]]:
    every = [(loop, device, link, protocol) for loop in LOOPS for device in DEVICES for link in LINKS for protocol in PROTOCOLS]
    if os.environ.get("QUICK") == "1":
        return [("regional", "desk", "20mbit", "h1")]
    want = [part for part in os.environ.get("ROWS", "").replace(",", ":").split(":") if part]
    return [row for row in every if all(part in row for part in want)]


def median(runs: list[dict], key: str):
    values = [r.get(key) for r in runs if r.get(key) is not None]
    if len(values) < len(runs):
        return None  # some run never got there: no median to give
    return statistics.median(values)


def cell(m, t, fmt) -> str:
    if m is None or t is None:
        return f"{fmt(m) if m is not None else '-'} / {fmt(t) if t is not None else '-'}"
    ratio = f"{m / t:.2f}x" if t else "-"
    return f"{fmt(m)} / {fmt(t)} ({ratio})"


def report(work: Path, results: list, runs: int, seconds: float, chromium: str) -> None:
    """The table of medians, matsite beside the tiles."""
    www = work / "www"
    m0 = read_manifest(str(www / "site"), "regional")
    m1 = read_manifest(str(www / "site"), "national")
    print(f"\nchromium {chromium}; MATSITE_BIN {os.environ['MATSITE_BIN']}; median of {runs} run(s) of each player, "
          f"alternating; {seconds:g} s of playback")
    print(f"regional: {m0['width']} x {m0['height']}, {len(m0['frames'])} frames, single images; national: "
          f"{m1['width']} x {m1['height']}, {len(m1['frames'])} frames"
          + (f", levels {m1['pyramid']['min_zoom']}-{m1['pyramid']['max_zoom']}" if m1.get("pyramid") else ", single images"))
    print("cells: matsite / tiles (matsite / tiles)\n")
    print("| loop | device | link | protocol | to playable s | bytes before playable MB | requests | renderer RSS MB "
          "| gaps > 50 ms in 10 s | holes after zoom-in x2: most, s over 1% | to sharp after zoom-in x2 s "
          "| playback held after zoom-in s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        m, t = r["matsite"], r["tiles"]
        med = lambda runs_, key: median(runs_, key)  # noqa: E731
        ms = (lambda v: f"{v / 1000:.2f}")
        pct = (lambda v: f"{100 * v:.0f}%")
        sec = (lambda v: f"{v:.1f}")
        num = (lambda v: f"{v:.0f}")

        def pair(key, fmt):
            a, b = med(m, key), med(t, key)
            return f"{fmt(a) if a is not None else '-'} / {fmt(b) if b is not None else '-'}"
        holes = f"{pair('hole_max', pct)}, {pair('hole_s', sec)} s"
        print(f"| {' | '.join(r['row'])} | {cell(med(m, 'playable_ms'), med(t, 'playable_ms'), ms)} "
              f"| {cell(med(m, 'bytes'), med(t, 'bytes'), lambda v: f'{v / 1e6:.2f}')} "
              f"| {cell(med(m, 'requests'), med(t, 'requests'), lambda v: f'{v:.0f}')} "
              f"| {cell(med(m, 'rss_mb'), med(t, 'rss_mb'), lambda v: f'{v:.0f}')} "
              f"| {pair('gaps50', num)} | {holes} "
              f"| {cell(med(m, 'sharp_ms'), med(t, 'sharp_ms'), ms)} "
              f"| {pair('held_s', sec)} |")


def main() -> int:
    work = Path(os.environ.get("WORK", "/tmp/matsite-bench-tileplayer"))
    runs = 1 if os.environ.get("QUICK") == "1" else int(os.environ.get("RUNS", "5"))
    seconds = float(os.environ.get("SECONDS", "10"))
    port = int(os.environ.get("PORT", "8093"))
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if os.environ.get("REPORT") == "1":
        # The table again from the last run's results.json (rows written so far), running nothing.
        results = json.loads((work / "results.json").read_text())
        report(work, results, len(results[0]["matsite"]) if results else 0, seconds, chromium)
        return 0
    rows = rows_wanted()
    if not rows:
        raise SystemExit("ROWS matches no row: parts are " + ", ".join([*LOOPS, *DEVICES, *LINKS, *PROTOCOLS]))
    www = work / "www"
    www.mkdir(parents=True, exist_ok=True)
    make_corpus(www)
    nginx = Nginx(work, www, port)
    # A signal ends the run through the finally below: nginx and chromium stop with it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    results = []
    try:
        site = make_site(www, port)
        make_tile_pages(www, site)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--ignore-certificate-errors"])
            try:
                views: dict = {}
                for row in rows:
                    got = {"matsite": [], "tiles": []}
                    for k in range(runs):
                        for player in ("matsite", "tiles"):
                            print(f"{' '.join(row)}: {player} run {k + 1} of {runs}", file=sys.stderr, flush=True)
                            got[player].append(measure(browser, nginx, player, *row, seconds, views))
                    results.append({"row": row, **got})
                    (work / "results.json").write_text(json.dumps(results, indent=1))
            finally:
                browser.close()
    finally:
        nginx.stop()
    report(work, results, runs, seconds, chromium)
    print(f"\nevery run: {work / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
