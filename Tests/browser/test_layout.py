"""Issue 14, item 1: phone-first controls. At 320, 390 and 1280 px every control
is visible and at least 44 x 44 CSS px, the timeline takes most of its row on a
phone, and the time label is never cut. A finger on the timeline scrubs without
scrolling the page; a finger on the map scrolls the page. Screenshots at each
width are kept in Tests/browser/artifacts/."""
from pathlib import Path

import pytest

from helpers import player_state, wait_state

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

MEASURE = """() => {
    const c = document.querySelector('.matsite-controls');
    const items = [...c.querySelectorAll('button, [role="slider"], input'),
                   ...document.querySelectorAll('.leaflet-control-zoom a')];
    const time = c.querySelector('.matsite-time');
    const box = (e) => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; };
    return {
        viewport: innerWidth,
        controls: box(c),
        items: items.map((e) => ({label: e.getAttribute('aria-label'), visible: e.checkVisibility(),
                                  ...box(e)})),
        time: {...box(time), scroll: time.scrollWidth, client: time.clientWidth, text: time.textContent},
        slider: box(c.querySelector('[role="slider"]')),
        pageScroll: document.documentElement.scrollWidth,
        legend: document.querySelector('.matsite-info') ? box(document.querySelector('.matsite-info')) : null,
    };
}"""


def phone(width):
    return {"viewport": {"width": width, "height": 740}, "is_mobile": width < 600, "has_touch": width < 600}


@pytest.mark.parametrize("page_path", ["radar/index.html", "radar/embed.html"])
@pytest.mark.parametrize("width", [320, 390, 1280])
def test_every_control_is_visible_big_enough_and_the_label_whole(tabs, server, width, page_path):
    tab = tabs.open(**phone(width))
    page = tab.page
    # With the relative part too: the longest label there is.
    page.goto(server.url(page_path + "?autoplay=0"))
    wait_state(page, "ready")
    r = page.evaluate(MEASURE)
    labels = [i["label"] for i in r["items"]]
    for name in ("Play", "Previous frame", "Next frame", "Frame", "Playback speed", "Loop", "Opacity"):
        assert name in labels, (name, labels)
    for item in r["items"]:
        assert item["visible"], item
        assert item["w"] >= 44 and item["h"] >= 44, item
        assert item["x"] >= 0 and item["x"] + item["w"] <= r["viewport"] + 0.5, item
    t = r["time"]
    assert t["scroll"] <= t["client"], t
    assert t["text"] and t["w"] > 0, t
    assert r["pageScroll"] <= r["viewport"], "the page scrolls sideways"
    if width < 600:
        assert r["slider"]["w"] >= 0.6 * r["controls"]["w"], (r["slider"], r["controls"])
    if r["legend"]:
        # The legend sits above the controls and covers none of them.
        assert r["legend"]["y"] + r["legend"]["h"] <= r["controls"]["y"] + 0.5, (r["legend"], r["controls"])
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"layout-{width}-{page_path.replace('/', '-')}.png"))
    assert not tab.page_errors, tab.page_errors


def touch_drag(cdp, x0, y0, x1, y1, steps=8):
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for i in range(1, steps + 1):
        x = x0 + (x1 - x0) * i / steps
        y = y0 + (y1 - y0) * i / steps
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_a_finger_scrubs_the_timeline_and_scrolls_the_page_over_the_map(tabs, server):
    tab = tabs.open(**{**phone(390), "viewport": {"width": 390, "height": 520}})
    page = tab.page
    page.goto(server.url("radar/index.html?autoplay=0&frame=first"))
    wait_state(page, "ready")
    assert page.evaluate("document.documentElement.scrollHeight - innerHeight") > 20, "the page must be able to scroll"
    cdp = page.context.new_cdp_session(page)
    # The timeline: a sideways drag (with some vertical wobble) scrubs, the page stays put.
    slider = page.locator('[role="slider"]').bounding_box()
    page.evaluate("() => window.scrollTo(0, 0)")
    y = slider["y"] + slider["height"] / 2
    touch_drag(cdp, slider["x"] + 4, y, slider["x"] + slider["width"] - 4, y - 30)
    page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.frame !== '0'")
    assert player_state(page)["frame"] > 0
    assert page.evaluate("window.scrollY") == 0
    # The map: an upward swipe with one finger scrolls the page, the map does not move.
    center = page.evaluate("() => { const c = Matsite.players[0].getMap().getCenter(); return [c.lat, c.lng]; }")
    box = page.locator(".matsite-map").bounding_box()
    x = box["x"] + box["width"] / 2
    touch_drag(cdp, x, box["y"] + box["height"] * 0.8, x, box["y"] + box["height"] * 0.2, steps=12)
    page.wait_for_function("() => window.scrollY > 0", timeout=5000)
    after = page.evaluate("() => { const c = Matsite.players[0].getMap().getCenter(); return [c.lat, c.lng]; }")
    assert after == center
