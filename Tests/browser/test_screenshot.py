"""Issue 3, test 7: a screenshot of the demo site shows the overlay's colours
over the base layer. The screenshot is kept in Tests/browser/artifacts/."""
from pathlib import Path

from helpers import decode_png, read_manifest, wait_state

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def pixel(buf, width, x, y):
    i = (y * width + x) * 4
    return buf[i], buf[i + 1], buf[i + 2], buf[i + 3]


def test_the_overlay_colours_sit_over_the_base_map(tab, tabs, server, site_dir):
    m = read_manifest(str(site_dir))
    newest = m["frames"][-1]
    page = tab.page
    page.goto(server.url("radar/index.html?autoplay=0"))
    wait_state(page, "ready")
    page.wait_for_function("""() => {
        const tiles = [...document.querySelectorAll('.leaflet-tile-pane img.leaflet-tile')];
        return tiles.length > 0 && tiles.every((t) => t.classList.contains('leaflet-tile-loaded'));
    }""", timeout=15000)
    page.wait_for_timeout(300)  # let the tile fade-in finish
    map_box = page.locator(".matsite-map").bounding_box()
    frame_box = page.locator("img.matsite-frame.matsite-front").bounding_box()
    clip = {k: map_box[k] for k in ("x", "y", "width", "height")}
    ARTIFACTS.mkdir(exist_ok=True)
    with_overlay = page.screenshot(clip=clip, path=str(ARTIFACTS / "demo-player.png"))
    page.screenshot(path=str(ARTIFACTS / "demo-page.png"))
    # The same view with the frames hidden: the base layer alone.
    page.evaluate("() => document.querySelector('.matsite-frames').classList.add('matsite-hidden')")
    page.wait_for_timeout(100)
    base_only = page.screenshot(clip=clip, path=str(ARTIFACTS / "demo-base-only.png"))

    scratch = tabs.open().page
    w, h, shot = decode_png(scratch, with_overlay)
    _, _, base = decode_png(scratch, base_only)
    fw, fh, frame = decode_png(scratch, (Path(site_dir) / "radar" / newest["url"]).read_bytes())
    assert (fw, fh) == (m["width"], m["height"])

    # The base layer is drawn: its pixels are not the empty map's background.
    background = (0xCF, 0xD8, 0xE3)
    drawn = sum(1 for y in range(0, h, 8) for x in range(0, w, 8)
                if pixel(base, w, x, y)[:3] != background)
    assert drawn > 0.9 * (h // 8) * (w // 8), "the base map did not draw"

    # Where the frame is opaque and uniform, the screenshot is the frame's colour
    # composited over the base map (source-over), and differs from the base alone.
    scale_x = fw / frame_box["width"]
    scale_y = fh / frame_box["height"]
    reach = int(max(scale_x, scale_y)) + 2
    checked = matched = 0
    for sy in range(2, h - 2, 5):
        for sx in range(2, w - 2, 5):
            px = (map_box["x"] + sx + 0.5 - frame_box["x"]) * scale_x
            py = (map_box["y"] + sy + 0.5 - frame_box["y"]) * scale_y
            fx, fy = int(px), int(py)
            if not (reach <= fx < fw - reach and reach <= fy < fh - reach):
                continue
            colour = pixel(frame, fw, fx, fy)
            if colour[3] < 64:
                continue
            if any(pixel(frame, fw, fx + dx, fy + dy) != colour
                   for dx in range(-reach, reach + 1, max(1, reach // 2))
                   for dy in range(-reach, reach + 1, max(1, reach // 2))):
                continue  # an edge: resampling blends neighbours
            bg = pixel(base, w, sx, sy)
            got = pixel(shot, w, sx, sy)
            a = colour[3] / 255
            expected = [a * colour[c] + (1 - a) * bg[c] for c in range(3)]
            checked += 1
            if all(abs(got[c] - expected[c]) <= 10 for c in range(3)) and got[:3] != bg[:3] or \
                    all(abs(got[c] - expected[c]) <= 10 for c in range(3)) and colour[:3] == bg[:3]:
                matched += 1
    assert checked >= 30, f"only {checked} uniform opaque overlay pixels on screen"
    assert matched >= 0.95 * checked, f"{matched} of {checked} overlay pixels show the frame over the base map"
    assert (ARTIFACTS / "demo-player.png").stat().st_size > 0
