"""Time to playable through a slow link (issue 14's benchmark): figures, not a test.

Opens a built site's player in headless Debian chromium with the DevTools protocol's
network emulation (default 20 Mbit/s down, 40 ms latency, cache disabled) and prints,
per run, the time from navigation to playable (the player's data-state leaves
"loading": every frame loaded and decoded) and the bytes the page transferred.

"Before" is the same site with its frames written as matsite wrote them before the
lighter frames (issue 14, item 6): 8-bit RGBA PNG, zlib level 6, whatever the colours.
They are made here from the published frames with Pillow (same pixels), so both rows
come from one run on one machine.

    python3 bench/throttled.py SITE_DIR [--animation loop] [--runs 3] [--mbit 20] [--latency 40]

SITE_DIR is a site `matsite build` wrote (bench/run.sh leaves the anchor job's in
/tmp/matsite-bench/site).
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "Tests" / "browser"))

from PIL import Image  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from helpers import SiteServer  # noqa: E402

CHROMIUM = "/usr/bin/chromium"


def rgba_copy(site: Path, animation: str, into: Path) -> Path:
    """The site with each frame re-encoded as an RGBA PNG at zlib level 6, in place of its own."""
    copy = into / "site-before"
    shutil.copytree(site, copy, symlinks=True)
    manifest_path = copy / animation / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for frame in manifest["frames"]:
        path = copy / animation / frame["url"]
        Image.open(path).convert("RGBA").save(path, "PNG", compress_level=6)
        frame["bytes"] = path.stat().st_size
    manifest_path.write_text(json.dumps(manifest))
    return copy


def frame_bytes(site: Path, animation: str) -> int:
    manifest = json.loads((site / animation / "manifest.json").read_text())
    return sum((site / animation / f["url"]).stat().st_size for f in manifest["frames"])


def time_to_playable(browser, url: str, mbit: float, latency: float) -> tuple[float, int]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": latency,
        "downloadThroughput": mbit * 1e6 / 8, "uploadThroughput": mbit * 1e6 / 8,
    })
    received = [0]
    cdp.on("Network.loadingFinished", lambda e: received.__setitem__(0, received[0] + int(e.get("encodedDataLength", 0))))
    page.goto(url)
    page.wait_for_function(
        "() => { const r = document.querySelector('[data-matsite-player]');"
        " return r && r.getAttribute('data-state') !== 'loading'; }", timeout=600_000)
    playable = page.evaluate("() => performance.now()")
    total = received[0]
    context.close()
    return playable / 1000, total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("site", type=Path)
    ap.add_argument("--animation", default="loop")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mbit", type=float, default=20)
    ap.add_argument("--latency", type=float, default=40, help="ms")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sites = [("after (as published)", args.site), ("before (RGBA PNG, zlib 6)", rgba_copy(args.site, args.animation, Path(tmp)))]
        print(f"\n{args.mbit:g} Mbit/s, {args.latency:g} ms latency, 1280x800, cache disabled; median of {args.runs}\n")
        print("| frames | frame bytes | time to playable s | bytes transferred |")
        print("|---|---|---|---|")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM)
            for label, site in sites:
                server = SiteServer(str(site))
                try:
                    runs = [time_to_playable(browser, server.url(f"{args.animation}/index.html?autoplay=0"), args.mbit, args.latency)
                            for _ in range(args.runs)]
                finally:
                    server.stop()
                seconds = statistics.median(r[0] for r in runs)
                transferred = statistics.median(r[1] for r in runs)
                print(f"| {label} | {frame_bytes(site, args.animation) / 1e6:.2f} MB | {seconds:.2f} | {transferred / 1e6:.2f} MB |")
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
