"""Issue 3: "no data" marks, pausing while hidden or off screen, reduced motion."""
import json

from helpers import player_state, read_manifest, wait_state

TALL_PARENT = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>tall</title></head><body>
<div style="height: 2500px">spacer</div>
<iframe id="player" src="/radar/embed.html?autoplay=1" width="640" height="400" title="player"></iframe>
<div style="height: 2500px">spacer</div></body></html>"""


def embedded_state(frame):
    return frame.evaluate("""() => { const r = document.querySelector('[data-matsite-player]');
        return [r.dataset.state, r.dataset.pausedReason || null]; }""")


def test_frames_with_missing_tiles_are_marked_no_data(tab, server, site_dir):
    m = read_manifest(str(site_dir))
    b = m["bounds"]
    changed = json.loads(json.dumps(m))
    west_half = {"west": b["west"], "south": b["south"], "east": (b["west"] + b["east"]) / 2, "north": b["north"]}
    changed["frames"][1]["missing_tiles"] = [{"z": m["zoom"], "x": 0, "y": 0, "bounds": west_half}]
    for f in changed["frames"][2:]:
        f.pop("missing_tiles", None)
    changed["frames"][0].pop("missing_tiles", None)
    server.override("radar/manifest.json", json.dumps(changed).encode(), "application/json")
    page = tab.page
    page.goto(server.url("radar/index.html?autoplay=0&frame=1"))
    wait_state(page, "ready")
    marks = page.locator(".matsite-nodata")
    assert marks.count() == 1
    box = marks.bounding_box()
    frame_box = page.locator("img.matsite-frame.matsite-front").bounding_box()
    assert abs(box["x"] - frame_box["x"]) < 2
    assert abs(box["width"] - frame_box["width"] / 2) < frame_box["width"] * 0.05
    assert abs(box["height"] - frame_box["height"]) < 2
    page.get_by_role("button", name="Next frame", exact=True).click()
    assert page.locator(".matsite-nodata").count() == 0


def test_playback_pauses_off_screen_and_while_hidden_then_resumes(tab, server):
    server.override("__test/tall.html", TALL_PARENT.encode(), "text/html")
    page = tab.page
    page.goto(server.url("__test/tall.html"))
    frame = page.frame_locator("#player")
    child = next(f for f in page.frames if "embed.html" in f.url)
    child.wait_for_function("['paused', 'playing'].includes(document.querySelector('[data-matsite-player]').dataset.state)",
                            timeout=20000)
    assert embedded_state(child) == ["paused", "offscreen"]
    before = child.evaluate("document.querySelector('[data-matsite-player]').dataset.frame")
    page.wait_for_timeout(500)
    assert child.evaluate("document.querySelector('[data-matsite-player]').dataset.frame") == before

    frame.locator("[data-matsite-player]").scroll_into_view_if_needed()
    child.wait_for_function("document.querySelector('[data-matsite-player]').dataset.state === 'playing'")
    assert embedded_state(child) == ["playing", None]

    page.evaluate("() => window.scrollTo(0, 0)")
    child.wait_for_function("document.querySelector('[data-matsite-player]').dataset.pausedReason === 'offscreen'")
    page.evaluate("() => document.getElementById('player').scrollIntoView()")
    child.wait_for_function("document.querySelector('[data-matsite-player]').dataset.state === 'playing'")

    # The tab going to the background (simulated: headless tabs are always visible).
    child.evaluate("""() => { Object.defineProperty(document, 'hidden', {value: true, configurable: true});
                              document.dispatchEvent(new Event('visibilitychange')); }""")
    assert embedded_state(child) == ["paused", "hidden"]
    child.evaluate("""() => { Object.defineProperty(document, 'hidden', {value: false, configurable: true});
                              document.dispatchEvent(new Event('visibilitychange')); }""")
    assert embedded_state(child) == ["playing", None]


def test_reduced_motion_starts_paused_and_swaps_without_fading(tabs, server, site_dir):
    n = len(read_manifest(str(site_dir))["frames"])
    tab = tabs.open(reduced_motion="reduce")
    page = tab.page
    page.goto(server.url("radar/index.html"))
    wait_state(page, "ready")
    assert player_state(page)["frame"] == n - 1
    page.get_by_role("button", name="Play", exact=True).click()
    wait_state(page, "playing")
    fades = page.evaluate("""async () => {
        const imgs = [...document.querySelectorAll('img.matsite-frame')];
        let seen = 0; const t0 = performance.now();
        await new Promise((done) => { const tick = () => {
            const o = imgs.map((i) => Number(getComputedStyle(i).opacity));
            seen += imgs.reduce((n, i) => n + i.getAnimations().length, 0)
                 + o.filter((v) => v > 0 && v < 1).length + (o.includes(1) ? 0 : 1);
            if (performance.now() - t0 < 1500) requestAnimationFrame(tick); else done(); };
            requestAnimationFrame(tick); });
        return seen; }""")
    assert fades == 0
