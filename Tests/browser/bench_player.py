"""The player's benchmark (issue 3): figures, not a timed test.

In headless Debian chromium against the demo site built by `matsite build`
(or --site DIR), served from 127.0.0.1:
  - time from navigation start to playable (data-state leaves "loading"),
  - dropped animation frames and long tasks (> 50 ms) during 3 loops,
  - JS heap in use after preload (after a forced GC).

    python3 Tests/browser/bench_player.py [--site DIR] [--runs 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from playwright.sync_api import sync_playwright  # noqa: E402

from helpers import DEMO_CONFIG, SiteServer, build_site, read_manifest  # noqa: E402

PROBE = """
window.__bench = {playable: null, longtasks: []};
new MutationObserver((records) => {
    for (const r of records) {
        const s = r.target.getAttribute && r.target.getAttribute('data-state');
        if (window.__bench.playable === null && (s === 'ready' || s === 'playing')) window.__bench.playable = performance.now();
    }
}).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-state']});
try {
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__bench.longtasks.push([e.startTime, e.duration]); })
        .observe({type: 'longtask', buffered: true});
} catch (e) { /* longtask timing unsupported */ }
"""

LOOPS = """async (ms) => {
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
    const t1 = performance.now();
    return {deltas, t0, t1, longtasks: window.__bench.longtasks.filter(([s]) => s >= t0 && s <= t1)};
}"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--site", help="a built site folder (default: build the demo with $MATSITE_BIN)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--chromium", default=os.environ.get("MATSITE_CHROMIUM", "/usr/bin/chromium"))
    args = ap.parse_args()

    site = Path(args.site) if args.site else build_site(Path(tempfile.mkdtemp(prefix="matsite-bench-")), DEMO_CONFIG)
    manifest = read_manifest(str(site))
    loop_ms = sum(f["duration_ms"] for f in manifest["frames"])
    frame_bytes = sum(f.get("bytes", 0) for f in manifest["frames"])
    server = SiteServer(str(site))
    playable, dropped, longtasks, heaps, displays = [], [], [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium)
        for _ in range(args.runs):
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            page.add_init_script(PROBE)
            page.goto(server.url("radar/index.html"))
            page.wait_for_function("() => window.__bench.playable !== null", timeout=60000)
            playable.append(page.evaluate("window.__bench.playable"))
            cdp = context.new_cdp_session(page)
            cdp.send("HeapProfiler.collectGarbage")
            heaps.append(cdp.send("Runtime.getHeapUsage")["usedSize"])
            page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.state === 'playing'")
            r = page.evaluate(LOOPS, 3 * loop_ms)
            display = statistics.median(r["deltas"])
            displays.append(display)
            dropped.append(sum(max(0, round(d / display) - 1) for d in r["deltas"] if d > 1.5 * display))
            longtasks.append(len(r["longtasks"]))
            context.close()
        browser.close()
    server.stop()

    def fig(values, unit="", digits=0):
        return (f"median {statistics.median(values):.{digits}f}{unit}, "
                f"min {min(values):.{digits}f}{unit}, max {max(values):.{digits}f}{unit}")

    print(f"site: {site} ({len(manifest['frames'])} frames of {manifest['width']}x{manifest['height']} px, "
          f"{frame_bytes} bytes of frames, loop {loop_ms} ms)")
    print(f"runs: {args.runs}, display frame {statistics.median(displays):.1f} ms")
    print(f"time to playable: {fig(playable, ' ms')}")
    print(f"dropped animation frames in 3 loops: {fig(dropped)}")
    print(f"long tasks (> 50 ms) in 3 loops: {fig(longtasks)}")
    print(f"JS heap after preload: {fig([h / 1e6 for h in heaps], ' MB', 2)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
