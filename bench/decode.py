"""Chromium's decode time per frame, for folders of frames in any format the player shows.

    python3 bench/decode.py ROOT FOLDER[,FOLDER...]      # folders under ROOT
    ROUNDS=5 THROTTLE=4 python3 bench/decode.py ...      # THROTTLE: Chromium's CPU throttling

Serves ROOT on 127.0.0.1 (a free port), fetches every frame of a folder as a blob first
(the network is not timed), then per frame, ROUNDS times: an <img>'s decode() (what the
player's frame loader waits for) and createImageBitmap (how level tiles are decoded). Prints medians and the 90th
percentile per folder. The folders are taken in turn, twice when listed twice, so a slow
moment of a shared machine shows as a disagreement between the two passes."""
import http.server, json, os, socketserver, statistics, sys, threading
from playwright.sync_api import sync_playwright

root = sys.argv[1]
folders = sys.argv[2].split(",")
rounds = int(os.environ.get("ROUNDS", "3"))
throttle = float(os.environ.get("THROTTLE", "1"))

class Quiet(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **k): super().__init__(*a, directory=root, **k)
    def log_message(self, *a): pass

server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Quiet)
threading.Thread(target=server.serve_forever, daemon=True).start()
port = server.server_address[1]
files = {f: sorted(os.listdir(os.path.join(root, f))) for f in folders}
SCRIPT = """async ({urls, rounds}) => {
  const blobs = [];
  for (const u of urls) blobs.push(await (await fetch(u)).blob());
  const bitmap = [], img = [];
  for (let r = 0; r < rounds; r++) {
    for (const b of blobs) {
      let t = performance.now();
      const bm = await createImageBitmap(b);
      bitmap.push(performance.now() - t); bm.close();
      const url = URL.createObjectURL(b);
      const el = new Image(); el.src = url;
      t = performance.now();
      await el.decode();
      img.push(performance.now() - t);
      URL.revokeObjectURL(url);
    }
  }
  return {bitmap, img};
}"""
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=["--no-sandbox"])
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{port}/")
    if throttle != 1:
        cdp = page.context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    for f in folders:
        urls = [f"/{f}/{n}" for n in files[f]]
        size = sum(os.path.getsize(os.path.join(root, f, n)) for n in files[f])
        out = page.evaluate(SCRIPT, {"urls": urls, "rounds": rounds})
        print(f"{f:12s} {len(urls)} frames {size/1e6:.2f} MB: createImageBitmap median {statistics.median(out['bitmap']):.1f} ms "
              f"(p90 {sorted(out['bitmap'])[int(0.9*len(out['bitmap']))]:.1f}), img.decode median {statistics.median(out['img']):.1f} ms")
    browser.close()
server.shutdown()
