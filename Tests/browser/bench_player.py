"""The player's benchmark (issues 3 and 12): figures, not a timed test.

In headless Debian chromium, each loop served from 127.0.0.1, at each viewport,
from a fresh browser context (empty cache):
  - time from navigation start to playable (data-state leaves "loading"),
  - bytes transferred before playable (resource timing, every response),
  - the viewport's share of the frames: the frames' bytes times the share of the
    frame box the map shows when playable (the issue's yardstick for the above),
  - in `--seconds` of playback: requestAnimationFrame callbacks, gaps over 50 ms,
    the longest gap,
  - the renderer process's RSS at the end (the largest renderer of the browser),
    and the GPU process's (canvases and composited layers may be held there).
For loops with levels, the same again after zooming to the frames' zoom over the
middle of the box ("to playable": from the zoom until playback resumes; bytes: those
fetched in between; share: "-").

Loops:
  demo    the loop `matsite init` scaffolds (12 frames, zoom 6), single images
  conus7  the demo source over a CONUS-sized box (W-124.5 S24 E-66 N49.5), zoom 7, 24 frames
  conus8  the same at zoom 8
The CONUS loops are built with `pyramid: { publish: always }`; with --stand-in the
binary builds them without and Tests/browser/pyramid_standin.py cuts the levels
(until the binary publishes levels itself). Sites are built once into --work and
reused from there. MATSITE_TEMPLATES (as for the tests) makes them use a
templates folder's player files.

    python3 Tests/browser/bench_player.py [--loops demo,conus7,conus8] [--work DIR]
        [--viewports 1280x800,390x844] [--seconds 10] [--runs 1] [--stand-in]

--stand-in needs Pillow (pip install Pillow).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from helpers import SiteServer, build_pyramid_site, read_manifest  # noqa: E402

DEMO = """\
title: Bench
base_map: { demo: true }
animations:
  - id: radar
    title: Demo radar
    bbox: [-10.5, 40.0, 12.5, 53.0]
    zoom: 6
    frame_duration_ms: 400
    last_frame_duration_ms: 1500
    crossfade_ms: 250
    source: { demo: radar }
    frames: { count: 12 }
"""

CONUS = """\
title: Bench
base_map: {{ demo: true }}
animations:
  - id: radar
    title: CONUS at z{zoom}
    bbox: [-124.5, 24.0, -66.0, 49.5]
    zoom: {zoom}
    frame_duration_ms: 200
    last_frame_duration_ms: 600
    crossfade_ms: 100
    source: {{ demo: radar }}
    frames: {{ count: 24 }}
    pyramid: {{ publish: always }}
"""

LOOPS = {"demo": DEMO, "conus7": CONUS.format(zoom=7), "conus8": CONUS.format(zoom=8)}

PROBE = """
window.__bench = {playable: null, share: null};
try { performance.setResourceTimingBufferSize(1000000); } catch (e) { /* older engines */ }
new MutationObserver((records) => {
    for (const r of records) {
        const s = r.target.getAttribute && r.target.getAttribute('data-state');
        if (window.__bench.playable === null && (s === 'ready' || s === 'playing' || s === 'paused')) {
            window.__bench.playable = performance.now();
            // Share of the frame box the map shows at this moment.
            const p = window.Matsite && Matsite.players[0];
            const map = p && p.getMap();
            if (map && p._frameBounds) {
                const b = p._frameBounds, v = map.getBounds();
                const nw = map.project(b.getNorthWest()), se = map.project(b.getSouthEast());
                const vnw = map.project(v.getNorthWest()), vse = map.project(v.getSouthEast());
                const w = Math.max(0, Math.min(se.x, vse.x) - Math.max(nw.x, vnw.x));
                const h = Math.max(0, Math.min(se.y, vse.y) - Math.max(nw.y, vnw.y));
                window.__bench.share = (w * h) / ((se.x - nw.x) * (se.y - nw.y));
            }
        }
    }
}).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-state']});
"""

BYTES = """(t) => {
    const nav = performance.getEntriesByType('navigation')[0];
    let bytes = nav ? nav.transferSize : 0, count = 0;
    for (const e of performance.getEntriesByType('resource')) {
        if (e.responseEnd <= t) { bytes += e.transferSize; count++; }
    }
    return [bytes, count];
}"""

RAF = """async (ms) => {
    const deltas = [];
    let last = null;
    const t0 = performance.now();
    await new Promise((done) => {
        const tick = (ts) => {
            if (last !== null) deltas.push(ts - last);
            last = ts;
            if (performance.now() - t0 < ms) requestAnimationFrame(tick); else done();
        };
        requestAnimationFrame(tick);
    });
    return {callbacks: deltas.length + 1, deltas};
}"""


def renderer_rss_mb(browser, kind: str = "renderer") -> float:
    """RSS of the browser's largest process of a kind ("renderer": the page's; "GPU":
    where canvases and layers may live), from /proc."""
    cdp = browser.new_browser_cdp_session()
    try:
        info = cdp.send("SystemInfo.getProcessInfo")
    finally:
        cdp.detach()
    best = 0
    for proc in info.get("processInfo", []):
        if proc.get("type") != kind:
            continue
        try:
            with open(f"/proc/{proc['id']}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        best = max(best, int(line.split()[1]))
        except OSError:
            continue
    return best / 1024


def site_for(loop: str, work: Path, stand_in: bool) -> Path:
    folder = work / loop
    site = folder / "site"
    if (site / "radar" / "manifest.json").exists():
        return site
    print(f"building {loop} into {folder} ...", file=sys.stderr, flush=True)
    return build_pyramid_site(folder, LOOPS[loop], stand_in)


def measure(browser, server, viewport, seconds, zoom_in=None) -> dict:
    w, h = viewport
    context = browser.new_context(viewport={"width": w, "height": h})
    page = context.new_page()
    page.add_init_script(PROBE)
    page.goto(server.url("radar/index.html"))
    page.wait_for_function("() => window.__bench.playable !== null", timeout=600000, polling=50)
    playable = page.evaluate("window.__bench.playable")
    share = page.evaluate("window.__bench.share")
    bytes_before, requests = page.evaluate(BYTES, playable)
    page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.state === 'playing'",
                           timeout=600000)
    r = page.evaluate(RAF, seconds * 1000)
    rss = renderer_rss_mb(browser), renderer_rss_mb(browser, "GPU")
    out = {"fit": figures(playable, share, bytes_before, requests, r, rss)}
    if zoom_in is not None:
        # Then at the frames' own detail, over the middle of the box: the view's tiles of every frame.
        t0 = page.evaluate("""(z) => { const p = Matsite.players[0], map = p.getMap();
            const t = performance.now(); map.setView(p._frameBounds.getCenter(), z, {animate: false}); return t; }""", zoom_in)
        page.wait_for_timeout(100)
        page.wait_for_function("""() => { const r = document.querySelector('[data-matsite-player]');
            return r.dataset.state === 'playing' && !r.dataset.pausedReason; }""", timeout=600000, polling=50)
        t1 = page.evaluate("performance.now()")
        b0, n0 = page.evaluate(BYTES, t0)
        b1, n1 = page.evaluate(BYTES, t1)
        r = page.evaluate(RAF, seconds * 1000)
        out["zoomed"] = figures(t1 - t0, None, b1 - b0, n1 - n0, r,
                                (renderer_rss_mb(browser), renderer_rss_mb(browser, "GPU")))
    context.close()
    return out


def figures(playable, share, bytes_before, requests, r, rss) -> dict:
    gaps = [d for d in r["deltas"] if d > 50]
    return {"playable_ms": playable, "bytes": bytes_before, "requests": requests, "share": share,
            "callbacks": r["callbacks"], "gaps50": len(gaps), "longest": max(r["deltas"]) if r["deltas"] else 0,
            "rss": rss[0], "gpu": rss[1]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--loops", default="demo,conus7,conus8")
    ap.add_argument("--work", default="/tmp/matsite-bench-player", help="where the loops' sites are built and kept")
    ap.add_argument("--viewports", default="1280x800,390x844")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--stand-in", action="store_true", help="cut the levels with pyramid_standin.py")
    ap.add_argument("--chromium", default=os.environ.get("MATSITE_CHROMIUM", "/usr/bin/chromium"))
    args = ap.parse_args()
    work = Path(args.work)
    viewports = [tuple(int(v) for v in s.split("x")) for s in args.viewports.split(",")]

    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium)
        for loop in args.loops.split(","):
            site = site_for(loop, work, args.stand_in)
            m = read_manifest(str(site))
            frame_bytes = sum(f.get("bytes", 0) for f in m["frames"])
            server = SiteServer(str(site))
            zoom_in = m["pyramid"]["max_zoom"] if m.get("pyramid") else None
            for vp in viewports:
                runs = [measure(browser, server, vp, args.seconds, zoom_in) for _ in range(args.runs)]
                for view in runs[0]:
                    med = {k: statistics.median(r[view][k] for r in runs) for k in runs[0][view] if k != "share"}
                    share = runs[0][view]["share"]
                    label = loop if view == "fit" else f"{loop}, zoomed to z{zoom_in}"
                    rows.append((label, m, frame_bytes, vp, med, share))
                time.sleep(0.5)
            server.stop()
        browser.close()

    print(f"chromium {args.chromium}, {args.seconds:g} s of playback, median of {args.runs} run(s)")
    print("| loop | frame size | levels | viewport | rAF callbacks | gaps > 50 ms | longest gap | renderer RSS | GPU process RSS "
          "| to playable | bytes before playable (requests) | viewport's share of the frames |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, m, frame_bytes, (w, h), r, share in rows:
        levels = (f"{m['pyramid']['min_zoom']}-{m['pyramid']['max_zoom']}" if m.get("pyramid") else "single image")
        share_bytes = f"{frame_bytes * share / 1e6:.1f} MB" if share is not None else "?"
        print(f"| {label}, {len(m['frames'])} frames | {m['width']} x {m['height']} | {levels} | {w} x {h} "
              f"| {r['callbacks']:.0f} | {r['gaps50']:.0f} | {r['longest']:.0f} ms | {r['rss']:.0f} MB | {r['gpu']:.0f} MB "
              f"| {r['playable_ms']:.0f} ms | {r['bytes'] / 1e6:.1f} MB ({r['requests']:.0f}) | {share_bytes} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
