"""Issue 3, test 4: past the frames' detail (or off their area) the player
pauses on fallback tiles, and resumes when the view comes back. Fallback tiles live in a
folder per frame named by their content (issue 25), which the manifest's
`fallback.templates` gives frame by frame."""
import json
import re

from helpers import player_state, read_manifest, wait_state

SET_VIEW = """([lat, lng, z]) => Matsite.players[0].getMap().setView([lat, lng], z, {animate: false})"""


def fallback_tiles(page):
    return page.evaluate("""() => [...document.querySelectorAll('.matsite-fallback img.leaflet-tile')]
        .filter((i) => i.complete && i.naturalWidth > 0 && i.classList.contains('leaflet-tile-loaded'))
        .map((i) => i.getAttribute('src'))""")


def folder(m, index):
    """The folder (relative to the animation) of frame `index`'s fallback tiles."""
    return m["fallback"]["templates"][index].split("{z}")[0]


def centre(m):
    b = m["bounds"]
    east = b["east"] + 360 if b["east"] < b["west"] else b["east"]
    return (b["south"] + b["north"]) / 2, (b["west"] + east) / 2


def test_zooming_two_levels_in_pauses_on_fallback_tiles_and_zooming_back_resumes(tab, server, site_dir):
    m = read_manifest(str(site_dir))
    assert m.get("fallback"), "the test config asks for fallback tiles"
    # Named by content, never by position: no frame's folder is its index.
    assert all(re.fullmatch(r"tiles/[0-9a-f]{16}/", folder(m, i)) for i in range(len(m["frames"]))), m["fallback"]
    page = tab.page
    page.goto(server.url("radar/index.html"))
    wait_state(page, "playing")
    lat, lng = centre(m)

    page.evaluate(SET_VIEW, [lat, lng, m["zoom"] + 2])
    page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.pausedReason === 'zoom'")
    s = player_state(page)
    assert s["state"] == "paused"
    page.wait_for_function("() => document.querySelectorAll('.matsite-fallback img.leaflet-tile-loaded').length > 0",
                           timeout=10000)
    prefix = folder(m, s["frame"])
    tiles = fallback_tiles(page)
    assert tiles and all(prefix in t for t in tiles), tiles
    assert server.requested(prefix) >= len(tiles)
    # Published tiles exist only over the frames' box, and the player asks for no others.
    asked = {r.split("?")[0].lstrip("/") for r in list(server.requests) if "/tiles/" in r}
    assert asked and all((site_dir / r).is_file() for r in asked), sorted(r for r in asked if not (site_dir / r).is_file())
    assert page.locator(".matsite-frames.matsite-hidden").count() == 1
    status = page.locator(".matsite-status").inner_text()
    assert "showing this frame as map tiles" in status and "Zoom out" in status, status
    page.wait_for_timeout(600)
    assert player_state(page)["frame"] == s["frame"], "frames advanced while paused"

    page.evaluate(SET_VIEW, [lat, lng, m["zoom"]])
    wait_state(page, "playing")
    assert player_state(page)["reason"] is None
    assert page.locator(".matsite-fallback").count() == 0
    assert page.locator(".matsite-frames.matsite-hidden").count() == 0


def test_without_fallback_tiles_the_status_says_the_frame_is_shown_enlarged(tab, server, site_dir):
    """Issue 35: no fallback tiles, so past the frames' detail the scaled frame stays; the
    status says that, not "map tiles"."""
    m = read_manifest(str(site_dir))
    server.override("radar/manifest.json", json.dumps(dict(m, fallback=None)).encode(), "application/json")
    page = tab.page
    page.goto(server.url("radar/index.html"))
    wait_state(page, "playing")
    lat, lng = centre(m)
    page.evaluate(SET_VIEW, [lat, lng, m["zoom"] + 2])
    page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.pausedReason === 'zoom'")
    status = page.locator(".matsite-status").inner_text()
    assert "showing this frame enlarged" in status and "map tiles" not in status, status
    assert page.locator(".matsite-frames.matsite-hidden").count() == 0
    assert page.locator(".matsite-fallback").count() == 0


def test_one_level_of_zoom_is_tolerated(tab, server, site_dir):
    m = read_manifest(str(site_dir))
    page = tab.page
    page.goto(server.url("radar/index.html"))
    wait_state(page, "playing")
    lat, lng = centre(m)
    page.evaluate(SET_VIEW, [lat, lng, m["zoom"] + 1])
    page.wait_for_timeout(500)
    assert player_state(page)["state"] == "playing"


def test_panning_off_the_area_pauses_and_panning_back_resumes(tab, server, site_dir):
    m = read_manifest(str(site_dir))
    b = m["bounds"]
    page = tab.page
    page.goto(server.url("radar/index.html"))
    wait_state(page, "playing")
    lat, lng = centre(m)
    width = (b["east"] + 360 if b["east"] < b["west"] else b["east"]) - b["west"]
    page.evaluate(SET_VIEW, [lat, b["west"] - width, m["zoom"]])
    page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.pausedReason === 'bounds'")
    assert player_state(page)["state"] == "paused"
    page.evaluate(SET_VIEW, [lat, lng, m["zoom"]])
    wait_state(page, "playing")
    assert player_state(page)["reason"] is None


def test_play_while_zoomed_in_overrides_and_shows_the_frames(tab, server, site_dir):
    m = read_manifest(str(site_dir))
    page = tab.page
    page.goto(server.url("radar/index.html"))
    wait_state(page, "playing")
    lat, lng = centre(m)
    page.evaluate(SET_VIEW, [lat, lng, m["zoom"] + 2])
    wait_state(page, "paused")
    page.get_by_role("button", name="Play", exact=True).click()
    wait_state(page, "playing")
    assert page.locator(".matsite-frames.matsite-hidden").count() == 0
    assert player_state(page)["reason"] is None


def test_source_templates_serve_as_fallback_tiles(tab, server, site_dir):
    """A fallback given as one absolute URL template per frame (the source used directly,
    `fallback.source: true`): each frame's own, also while stepping."""
    m = read_manifest(str(site_dir))
    fb = m["fallback"]
    changed = dict(m, fallback={
        "templates": [server.url("radar/" + t) for t in fb["templates"]],
        "min_zoom": fb["min_zoom"], "max_native_zoom": fb["max_native_zoom"], "subdomains": [],
    })
    server.override("radar/manifest.json", json.dumps(changed).encode(), "application/json")
    page = tab.page
    page.goto(server.url("radar/index.html?autoplay=0&frame=2"))
    wait_state(page, "ready")
    lat, lng = centre(m)
    page.evaluate(SET_VIEW, [lat, lng, m["zoom"] + 2])
    page.wait_for_function("() => document.querySelectorAll('.matsite-fallback img.leaflet-tile-loaded').length > 0",
                           timeout=10000)
    assert all(folder(m, 2) in t for t in fallback_tiles(page))
    # Stepping while on fallback tiles shows the next frame's tiles.
    page.get_by_role("button", name="Next frame", exact=True).click()
    page.wait_for_function("""(next) => { const t = [...document.querySelectorAll('.matsite-fallback img.leaflet-tile-loaded')];
        return t.length > 0 && t.every((i) => i.getAttribute('src').includes('/radar/' + next)); }""",
                           arg=folder(m, 3), timeout=10000)


def test_a_box_across_the_antimeridian_is_drawn_and_in_range(tab, server, site_dir):
    m = read_manifest(str(site_dir))
    changed = dict(m, bounds={"west": 170.0, "south": 40.0, "east": -170.0, "north": 52.0}, fallback=None, base_map=None)
    server.override("radar/manifest.json", json.dumps(changed).encode(), "application/json")
    page = tab.page
    page.goto(server.url("radar/index.html"))
    wait_state(page, "playing")
    box = page.locator(".matsite-frames").bounding_box()
    view = page.locator(".matsite-map").bounding_box()
    assert box["width"] > 100 and box["height"] > 100
    assert view["x"] <= box["x"] and box["x"] + box["width"] <= view["x"] + view["width"] + 1
    # 20 degrees wide, as west..east+360 says, not 340.
    assert 0.8 < box["width"] / box["height"] < 2.0, box
    page.evaluate(SET_VIEW, [46, -179.5, m["zoom"]])
    page.wait_for_timeout(300)
    assert player_state(page)["reason"] is None
