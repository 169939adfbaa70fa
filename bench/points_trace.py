"""Where a zoom-in's frames go (issue 27): a Chromium performance trace, broken down.

Builds the same site as bench/points_browser.py (with $MATSITE_BIN, default
.build/release/matsite; N points, default 100,000), opens it in headless Debian chromium
at 1280 x 800 with the CPU throttled (default 4x), sets the view (default 46.0, 0.0 at
zoom 6), then records a trace (devtools.timeline categories) of one zoom-in by a level and
the seconds after it. Prints, for every main-thread task of 8 ms or more, how its time
splits into script, style, layout, prepaint, paint, layerize, commit and gc, and the totals;
writes the trace itself to --out for chrome://tracing or Perfetto.

    python3 bench/points_trace.py [--points 100000] [--cpu-throttle 4] [--at 46,0,6] [--seconds 3.5] [--out trace.json]
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "browser"))
sys.path.insert(0, str(REPO / "bench"))
os.environ.setdefault("MATSITE_BIN", str(REPO / ".build" / "release" / "matsite"))

from playwright.sync_api import sync_playwright  # noqa: E402

from helpers import SiteServer, build_site  # noqa: E402
from points_browser import CONFIG, write_points  # noqa: E402

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline",
              "disabled-by-default-devtools.timeline.frame", "blink", "cc", "v8.execute", "toplevel"]

# Trace events and the part of a frame they are; an event inside another counted one is
# not counted again.
PART = {
    "FunctionCall": "script", "EvaluateScript": "script", "FireAnimationFrame": "script",
    "TimerFire": "script", "EventDispatch": "script", "RunMicrotasks": "script",
    "MajorGC": "gc", "MinorGC": "gc", "V8.GCScavenger": "gc", "BlinkGC.AtomicPhase": "gc",
    "UpdateLayoutTree": "style", "RecalculateStyles": "style",
    "Layout": "layout", "PrePaint": "prepaint", "Paint": "paint",
    "Layerize": "layerize", "UpdateLayerTree": "layerize", "Commit": "commit",
}

MAP = "document.querySelector('[data-matsite-player]')._matsitePlayer.getMap()"


def breakdown(events):
    """[(ms since the first task, task ms, Counter of part -> ms)] for the renderer's main
    thread tasks of 8 ms or more."""
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    busy = collections.Counter((e.get("pid"), e.get("tid")) for e in events)
    mains = [k for k, v in names.items() if v == "CrRendererMain"]
    if not mains:
        return []
    main = max(mains, key=lambda k: busy[k])
    mine = [e for e in events if (e.get("pid"), e.get("tid")) == main and e.get("ph") == "X"]
    tasks = sorted((e for e in mine if e["name"] == "ThreadControllerImpl::RunTask"), key=lambda e: e["ts"])
    parts = sorted((e for e in mine if e["name"] in PART), key=lambda e: (e["ts"], -e.get("dur", 0)))
    if not tasks:
        return []
    t0 = tasks[0]["ts"]
    rows = []
    for t in tasks:
        if t.get("dur", 0) < 8000:
            continue
        start, end = t["ts"], t["ts"] + t["dur"]
        split = collections.Counter()
        covered = -1
        for e in parts:
            if e["ts"] < start or e["ts"] + e.get("dur", 0) > end or e["ts"] < covered:
                continue
            split[PART[e["name"]]] += e.get("dur", 0) / 1000
            covered = e["ts"] + e.get("dur", 0)
        rows.append(((start - t0) / 1000, t["dur"] / 1000, split))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--cpu-throttle", type=float, default=4.0)
    ap.add_argument("--at", default="46.0,0.0,6", help="lat,lon,zoom of the view before the zoom-in")
    ap.add_argument("--seconds", type=float, default=3.5, help="how long to trace after the zoom-in starts")
    ap.add_argument("--out", default=None, help="where to write the trace (default: a temporary folder)")
    ap.add_argument("--chromium", default=os.environ.get("MATSITE_CHROMIUM", "/usr/bin/chromium"))
    args = ap.parse_args()
    lat, lon, zoom = (float(v) for v in args.at.split(","))

    folder = Path(tempfile.mkdtemp(prefix="matsite-bench-trace-"))
    write_points(folder / "points.csv", args.points)
    site = build_site(folder, CONFIG.format(templates=REPO / "templates", tile_above=1 << 20))
    out = Path(args.out) if args.out else folder / "trace.json"
    server = SiteServer(str(site))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium)
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            if args.cpu_throttle > 1:
                context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": args.cpu_throttle})
            page.goto(server.url("radar/index.html?autoplay=0"))
            page.wait_for_function("() => document.querySelector('.leaflet-marker-pane [data-count]')", timeout=120000)
            # (Braces: setView returns the map, which Playwright would serialize, for seconds.)
            page.evaluate(f"([a, o, z]) => {{ {MAP}.setView([a, o], z, {{animate: false}}); }}", [lat, lon, int(zoom)])
            page.wait_for_timeout(3000)
            browser.start_tracing(page=page, path=str(out), categories=CATEGORIES)
            page.evaluate(f"(z) => {{ {MAP}.setZoom(z); }}", int(zoom) + 1)
            page.wait_for_timeout(int(args.seconds * 1000))
            browser.stop_tracing()
            shown = page.evaluate("document.querySelectorAll('.leaflet-marker-pane [data-count]').length")
            browser.close()
    finally:
        server.stop()

    data = json.loads(out.read_text())
    rows = breakdown(data["traceEvents"] if isinstance(data, dict) else data)
    total = collections.Counter()
    for at, took, split in rows:
        total.update(split)
        other = took - sum(split.values())
        print(f"{at:7.0f} ms  task {took:5.1f} ms: "
              + ", ".join(f"{k} {v:.1f}" for k, v in split.most_common()) + f", other {other:.1f}")
    busy = sum(took for _, took, _ in rows)
    print(f"zoom {int(zoom)} -> {int(zoom) + 1} at {lat}, {lon}; CPU throttled {args.cpu_throttle:g}x; "
          f"{shown} elements after {args.seconds:g} s; {len(rows)} tasks of 8 ms or more, {busy:.0f} ms in all")
    print("totals: " + ", ".join(f"{k} {v:.0f} ms ({100 * v / busy:.0f}%)" for k, v in total.most_common()))
    print(f"trace: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
