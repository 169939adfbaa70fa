"""Issue 12: frames published as levels play from the tiles the view needs.

Every test gets its site from conftest's `pyramid_site_dir` / `build_pyramid`
(helpers.PYRAMID_CONFIG: five frames of 1820 x 1581 px at zoom 7, levels 6 and 7).
"""
from __future__ import annotations

import time

from helpers import PYRAMID_CONFIG, SiteServer, player_state, read_manifest, wait_state

from conftest import build_pyramid
from pyramid_standin import frame_box

SET_VIEW = """([lat, lng, z]) => Matsite.players[0].getMap().setView([lat, lng], z, {animate: false})"""

LAYER = """() => { const c = document.querySelector('.matsite-pyramid');
    const f = c && c.querySelector('.matsite-pyramid-frame.matsite-front');
    return c && {level: Number(c.dataset.level), front: f && Number(f.dataset.index),
                 complete: f && f.dataset.complete === 'true'}; }"""


def fine_level(m):
    return m["pyramid"]["levels"][-1]


def tile_centre_latlng(page, z, x, y):
    """The lat/lng of the centre of tile x/y at zoom z (Leaflet's own projection)."""
    return page.evaluate("""([z, x, y]) => { const ll = L.CRS.EPSG3857.pointToLatLng(L.point((x + 0.5) * 256, (y + 0.5) * 256), z);
        return [ll.lat, ll.lng]; }""", [z, x, y])


def tile_url(m, index, z, x, y):
    return "radar/" + m["frames"][index]["tiles"].replace("{z}", str(z)).replace("{x}", str(x)).replace("{y}", str(y))


def wait_view_complete(page, level, timeout=20000):
    page.wait_for_function(
        """(z) => { const c = document.querySelector('.matsite-pyramid');
            const f = c && c.querySelector('.matsite-pyramid-frame.matsite-front');
            return c && Number(c.dataset.level) === z && f && f.dataset.complete === 'true'; }""",
        arg=level, timeout=timeout)


def test_the_manifest_publishes_levels_and_the_page_uses_the_pyramid_layer(tab, pyramid_server, pyramid_site_dir):
    m = read_manifest(str(pyramid_site_dir))
    levels = m["pyramid"]["levels"]
    assert [lv["zoom"] for lv in levels] == [6, 7], levels
    assert (fine_level(m)["width"], fine_level(m)["height"]) == (m["width"], m["height"])
    page = tab.page
    page.goto(pyramid_server.url("radar/index.html"))
    wait_state(page, "playing")
    assert page.locator("img.matsite-frame").count() == 0
    assert page.locator(".matsite-pyramid .matsite-pyramid-frame").count() == 2
    # No whole frame is ever fetched: only tiles.
    assert not any(pyramid_server.requested(f["url"]) for f in m["frames"])
    assert not tab.page_errors and not tab.console_errors


SEAMS = """async ([frameUrl, fx0, fy0]) => {
    const p = Matsite.players[0];
    const front = document.querySelector('.matsite-pyramid-frame.matsite-front');
    const canvas = front.querySelector('canvas.matsite-pyramid-detail');
    const r = p._overlay.region();
    const got = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    // The stitched frame, decoded the same way (a canvas), so both went through the same premultiplication.
    const img = new Image(); img.src = frameUrl; await img.decode();
    const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
    const g = c.getContext('2d'); g.drawImage(img, 0, 0);
    const want = g.getImageData(0, 0, c.width, c.height).data;
    const gx0 = r.x0, gy0 = r.y0;
    let compared = 0, opaque = 0, differ = [];
    const check = (cx, cy) => {
        const fx = gx0 + cx - fx0, fy = gy0 + cy - fy0;
        if (fx < 0 || fy < 0 || fx >= c.width || fy >= c.height || cx >= canvas.width || cy >= canvas.height) return;
        const a = (cy * canvas.width + cx) * 4, b = (fy * c.width + fx) * 4;
        compared++;
        if (want[b + 3] > 0) opaque++;
        const same = got[a + 3] === want[b + 3] && (want[b + 3] === 0 ||
            (got[a] === want[b] && got[a + 1] === want[b + 1] && got[a + 2] === want[b + 2]));
        if (!same && differ.length < 10) differ.push([fx, fy, [...got.slice(a, a + 4)], [...want.slice(b, b + 4)]]);
    };
    // Both sides of every tile boundary inside the canvas, all along it.
    for (let bx = 256 - gx0 % 256; bx < canvas.width; bx += 256)
        for (let cy = 0; cy < canvas.height; cy++) { check(bx - 1, cy); check(bx, cy); }
    for (let by = 256 - gy0 % 256; by < canvas.height; by += 256)
        for (let cx = 0; cx < canvas.width; cx++) { check(cx, by - 1); check(cx, by); }
    const box = canvas.getBoundingClientRect();
    const map = p.getMap();
    const nw = map.latLngToContainerPoint(L.CRS.EPSG3857.pointToLatLng(L.point(gx0, gy0), r.z));
    const mapBox = map.getContainer().getBoundingClientRect();
    return {compared, opaque, differ, tiles: (r.tx1 - r.tx0 + 1) * (r.ty1 - r.ty0 + 1),
            placed: [box.left - mapBox.left - nw.x, box.top - mapBox.top - nw.y, box.width - canvas.width]};
}"""


def test_seams_the_composed_frame_equals_the_stitched_frame_across_tile_boundaries(tab, pyramid_server, pyramid_site_dir):
    m = read_manifest(str(pyramid_site_dir))
    fine = fine_level(m)
    page = tab.page
    page.goto(pyramid_server.url("radar/index.html?autoplay=0&frame=2"))
    wait_state(page, "ready")
    # The corner of four tiles of the finest level where the frame has rain, at the finest zoom.
    tx, ty = fine["x0"] // 256 + 5, fine["y0"] // 256 + 1
    lat, lng = tile_centre_latlng(page, fine["zoom"], tx + 0.5, ty + 0.5)
    page.evaluate(SET_VIEW, [lat, lng, fine["zoom"]])
    wait_view_complete(page, fine["zoom"])
    r = page.evaluate(SEAMS, [pyramid_server.url("radar/" + m["frames"][2]["url"]), fine["x0"], fine["y0"]])
    assert r["tiles"] >= 4 and r["compared"] > 4 * 256, r
    assert r["opaque"] > 50, f"too few rain pixels on the boundaries to tell anything: {r}"
    assert not r["differ"], f"pixels (frame x, y, composed, stitched) differ at tile boundaries: {r['differ']}"
    # And the canvas sits where its tiles belong on the map, at 1:1.
    dx, dy, dw = r["placed"]
    assert abs(dx) < 1 and abs(dy) < 1 and abs(dw) < 1, r["placed"]
    assert not tab.page_errors


COVERAGE = """async ([ms, moves]) => {
    const root = document.querySelector('[data-matsite-player]');
    const map = Matsite.players[0].getMap();
    const layers = [...root.querySelectorAll('.matsite-pyramid-frame')];
    const changes = [];
    const mo = new MutationObserver(() => changes.push([Number(root.dataset.frame), root.dataset.pausedReason || null]));
    mo.observe(root, {attributes: true, attributeFilter: ['data-frame']});
    let minCov = 1, worst = null, samples = 0, undrawn = 0, both = 0, held = 0;
    const t0 = performance.now();
    // Pans and zooms, animated, while the player plays.
    moves.forEach(([at, kind, a, b]) => setTimeout(() => {
        if (kind === 'pan') map.panBy([a, b], {animate: true, duration: 0.4});
        else map.setZoomAround(map.getCenter(), map.getZoom() + a, {animate: true});
    }, at));
    await new Promise((done) => {
        const tick = (ts) => {
            const o = layers.map((l) => Number(getComputedStyle(l).opacity));
            const cov = 1 - (1 - o[0]) * (1 - o[1]);
            samples++;
            if (cov < minCov) { minCov = cov; worst = {o, t: ts - t0}; }
            // The layer that gives the coverage holds a drawn frame.
            const full = layers.filter((l, i) => o[i] >= 0.99);
            if (!full.some((l) => l.dataset.index !== undefined)) undrawn++;
            const fading = layers.some((l) => l.getAnimations().length > 0);
            if (!fading && o.filter((v) => v > 0.01).length > 1) both++;
            if (root.dataset.pausedReason === 'tiles') held++;
            if (performance.now() - t0 < ms) requestAnimationFrame(tick); else done();
        };
        requestAnimationFrame(tick);
    });
    mo.disconnect();
    return {minCov, worst, samples, undrawn, both, held, changes};
}"""


def test_coverage_stays_full_while_panning_and_zooming_during_playback(tab, pyramid_server, pyramid_site_dir):
    m = read_manifest(str(pyramid_site_dir))
    page = tab.page
    page.goto(pyramid_server.url("radar/index.html"))
    wait_state(page, "playing")
    moves = [[300, "zoom", 1, 0], [1200, "pan", 300, 150], [2000, "pan", -500, -200], [2800, "zoom", 0.5, 0],
             [3600, "pan", 400, 300], [4400, "zoom", -1, 0], [5200, "pan", -300, 100]]
    r = page.evaluate(COVERAGE, [7000, moves])
    assert r["samples"] > 50
    assert r["minCov"] >= 0.99, f"coverage dipped to {r['minCov']}: {r['worst']}"
    assert r["undrawn"] == 0, f"{r['undrawn']} samples had no drawn frame at full opacity"
    assert r["both"] == 0, f"{r['both']} samples showed both frames at rest"
    # It never held for tiles (issue 35 item 3: it plays on at coarser detail), and played
    # between the moves.
    assert r["held"] == 0 and all(reason is None for _, reason in r["changes"]), r["changes"]
    assert len(r["changes"]) >= 5, r
    n = len(m["frames"])
    for (a, _), (b, _) in zip(r["changes"], r["changes"][1:]):
        assert b == (a + 1) % n, f"frame {b} followed frame {a}"
    wait_state(page, "playing")
    assert not tab.page_errors


def test_a_held_back_visible_tile_blocks_playback(tabs, pyramid_server, pyramid_site_dir):
    m = read_manifest(str(pyramid_site_dir))
    n = len(m["frames"])
    fine = fine_level(m)
    # The embed page fills a view this large and fits the frames at zoom 6.5: the finest level (as Leaflet
    # rounds a tile zoom): every tile of it is visible.
    tx, ty = fine["x0"] // 256 + 3, fine["y0"] // 256 + 3
    held = tile_url(m, 1, fine["zoom"], tx, ty)
    release = pyramid_server.hold(held)
    tab = tabs.open(viewport={"width": 1800, "height": 1700})
    page = tab.page
    page.goto(pyramid_server.url("radar/embed.html?autoplay=1"))
    page.wait_for_function("(t) => (document.querySelector('.matsite-progress') || {}).textContent === t",
                           arg=f"{n - 1} / {n} frames", timeout=20000)
    assert page.evaluate(LAYER)["level"] == fine["zoom"]
    page.focus("[data-matsite-player]")
    page.keyboard.press("Space")
    seen = set()
    for _ in range(8):
        s = player_state(page)
        seen.add((s["state"], s["frame"]))
        time.sleep(0.1)
    # Loading still, on the frame it opens on.
    opening = player_state(page)["frame"]
    assert seen == {("loading", opening)}, seen
    assert pyramid_server.requested(held) == 1
    release.set()
    wait_state(page, "playing")
    page.wait_for_function("(f) => Number(document.querySelector('[data-matsite-player]').dataset.frame) !== f",
                           arg=opening, timeout=5000)
    assert not tab.page_errors


def frame_of_tile(m, url):
    """The index of the frame a level tile or coarsest image URL belongs to (its folder is
    named after the frame file), or None."""
    for i, f in enumerate(m["frames"]):
        if "/" + f["url"][:-len(".png")] + "/" in url:
            return i
    return None


# Sets the view and returns the frame on screen as it did, noting from then on each fetch the
# page makes with the frame on screen as it was made (shown_until_asked): a loaded machine may
# step the frame between the view's change and the loader's first request.
SET_VIEW_SHOWN = """([lat, lng, z]) => { const root = document.querySelector('[data-matsite-player]');
    window.__asked = [];
    if (!window.__askSpy) {
        window.__askSpy = true;
        const f = window.fetch;
        window.fetch = function (u) { window.__asked.push([String(u), Number(root.dataset.frame)]); return f.apply(this, arguments); };
    }
    const shown = Number(root.dataset.frame);
    Matsite.players[0].getMap().setView([lat, lng], z, {animate: false});
    return shown; }"""


def shown_until_asked(page, m, part, shown):
    """The frames on screen from SET_VIEW_SHOWN (which returned `shown`) to the page's first
    request for a file of a frame's whose URL holds `part`, in playing order. The one before
    `shown` too: data-frame names a frame as its crossfade begins, and the frame fading out
    stays the front one (the loader's first) until the fade ends."""
    n = len(m["frames"])
    for url, frame in page.evaluate("() => window.__asked"):
        url = "/" + url  # the loader's URLs are relative to the page
        if part in url and frame_of_tile(m, url) is not None:
            return [(shown - 1 + k) % n for k in range((frame - shown) % n + 2)]
    raise AssertionError("no frame file was asked for")


def plays_on_twice_through(page, m, late):
    """Two loops of playback (while frame `late` lacks what the view wants): never a hold,
    coverage whole, every frame drawn, `late` shown at least twice."""
    r = page.evaluate(COVERAGE, [2 * sum(f["duration_ms"] for f in m["frames"]) + 500, []])
    assert r["held"] == 0 and player_state(page)["reason"] is None, r
    assert r["minCov"] >= 0.99 and r["undrawn"] == 0, r
    steps = [f for f, _ in r["changes"]]
    assert steps.count(late) >= 2 and len(steps) >= len(m["frames"]) + 2, steps


def assert_shown_first(order, shown, n):
    """`order` (frame of each request) starts with a frame shown between the view's change and
    the first request (`shown`, shown_until_asked) or the next one, then its neighbours."""
    firsts = list(dict.fromkeys(order))
    assert firsts[0] in {f for s in shown for f in (s, (s + 1) % n)}, (shown, firsts)
    s = firsts[0]
    assert set(firsts[:3]) <= {(s - 2) % n, (s - 1) % n, s, (s + 1) % n, (s + 2) % n}, (shown, firsts)


def test_zooming_in_plays_on_while_a_visible_tile_is_late(tab, pyramid_server, pyramid_site_dir):
    """Issue 35 item 3: after a zoom-in, the view's detail is fetched for the frame shown and
    its neighbours first, the rest behind, and playback never holds: a frame whose tile is
    late plays at the coarser detail it has (never a hole), and sharpens once it is in.
    Tiles off screen are never asked for."""
    m = read_manifest(str(pyramid_site_dir))
    n = len(m["frames"])
    fine = fine_level(m)
    x0, y0 = fine["x0"] // 256, fine["y0"] // 256
    x1, y1 = (fine["x0"] + fine["width"] - 1) // 256, (fine["y0"] + fine["height"] - 1) // 256
    page = tab.page
    page.goto(pyramid_server.url("radar/index.html"))
    wait_state(page, "playing")
    assert page.evaluate(LAYER)["level"] < fine["zoom"]

    # The view at the finest level over the north-east corner: the south-west corner tile is far off screen.
    off = tile_url(m, 2, fine["zoom"], x0, y1)
    off_release = pyramid_server.hold(off)
    lat, lng = tile_centre_latlng(page, fine["zoom"], x1 - 1, y0 + 1)
    page.evaluate(SET_VIEW, [lat, lng, fine["zoom"]])
    wait_view_complete(page, fine["zoom"])
    assert pyramid_server.requested(off) == 0
    off_release.set()

    # Back out, then in over the south-west corner with one visible tile of frame 3 held back.
    page.evaluate(SET_VIEW, [lat, lng, fine["zoom"] - 2])
    wait_state(page, "playing")
    visible = tile_url(m, 3, fine["zoom"], x0 + 1, y1 - 1)
    release = pyramid_server.hold(visible)
    before = len(pyramid_server.requests)
    lat, lng = tile_centre_latlng(page, fine["zoom"], x0 + 1, y1 - 1)
    shown = page.evaluate(SET_VIEW_SHOWN, [lat, lng, fine["zoom"]])
    # Playing on through frame 3 twice while its tile is held: never a hold, frame 3 drawn
    # from coarser detail, coverage whole.
    plays_on_twice_through(page, m, 3)
    assert page.evaluate(LAYER)["level"] == fine["zoom"]
    assert pyramid_server.requested(visible) == 1
    # The shown frame's tiles were asked for first, then its neighbours'.
    fine_part = f"/{fine['zoom']}/"
    order = [frame_of_tile(m, p) for p in pyramid_server.requests[before:] if fine_part in p and "/frames/" in p]
    assert_shown_first(order, shown_until_asked(page, m, fine_part, shown), n)
    # Frame 3 on top while its tile is late: drawn, not complete.
    page.evaluate("() => Matsite.players[0].pause()")
    page.focus("[data-matsite-player]")
    page.keyboard.press("Home")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("() => { const f = document.querySelector('.matsite-pyramid-frame.matsite-front'); return f && f.dataset.index === '3'; }")
    assert page.evaluate(LAYER) == {"level": fine["zoom"], "front": 3, "complete": False}
    release.set()
    wait_view_complete(page, fine["zoom"])
    assert page.evaluate(LAYER)["front"] == 3
    assert player_state(page)["progress"] == ""
    assert not tab.page_errors


def test_the_coarsest_level_is_one_image_a_frame(tabs, pyramid_site_dir):
    """Issue 35 item 3: each frame's coarsest level is one image (`coarsest` in the manifest);
    a view at that level plays after one request a frame (its halving's sheet, below it) (none of that level's tiles), and a
    half zoom over a level picks the finer one, as Leaflet picks a tile zoom."""
    m = read_manifest(str(pyramid_site_dir))
    coarse = m["pyramid"]["levels"][0]
    for f in m["frames"]:
        assert f["coarsest"]["url"] == f["url"][:-len(".png")] + f"/{coarse['zoom']}.png", f
        assert (f["coarsest"]["width"], f["coarsest"]["height"]) == (coarse["width"], coarse["height"]), f
    srv = SiteServer(str(pyramid_site_dir))
    try:
        tab = tabs.open(viewport={"width": 800, "height": 700})
        page = tab.page
        page.goto(srv.url("radar/index.html?autoplay=0"))
        wait_state(page, "ready")
        frames_part = [p for p in srv.requests if "/frames/" in p]
        assert page.evaluate(LAYER)["level"] == coarse["zoom"], page.evaluate(LAYER)
        # One image a frame: the coarsest level's, or its halving where Leaflet's tile zoom for
        # the view is the halving's (test_a_phone_loads_only_the_halving_...).
        zoom = round(page.evaluate(BACKGROUNDS)["mapZoom"])
        # (The halvings come in sheets: first_files.)
        urls = [f["coarsest"]["url"] for f in m["frames"]] if zoom >= coarse["zoom"] else first_files(m)
        assert sorted(frames_part) == sorted("/radar/" + url for url in urls), (zoom, frames_part)
        # Half a level past the coarsest: the next level, not the coarsest scaled up.
        centre = page.evaluate("() => { const c = Matsite.players[0].getMap().getCenter(); return [c.lat, c.lng]; }")
        page.evaluate(SET_VIEW, [centre[0], centre[1], coarse["zoom"] + 0.5])
        page.wait_for_function("(z) => Number(document.querySelector('.matsite-pyramid').dataset.level) === z",
                               arg=coarse["zoom"] + 1)
        assert not tab.page_errors and not tab.console_errors
    finally:
        srv.stop()


BACKGROUNDS = """() => { const loader = Matsite.players[0]._overlay.getLoader();
    const n = loader.total(), zooms = [];
    for (let i = 0; i < n; i++) { const b = loader.backgroundLevel(i); zooms.push(b ? b.zoom : null); }
    const front = document.querySelector('.matsite-pyramid-frame.matsite-front');
    return {zooms, front: front && Number(front.dataset.index), drawn: front && Number(front.dataset.background),
            complete: front && front.dataset.complete === 'true',
            mapZoom: Matsite.players[0].getMap().getZoom()}; }"""


def halving(frame):
    """The one halving the test site's coarsest level (910 x 791 px at zoom 6) has: zoom 5."""
    (h,) = frame["coarsest"]["levels"]
    return h


def first_files(m, order=None):
    """What a phone fetches of each frame before it plays, in `order` (default: the frames'):
    the sheet that holds its halving, once for all the frames it holds, else the halving."""
    out = []
    for i in order if order is not None else range(len(m["frames"])):
        h = halving(m["frames"][i])
        url = (h.get("sheet") or {}).get("url") or h["url"]
        if url not in out:
            out.append(url)
    return out


def playing_on_a_phone(tabs, srv):
    """A 390 x 844 tab playing the loop from `srv`: the box shows about 390 CSS px wide."""
    tab = tabs.open(viewport={"width": 390, "height": 844})
    tab.page.goto(srv.url("radar/index.html"))
    wait_state(tab.page, "playing")
    return tab, tab.page


def moves_on(page):
    """Waits for the frame on screen to change: it plays."""
    first = player_state(page)["frame"]
    page.wait_for_function("(f) => Number(document.querySelector('[data-matsite-player]').dataset.frame) !== f",
                           arg=first, timeout=5000)


def frames_requested(srv, since=0):
    return [p for p in srv.requests[since:] if "/frames/" in p]


def test_a_phone_loads_only_the_halving_of_the_coarsest_level_before_it_plays(tabs, pyramid_site_dir):
    """Issue 35 item 1: the coarsest level (910 px wide here) is more than a small phone
    needs; its halving is published beside it, and a 390 x 844 view, which shows the box
    about 390 CSS px wide, loads only that per frame (one request a frame) and plays."""
    m = read_manifest(str(pyramid_site_dir))
    coarse = m["pyramid"]["levels"][0]
    assert max(coarse["width"], coarse["height"]) > 640, coarse
    for f in m["frames"]:
        h = halving(f)
        assert h["zoom"] == coarse["zoom"] - 1 and max(h["width"], h["height"]) <= 640, h
        assert h["url"] == f["url"][:-len(".png")] + f"/{h['zoom']}.png", h
    srv = SiteServer(str(pyramid_site_dir))
    try:
        tab, page = playing_on_a_phone(tabs, srv)
        bg = page.evaluate(BACKGROUNDS)
        # Leaflet's tile zoom for this view is at most the halving's.
        assert round(bg["mapZoom"]) <= coarse["zoom"] - 1, bg
        assert sorted(frames_requested(srv)) == sorted("/radar/" + url for url in first_files(m)), srv.requests
        assert bg["zooms"] == [coarse["zoom"] - 1] * len(m["frames"]), bg
        assert bg["drawn"] == coarse["zoom"] - 1 and bg["complete"], bg
        assert page.evaluate(LAYER)["level"] == coarse["zoom"]
        moves_on(page)
        assert not tab.page_errors and not tab.console_errors
    finally:
        srv.stop()


def test_a_zoom_in_upgrades_the_backgrounds_shown_frame_first_and_playback_goes_on(tabs, pyramid_site_dir):
    """Issue 35 item 2: zoomed in to the coarsest level's zoom, each frame's background is
    upgraded from the halving to the coarsest level's image, the frame on screen's first,
    then its neighbours'; playback never holds, a frame whose image is late plays over its
    halving (coverage whole), and takes the image once it is in."""
    m = read_manifest(str(pyramid_site_dir))
    n = len(m["frames"])
    coarse = m["pyramid"]["levels"][0]
    srv = SiteServer(str(pyramid_site_dir))
    try:
        tab, page = playing_on_a_phone(tabs, srv)
        assert page.evaluate(BACKGROUNDS)["zooms"] == [coarse["zoom"] - 1] * n
        late = 2
        release = srv.hold("/radar/" + m["frames"][late]["coarsest"]["url"])
        before = len(srv.requests)
        centre = page.evaluate("() => { const c = Matsite.players[0].getMap().getCenter(); return [c.lat, c.lng]; }")
        shown = page.evaluate(SET_VIEW_SHOWN, [centre[0], centre[1], coarse["zoom"]])
        # Two loops while frame 2's image is held: never a hold, coverage whole, every frame shown.
        plays_on_twice_through(page, m, late)
        # The others took the coarsest level's image; frame 2 still plays on its halving.
        page.wait_for_function("""([late, z]) => { const l = Matsite.players[0]._overlay.getLoader();
            for (let i = 0; i < l.total(); i++) { const b = l.backgroundLevel(i); if (i !== late && b.zoom !== z) return false; }
            return l.backgroundLevel(late).zoom === z - 1; }""", arg=[late, coarse["zoom"]], timeout=10000)
        # The frame on screen's image was asked for first, then its neighbours'; no tiles.
        asked = frames_requested(srv, before)
        assert sorted(asked) == sorted("/radar/" + f["coarsest"]["url"] for f in m["frames"]), asked
        assert_shown_first([frame_of_tile(m, p) for p in asked], shown_until_asked(page, m, "/frames/", shown), n)
        assert page.evaluate(LAYER)["level"] == coarse["zoom"]
        # Frame 2 on top while its image is late: drawn from its halving, not complete.
        page.evaluate("() => Matsite.players[0].pause()")
        page.focus("[data-matsite-player]")
        page.keyboard.press("Home")
        for _ in range(late):
            page.keyboard.press("ArrowRight")
        page.wait_for_function("(i) => (document.querySelector('.matsite-pyramid-frame.matsite-front') || {}).dataset.index === String(i)",
                               arg=late)
        bg = page.evaluate(BACKGROUNDS)
        assert (bg["front"], bg["drawn"], bg["complete"]) == (late, coarse["zoom"] - 1, False), bg
        release.set()
        page.wait_for_function("""(z) => { const f = document.querySelector('.matsite-pyramid-frame.matsite-front');
            return f && Number(f.dataset.background) === z && f.dataset.complete === 'true'; }""", arg=coarse["zoom"], timeout=10000)
        assert page.evaluate(BACKGROUNDS)["zooms"] == [coarse["zoom"]] * n
        # Playing again: the backgrounds stay, nothing more is fetched at this view.
        count = len(srv.requests)
        page.keyboard.press("Space")
        wait_state(page, "playing")
        page.wait_for_timeout(600)
        assert frames_requested(srv, count) == []
        assert not tab.page_errors and not tab.console_errors
    finally:
        srv.release_all()
        srv.stop()


# Each frame's background as the loader holds it, and its halving's own file decoded, as RGBA
# bytes (base64 of each): equal when the sheet's cell is the halving, pixel for pixel.
CELLS = """async (urls) => {
    const loader = Matsite.players[0]._overlay.getLoader();
    const rgba = (bmp) => {
        const c = document.createElement('canvas');
        c.width = bmp.width; c.height = bmp.height;
        const ctx = c.getContext('2d');
        ctx.drawImage(bmp, 0, 0);
        const d = ctx.getImageData(0, 0, c.width, c.height).data;
        let s = '';
        for (let k = 0; k < d.length; k += 8192) s += String.fromCharCode.apply(null, d.subarray(k, k + 8192));
        return btoa(s);
    };
    const out = [];
    for (let i = 0; i < urls.length; i++) {
        const own = await createImageBitmap(await (await fetch(urls[i], {cache: 'no-store'})).blob());
        out.push({held: rgba(loader.background(i)), own: rgba(own), size: [own.width, own.height]});
    }
    return out;
}"""


def test_a_phone_fetches_each_sheet_once_and_each_frame_starts_on_its_own_cell(tabs, pyramid_site_dir):
    """Issue 35 item 3: the frames' first backgrounds come in sheets (docs/player.md
    "Background sheets"): the page preloads each sheet once, the phone asks for nothing else
    before it plays, and each frame's background is its halving's pixels exactly."""
    m = read_manifest(str(pyramid_site_dir))
    cells = [halving(f).get("sheet") for f in m["frames"]]
    assert any(cells), "the test site's frames share a sheet"
    sheets = {c["url"] for c in cells if c}
    assert all(u.startswith("frames/sheet-") and u.endswith(".png") for u in sheets), sheets
    srv = SiteServer(str(pyramid_site_dir))
    try:
        tab, page = playing_on_a_phone(tabs, srv)
        asked = frames_requested(srv)
        assert sorted(asked) == sorted("/radar/" + url for url in first_files(m)), asked
        assert all(asked.count("/radar/" + u) == 1 for u in sheets), asked
        got = page.evaluate(CELLS, [halving(f)["url"] for f in m["frames"]])
        for i, cell in enumerate(got):
            h = halving(m["frames"][i])
            assert cell["size"] == [h["width"], h["height"]], (i, cell["size"])
            assert cell["held"] == cell["own"], f"frame {i}: its background is not its halving's pixels"
        moves_on(page)
        assert not tab.page_errors and not tab.console_errors
    finally:
        srv.stop()


def test_a_sheet_that_fails_is_named_in_the_message(tabs, pyramid_site_dir):
    m = read_manifest(str(pyramid_site_dir))
    sheet = next(halving(f)["sheet"]["url"] for f in m["frames"] if halving(f).get("sheet"))
    srv = SiteServer(str(pyramid_site_dir))
    try:
        tab = tabs.open(viewport={"width": 390, "height": 844})
        page = tab.page
        page.route("**/" + sheet, lambda route: route.fulfill(status=404, body="gone"))
        page.goto(srv.url("radar/index.html"))
        page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.error", timeout=20000)
        s = player_state(page)
        assert s["state"] == "loading", s
        assert "HTTP 404" in s["error"] and sheet.split("/")[-1] in s["error"], s["error"]
    finally:
        srv.stop()


def test_a_manifest_without_the_halvings_plays_on_the_coarsest_images(tabs, pyramid_site_dir):
    """A manifest from before the halvings (no `coarsest.levels`), with its page (which
    preloads nothing), plays as before: the same phone view loads each frame's coarsest
    image, and plays."""
    import json

    m = read_manifest(str(pyramid_site_dir))
    older = dict(m, frames=[dict(f, coarsest={k: v for k, v in f["coarsest"].items() if k != "levels"}) for f in m["frames"]])
    page_text = (pyramid_site_dir / "radar" / "index.html").read_text()
    older_page = "".join(line for line in page_text.splitlines(keepends=True) if 'rel="preload" href="frames/' not in line)
    assert older_page != page_text
    srv = SiteServer(str(pyramid_site_dir))
    try:
        srv.override("radar/manifest.json", json.dumps(older).encode(), "application/json")
        srv.override("radar/index.html", older_page.encode(), "text/html")
        tab, page = playing_on_a_phone(tabs, srv)
        assert sorted(frames_requested(srv)) == sorted("/radar/" + f["coarsest"]["url"] for f in m["frames"]), srv.requests
        coarse = m["pyramid"]["levels"][0]["zoom"]
        assert page.evaluate(BACKGROUNDS)["zooms"] == [coarse] * len(m["frames"])
        moves_on(page)
        assert not tab.page_errors and not tab.console_errors
    finally:
        srv.stop()


PRELOADS = """() => ({
    links: [...document.querySelectorAll('link[rel=preload][href*="frames/"]')].map((l) => ({href: l.getAttribute('href'), media: l.media})),
    by: Object.fromEntries(performance.getEntriesByType('resource').filter((e) => e.name.includes('/frames/'))
        .map((e) => [new URL(e.name).pathname, e.initiatorType]))})"""


def test_a_phone_plays_on_the_frames_its_page_preloaded_and_a_desk_fetches_its_own(tabs, pyramid_site_dir):
    """The page lists each frame's smallest halving (or the sheet holding it, once) as a
    preload, the frame the player opens on first, for screens under sqrt(2) times the halving: a phone's browser fetches them
    while it fetches the scripts, and the player's requests are answered from there (one
    request each); a desk view, which starts elsewhere, fetches nothing from the list."""
    m = read_manifest(str(pyramid_site_dir))
    n = len(m["frames"])
    srv = SiteServer(str(pyramid_site_dir))
    try:
        tab, page = playing_on_a_phone(tabs, srv)
        got = page.evaluate(PRELOADS)
        order = [0, 1, n - 1] + list(range(2, n - 1))
        assert [link["href"] for link in got["links"]] == first_files(m, order), got
        h = halving(m["frames"][0])
        assert {link["media"] for link in got["links"]} == {
            f"(max-width: {int((h['width'] - 2) * 2 ** 0.5) - 1}px), (max-height: {int((h['height'] - 2) * 2 ** 0.5) - 1}px)"}, got
        halvings = sorted("/radar/" + url for url in first_files(m))
        assert sorted(frames_requested(srv)) == halvings, srv.requests
        assert {got["by"][p] for p in halvings} == {"link"}, got["by"]
        moves_on(page)
        assert not tab.page_errors and not tab.console_errors
        desk = tabs.open(viewport={"width": 1280, "height": 800})
        before = len(srv.requests)
        desk.page.goto(srv.url("radar/index.html"))
        wait_state(desk.page, "playing")
        by = desk.page.evaluate(PRELOADS)["by"]
        assert by and "link" not in by.values(), by
        assert len(frames_requested(srv, before)) == len(by), srv.requests[before:]
        assert not desk.page_errors and not desk.console_errors
    finally:
        srv.stop()


def test_standing_still_only_the_frames_beside_the_shown_one_take_the_screens_background(tabs, pyramid_site_dir):
    """A never played embed at a device pixel ratio of 2 on a phone: the frame on screen
    (the newest) and the two beside it take the image the screen's pixels call for (the
    coarsest level's), the others keep the halving the map's level needs (and the page
    preloaded); played, nothing more is fetched and no background gets coarser."""
    m = read_manifest(str(pyramid_site_dir))
    n = len(m["frames"])
    coarse = m["pyramid"]["levels"][0]["zoom"]
    srv = SiteServer(str(pyramid_site_dir))
    try:
        tab = tabs.open(viewport={"width": 390, "height": 844}, device_scale_factor=2)
        page = tab.page
        page.goto(srv.url("radar/embed.html"))
        wait_state(page, "ready")
        beside = {n - 1, 0, n - 2}
        want = [coarse if i in beside else coarse - 1 for i in range(n)]
        page.wait_for_function("(want) => { const l = Matsite.players[0]._overlay.getLoader();"
                               " return want.every((z, i) => (l.backgroundLevel(i) || {}).zoom === z); }", arg=want, timeout=10000)
        bg = page.evaluate(BACKGROUNDS)
        assert int(bg["mapZoom"] + 0.5) == coarse - 1 and bg["front"] == n - 1, bg  # Leaflet rounds half up
        page.wait_for_function("() => document.querySelector('.matsite-pyramid-frame.matsite-front').dataset.complete === 'true'")
        asked = frames_requested(srv)
        assert sorted(asked) == sorted(["/radar/" + url for url in first_files(m)]
                                       + ["/radar/" + m["frames"][i]["coarsest"]["url"] for i in beside]), asked
        count = len(srv.requests)
        page.evaluate("() => Matsite.players[0].play()")
        wait_state(page, "playing")
        moves_on(page)
        assert frames_requested(srv, count) == [] and page.evaluate(BACKGROUNDS)["zooms"] == want
        assert not tab.page_errors and not tab.console_errors
    finally:
        srv.stop()


def test_zooming_past_the_finest_level_pauses_on_fallback_tiles(tab, pyramid_server, pyramid_site_dir):
    m = read_manifest(str(pyramid_site_dir))
    fine = fine_level(m)
    page = tab.page
    page.goto(pyramid_server.url("radar/index.html"))
    wait_state(page, "playing")
    lat, lng = tile_centre_latlng(page, fine["zoom"], fine["x0"] // 256 + 3, fine["y0"] // 256 + 3)
    # One level past the frames: the finest level, scaled up, still plays.
    page.evaluate(SET_VIEW, [lat, lng, fine["zoom"] + 1])
    wait_view_complete(page, fine["zoom"])
    # (after the finest level's new tiles are in)
    page.wait_for_function("() => !document.querySelector('[data-matsite-player]').dataset.pausedReason", timeout=20000)
    page.wait_for_timeout(400)
    assert player_state(page)["state"] == "playing"
    page.evaluate(SET_VIEW, [lat, lng, fine["zoom"] + 2])
    page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.pausedReason === 'zoom'")
    page.wait_for_function("() => document.querySelectorAll('.matsite-fallback img.leaflet-tile-loaded').length > 0",
                           timeout=10000)
    assert page.locator(".matsite-frames.matsite-hidden").count() == 1
    page.evaluate(SET_VIEW, [lat, lng, fine["zoom"]])
    wait_state(page, "playing")
    assert page.locator(".matsite-frames.matsite-hidden").count() == 0
    assert not tab.page_errors


def _plays(tabs, site, pyramid: bool):
    srv = SiteServer(str(site))
    try:
        tab = tabs.open()
        page = tab.page
        page.goto(srv.url("radar/index.html"))
        wait_state(page, "playing")
        first = player_state(page)["frame"]
        page.wait_for_function("(f) => Number(document.querySelector('[data-matsite-player]').dataset.frame) !== f",
                               arg=first, timeout=5000)
        assert page.locator(".matsite-pyramid").count() == (1 if pyramid else 0)
        assert page.locator("img.matsite-frame").count() == (0 if pyramid else 2)
        assert not tab.page_errors
    finally:
        srv.stop()


def test_loops_just_under_and_just_over_the_threshold_both_play(tabs, tmp_path):
    config = PYRAMID_CONFIG.replace("zoom: 7", "zoom: 6").replace("frames: { count: 5 }", "frames: { count: 3 }")
    x0, y0, w, h = frame_box({"bounds": {"west": -10.0, "south": 40.0, "east": 10.0, "north": 52.0}, "zoom": 6})
    pixels = w * h
    # Exactly at the threshold is not above it: a single image.
    under = build_pyramid(tmp_path / "under", config.replace("pyramid: { publish: always }",
                                                             f"pyramid: {{ publish: auto, above_px: {pixels} }}"))
    m = read_manifest(str(under))
    assert m["width"] * m["height"] == pixels and "pyramid" not in m, (m["width"], m["height"], m.get("pyramid"))
    over = build_pyramid(tmp_path / "over", config.replace("pyramid: { publish: always }",
                                                           f"pyramid: {{ publish: auto, above_px: {pixels - 1} }}"))
    assert "pyramid" in read_manifest(str(over))
    _plays(tabs, under, pyramid=False)
    _plays(tabs, over, pyramid=True)


CSP_PROBE = """window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => window.__csp.push([e.violatedDirective, e.blockedURI].join(' ')));"""


def test_frames_in_levels_play_under_a_strict_csp_and_axe_finds_no_violation(tabs, pyramid_site_dir):
    from axe_playwright_python.sync_playwright import Axe
    from helpers import STRICT_CSP

    m = read_manifest(str(pyramid_site_dir))
    fine = fine_level(m)
    srv = SiteServer(str(pyramid_site_dir), csp=STRICT_CSP)
    try:
        for path in ["radar/index.html", "radar/embed.html?autoplay=1"]:
            tab = tabs.open(viewport={"width": 390, "height": 844})
            page = tab.page
            page.add_init_script(CSP_PROBE)
            logged = []
            page.on("console", lambda msg: logged.append(msg.text) if "Content Security Policy" in msg.text else None)
            page.goto(srv.url(path))
            wait_state(page, "playing")
            # Panned and zoomed to the finest level: canvases placed and drawn by script, still clean.
            lat, lng = tile_centre_latlng(page, fine["zoom"], fine["x0"] // 256 + 3, fine["y0"] // 256 + 2)
            page.evaluate(SET_VIEW, [lat, lng, fine["zoom"]])
            wait_view_complete(page, fine["zoom"])
            assert page.evaluate("window.__csp") == [] and not logged, (page.evaluate("window.__csp"), logged)
            violations = Axe().run(page).response["violations"]
            assert not violations, [(v["id"], [n["target"] for n in v["nodes"]][:5]) for v in violations]
            assert not tab.page_errors and not tab.console_errors, (tab.page_errors, tab.console_errors)
    finally:
        srv.stop()


def test_a_missing_tile_shows_a_clear_message(tab, pyramid_server, pyramid_site_dir):
    import json

    m = read_manifest(str(pyramid_site_dir))
    # A frame's coarsest images gone (the level's and its halving's: the view loads one of
    # them); then, in a manifest from before those images (the coarsest level loads as
    # tiles), a frame's tiles gone.
    broken = dict(m, frames=[dict(f) for f in m["frames"]])
    broken["frames"][1]["coarsest"] = dict(m["frames"][1]["coarsest"], url="frames/does-not-exist/6.png",
                                           levels=[dict({k: v for k, v in halving(m["frames"][1]).items() if k != "sheet"},
                                                        url="frames/does-not-exist/5.png")])
    older = dict(m, frames=[{k: v for k, v in f.items() if k != "coarsest"} for f in m["frames"]])
    older["frames"][1]["tiles"] = "frames/does-not-exist/{z}/{x}/{y}.png"
    page = tab.page
    for manifest, what in ((broken, "image "), (older, "tile ")):
        pyramid_server.override("radar/manifest.json", json.dumps(manifest).encode(), "application/json")
        page.goto(pyramid_server.url("radar/index.html"))
        page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.error", timeout=20000)
        s = player_state(page)
        assert s["state"] == "loading"
        assert s["error"].startswith("Frame 2 of ") and what in s["error"] and "HTTP 404" in s["error"], s["error"]
        if manifest is broken:
            assert "image 5.png" in s["error"] or "image 6.png" in s["error"], s["error"]
        assert "404" in page.locator(".matsite-status").inner_text()


# Records, in window.__complete, each frame seen on top with all its detail drawn.
COUNT_STEPS_PYRAMID = """() => { window.__complete = new Set();
    const c = document.querySelector('.matsite-pyramid');
    const look = () => { const f = c.querySelector('.matsite-pyramid-frame.matsite-front');
        if (f && f.dataset.complete === 'true') window.__complete.add(f.dataset.index); };
    new MutationObserver(look).observe(c, {attributes: true, subtree: true}); look(); }"""


def test_paused_the_level_is_the_screens_and_playing_the_maps(tabs, pyramid_server, pyramid_site_dir):
    """On a screen of two device pixels a CSS pixel, the loop plays at the level of the map's
    own detail (as its tiles and a tile-per-frame page load) and, paused, the frame on screen
    and the two beside it sharpen to the level of the screen's pixels, no other frame; played
    again, the level is the map's and every frame is drawn whole."""
    m = read_manifest(str(pyramid_site_dir))
    coarse, fine = m["pyramid"]["levels"][0]["zoom"], fine_level(m)["zoom"]
    tab = tabs.open(device_scale_factor=2)
    page = tab.page
    page.goto(pyramid_server.url("radar/index.html"))
    wait_state(page, "playing")
    # At the coarsest level's zoom over the box: its pixels are the map's, half the screen's.
    page.evaluate(SET_VIEW, [46.0, 0.0, coarse])
    wait_state(page, "playing")
    assert page.evaluate(LAYER)["level"] == coarse
    n = len(m["frames"])
    before = len(pyramid_server.requests)
    page.focus("[data-matsite-player]")
    page.keyboard.press("Space")
    wait_state(page, "paused")
    shown = player_state(page)["frame"]
    wait_view_complete(page, fine, timeout=30000)
    # A step: the next frame is sharp too (it was fetched beside the shown one).
    page.keyboard.press("ArrowRight")
    page.wait_for_function("(i) => Number(document.querySelector('[data-matsite-player]').dataset.frame) === i",
                           arg=(shown + 1) % n, timeout=10000)
    wait_view_complete(page, fine, timeout=30000)
    # Only the frames on screen and beside them asked for the finer level's tiles.
    near = {shown, (shown + 1) % n, (shown - 1) % n, (shown + 2) % n}
    asked = {frame_of_tile(m, p) for p in pyramid_server.requests[before:] if f"/{fine}/" in p and "/frames/" in p}
    assert asked and asked <= near, (shown, asked)
    assert len(near) < n
    page.keyboard.press("Space")
    wait_state(page, "playing")
    page.wait_for_function("(z) => Number(document.querySelector('.matsite-pyramid').dataset.level) === z",
                           arg=coarse, timeout=10000)
    # Playing on at the map's level: every frame drawn whole again.
    page.evaluate(COUNT_STEPS_PYRAMID)
    page.wait_for_function("(n) => window.__complete.size >= n", arg=n, timeout=60000)
    assert not tab.page_errors and not tab.console_errors
