"""Point layers in the browser (issue 13): figures, not a timed test.

Builds (with $MATSITE_BIN, default .build/release/matsite) a site whose animation has one
point layer of N points (default 100,000: 70% over the animation's box, 30% in ten dense
groups, seeded), serves it from 127.0.0.1 and, in headless Debian chromium:
  - time from navigation start to the first cluster drawn in the marker pane,
  - a zoom-in by one level (Leaflet's zoom animation, then the split): frame gaps over
    50 ms and long tasks while it runs, at three places,
  - a zoom-out by one level (the merge) at the same places,
  - the same zoom-ins with the layer toggled off, as a baseline (the map's own zoom),
  - for each zoom-in, when its new level is whole: the first frame from which the marker
    pane holds only the new level's elements (the old level gone, none merging away), as
    many as it ends with and with the counts they end with (adding up to the points in
    view), and the elements that stayed the same DOM node across the zoom; what the pane
    holds is followed from its mutations (a MutationObserver), not queried every frame:
    the bench's own work in the frames it measures is a few sums per element added,
    removed or retagged,
  - by place, each zoom-in's time to a whole level and when its gaps over 50 ms ended (the
    zoom-in to 7 draws the most elements, and is where the slow ones were),
  - bytes published for the points.
--cpu-throttle 4 runs it all with Chromium's CPU throttling (CDP
Emulation.setCPUThrottlingRate), as a stand-in for a phone.
--against REF also measures the player of git revision REF (its templates/, on the same
site data), each round both players one after the other, and prints each figure of this
tree's player beside REF's from the same run: the machine is shared and its load drifts.

    python3 bench/points_browser.py [--points 100000] [--runs 5] [--cpu-throttle 4] [--against main]
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tarfile
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

ZOOM = """async ([lat, lon, z, points, step, slack]) => {
    const map = document.querySelector('[data-matsite-player]')._matsitePlayer.getMap();
    const pane = map.getPane('markerPane');
    // Without points: the same zoom-in with the layer toggled off, for a baseline.
    document.querySelectorAll('.matsite-point-toggle input').forEach((box) => {
        if (box.checked !== points) box.click();
    });
    map.setView([lat, lon], z, {animate: false});
    await new Promise((r) => setTimeout(r, 1500));
    const before = new Set(pane.querySelectorAll('[data-count]'));
    const deltas = [];
    const frames = [];  // [ms since the zoom began, elements of another level or leaving, elements, their counts]
    let last = null;
    const target = String(z + step);
    // What the marker pane holds, kept up to date from its mutations rather than queried
    // every frame: querying ~900 elements a frame is work of the bench's own, in the very
    // frames measured. Per element: is it of another level or leaving, and its count.
    const state = new Map();
    let outside = 0, counted = 0;
    const item = (el) => el.nodeType === 1 && el.hasAttribute('data-count');
    const forget = (el) => {
        const s = state.get(el);
        if (!s) return;
        outside -= s[0];
        counted -= s[1];
        state.delete(el);
    };
    const note = (el) => {
        forget(el);
        if (!pane.contains(el)) return;
        const s = [(el.dataset.zoom !== target || el.classList.contains('matsite-point-leaving')) ? 1 : 0, +el.dataset.count];
        outside += s[0];
        counted += s[1];
        state.set(el, s);
    };
    before.forEach(note);
    const each = (node, fn) => {
        if (node.nodeType !== 1) return;
        if (item(node)) fn(node);
        node.querySelectorAll('[data-count]').forEach(fn);
    };
    const observer = new MutationObserver((records) => {
        for (const r of records) {
            if (r.type === 'attributes') {
                if (item(r.target)) note(r.target); else forget(r.target);
                continue;
            }
            r.removedNodes.forEach((n) => each(n, note));
            r.addedNodes.forEach((n) => each(n, note));
        }
    });
    observer.observe(pane, {childList: true, subtree: true, attributes: true, attributeFilter: ['data-zoom', 'data-count', 'class']});
    const t0 = performance.now();
    let done = false;
    const tick = (ts) => {
        if (last !== null) deltas.push(ts - last);
        last = ts;
        frames.push([performance.now() - t0, outside, state.size, outside ? 0 : counted]);
        if (!done) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    map.setZoom(z + step);
    // Leaflet's zoom animation (250 ms), then the split or merge (350 ms), and some slack:
    // longer under throttling, so the level is whole before the end.
    await new Promise((r) => setTimeout(r, 1200 * slack));
    done = true;
    observer.disconnect();
    const t1 = performance.now();
    const all = [...pane.querySelectorAll('[data-count]')];
    const n = all.length, sum = all.reduce((s, e) => s + +e.dataset.count, 0);
    // Whole: from this frame on, only the new level, all of it, with its final counts.
    let whole = null;
    for (let k = frames.length - 1; k >= 0; k--) {
        const [t, other, count, total] = frames[k];
        if (other || count !== n || total !== sum) break;
        whole = t;
    }
    // The probe's own account must match the pane's at the end.
    const drift = state.size !== n || state.size !== all.filter((e) => state.has(e)).length;
    // When each gap over 50 ms ended (ms since the zoom began) and how long it was.
    const gapAt = [];
    for (let k = 1; k < frames.length; k++) {
        if (deltas[k - 1] > 50) gapAt.push([Math.round(frames[k][0]), Math.round(deltas[k - 1])]);
    }
    return {deltas, whole, gapAt, shown: n, kept: all.filter((e) => before.has(e)).length, drift,
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


def player_templates(ref: str, into: Path) -> Path:
    """The templates/ folder of git revision `ref`, extracted into `into`."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", ref, "templates"],
                             check=True, capture_output=True).stdout
    into.mkdir(parents=True, exist_ok=True)
    (into / "templates.tar").write_bytes(archive)
    with tarfile.open(into / "templates.tar") as tar:
        tar.extractall(into, filter="data")
    return into / "templates"


def measure(browser, url: str, places, throttle: float, slack: float, out: dict) -> None:
    """One round on one player: first clusters, zoom-ins without and with the layer, zoom-outs."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    if throttle > 1:
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    page.add_init_script(PROBE)
    page.goto(url)
    page.wait_for_function("() => window.__bench.first !== null", timeout=120000)
    out["first"].append(page.evaluate("window.__bench.first"))
    for lat, lon, z in places:
        r = page.evaluate(ZOOM, [lat, lon, z, False, 1, slack])
        if r["drift"]:
            raise SystemExit("the bench's probe lost count of the marker pane's elements")
        out["base_gaps"].append(sum(1 for d in r["deltas"] if d > 50))
        out["base_worst"].append(max(r["deltas"]) if r["deltas"] else 0)
    for lat, lon, z in places:
        r = page.evaluate(ZOOM, [lat, lon, z, True, 1, slack])
        if r["drift"]:
            raise SystemExit("the bench's probe lost count of the marker pane's elements")
        out["gaps"].append(sum(1 for d in r["deltas"] if d > 50))
        out["worst"].append(max(r["deltas"]) if r["deltas"] else 0)
        out["gap_at"].append(r["gapAt"])
        out["longtasks"].append(r["longtasks"])
        out["shown"].append(r["shown"])
        out["kept"].append(r["kept"])
        # A level never whole before the end counts as the whole wait.
        out["whole"].append(r["whole"] if r["whole"] is not None else 1200 * slack)
    for lat, lon, z in places:
        r = page.evaluate(ZOOM, [lat, lon, z + 1, True, -1, slack])
        out["out_gaps"].append(sum(1 for d in r["deltas"] if d > 50))
        out["out_worst"].append(max(r["deltas"]) if r["deltas"] else 0)
    context.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tile-above", type=int, default=1 << 20, help="cluster.tile_above_bytes (default 1 MiB)")
    ap.add_argument("--cpu-throttle", type=float, default=1.0, help="Chromium CPU throttling rate (4: about a phone)")
    ap.add_argument("--against", help="also measure the player of this git revision, beside this tree's, in every round")
    ap.add_argument("--chromium", default=os.environ.get("MATSITE_CHROMIUM", "/usr/bin/chromium"))
    args = ap.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="matsite-bench-points-"))
    # The players measured: this tree's templates (whatever templates the binary was built
    # with), and with --against the other revision's, each on a site of its own built from
    # the same points by the same binary (so the same levels).
    players = [("this tree", REPO / "templates")]
    if args.against:
        players.append((args.against, player_templates(args.against, folder / "against")))
    sites = []
    for k, (name, templates) in enumerate(players):
        sub = folder / f"site{k}"
        sub.mkdir()
        write_points(sub / "points.csv", args.points)
        sites.append(build_site(sub, CONFIG.format(templates=templates, tile_above=args.tile_above)))
    layer = read_manifest(str(sites[0]))["points"][0]
    servers = [SiteServer(str(site)) for site in sites]
    keys = ["first", "gap_at", "gaps", "worst", "longtasks", "shown", "kept", "whole", "base_gaps", "base_worst", "out_gaps", "out_worst"]
    results = [{k: [] for k in keys} for _ in players]
    places = [(46.0, 0.0, 6), (44.5, -4.0, 8), (49.0, 5.0, 10)]
    slack = max(1.0, args.cpu_throttle / 2)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium)
        for run in range(args.runs):
            # Alternate which player goes first, so neither always meets the same load.
            order = list(range(len(players)))
            if run % 2:
                order.reverse()
            for k in order:
                measure(browser, servers[k].url("radar/index.html?autoplay=0"), places, args.cpu_throttle, slack, results[k])
        browser.close()
    for server in servers:
        server.stop()

    def fig(values, unit="", digits=0):
        return (f"median {statistics.median(values):.{digits}f}{unit}, "
                f"min {min(values):.{digits}f}{unit}, max {max(values):.{digits}f}{unit}")

    def row(title, key, unit="", digits=0, extra=None):
        parts = [f"{name}: {fig(r[key], unit, digits)}" + (extra(r) if extra else "") for (name, _), r in zip(players, results)]
        print(f"{title}: " + (" | ".join(parts) if len(parts) > 1 else parts[0].split(": ", 1)[1]))

    print(f"points: {layer['count']}, levels {layer['levels'][0]['zoom']}-{layer['levels'][-1]['zoom']}, "
          f"{sum(l['bytes'] for l in layer['levels'])} bytes published")
    print(f"runs: {args.runs}, zoom-ins per run: {len(places)} (to zooms {', '.join(str(z + 1) for _, _, z in places)})"
          + (f", CPU throttled {args.cpu_throttle:g}x" if args.cpu_throttle > 1 else "")
          + (f"; players: this tree and {args.against}, alternating which goes first" if args.against else ""))
    row("time to first clusters", "first", " ms")
    row("zoom-in: new level whole after", "whole", " ms",
        extra=lambda r: f" ({sum(1 for w in r['whole'] if w <= 1000)} of {len(r['whole'])} within 1 s)")
    row("zoom-in: frame gaps over 50 ms", "gaps")
    row("zoom-in: longest frame gap", "worst", " ms")
    row("zoom-in: long tasks (> 50 ms)", "longtasks")
    row("zoom-in: elements drawn after", "shown")
    row("zoom-in: elements kept (the same DOM node)", "kept")
    # Each zoom-in by place: where the slowest and the gaps are.
    for n, (_, _, z) in enumerate(places):
        parts = []
        for (name, _), r in zip(players, results):
            mine = range(n, len(r["whole"]), len(places))
            gaps = [g for k in mine for g in r["gap_at"][k]]
            parts.append(f"{name}: whole {', '.join(str(round(r['whole'][k])) for k in mine)} ms; gaps over 50 ms "
                         f"(ended at ms, lasting ms): {', '.join(f'{a}/{d}' for a, d in gaps) or 'none'}")
        print(f"  zoom-in to {z + 1}: " + " | ".join(parts))
    row("zoom-out: frame gaps over 50 ms", "out_gaps")
    row("zoom-out: longest frame gap", "out_worst", " ms")
    row("baseline, the zoom-ins with the layer off: gaps over 50 ms", "base_gaps")
    row("baseline: longest frame gap", "base_worst", " ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
