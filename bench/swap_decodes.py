"""Image decodes a loop of single-image frames costs once it plays (issue 35 item 3): figures, not a test.

Builds a loop of FRAMES (24) frames with $MATSITE_BIN (default .build/debug/matsite;
MATSITE_TEMPLATES: the player files of a folder, to compare players):
  regional  bench/tileplayer.py's regional loop: bench/corpus.py's weather at zoom 7 (1912 x
            1646 px frames, reduced levels at a half and a quarter), tiles served on 127.0.0.1
  demo      the demo radar at zoom 7 (1820 x 1581 px, the same levels), soft and small in bytes
serves it on 127.0.0.1 and opens it in headless Debian chromium, per device:
  phone  390 x 844 CSS px at a device pixel ratio of 3, CPU throttled 4x (CDP)
  desk   1280 x 800 at 1
From playable on, it records a Chromium trace of the first whole loop (the root's data-frame
changing FRAMES times) and another of the second, and prints for each: the images decoded
("Decode Image" events: a file decoded to pixels; count and summed duration), the decoded
images copied at a smaller scale (SoftwareImageDecodeCache's entries made from the full
decode: on the phone, a quarter-size copy of each frame), and the raster workers' decode tasks ("ImageDecodeTask": either of those, or a
hit in Chromium's decode caches);
then the renderer's RSS (/proc, the browser's largest renderer) after SECONDS (10) more of
playback, and the player's own decoded bytes (data-bytes on the frames' container) and level.

    python3 bench/swap_decodes.py [--loop regional|demo] [--devices phone,desk] [--frames 24] [--out DIR]
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

from playwright.sync_api import sync_playwright  # noqa: E402

from bench_player import renderer_rss_mb  # noqa: E402
from helpers import SiteServer, build_site, wait_state  # noqa: E402

sys.path.insert(0, str(REPO / "bench"))

DEMO = """\
title: Swap decodes
base_map: {{ demo: true }}
animations:
  - id: radar
    title: Demo radar
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 7
    source: {{ demo: radar }}
    frames: {{ count: {frames} }}
"""

REGIONAL = dict(bbox=(-95.5, 29.0, -74.5, 43.5), zoom=7)

DEVICES = {
    "phone": dict(width=390, height=844, dpr=3, mobile=True, cpu=4),
    "desk": dict(width=1280, height=800, dpr=1, mobile=False, cpu=1),
}

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink", "cc",
              "disabled-by-default-cc.debug", "toplevel", "gpu"]

# Counts the root's frame changes from now on.
COUNT_STEPS = """() => { window.__steps = 0; new MutationObserver(() => window.__steps++)
    .observe(document.querySelector('[data-matsite-player]'), {attributes: true, attributeFilter: ['data-frame']}); }"""

# An image decoded to pixels (its file read, PNG or JPEG decoded), and a raster worker's
# decode task, which is that or a hit in Chromium's decode caches.
DECODE = "Decode Image"
TASK = "ImageDecodeTask"
# A decoded image copied at a smaller scale, from the full decode the cache holds.
RESCALE = "SoftwareImageDecodeCacheUtils::GenerateCacheEntryFromCandidate"


def decode_events(events):
    """{name: [count, ms]} of the trace's complete events whose name says decode."""
    out = collections.defaultdict(lambda: [0, 0.0])
    begins = {}
    for e in events:
        name = e.get("name", "")
        if "ecode" not in name:
            continue
        ph = e.get("ph")
        if ph == "X":
            out[name][0] += 1
            out[name][1] += e.get("dur", 0) / 1000
        elif ph == "B":
            begins[(e.get("pid"), e.get("tid"), name)] = e["ts"]
        elif ph == "E":
            t = begins.pop((e.get("pid"), e.get("tid"), name), None)
            if t is not None:
                out[name][0] += 1
                out[name][1] += (e["ts"] - t) / 1000
    return out


def regional_site(out: Path, frames: int) -> Path:
    """bench/tileplayer.py's regional loop, its tiles written (zoom 7 only) and served while it builds."""
    import corpus
    from tileplayer import tile_block
    xs, ys = tile_block(REGIONAL["bbox"], REGIONAL["zoom"])
    tiles = out / "tiles"
    if not (tiles / str(frames - 1)).exists():
        corpus.write_pyramid(str(tiles), frames, REGIONAL["zoom"], xs, ys, REGIONAL["zoom"])
    server = SiteServer(str(tiles))
    try:
        lines = ["title: Swap decodes", "animations:", "  - id: radar",
                 f"    bbox: [{', '.join(str(v) for v in REGIONAL['bbox'])}]", f"    zoom: {REGIONAL['zoom']}",
                 "    fallback: { levels: 0 }", "    source: { tile_size: 256 }", "    frames:", "      templates:"]
        lines += [f'        - "{server.url(str(t))}/{{z}}/{{x}}/{{y}}.png"' for t in range(frames)]
        return build_site(out / "build", "\n".join(lines) + "\n")
    finally:
        server.stop()


def measure(browser, server, device: str, frames: int, seconds: float, out: Path) -> dict:
    """Traces the first loop after playable and the next one; returns per loop the decodes
    ({name: [count, ms]}), then the renderer's RSS and the player's marks after `seconds`."""
    d = DEVICES[device]
    context = browser.new_context(viewport={"width": d["width"], "height": d["height"]}, device_scale_factor=d["dpr"],
                                  is_mobile=d["mobile"], has_touch=d["mobile"])
    loops = []
    try:
        page = context.new_page()
        if d["cpu"] > 1:
            context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": d["cpu"]})
        page.goto(server.url("radar/index.html"))
        wait_state(page, ["playing"], timeout=300000)
        for k in (1, 2):
            path = out / f"trace-{device}-loop{k}.json"
            browser.start_tracing(page=page, path=str(path), categories=CATEGORIES)
            page.evaluate(COUNT_STEPS)
            page.wait_for_function("(n) => window.__steps >= n", arg=frames, timeout=300000, polling=50)
            browser.stop_tracing()
            data = json.loads(path.read_text())
            loops.append(decode_events(data["traceEvents"] if isinstance(data, dict) else data))
        page.wait_for_timeout(int(seconds * 1000))
        rss = renderer_rss_mb(browser)
        marks = page.evaluate("""() => { const c = document.querySelector('.matsite-frames');
            return {bytes: Number(c.dataset.bytes || 0), level: c.dataset.level || 'single'}; }""")
    finally:
        context.close()
    return {"loops": loops, "rss": rss, **marks}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--loop", default="regional", choices=("regional", "demo"))
    ap.add_argument("--devices", default="phone,desk")
    ap.add_argument("--frames", type=int, default=int(os.environ.get("FRAMES", "24")))
    ap.add_argument("--seconds", type=float, default=float(os.environ.get("SECONDS", "10")))
    ap.add_argument("--out", default=None, help="where the site and traces go (default: a temporary folder)")
    ap.add_argument("--chromium", default=os.environ.get("MATSITE_CHROMIUM", "/usr/bin/chromium"))
    args = ap.parse_args()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="matsite-bench-decodes-"))
    if args.loop == "regional":
        site = regional_site(out, args.frames)
    else:
        site = build_site(out / "build", DEMO.format(frames=args.frames))
    server = SiteServer(str(site))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium)
            for device in args.devices.split(","):
                r = measure(browser, server, device, args.frames, args.seconds, out)
                print(f"{device}: {args.frames} frames at level {r['level']}, decoded bytes held "
                      f"{r['bytes'] / 2 ** 20:.1f} MiB, renderer RSS {r['rss']:.0f} MB after {args.seconds:g} s more")
                for k, found in enumerate(r["loops"], 1):
                    real, scaled, tasks = (found.get(name, [0, 0.0]) for name in (DECODE, RESCALE, TASK))
                    print(f"  loop {k}: {real[0]} images decoded ({real[1]:.0f} ms), {scaled[0]} copied smaller"
                          f" ({scaled[1]:.0f} ms); {tasks[0]} decode tasks on the raster workers ({tasks[1]:.1f} ms)")
            browser.close()
    finally:
        server.stop()
    print(f"traces: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
