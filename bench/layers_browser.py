"""Data layers on one timeline in the browser (issue 28): figures, not a timed test.

Builds (with $MATSITE_BIN, default .build/debug/matsite; the player's figures do not depend
on how the binary was compiled) one site holding the same two layers twice: `storm`, a
24-step timeline (5 minutes apart) with a JPEG "infrared satellite" every 10 minutes under
the demo radar every 5 (PNG), and the two as separate one-source animations, `satellite`
(11 frames) and `radar` (24 frames): helpers.layers_config(24, separate=True). Serves it
from 127.0.0.1 and, in headless Debian chromium, from a fresh browser context (empty cache)
each run, at each viewport:
  - layered: storm/index.html, autoplaying;
  - separate: a page with the two embed pages in iframes, one over the other, each
    autoplaying (what a site showing both has to do without layers);
and measures:
  - time from navigation start to playable (every player's data-state has left "loading"),
  - bytes transferred and requests before playable,
  - in --seconds of playback: requestAnimationFrame callbacks in the top page, gaps over
    50 ms, the longest gap,
  - the renderer process's RSS at the end (the largest renderer of the browser: the two
    same-origin iframes share the page's), and the GPU process's.
The site is built once into --work and reused.

    python3 bench/layers_browser.py [--work DIR] [--viewports 1280x800,390x844] [--seconds 10] [--runs 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "browser"))
os.environ.setdefault("MATSITE_BIN", str(REPO / ".build" / "debug" / "matsite"))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench_player import BYTES, RAF, renderer_rss_mb  # noqa: E402
from helpers import SiteServer, build_site, layers_config, read_manifest, satellite_tiles  # noqa: E402

STEPS = 24

PAIR = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>two players</title></head>
<body style="margin:0"><iframe src="satellite/embed.html?autoplay=1" title="satellite" style="display:block;border:0;width:100%;height:50vh"></iframe>
<iframe src="radar/embed.html?autoplay=1" title="radar" style="display:block;border:0;width:100%;height:50vh"></iframe></body></html>"""

# Every player of the page and of its same-origin frames; playable when none is loading.
PLAYABLE = """() => {
    const docs = [document, ...[...document.querySelectorAll('iframe')].map((f) => f.contentDocument)];
    const roots = docs.flatMap((d) => d ? [...d.querySelectorAll('[data-matsite-player]')] : []);
    return roots.length > 0 && roots.every((r) => r.dataset.state && r.dataset.state !== 'loading')
        && (document.querySelectorAll('iframe').length === 0 || roots.length === document.querySelectorAll('iframe').length);
}"""

PLAYING = PLAYABLE.replace("r.dataset.state && r.dataset.state !== 'loading'", "r.dataset.state === 'playing'")


def site_for(work: Path) -> Path:
    site = work / "site"
    if (site / "storm" / "manifest.json").exists():
        return site
    print(f"building into {work} ...", file=sys.stderr, flush=True)
    satellite_tiles(work, STEPS)
    return build_site(work, layers_config(STEPS, separate=True), expect="storm")


def measure(browser, server, path, viewport, seconds) -> dict:
    w, h = viewport
    context = browser.new_context(viewport={"width": w, "height": h})
    page = context.new_page()
    page.goto(server.url(path))
    page.wait_for_function(PLAYABLE, timeout=600000, polling=20)
    playable = page.evaluate("performance.now()")
    bytes_before, requests = page.evaluate(BYTES, playable)
    # The iframes' own resources count too (same origin: their performance entries are readable).
    for frame in page.frames[1:]:
        b, n = frame.evaluate(BYTES, frame.evaluate("performance.now()"))
        bytes_before, requests = bytes_before + b, requests + n
    page.wait_for_function(PLAYING, timeout=600000)
    r = page.evaluate(RAF, seconds * 1000)
    gaps = [d for d in r["deltas"] if d > 50]
    out = {"playable_ms": playable, "bytes": bytes_before, "requests": requests, "callbacks": r["callbacks"],
           "gaps50": len(gaps), "longest": max(r["deltas"]) if r["deltas"] else 0,
           "rss": renderer_rss_mb(browser), "gpu": renderer_rss_mb(browser, "GPU")}
    context.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", default="/tmp/matsite-bench-layers", help="where the site is built and kept")
    ap.add_argument("--viewports", default="1280x800,390x844")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--chromium", default=os.environ.get("MATSITE_CHROMIUM", "/usr/bin/chromium"))
    args = ap.parse_args()
    site = site_for(Path(args.work))
    storm = read_manifest(str(site), "storm")
    frames = {lid: len(read_manifest(str(site), lid)["frames"]) for lid in ("satellite", "radar")}
    viewports = [tuple(int(v) for v in s.split("x")) for s in args.viewports.split(",")]
    server = SiteServer(str(site))
    server.override("pair.html", PAIR.encode(), "text/html")
    cases = [(f"layered: storm, {len(storm['frames'])} steps, "
              f"{' + '.join(str(len(layer['frames'])) for layer in storm['layers'])} layer frames", "storm/index.html"),
             (f"separate: satellite ({frames['satellite']} frames) and radar ({frames['radar']}) in two iframes", "pair.html")]
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium)
        for vp in viewports:
            for label, path in cases:
                runs = [measure(browser, server, path, vp, args.seconds) for _ in range(args.runs)]
                rows.append((label, vp, {k: statistics.median(r[k] for r in runs) for k in runs[0]}))
        browser.close()
    server.stop()
    print(f"chromium {args.chromium}, {args.seconds:g} s of playback, median of {args.runs} run(s)")
    print("| what | viewport | to playable | bytes before playable (requests) | rAF callbacks | gaps > 50 ms "
          "| longest gap | renderer RSS | GPU process RSS |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, (w, h), r in rows:
        print(f"| {label} | {w} x {h} | {r['playable_ms']:.0f} ms | {r['bytes'] / 1e6:.2f} MB ({r['requests']:.0f}) "
              f"| {r['callbacks']:.0f} | {r['gaps50']:.0f} | {r['longest']:.0f} ms | {r['rss']:.0f} MB | {r['gpu']:.0f} MB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
