"""Issue 3, test 4: past the frames' detail (or off their area) the player
pauses on fallback tiles, and resumes when the view comes back."""
from helpers import player_state, read_manifest, wait_state

SET_VIEW = """([lat, lng, z]) => Matsite.players[0].getMap().setView([lat, lng], z, {animate: false})"""


def fallback_tiles(page):
    return page.evaluate("""() => [...document.querySelectorAll('.matsite-fallback img.leaflet-tile')]
        .filter((i) => i.complete && i.naturalWidth > 0 && i.classList.contains('leaflet-tile-loaded'))
        .map((i) => i.getAttribute('src'))""")


def centre(m):
    b = m["bounds"]
    east = b["east"] + 360 if b["east"] < b["west"] else b["east"]
    return (b["south"] + b["north"]) / 2, (b["west"] + east) / 2


def test_zooming_two_levels_in_pauses_on_fallback_tiles_and_zooming_back_resumes(tab, server, site_dir):
    m = read_manifest(str(site_dir))
    assert m.get("fallback"), "the test config asks for fallback tiles"
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
    prefix = "tiles/%04d/" % s["frame"]
    tiles = fallback_tiles(page)
    assert tiles and all(prefix in t for t in tiles), tiles
    assert server.requested(prefix) >= len(tiles)
    assert page.locator(".matsite-frames.matsite-hidden").count() == 1
    assert "Zoom" in page.locator(".matsite-status").inner_text()
    page.wait_for_timeout(600)
    assert player_state(page)["frame"] == s["frame"], "frames advanced while paused"

    page.evaluate(SET_VIEW, [lat, lng, m["zoom"]])
    wait_state(page, "playing")
    assert player_state(page)["reason"] is None
    assert page.locator(".matsite-fallback").count() == 0
    assert page.locator(".matsite-frames.matsite-hidden").count() == 0


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
