"""Issue 14, item 1: phone-first controls. At 320, 390 and 1280 px every control
is visible and at least 44 x 44 CSS px, the timeline takes most of its row on a
phone, and the time label is never cut. A finger on the timeline scrubs without
scrolling the page; a finger on the map scrolls the page. Issue 26, item 4: the
opacity control is named in words beside an icon, in sight at 390 and 1280 px;
in the 800-px iframe of the site's own embed code the time label takes one line
and the timeline at least half the bar. Screenshots at each width are kept in
Tests/browser/artifacts/."""
import html
import re
from pathlib import Path

import pytest

from helpers import SiteServer, player_state, read_manifest, wait_state

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


def open_paused(tabs, server, width, page_path, measure):
    """A tab `width` px wide on `page_path`, paused and ready, and what `measure` reads there."""
    tab = tabs.open(**phone(width))
    tab.page.goto(server.url(page_path + "?autoplay=0"))
    wait_state(tab.page, "ready")
    return tab, tab.page, tab.page.evaluate(measure)


@pytest.mark.parametrize("page_path", ["radar/index.html", "radar/embed.html"])
@pytest.mark.parametrize("width", [320, 390, 1280])
def test_every_control_is_visible_big_enough_and_the_label_whole(tabs, server, width, page_path):
    tab, page, r = open_paused(tabs, server, width, page_path, MEASURE)
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


OPACITY = """() => {
    const c = document.querySelector('.matsite-controls');
    const input = c.querySelector('input[aria-label="Opacity"]');
    const box = input.closest('.matsite-opacity-control');
    const name = box.querySelector('.matsite-opacity-name');
    const icon = box.querySelector('svg');
    const rect = (e) => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; };
    const n = rect(name);
    // What a finger or an eye finds at the middle of the name: the name, not something over it.
    const hit = document.elementFromPoint(n.x + n.w / 2, n.y + n.h / 2);
    return {
        viewport: innerWidth, bar: rect(c), box: rect(box), input: rect(input), icon: rect(icon),
        name: {...n, text: name.textContent, visible: name.checkVisibility({opacityProperty: true, visibilityProperty: true}),
               size: parseFloat(getComputedStyle(name).fontSize), color: getComputedStyle(name).color,
               onTop: hit === name || name.contains(hit)},
        iconVisible: icon.checkVisibility({opacityProperty: true, visibilityProperty: true}),
        labelled: input.labels.length === 1 && input.labels[0] === box,
    };
}"""


def inside(inner, outer):
    return (inner["x"] >= outer["x"] - 0.5 and inner["y"] >= outer["y"] - 0.5 and
            inner["x"] + inner["w"] <= outer["x"] + outer["w"] + 0.5 and inner["y"] + inner["h"] <= outer["y"] + outer["h"] + 0.5)


@pytest.mark.parametrize("page_path", ["radar/index.html", "radar/embed.html"])
@pytest.mark.parametrize("width", [390, 1280])
def test_the_opacity_control_is_named_in_words_beside_an_icon(tabs, server, width, page_path):
    tab, page, r = open_paused(tabs, server, width, page_path, OPACITY)
    name, icon = r["name"], r["icon"]
    # In words a phone shows too (no hover needed), readable, uncovered, whole.
    assert name["text"] == "Opacity" and name["visible"] and name["onTop"], r
    assert name["size"] >= 12 and name["w"] > 20 and name["h"] >= 12, r
    assert icon["w"] >= 16 and icon["h"] >= 16 and r["iconVisible"], r
    # One box holds icon, name and range, in that order, on one line, in the bar and on screen.
    for part in (icon, name, r["input"]):
        assert inside(part, r["box"]), (part, r["box"])
    assert icon["x"] + icon["w"] <= name["x"] + 0.5 and name["x"] + name["w"] <= r["input"]["x"] + 0.5, r
    assert inside(r["box"], r["bar"]) and r["box"]["x"] + r["box"]["w"] <= r["viewport"] + 0.5, r
    assert r["labelled"], "the name is the range's <label>"
    ARTIFACTS.mkdir(exist_ok=True)
    stem = f"opacity-{width}-{page_path.replace('/', '-').replace('.html', '')}"
    page.screenshot(path=str(ARTIFACTS / f"{stem}.png"))
    page.locator(".matsite-controls").screenshot(path=str(ARTIFACTS / f"{stem}-bar.png"))
    assert not tab.page_errors, tab.page_errors


BAR = """() => {
    const c = document.querySelector('.matsite-controls');
    const time = c.querySelector('.matsite-time');
    const rect = (e) => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; };
    // One rectangle per line the label's text takes.
    const range = document.createRange();
    range.selectNodeContents(time);
    const lines = new Set([...range.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top)));
    return {
        viewport: innerWidth, bar: rect(c), slider: rect(c.querySelector('[role="slider"]')),
        time: {...rect(time), lines: lines.size, text: time.textContent, scroll: time.scrollWidth, client: time.clientWidth},
        items: [...c.querySelectorAll('button, [role="slider"], input')].map((e) =>
            ({label: e.getAttribute('aria-label'), visible: e.checkVisibility(), ...rect(e)})),
    };
}"""


@pytest.fixture
def features_server(features_site_dir):
    srv = SiteServer(str(features_site_dir))
    yield srv
    srv.stop()


@pytest.mark.parametrize("site", ["demo", "features"])
def test_in_the_800_px_embed_the_time_is_one_line_and_the_timeline_half_the_bar(tabs, request, site):
    srv = request.getfixturevalue("server" if site == "demo" else "features_server")
    folder = request.getfixturevalue("site_dir" if site == "demo" else "features_site_dir")
    # The iframe exactly as the site's index page hands it out, on a page of its own.
    index = (Path(folder) / "index.html").read_text()
    snippet = html.unescape(re.search(r'<pre class="matsite-snippet"[^>]*><code>(.*?)</code></pre>', index, re.S).group(1))
    assert "width:100%" in snippet, snippet
    # The code fills its column: an 800-px column makes an 800-px player.
    srv.override("host-800.html", f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>host</title></head>"
                                  f"<body><div style='width:800px'>{snippet}</div></body></html>".encode(), "text/html")
    tab = tabs.open(viewport={"width": 1280, "height": 900})
    page = tab.page
    page.goto(srv.url("host-800.html"))
    page.locator("iframe").scroll_into_view_if_needed()
    page.wait_for_function("""() => { const d = document.querySelector('iframe').contentDocument;
        const p = d && d.querySelector('[data-matsite-player]'); return p && p.dataset.state === 'ready'; }""", timeout=20000)
    inner = page.frame(url=re.compile(r".*/radar/embed\.html$"))
    r = inner.evaluate(BAR)
    assert r["viewport"] == 800, r["viewport"]
    assert r["slider"]["w"] >= 0.5 * r["bar"]["w"], (r["slider"], r["bar"])
    # Every frame's label on one line, whole (the newest one's is bold and longest).
    for i in range(len(read_manifest(str(folder))["frames"])):
        inner.evaluate("(i) => Matsite.players[0].seek(i)", i)
        inner.wait_for_function("(i) => document.querySelector('[role=\"slider\"]').getAttribute('aria-valuenow') === String(i)", arg=i)
        t = inner.evaluate(BAR)["time"]
        assert t["lines"] == 1 and t["scroll"] <= t["client"] and t["text"], (i, t)
    for item in r["items"]:
        assert item["visible"] and item["w"] >= 44 and item["h"] >= 44, item
        assert item["x"] >= 0 and item["x"] + item["w"] <= r["viewport"] + 0.5, item
    ARTIFACTS.mkdir(exist_ok=True)
    page.frame_locator("iframe").locator(".matsite-controls").screenshot(path=str(ARTIFACTS / f"embed-800-{site}-bar.png"))
    page.screenshot(path=str(ARTIFACTS / f"embed-800-{site}.png"))
    assert not tab.page_errors, tab.page_errors
