"""Point layers in the browser (issue 13): figures, not a timed test.

Builds (with $MATSITE_BIN, default .build/release/matsite) a site whose animation has one
point layer of N points (default 100,000: 70% over the animation's box, 30% in ten dense
groups, seeded), serves it from 127.0.0.1 and, in headless Debian chromium:
  - time from navigation start to the first cluster drawn in the marker pane,
  - a zoom-in by one level (Leaflet's zoom animation, then the split): frame gaps over
    50 ms and long tasks while it runs, at three places,
  - a zoom-out by one level (the merge) at the same places,
  - the same zoom-ins with the layer toggled off, as a baseline (the map's own zoom),
  - bytes published for the points.
--cpu-throttle 4 runs it all with Chromium's CPU throttling, as a stand-in for a phone.

    python3 bench/points_browser.py [--points 100000] [--runs 5] [--cpu-throttle 4]
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "browser"))
os.environ.setdefault("MATSITE_BIN", str(REPO / ".build" / "release" / "matsite"))

from playwright.sync_api import sync_playwright  # noqa: E402

from helpers import SiteServer, build_site, read_manifest  # noqa: E402

CONFIG = """\
title: Points benchmark
templates: {templates}
base_map: {{ demo: true }}
animations:
  - id: radar
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 5
    source: {{ demo: radar }}
    frames: {{ count: 2 }}
    points:
      - {{ id: pts, title: Reports, csv: points.csv, label: name, popup: [name], cluster: {{ radius_px: 40, max_zoom: 14, tile_above_bytes: {tile_above} }} }}
"""

PROBE = """
window.__bench = {first: null, longtasks: []};
new MutationObserver(() => {
    if (window.__bench.first === null && document.querySelector('.leaflet-marker-pane [data-count]')) {
        window.__bench.first = performance.now();
    }
}).observe(document, {childList: true, subtree: true});
try {
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__bench.longtasks.push([e.startTime, e.duration]); })
        .observe({type: 'longtask', buffered: true});
} catch (e) { /* longtask timing unsupported */ }
"""

ZOOM = """async ([lat, lon, z, points, step]) => {
    const map = document.querySelector('[data-matsite-player]')._matsitePlayer.getMap();
    // Without points: the same zoom-in with the layer toggled off, for a baseline.
    document.querySelectorAll('.matsite-point-toggle input').forEach((box) => {
        if (box.checked !== points) box.click();
    });
    map.setView([lat, lon], z, {animate: false});
    await new Promise((r) => setTimeout(r, 1500));
    const deltas = [];
    let last = null;
    const t0 = performance.now();
    let done = false;
    const tick = (ts) => { if (last !== null) deltas.push(ts - last); last = ts; if (!done) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    map.setZoom(z + step);
    // Leaflet's zoom animation (250 ms), then the split or merge (350 ms), and some slack.
    await new Promise((r) => setTimeout(r, 1200));
    done = true;
    const t1 = performance.now();
    return {deltas, shown: document.querySelectorAll('.leaflet-marker-pane [data-count]').length,
            longtasks: window.__bench.longtasks.filter(([s]) => s >= t0 && s <= t1).length};
}"""


def write_points(path: Path, n: int) -> None:
    rng = random.Random(13)
    groups = [(rng.uniform(41, 51), rng.uniform(-9, 9)) for _ in range(10)]
    with path.open("w", encoding="utf-8") as f:
        f.write("lat,lon,name\n")
        for i in range(n):
            if i % 10 < 7:
                lat, lon = rng.uniform(40, 52), rng.uniform(-10, 10)
            else:
                g = groups[i % 10]
                lat, lon = g[0] + rng.gauss(0, 0.05), g[1] + rng.gauss(0, 0.05)
            f.write(f"{lat:.5f},{lon:.5f},report {i}\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tile-above", type=int, default=1 << 20, help="cluster.tile_above_bytes (default 1 MiB)")
    ap.add_argument("--cpu-throttle", type=float, default=1.0, help="Chromium CPU throttling rate (4: about a phone)")
    ap.add_argument("--chromium", default=os.environ.get("MATSITE_CHROMIUM", "/usr/bin/chromium"))
    args = ap.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="matsite-bench-points-"))
    write_points(folder / "points.csv", args.points)
    # The working tree's templates: the player measured is the one in the tree, whatever
    # templates the binary was built with.
    site = build_site(folder, CONFIG.format(templates=REPO / "templates", tile_above=args.tile_above))
    layer = read_manifest(str(site))["points"][0]
    server = SiteServer(str(site))
    first, gaps, worst, longtasks, shown = [], [], [], [], []
    base_gaps, base_worst = [], []
    out_gaps, out_worst = [], []
    places = [(46.0, 0.0, 6), (44.5, -4.0, 8), (49.0, 5.0, 10)]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium)
        for _ in range(args.runs):
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            if args.cpu_throttle > 1:
                context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": args.cpu_throttle})
            page.add_init_script(PROBE)
            page.goto(server.url("radar/index.html?autoplay=0"))
            page.wait_for_function("() => window.__bench.first !== null", timeout=60000)
            first.append(page.evaluate("window.__bench.first"))
            for lat, lon, z in places:
                r = page.evaluate(ZOOM, [lat, lon, z, False, 1])
                base_gaps.append(sum(1 for d in r["deltas"] if d > 50))
                base_worst.append(max(r["deltas"]) if r["deltas"] else 0)
            for lat, lon, z in places:
                r = page.evaluate(ZOOM, [lat, lon, z, True, 1])
                gaps.append(sum(1 for d in r["deltas"] if d > 50))
                worst.append(max(r["deltas"]) if r["deltas"] else 0)
                longtasks.append(r["longtasks"])
                shown.append(r["shown"])
            for lat, lon, z in places:
                r = page.evaluate(ZOOM, [lat, lon, z + 1, True, -1])
                out_gaps.append(sum(1 for d in r["deltas"] if d > 50))
                out_worst.append(max(r["deltas"]) if r["deltas"] else 0)
            context.close()
        browser.close()
    server.stop()

    def fig(values, unit="", digits=0):
        return (f"median {statistics.median(values):.{digits}f}{unit}, "
                f"min {min(values):.{digits}f}{unit}, max {max(values):.{digits}f}{unit}")

    print(f"points: {layer['count']}, levels {layer['levels'][0]['zoom']}-{layer['levels'][-1]['zoom']}, "
          f"{sum(l['bytes'] for l in layer['levels'])} bytes published")
    print(f"runs: {args.runs}, zoom-ins per run: {len(places)} (to zooms {', '.join(str(z + 1) for _, _, z in places)})"
          + (f", CPU throttled {args.cpu_throttle:g}x" if args.cpu_throttle > 1 else ""))
    print(f"time to first clusters: {fig(first, ' ms')}")
    print(f"frame gaps over 50 ms per zoom-in: {fig(gaps)}")
    print(f"longest frame gap during a zoom-in: {fig(worst, ' ms')}")
    print(f"long tasks (> 50 ms) per zoom-in: {fig(longtasks)}")
    print(f"elements drawn after a zoom-in: {fig(shown)}")
    print(f"zoom-outs (back from those zooms): gaps over 50 ms {fig(out_gaps)}; longest {fig(out_worst, ' ms')}")
    print(f"baseline, the same zoom-ins with the layer off: gaps over 50 ms {fig(base_gaps)}; longest {fig(base_worst, ' ms')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
