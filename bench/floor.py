"""How soon could any Leaflet page of stitched frames play? A floor for matsite's player: figures, not a test.

bench/tileplayer.py compares matsite's page with a tile-per-frame page. This puts a third page
beside them, written here per run: the least a Leaflet player of pre-stitched frames must do
before it can play, with nothing else. It loads Leaflet and its style sheet as the other two
pages do, preloads the very image files matsite's page fetched before it was playable in the
run just before (its sheets or frames, found by resource timing), fits a map to the loop's
box, fetches and decodes each file (fetch, Response.blob, createImageBitmap, as matsite's
loader does), draws the first on a canvas over the box and says it plays. No manifest, no
controls, no time labels, no fallback, no keyboard, no accessibility: what is left between
this page and matsite's is what matsite's player spends on its own setup and chrome.

Runs alternate matsite, floor, tiles (reversed every other run), each a fresh browser context,
on the rows and emulation of bench/tileplayer.py (it makes the corpus, site and tile pages
under the same WORK when they are not there). Printed per row: medians of time to playable
(navigation start to data-state leaving "loading") and each page's ratio to the tile page's.

    RUNS=8 ROWS=national:phone:20mbit python3 bench/floor.py
"""
from __future__ import annotations

import json
import os
import signal
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tileplayer as tp  # noqa: E402  (sets MATSITE_BIN, Tests/browser on the path)
from playwright.sync_api import sync_playwright  # noqa: E402

FLOOR_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>floor: {loop}</title>
<link rel="stylesheet" href="leaflet/leaflet.css">
<style>html, body {{ margin: 0; height: 100%; }} #map {{ width: 100%; height: 100%; }}</style>
</head><body>
<div id="map" data-state="loading"></div>
<script src="leaflet/leaflet.js"></script>
<script>
(function () {{
  var files = {files}, b = {bbox};
  var el = document.getElementById('map'), q = new URLSearchParams(location.search);
  var map = L.map(el, {{zoomSnap: 0.5}});
  var box = L.latLngBounds([[b[1], b[0]], [b[3], b[2]]]);
  if (q.get('z')) {{
    el.style.height = q.get('h') + 'px';
    map.setView([Number(q.get('lat')), Number(q.get('lon'))], Number(q.get('z')), {{animate: false}});
  }} else {{
    map.fitBounds(box, {{animate: false}});
  }}
  var nw = map.latLngToLayerPoint(box.getNorthWest()), se = map.latLngToLayerPoint(box.getSouthEast());
  var canvas = document.createElement('canvas');
  canvas.style.cssText = 'position: absolute; left: ' + nw.x + 'px; top: ' + nw.y + 'px; width: ' +
    (se.x - nw.x) + 'px; height: ' + (se.y - nw.y) + 'px';
  map.getPanes().overlayPane.appendChild(canvas);
  Promise.all(files.map(function (url) {{
    return fetch(url).then(function (r) {{ return r.blob(); }}).then(createImageBitmap);
  }})).then(function (bitmaps) {{
    canvas.width = bitmaps[0].width; canvas.height = bitmaps[0].height;
    canvas.getContext('2d').drawImage(bitmaps[0], 0, 0);
    el.dataset.state = 'playing';
  }});
}}());
</script>
{preloads}
</body></html>
"""

# The image files matsite's page had received when it became playable, in request order.
FETCHED = """(t) => performance.getEntriesByType('resource')
    .filter((e) => e.responseEnd <= t && /\\/frames\\/.*\\.(png|webp|jpg)$/.test(new URL(e.name).pathname))
    .map((e) => new URL(e.name).pathname)"""


def playable(browser, nginx, row, path: str, then=None):
    loop, device, link, protocol = row
    context, page, _ = tp.emulated(browser, device, link)
    try:
        with page.expect_console_message(lambda m: m.text == "__bench:playable", timeout=tp.PLAYABLE_TIMEOUT_S * 1000):
            page.goto(nginx.url(protocol, path), wait_until="commit")
        at = page.evaluate("window.__bench.playable")
        return at, (then(page, at) if then else None)
    finally:
        context.close()


def write_floor_page(www: Path, loop: str, files: list[str]) -> None:
    preloads = "\n".join(f'<link rel="preload" href="{f}" as="fetch" crossorigin="anonymous">' for f in files)
    (www / f"floor-{loop}.html").write_text(FLOOR_PAGE.format(
        loop=loop, files=json.dumps(files), bbox=json.dumps(tp.LOOPS[loop]["bbox"]), preloads=preloads))


def main() -> int:
    work = Path(os.environ.get("WORK", "/tmp/matsite-bench-tileplayer"))
    runs = int(os.environ.get("RUNS", "8"))
    port = int(os.environ.get("PORT", "8093"))
    rows = tp.rows_wanted()
    if not rows:
        raise SystemExit("ROWS matches no row")
    www = work / "www"
    www.mkdir(parents=True, exist_ok=True)
    tp.make_corpus(www)
    nginx = tp.Nginx(work, www, port)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    out = []
    try:
        site = tp.make_site(www, port)
        tp.make_tile_pages(www, site)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                        args=["--ignore-certificate-errors"])
            for row in rows:
                loop = row[0]
                times: dict[str, list[float]] = {"matsite": [], "floor": [], "tiles": []}
                view = None
                for k in range(runs):
                    # The first run's matsite page names the files and the view the others use.
                    order = ("matsite", "floor", "tiles") if k % 2 == 0 else ("tiles", "floor", "matsite")
                    for page_name in order:
                        print(f"{' '.join(row)}: {page_name} run {k + 1} of {runs}", file=sys.stderr, flush=True)
                        if page_name == "matsite":
                            at, (files, seen) = playable(browser, nginx, row, f"site/{loop}/index.html", lambda page, t: (
                                page.evaluate(FETCHED, t), page.evaluate(tp.VIEW)))
                            if view is None:
                                view = seen
                                write_floor_page(www, loop, files)
                        else:
                            query = f"?h={view['h']}&lat={view['lat']}&lon={view['lon']}&z={view['z']}"
                            at, _ = playable(browser, nginx, row, f"{page_name}-{loop}.html{query}")
                        times[page_name].append(at)
                out.append((row, times))
            browser.close()
    finally:
        nginx.stop()
    print(f"\ntime to playable, medians of {runs} alternating runs (ms; ratio to the tile page's)")
    print("| loop | device | link | protocol | matsite | floor | tiles |\n|---|---|---|---|---|---|---|")
    for row, times in out:
        med = {k: statistics.median(v) for k, v in times.items()}
        t = med["tiles"]
        print(f"| {' | '.join(row)} | {med['matsite']:.0f} ({med['matsite'] / t:.2f}x) | "
              f"{med['floor']:.0f} ({med['floor'] / t:.2f}x) | {t:.0f} |")
    (work / "floor.json").write_text(json.dumps([{"row": row, **times} for row, times in out], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
