"""Issue 35, item 2: single-image frames with reduced levels play at the level that fits.

The site (conftest.py, levels_site_dir; helpers.LEVELS_CONFIG) has six frames of 1820 x
1581 px, each with `levels` at a half (r1) and a quarter (r2). At start the player fetches
every frame at the coarsest level whose width covers the frames' drawn width in CSS px at
the map's zoom (the map's own detail, as its tiles load), and only that one, before it
plays; zooming in fetches the finer level, the frame on screen first, while playback goes
on at the coarser one, the crossfade's coverage never below full. Paused, the frames take
the level that covers their width in device pixels (times devicePixelRatio), the frame on
screen first. Screenshots at 390 and
1280 px are kept in Tests/browser/artifacts/.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from helpers import player_state, read_manifest, wait_state

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

# The frames' drawn width in CSS px, the map's zoom, the level on top and the images' sources.
VIEW = """() => { const c = document.querySelector('.matsite-frames');
    return {width: c.getBoundingClientRect().width, zoom: Matsite.players[0].getMap().getZoom(),
            level: c.dataset.level, bytes: Number(c.dataset.bytes),
            srcs: [...c.querySelectorAll('img.matsite-frame')].map((i) => i.getAttribute('src'))}; }"""

# Every URL an Image not in the document is pointed at (the loader's), in order.
RECORD_LOADS = """() => { window.__loads = [];
    const d = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, 'src');
    Object.defineProperty(HTMLImageElement.prototype, 'src', {configurable: true, get: d.get,
        set(v) { if (!this.isConnected) window.__loads.push([v, Number(document.querySelector('[data-matsite-player]').dataset.frame)]);
                 d.set.call(this, v); }}); }"""

SET_ZOOM = """(z) => Matsite.players[0].getMap().setZoom(z, {animate: false})"""

# Zoom levels from a reduced level to where the full frame is wanted: each halves the width.
TO_FULL = {"r1": 1, "r2": 2}

# Counts frame changes from now on in window.__steps: the tests wait on frames played, not time.
COUNT_STEPS = """() => { window.__steps = 0; new MutationObserver(() => window.__steps++)
    .observe(document.querySelector('[data-matsite-player]'), {attributes: true, attributeFilter: ['data-frame']}); }"""


def levels_of(frame):
    """A frame's levels, coarsest first, as (name, url, width): r2, r1, then the full frame."""
    own = frame["levels"]
    named = [(f"r{len(own) - k}", lv["url"], lv["width"]) for k, lv in enumerate(own)]
    return named + [("full", frame["url"], None)]


def wanted(frame, device_width):
    """The level the rule picks: the coarsest at least as wide as the frames are drawn in
    device pixels (a pixel of slack for the halving's rounding), else the full frame."""
    for name, url, width in levels_of(frame):
        if width is not None and width + 1 >= device_width:
            return name, url
    return "full", frame["url"]


def test_the_site_under_test_has_two_reduced_levels_per_frame(levels_site_dir):
    m = read_manifest(str(levels_site_dir))
    for f in m["frames"]:
        widths = [lv["width"] for lv in f["levels"]]
        assert len(widths) == 2 and widths == sorted(widths), f["levels"]
        assert all((levels_site_dir / "radar" / lv["url"]).is_file() for lv in f["levels"])
        # Each a halving of the full frame, coarsest first.
        assert abs(widths[1] - m["width"] / 2) <= 1 and abs(widths[0] - m["width"] / 4) <= 1, widths


@pytest.mark.parametrize("width,height,dpr", [(390, 844, 2), (1280, 800, 1)])
def test_only_the_level_that_fits_is_fetched_before_playback(tabs, levels_server, levels_site_dir, width, height, dpr):
    m = read_manifest(str(levels_site_dir))
    tab = tabs.open(viewport={"width": width, "height": height}, device_scale_factor=dpr)
    page = tab.page
    page.goto(levels_server.url("radar/index.html"))
    wait_state(page, ["playing"])
    asked = list(levels_server.requests)
    view = page.evaluate(VIEW)
    # Playing, the level covers the frames' width in CSS px, whatever the pixel ratio.
    name, _ = wanted(m["frames"][0], view["width"])
    assert name != "full", f"at {width} px the frames are drawn {view['width']} CSS px wide: a reduced level covers them"
    assert view["level"] == name, (view, name)
    for f in m["frames"]:
        pick, url = wanted(f, view["width"])
        counts = {n: sum(1 for r in asked if r.endswith("/radar/" + u)) for n, u, _ in levels_of(f)}
        # The level that fits, once (decoded images hit the memory cache); no other level, no full frame.
        assert counts == {n: (1 if n == pick else 0) for n in counts}, (f["url"], counts)
    # The images on screen are that level's.
    assert all("/" + name + "." in s for s in view["srcs"] if s), view["srcs"]
    ARTIFACTS.mkdir(exist_ok=True)
    page.wait_for_function("""() => [...document.querySelectorAll('.leaflet-tile-pane img.leaflet-tile')]
        .every((t) => t.classList.contains('leaflet-tile-loaded'))""", timeout=60000)
    page.screenshot(path=str(ARTIFACTS / f"levels-{width}.png"))
    assert not tab.page_errors and not tab.console_errors


@pytest.mark.parametrize("dpr", [2, 1])
def test_pausing_sharpens_the_frames_to_the_screens_pixels_shown_frame_first(tabs, levels_server, levels_site_dir,
                                                                             dpr):
    """Playing, the frames are at the map's detail; paused on a screen of more pixels than
    CSS px, the frame on screen takes the level that covers it in device pixels first, then
    the next and the previous, and no other frame; played again, nothing is fetched anew. At
    a ratio of 1 a pause fetches nothing."""
    m = read_manifest(str(levels_site_dir))
    n = len(m["frames"])
    tab = tabs.open(viewport={"width": 390, "height": 844}, device_scale_factor=dpr)
    page = tab.page
    page.goto(levels_server.url("radar/index.html"))
    wait_state(page, "playing")
    view = page.evaluate(VIEW)
    playing, _ = wanted(m["frames"][0], view["width"])
    still, _ = wanted(m["frames"][0], view["width"] * dpr)
    assert view["level"] == playing
    page.evaluate(RECORD_LOADS)
    levels_server.requests.clear()
    page.focus("[data-matsite-player]")
    page.keyboard.press("Space")
    wait_state(page, "paused")
    shown = player_state(page)["frame"]
    if dpr == 1:
        assert still == playing
        page.keyboard.press("ArrowRight")
        page.wait_for_function("(i) => Number(document.querySelector('[data-matsite-player]').dataset.frame) === i",
                               arg=(shown + 1) % n, timeout=10000)
        assert page.evaluate(VIEW)["level"] == playing
        assert levels_server.requests == [], levels_server.requests
        return
    assert still != playing, (view, playing, still)
    page.wait_for_function("(l) => document.querySelector('.matsite-frames').dataset.level === l", arg=still,
                           timeout=30000)
    # The one on screen takes the finer level, then the next and the previous; no other frame
    # (memory follows what is looked at: all of them would be the loop's length at full detail).
    near = [shown, (shown + 1) % n, (shown - 1) % n]
    picks = [wanted(f, view["width"] * (dpr if i in near else 1))[1] for i, f in enumerate(m["frames"])]
    sizes = {lv["url"]: lv["width"] * lv["height"] * 4 for f in m["frames"] for lv in f["levels"]}
    sizes.update({f["url"]: m["width"] * m["height"] * 4 for f in m["frames"]})
    page.wait_for_function("(b) => Number(document.querySelector('.matsite-frames').dataset.bytes) === b",
                           arg=sum(sizes[u] for u in picks), timeout=60000)
    finer = {wanted(f, view["width"] * dpr)[1]: i for i, f in enumerate(m["frames"])}
    order = [finer[u.split("/radar/", 1)[-1]] for u, _ in page.evaluate("() => window.__loads")
             if u.split("/radar/", 1)[-1] in finer]
    assert order == near, order
    # Playing again keeps them (within the budget): no request, the level stays.
    levels_server.requests.clear()
    page.keyboard.press("Space")
    wait_state(page, "playing")
    page.evaluate(COUNT_STEPS)
    page.wait_for_function("(n) => window.__steps >= n", arg=n + 1, timeout=60000)
    assert page.evaluate(VIEW)["level"] == still
    assert levels_server.requests == [], levels_server.requests
    assert not tab.page_errors and not tab.console_errors


def test_zooming_in_fetches_the_finer_level_shown_frame_first_and_plays_on(tab, levels_server, levels_site_dir):
    m = read_manifest(str(levels_site_dir))
    n = len(m["frames"])
    page = tab.page
    page.goto(levels_server.url("radar/index.html"))
    wait_state(page, "playing")
    before = page.evaluate(VIEW)
    assert before["level"] != "full"
    page.evaluate(RECORD_LOADS)
    levels_server.requests.clear()
    # The full frames wait at the server until the test has seen playback go on without them.
    page.evaluate("""() => { const r = document.querySelector('[data-matsite-player]'); window.__states = [];
        window.__steps = 0; window.__levels = [];
        new MutationObserver(() => window.__states.push(r.dataset.state)).observe(r, {attributes: true, attributeFilter: ['data-state']});
        new MutationObserver(() => { window.__steps++; window.__levels.push(document.querySelector('.matsite-frames').dataset.level); })
            .observe(r, {attributes: true, attributeFilter: ['data-frame']}); }""")
    release = [levels_server.hold("/radar/" + f["url"]) for f in m["frames"]]
    page.evaluate(SET_ZOOM, before["zoom"] + TO_FULL[before["level"]])
    page.wait_for_function("(n) => window.__steps >= n", arg=n + 1, timeout=60000)
    # A whole loop and more at the reduced level, without a pause or a hold.
    assert page.evaluate("() => window.__states") == []
    assert set(page.evaluate("() => window.__levels")) == {before["level"]}
    assert player_state(page)["reason"] is None
    for r in release:
        r.set()
    page.wait_for_function("() => document.querySelector('.matsite-frames').dataset.level === 'full'", timeout=60000)
    loads = page.evaluate("() => window.__loads")
    full = {f["url"]: i for i, f in enumerate(m["frames"])}
    order = [(full[u], shown) for u, shown in loads if u in full]
    assert sorted(i for i, _ in order) == list(range(n)), loads
    # Shown frame first, then the next, then the previous.
    first, shown = order[0]
    assert first == shown, f"frame {first} was asked for first while frame {shown} was on screen"
    assert [i for i, _ in order[1:3]] == [(shown + 1) % n, (shown - 1) % n], order
    # Each full frame fetched once; the coarser levels are not asked for again.
    asked = list(levels_server.requests)
    assert all(sum(1 for r in asked if r.endswith("/radar/" + f["url"])) == 1 for f in m["frames"]), asked
    assert not any("/r1." in r or "/r2." in r for r in asked), asked
    # Memory follows the view: one level per frame held, now the full one.
    page.wait_for_function("(b) => Number(document.querySelector('.matsite-frames').dataset.bytes) === b",
                           arg=n * m["width"] * m["height"] * 4, timeout=60000)
    assert player_state(page)["state"] == "playing"
    assert not tab.page_errors and not tab.console_errors


def test_zooming_back_out_keeps_the_finer_level_within_memory(tab, levels_server, levels_site_dir):
    m = read_manifest(str(levels_site_dir))
    page = tab.page
    page.goto(levels_server.url("radar/index.html"))
    wait_state(page, "playing")
    zoom = page.evaluate(VIEW)["zoom"]
    page.evaluate(SET_ZOOM, zoom + 2)
    page.wait_for_function("(b) => Number(document.querySelector('.matsite-frames').dataset.bytes) === b",
                           arg=len(m["frames"]) * m["width"] * m["height"] * 4, timeout=60000)
    levels_server.requests.clear()
    page.evaluate(SET_ZOOM, zoom)
    # Held until a loop has played at the new zoom: six full frames are within the budget, so
    # nothing is fetched and the full level stays.
    page.evaluate(COUNT_STEPS)
    page.wait_for_function("(n) => window.__steps >= n", arg=len(m["frames"]) + 1, timeout=60000)
    assert not [r for r in levels_server.requests if "/frames/" in r]
    assert page.evaluate(VIEW)["level"] == "full"
    assert player_state(page)["state"] == "playing"


def test_frames_without_levels_load_and_play_as_before(tab, server, site_dir):
    """The demo site's frames (zoom 5, 455 px wide) have no levels: each frame's own URL,
    once, and no data-level."""
    m = read_manifest(str(site_dir))
    assert not any("levels" in f for f in m["frames"])
    page = tab.page
    page.goto(server.url("radar/index.html"))
    wait_state(page, "playing")
    assert page.evaluate("() => document.querySelector('.matsite-frames').hasAttribute('data-level')") is False
    asked = list(server.requests)
    assert all(sum(1 for r in asked if r.endswith("/radar/" + f["url"])) == 1 for f in m["frames"])
    page.evaluate(COUNT_STEPS)
    # The deepest zoom that still plays (one level past the frames').
    page.evaluate(SET_ZOOM, m["zoom"] + 1)
    page.wait_for_function("(n) => window.__steps >= n", arg=len(m["frames"]) + 1, timeout=60000)
    assert len([r for r in server.requests if "/frames/" in r]) == len([r for r in asked if "/frames/" in r])


def test_past_the_memory_budget_zooming_out_gives_the_farthest_frames_their_reduced_level(tab, levels_server,
                                                                                         levels_site_dir):
    m = read_manifest(str(levels_site_dir))
    n = len(m["frames"])
    full = m["width"] * m["height"] * 4
    page = tab.page
    # A budget of four full frames (the class option, set before the player makes its layer).
    release = levels_server.hold("radar/manifest.json")
    page.goto(levels_server.url("radar/index.html"))
    page.wait_for_function("() => window.Matsite && Matsite.FrameOverlay")
    page.evaluate("(b) => { Matsite.FrameOverlay.prototype.options.budget = b; }", 4 * full)
    release.set()
    wait_state(page, "playing")
    start = page.evaluate(VIEW)
    zoom = start["zoom"]
    # The level the view opened with (r1 a half, r2 a quarter): what the farthest frames get back.
    k = TO_FULL[start["level"]]
    reduced = {f["levels"][-k]["url"]: i for i, f in enumerate(m["frames"])}
    small = m["frames"][0]["levels"][-k]["width"] * m["frames"][0]["levels"][-k]["height"] * 4
    page.evaluate(SET_ZOOM, zoom + 2)
    # Every frame needs its full level: held although past the budget.
    page.wait_for_function("(b) => Number(document.querySelector('.matsite-frames').dataset.bytes) === b",
                           arg=n * full, timeout=60000)
    page.evaluate(RECORD_LOADS)
    page.evaluate(SET_ZOOM, zoom)
    # Six full frames are two over the budget: three frames farthest from the one on screen (in
    # playing order after the next and the previous) go back to the view's reduced level.
    page.wait_for_function("(b) => Number(document.querySelector('.matsite-frames').dataset.bytes) === b",
                           arg=(n - 3) * full + 3 * small, timeout=60000)
    loads = [(reduced[u], shown) for u, shown in page.evaluate("() => window.__loads") if u in reduced]
    assert len(loads) == 3, loads
    shown = loads[0][1]
    assert {i for i, _ in loads} == {(shown + k) % n for k in (2, 3, 4)}, loads
    assert player_state(page)["state"] == "playing"
    assert not tab.page_errors and not tab.console_errors


def test_a_data_layer_with_levels_picks_and_sharpens_its_own(tab, levels_server, levels_site_dir):
    """The same frames as the one data layer of a layered animation (the manifest written so):
    the layer's pane loads the level that fits, and the full frames after a zoom-in."""
    m = read_manifest(str(levels_site_dir))
    layer = {"id": "radar", "title": "Radar", "opacity": 1, "attribution": "", "attribution_html": "",
             "frames": m["frames"], "width": m["width"], "height": m["height"]}
    timeline = [{"index": i, "duration_ms": f["duration_ms"], "layers": [i]} for i, f in enumerate(m["frames"])]
    layered = dict(m, frames=timeline, layers=[layer])
    levels_server.override("radar/manifest.json", json.dumps(layered).encode(), "application/json")
    page = tab.page
    page.goto(levels_server.url("radar/index.html"))
    wait_state(page, "playing")
    pane = '[data-layer="radar"] .matsite-frames'
    view = page.evaluate(VIEW)
    assert page.locator(pane).get_attribute("data-level") == view["level"] != "full"
    asked = list(levels_server.requests)
    assert not any(r.endswith("/radar/" + f["url"]) for f in m["frames"] for r in asked), asked
    page.evaluate(SET_ZOOM, view["zoom"] + TO_FULL[view["level"]])
    page.wait_for_function("(s) => document.querySelector(s).dataset.level === 'full'", arg=pane, timeout=60000)
    assert player_state(page)["state"] == "playing"
    assert not tab.page_errors and not tab.console_errors



# Chromium's trace events of the raster workers' image work: a file decoded to pixels, and a
# decoded image copied at a smaller scale (from the full decode Chromium keeps).
DECODE_IMAGE = "Decode Image"
RESCALE = "SoftwareImageDecodeCacheUtils::GenerateCacheEntryFromCandidate"


def test_a_frame_is_not_decoded_again_when_it_comes_round(browser, tabs, levels_server, levels_site_dir):
    """Issue 35 item 3: each frame is decoded once, while the loop loads (the loader's
    decode()), and copied smaller once (on a phone, a quarter-size copy), the first time it is
    shown; in the loops after, a swap draws pixels Chromium's image decode cache already holds,
    instead of decoding the frame again on the raster workers. Counted from a Chromium trace of
    the load and of the second loop, on a phone at DPR 3 (playing, at the level that covers the
    frames' CSS px); the frames' decoded
    bytes stay within the loader's budget. (bench/swap_decodes.py measures it on the regional
    loop of the benchmark.)"""
    m = read_manifest(str(levels_site_dir))
    n = len(m["frames"])
    tab = tabs.open(viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True, has_touch=True)
    page = tab.page
    path = Path(tempfile.mkdtemp(prefix="matsite-decodes-")) / "trace.json"
    browser.start_tracing(page=page, path=str(path), categories=["devtools.timeline", "disabled-by-default-devtools.timeline",
                                                                 "disabled-by-default-cc.debug"])
    try:
        page.goto(levels_server.url("radar/index.html"))
        wait_state(page, "playing")
        # console.timeStamp marks the trace (TimeStamp events) where each part begins.
        page.evaluate("() => console.timeStamp('matsite-playing')")
        page.evaluate(COUNT_STEPS)
        page.wait_for_function("(n) => window.__steps >= n", arg=n, timeout=60000)
        page.evaluate("() => { console.timeStamp('matsite-second-loop'); window.__steps = 0; }")
        page.wait_for_function("(n) => window.__steps >= n", arg=n, timeout=60000)
        page.evaluate("() => console.timeStamp('matsite-end')")
    finally:
        browser.stop_tracing()
    events = json.loads(path.read_text())["traceEvents"]
    marks = {e["args"]["data"]["message"]: e["ts"] for e in events
             if e.get("name") == "TimeStamp" and e.get("args", {}).get("data", {}).get("message", "").startswith("matsite-")}
    assert set(marks) == {"matsite-playing", "matsite-second-loop", "matsite-end"}, marks
    work = sorted((e["ts"], e["name"]) for e in events if e.get("name") in (DECODE_IMAGE, RESCALE) and e.get("ph") in ("X", "B"))
    loading = [w for w in work if w[0] < marks["matsite-playing"] and w[1] == DECODE_IMAGE]
    second = [w for w in work if marks["matsite-second-loop"] <= w[0] < marks["matsite-end"]]
    # The trace sees the decodes: every frame was decoded before playback.
    assert len(loading) >= n, f"{len(loading)} image decodes before playback, for {n} frames"
    # A loop of n swaps decodes or scales again at most one frame (one the cache let go), not
    # one or two a swap.
    assert len(second) <= 1, f"the second loop of {n} frames decoded or scaled images {len(second)} times: {second}"
    view = page.evaluate(VIEW)
    assert view["level"] == wanted(m["frames"][0], view["width"])[0], view
    assert 0 < view["bytes"] <= 128 * 2 ** 20
    assert not tab.page_errors and not tab.console_errors
