"""Issue 13, item 3: point layers in a real browser. The site is built by the real
binary from a GeoJSON file of points around five centres, with times, labels and
popups holding hostile strings. Clusters are checked against the published level
files (what the build wrote is the truth), not against numbers written here."""
import json
import math
import random
import re

import pytest
from axe_playwright_python.sync_playwright import Axe

from pathlib import Path

from helpers import STRICT_CSP, BuildFailed, SiteServer, build_site, player_state, read_manifest, wait_state

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
HOSTILE = '<img src=x onerror="alert(1)">'
HOSTILE_POPUP = "</script><script>alert(2)</script>&amp;"
TIMES = ["2026-11-21T10:00:00Z", "2026-11-21T10:10:00Z", "2026-11-21T10:20:00Z"]
POINT_TIMES = ["2026-11-21T09:55:00Z", "2026-11-21T10:00:00Z", "2026-11-21T10:05:00Z",
               "2026-11-21T10:10:00Z", "2026-11-21T10:15:00Z", "2026-11-21T10:20:00Z"]

CONFIG = """\
title: Points
base_map: {{ demo: true }}
animations:
  - id: radar
    title: Radar with reports
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 5
    frame_duration_ms: 200
    crossfade_ms: 0
    source: {{ demo: radar }}
    frames: {{ times: [{times}] }}
    points:
      - id: reports
        title: Storm reports
        geojson: reports.geojson
        time: time
        window: PT10M
        label: name
        popup: [name, remarks]
        cluster: {{ radius_px: 40, min_zoom: 2, max_zoom: 9 }}
""".format(times=", ".join(TIMES))


def features():
    rng = random.Random(13)
    centres = [(-5.0, 44.0), (0.0, 46.0), (4.0, 49.0), (7.5, 42.5), (-7.0, 50.0)]
    out = []
    for n in range(320):
        if n < 300:
            cx, cy = centres[n % len(centres)]
            lon, lat = cx + rng.uniform(-0.4, 0.4), cy + rng.uniform(-0.3, 0.3)
        else:
            lon, lat = rng.uniform(-9.5, 9.5), rng.uniform(40.5, 51.5)
        name = HOSTILE if n % 7 == 0 else f"report {n}"
        out.append({"type": "Feature", "geometry": {"type": "Point", "coordinates": [round(lon, 5), round(lat, 5)]},
                    "properties": {"time": POINT_TIMES[n % len(POINT_TIMES)], "name": name, "remarks": HOSTILE_POPUP}})
    return {"type": "FeatureCollection", "features": out}


@pytest.fixture(scope="session", params=["one-file", "tiled"])
def points_site(request, tmp_path_factory):
    """The layer as one file per zoom, and (every test again) with its deeper levels
    published as tiles: a 1 KiB threshold splits every level over it."""
    folder = tmp_path_factory.mktemp("points-" + request.param)
    (folder / "reports.geojson").write_text(json.dumps(features()), encoding="utf-8")
    config = CONFIG
    if request.param == "tiled":
        config = config.replace("max_zoom: 9 }", "max_zoom: 9, tile_above_bytes: 1024 }")
        assert config != CONFIG
    try:
        return build_site(folder, config)
    except BuildFailed as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture
def points(points_site):
    srv = SiteServer(str(points_site))
    yield srv, points_site
    srv.stop()


def layer_entry(site):
    m = read_manifest(str(site))
    return m["points"][0]


def level(site, entry, zoom):
    """A published level as whole columns; a tiled level is put together from its tiles.
    `entry` is the layer's manifest entry (count_at reads the frames' slots in it)."""
    lv = [l for l in entry["levels"] if l["zoom"] == zoom][0]
    with open(site / "radar" / lv["url"], encoding="utf-8") as f:
        data = json.load(f)
    if "tiles" not in lv:
        return dict(data, entry=entry)
    n = lv["items"]
    whole = {"zoom": zoom, "entry": entry}
    for key, url in data["tiles"].items():
        with open(site / "radar" / url, encoding="utf-8") as f:
            tile = json.load(f)
        for column, values in tile.items():
            if isinstance(values, list) and column != "index":
                whole.setdefault(column, [None] * n)
                for i, v in zip(tile["index"], values):
                    whole[column][i] = v
            elif column == "points":
                whole["points"] = values
    assert None not in whole["lat"], "a tiled level's tiles leave an item out"
    return whole


def count_at(data, i, frame):
    """Item i's count in frame `frame`: its change points are keyed by slots, and the
    layer's manifest entry (`level` puts it beside the data) gives each frame's slot."""
    ch = data["slots"][i]
    slot = data["entry"]["slots"]["frames"][frame]
    c = 0
    for k in range(0, len(ch) - 1, 2):
        if ch[k] > slot:
            break
        c = ch[k + 1]
    return c


def open_player(page, srv, slow=False):
    if slow:
        # Long transitions, so a sample lands mid-way whatever the machine's load.
        page.add_init_script("window.addEventListener('DOMContentLoaded', () => {"
                             " if (window.Matsite && Matsite.PointLayer) Matsite.PointLayer.prototype.options.duration = 30000; });")
    page.goto(srv.url("radar/index.html?autoplay=0"))
    wait_state(page, "ready")
    page.wait_for_selector(".leaflet-marker-pane [data-count]")


def set_view(page, lat, lon, zoom):
    page.evaluate("([a, o, z]) => document.querySelector('[data-matsite-player]')._matsitePlayer.getMap().setView([a, o], z, {animate: false})",
                  [lat, lon, zoom])


def wait_level(page, zoom):
    page.wait_for_function(
        "(z) => { const els = [...document.querySelectorAll('.leaflet-marker-pane [data-count]:not(.matsite-point-leaving)')];"
        " return els.length > 0 && els.every((e) => e.dataset.zoom === String(z)); }", arg=zoom, timeout=20000)


def drawn(page):
    """Every point element: its level, index, count, and centre in map container pixels,
    with where the map projects the published position of (lat, lon) pairs to."""
    return page.evaluate(
        """() => {
            const map = document.querySelector('[data-matsite-player]')._matsitePlayer.getMap();
            const box = map.getContainer().getBoundingClientRect();
            return [...document.querySelectorAll('.leaflet-marker-pane [data-count]')].map((e) => {
                const r = e.getBoundingClientRect();
                return {zoom: +e.dataset.zoom, index: +e.dataset.index, count: +e.dataset.count,
                        x: r.left + r.width / 2 - box.left, y: r.top + r.height / 2 - box.top,
                        label: e.getAttribute('aria-label'), leaving: e.classList.contains('matsite-point-leaving')};
            });
        }""")


def project(page, pairs):
    return page.evaluate(
        """(pairs) => { const map = document.querySelector('[data-matsite-player]')._matsitePlayer.getMap();
            return pairs.map(([a, o]) => { const p = map.latLngToContainerPoint([a, o]); return [p.x, p.y]; }); }""", pairs)


def view(page):
    return page.evaluate(
        """() => { const m = document.querySelector('[data-matsite-player]')._matsitePlayer.getMap();
            const b = m.getBounds(); const s = m.getSize();
            return {south: b.getSouth(), north: b.getNorth(), west: b.getWest(), east: b.getEast(), w: s.x, h: s.y}; }""")


def assert_at_own_places(page, data, els):
    """Every drawn element stands on its item's published position in `data`."""
    own = project(page, [[data["lat"][e["index"]], data["lon"][e["index"]]] for e in els])
    for e, (ox, oy) in zip(els, own):
        assert abs(e["x"] - ox) < 1.5 and abs(e["y"] - oy) < 1.5, (e, ox, oy)


def test_clusters_and_counts_match_the_published_data_at_three_zooms(tab, points):
    srv, site = points
    entry = layer_entry(site)
    assert entry["count"] == 320 and entry["timed"] and entry["labeled"]
    page = tab.page
    open_player(page, srv)
    frame = int(page.evaluate("() => document.querySelector('[data-matsite-player]').dataset.frame"))
    for zoom, centre in [(4, (46.0, 0.0)), (6, (46.0, 0.0)), (8, (44.0, -5.0))]:
        set_view(page, centre[0], centre[1], zoom)
        wait_level(page, zoom)
        page.wait_for_timeout(400)  # fades end; positions do not depend on it
        data = level(site, entry, zoom)
        v = view(page)
        els = {e["index"]: e for e in drawn(page) if not e["leaving"]}
        expected = {}
        for i, (lat, lon) in enumerate(zip(data["lat"], data["lon"])):
            c = count_at(data, i, frame)
            if c > 0 and v["south"] < lat < v["north"] and v["west"] < lon < v["east"]:
                expected[i] = c
        assert expected, f"zoom {zoom}: the published level has nothing in view"
        # Every published item in view is drawn with its count for this frame, and nothing else is drawn.
        assert {i: els[i]["count"] for i in expected if i in els} == expected, f"zoom {zoom}"
        for i, e in els.items():
            assert e["count"] == count_at(data, i, frame), f"zoom {zoom} item {i}"
        where = project(page, [[data["lat"][i], data["lon"][i]] for i in expected])
        for (i, _), (x, y) in zip(expected.items(), where):
            assert abs(els[i]["x"] - x) < 1.5 and abs(els[i]["y"] - y) < 1.5, (zoom, i, els[i], x, y)
        # Counts add up: what is drawn at zoom 4 (everything in view) is the frame's total.
        if zoom == 4:
            total = sum(count_at(data, i, frame) for i in range(len(data["lat"])))
            toggle = page.get_by_role("group", name="Point layers").inner_text()
            assert f"({total} points)" in toggle, toggle


def test_a_level_is_fetched_whole_or_only_the_tiles_around_the_view(tab, points):
    """A level published as one file is one request; a tiled one, only the tiles near the view."""
    srv, site = points
    entry = layer_entry(site)
    deep = [l for l in entry["levels"] if l["zoom"] == 8][0]
    page = tab.page
    open_player(page, srv)
    set_view(page, 44.0, -5.0, 8)
    wait_level(page, 8)
    fetched = page.evaluate(
        "() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /points\\/reports\\/z08-/.test(n))")
    if "tiles" not in deep:
        assert all(l["bytes"] <= 1 << 20 for l in entry["levels"])  # the default threshold
        assert [u.rsplit("/", 1)[-1] for u in fetched] == [deep["url"].rsplit("/", 1)[-1]], fetched
        return
    assert deep.get("tiles", 0) > 2, deep
    tiles = [u for u in fetched if re.search(r"z08-[0-9]+-[0-9]+-[0-9]+-", u)]
    assert 0 < len(tiles) < deep["tiles"], (len(tiles), deep["tiles"])


def test_a_zoom_in_sampled_mid_transition_shows_members_between_cluster_and_own_place(tab, points):
    srv, site = points
    entry = layer_entry(site)
    page = tab.page
    open_player(page, srv, slow=True)
    assert page.evaluate("() => Matsite.PointLayer.prototype.options.duration") == 30000
    set_view(page, 46.0, 0.0, 7)
    wait_level(page, 7)
    set_view(page, 46.0, 0.0, 8)
    wait_level(page, 8)
    page.wait_for_timeout(1500)
    upper, lower = level(site, entry, 7), level(site, entry, 8)
    els = [e for e in drawn(page) if not e["leaving"]]
    own = project(page, [[lower["lat"][e["index"]], lower["lon"][e["index"]]] for e in els])
    anc = project(page, [[upper["lat"][lower["parent"][e["index"]]], upper["lon"][lower["parent"][e["index"]]]] for e in els])
    between = 0
    for e, (ox, oy), (ax, ay) in zip(els, own, anc):
        span = math.hypot(ox - ax, oy - ay)
        if span < 6:
            continue
        to_own, to_anc = math.hypot(e["x"] - ox, e["y"] - oy), math.hypot(e["x"] - ax, e["y"] - ay)
        # On the segment from the ancestor to its own place, and at neither end.
        assert abs(to_own + to_anc - span) < 1.5, (e, (ox, oy), (ax, ay))
        assert to_own > 0.5 and to_anc > 0.5, (e, (ox, oy), (ax, ay))
        between += 1
    assert between > 0, "no member moved out of a cluster"
    # Finished, every member stands on its own place.
    page.evaluate("() => document.getAnimations().forEach((a) => a.finish())")
    els = [e for e in drawn(page) if not e["leaving"]]
    assert_at_own_places(page, lower, els)


def test_a_zoom_out_merges_members_into_their_parent(tab, points):
    srv, site = points
    entry = layer_entry(site)
    page = tab.page
    open_player(page, srv, slow=True)
    set_view(page, 46.0, 0.0, 8)
    wait_level(page, 8)
    page.wait_for_timeout(300)
    set_view(page, 46.0, 0.0, 7)
    page.wait_for_function("() => document.querySelectorAll('.matsite-point-leaving').length > 0")
    page.wait_for_timeout(1500)
    upper, lower = level(site, entry, 7), level(site, entry, 8)
    leaving = [e for e in drawn(page) if e["leaving"]]
    assert all(e["zoom"] == 8 for e in leaving)
    own = project(page, [[lower["lat"][e["index"]], lower["lon"][e["index"]]] for e in leaving])
    parent = project(page, [[upper["lat"][lower["parent"][e["index"]]], upper["lon"][lower["parent"][e["index"]]]] for e in leaving])
    moved = 0
    for e, (ox, oy), (px, py) in zip(leaving, own, parent):
        span = math.hypot(ox - px, oy - py)
        if span < 6:
            continue
        assert abs(math.hypot(e["x"] - ox, e["y"] - oy) + math.hypot(e["x"] - px, e["y"] - py) - span) < 1.5
        moved += 1
    assert moved > 0


def tune(page, **options):
    """Sets PointLayer options before the player makes its layers."""
    sets = " ".join(f"Matsite.PointLayer.prototype.options.{k} = {json.dumps(v)};" for k, v in options.items())
    page.add_init_script("window.addEventListener('DOMContentLoaded', () => {"
                         f" if (window.Matsite && Matsite.PointLayer) {{ {sets} }} }});")


def open_at_zoom_6(page, srv, **options):
    """The player with PointLayer options, at zoom 6 over the dense middle, drawn."""
    tune(page, **options)
    open_player(page, srv)
    set_view(page, 46.0, 0.0, 6)
    wait_level(page, 6)
    page.wait_for_timeout(300)


def test_a_new_level_is_made_a_few_elements_a_frame_and_moves_at_most_the_cap(tab, points):
    srv, site = points
    entry = layer_entry(site)
    page = tab.page
    tune(page, perFrame=3, moves=4, duration=30000)
    open_player(page, srv)
    set_view(page, 46.0, 0.0, 7)
    wait_level(page, 7)
    page.wait_for_timeout(300)
    # Every batch of elements added to the page, with the frame it came in; and the
    # elements shown before the zoom (an item holding the same points keeps its element).
    page.evaluate("""() => {
        window.__adds = [];
        window.__before = new Set(document.querySelectorAll('.leaflet-marker-pane [data-count]'));
        let frame = 0;
        const tick = () => { frame++; requestAnimationFrame(tick); };
        requestAnimationFrame(tick);
        new MutationObserver((records) => {
            for (const r of records) {
                const n = [...r.addedNodes].filter((e) => e.matches && e.matches('[data-count]')).length;
                if (n) window.__adds.push([frame, n]);
            }
        }).observe(document.querySelector('.leaflet-marker-pane'), {childList: true, subtree: true});
    }""")
    set_view(page, 46.0, 0.0, 8)
    wait_level(page, 8)
    page.wait_for_timeout(500)
    adds = page.evaluate("window.__adds")
    made = sum(n for _, n in adds)
    assert made > 6, f"too few elements at zoom 8 to show slicing: {made}"
    per_frame = {}
    for frame, n in adds:
        per_frame[frame] = per_frame.get(frame, 0) + n
    assert max(per_frame.values()) <= 3, per_frame
    assert len(per_frame) >= math.ceil(made / 3), per_frame
    # At most four split moves run (nearest the centre); everything else stands on its own place.
    moving = page.evaluate("() => document.getAnimations().filter((a) => a.effect && a.effect.target"
                           " && a.effect.target.matches('[data-count]')).length")
    assert 0 < moving <= 4
    page.evaluate("() => document.getAnimations().forEach((a) => a.finish())")
    lower = level(site, entry, 8)
    els = [e for e in drawn(page) if not e["leaving"]]
    kept = page.evaluate("() => [...document.querySelectorAll('.leaflet-marker-pane [data-count]')].filter((e) => window.__before.has(e)).length")
    assert len(els) == made + kept
    assert_at_own_places(page, lower, els)


def test_an_item_holding_the_same_points_keeps_its_element_across_a_zoom(tab, points):
    """A cluster that does not split at the next zoom (or a point alone at both) is the
    same element after a zoom-in, retagged and in its place, and so is a cluster whose
    members do not merge with others on the way back out; every other element is new."""
    srv, site = points
    entry = layer_entry(site)
    page = tab.page
    open_player(page, srv)
    levels = {z: level(site, entry, z) for z in (6, 7)}

    def total(z, i):
        return levels[z]["count"][i]

    kept_any = 0
    for start, end, lat, lon in [(6, 7, 46.0, 0.0), (7, 6, 46.0, 0.0), (6, 7, 44.0, -5.0), (7, 6, 44.0, -5.0)]:
        set_view(page, lat, lon, start)
        wait_level(page, start)
        page.wait_for_function("() => !document.querySelector('.matsite-point-leaving')", timeout=20000)
        before = page.evaluate("""() => [...document.querySelectorAll('.leaflet-marker-pane [data-count]')].map((e) => {
            e.__was = +e.dataset.index; return e.__was; })""")
        set_view(page, lat, lon, end)
        wait_level(page, end)
        page.wait_for_function("() => !document.querySelector('.matsite-point-leaving')", timeout=20000)
        page.evaluate("() => document.getAnimations().forEach((a) => a.finish())")
        els = page.evaluate("""() => [...document.querySelectorAll('.leaflet-marker-pane [data-count]')].map((e) => ({
            index: +e.dataset.index, zoom: +e.dataset.zoom, was: e.__was === undefined ? null : e.__was}))""")
        assert els and all(e["zoom"] == end for e in els)
        upper, lower = (start, end) if start < end else (end, start)
        for e in els:
            u, l = (e["was"], e["index"]) if start < end else (e["index"], e["was"])
            if e["was"] is not None:
                # Kept: the same points at both levels.
                assert levels[lower]["parent"][l] == u and total(upper, u) == total(lower, l), (start, end, e)
                kept_any += 1
            elif start < end:
                # Made anew: its cluster above was not shown, or held more points.
                p = levels[lower]["parent"][e["index"]]
                assert p not in before or total(upper, p) != total(lower, e["index"]), (start, end, e)
            else:
                # Made anew: no element shown below held all its points.
                assert not any(levels[lower]["parent"][b] == e["index"] and total(lower, b) == total(upper, e["index"])
                               for b in before), (start, end, e)
        assert_at_own_places(page, levels[end], drawn(page))
    assert kept_any > 0, "no element was kept across a zoom"


def test_a_zoom_while_a_level_is_being_made_leaves_one_whole_level(tab, points):
    srv, site = points
    entry = layer_entry(site)
    page = tab.page
    open_at_zoom_6(page, srv, perFrame=1)
    # Zoom 7 starts being made (one element a frame), and zoom 8 comes three frames later.
    page.evaluate("""async () => {
        const map = document.querySelector('[data-matsite-player]')._matsitePlayer.getMap();
        map.setView([46, 0], 7, {animate: false});
        for (let i = 0; i < 3; i++) await new Promise((r) => requestAnimationFrame(r));
        map.setView([46, 0], 8, {animate: false});
    }""")
    wait_level(page, 8)
    page.wait_for_function("() => !document.querySelector('.matsite-point-leaving')", timeout=20000)
    page.wait_for_timeout(500)
    page.evaluate("() => document.getAnimations().forEach((a) => a.finish())")
    frame = int(page.evaluate("() => document.querySelector('[data-matsite-player]').dataset.frame"))
    data = level(site, entry, 8)
    v = view(page)
    expected = {i for i, (lat, lon) in enumerate(zip(data["lat"], data["lon"]))
                if count_at(data, i, frame) > 0 and v["south"] < lat < v["north"] and v["west"] < lon < v["east"]}
    els = drawn(page)
    assert all(e["zoom"] == 8 for e in els), [e for e in els if e["zoom"] != 8]
    assert expected <= {e["index"] for e in els}
    assert len(els) == len({e["index"] for e in els}), "an item is drawn twice"
    assert_at_own_places(page, data, els)
    # Nothing left half-made: no transparent element, one box of elements.
    assert page.evaluate("() => [...document.querySelectorAll('.leaflet-marker-pane [data-count]')]"
                         ".filter((e) => getComputedStyle(e).opacity !== '1').length") == 0
    assert page.evaluate("() => document.querySelectorAll('.matsite-point-box > .matsite-point-box').length") == 1


def test_over_a_zoom_the_layer_is_hidden_by_its_root_and_takes_no_presses(tab, points):
    srv, _ = points
    page = tab.page
    open_player(page, srv)
    set_view(page, 46.0, 0.0, 6)
    wait_level(page, 6)
    # At the zoom's start: what the root and a cluster look like, and a press on the cluster
    # (which, taken, would zoom in to where it splits: past 7).
    page.evaluate("""() => {
        const map = document.querySelector('[data-matsite-player]')._matsitePlayer.getMap();
        map.once('zoomstart', () => {
            try {
                const root = document.querySelector('.leaflet-marker-pane .matsite-point-root');
                const el = root.querySelector('.matsite-cluster');
                window.hiddenAt = {opacity: getComputedStyle(root).opacity, visibility: getComputedStyle(el).visibility};
                el.click();
            } catch (e) {  // thrown here, it would stop Leaflet's zoom
                window.hiddenAt = String(e);
            }
        });
        map.setZoom(7);
    }""")
    wait_level(page, 7)
    page.wait_for_timeout(800)
    # Hidden by the root's opacity alone (no style inherited by every element), and shown again.
    assert page.evaluate("window.hiddenAt") == {"opacity": "0", "visibility": "visible"}
    assert page.evaluate("getComputedStyle(document.querySelector('.matsite-point-root')).opacity") == "1"
    assert page.evaluate("document.querySelector('[data-matsite-player]')._matsitePlayer.getMap().getZoom()") == 7


def test_over_a_zoom_animation_the_level_shown_is_placed_for_the_new_zoom_before_the_draw(tab, points):
    """While Leaflet's zoom animation runs (the layer hidden), the elements shown are put
    where the new zoom puts them and those outside what the new zoom draws go: by the
    zoom's end, before the draw, the old level stands at its new places."""
    srv, site = points
    entry = layer_entry(site)
    page = tab.page
    # One slice a frame for all of them: the zoom's end comes frames after its start.
    open_at_zoom_6(page, srv, perFrame=1000)
    before = page.evaluate("document.querySelectorAll('.leaflet-marker-pane [data-count]').length")
    page.evaluate("""() => {
        const map = document.querySelector('[data-matsite-player]')._matsitePlayer.getMap();
        map.once('zoomend', () => {
            // The layer's own zoomend listener came first and only asked for the draw.
            window.atZoomEnd = [...document.querySelectorAll('.leaflet-marker-pane [data-count]')].map((e) => ({
                zoom: +e.dataset.zoom, index: +e.dataset.index,
                x: parseFloat(e.style.getPropertyValue('--x')), y: parseFloat(e.style.getPropertyValue('--y')),
                at: map.layerPointToContainerPoint([parseFloat(e.style.getPropertyValue('--x')), parseFloat(e.style.getPropertyValue('--y'))])}));
        });
        map.setZoom(7);
    }""")
    wait_level(page, 7)
    # The new level may be made already too (_predraw, when it was loaded): the old one's.
    old = [e for e in page.evaluate("window.atZoomEnd") if e["zoom"] == 6]
    data = level(site, entry, 6)
    size = page.evaluate("(() => { const s = document.querySelector('[data-matsite-player]')._matsitePlayer.getMap().getSize(); return [s.x, s.y]; })()")
    assert old and len(old) < before, (len(old), before)
    own = page.evaluate(
        """(pairs) => { const map = document.querySelector('[data-matsite-player]')._matsitePlayer.getMap();
            return pairs.map(([a, o]) => { const p = map.latLngToLayerPoint([a, o]); return [p.x, p.y]; }); }""",
        [[data["lat"][e["index"]], data["lon"][e["index"]]] for e in old])
    labeled = 160 if entry.get("labeled") else 0
    for e, (ox, oy) in zip(old, own):
        assert (e["x"], e["y"]) == (ox, oy), (e, ox, oy)
        assert -26 - labeled <= e["at"]["x"] <= size[0] + 26 and -26 <= e["at"]["y"] <= size[1] + 26, e


def test_over_a_zoom_animation_the_new_level_is_made_hidden_and_moves_after_the_zoom(tab, points):
    """With its levels loaded, the new level is made while Leaflet's zoom animation runs,
    under the old level and hidden with the layer; its moves start once the zoom has ended
    and the layer is shown. A tiled level is not: its tiles are fetched for the view the
    zoom ends at, after it."""
    srv, site = points
    entry = layer_entry(site)
    page = tab.page
    open_at_zoom_6(page, srv)
    # Level 7 loaded (a zoom there and back), then the zoom-in's end held back 3 s: time
    # enough, whatever the machine's load, for the frames the new level is made in.
    for z in (7, 6):
        set_view(page, 46.0, 0.0, z)
        wait_level(page, z)
    page.evaluate("""() => {
        const map = document.querySelector('[data-matsite-player]')._matsitePlayer.getMap();
        const end = map._onZoomTransitionEnd;
        map._onZoomTransitionEnd = function () { setTimeout(() => end.call(map), 3000); };
        map.once('zoomend', () => {
            map._onZoomTransitionEnd = end;
            const els = [...document.querySelectorAll('.leaflet-marker-pane [data-count]')];
            window.atZoomEnd = {
                hidden: document.querySelector('.matsite-point-root').classList.contains('matsite-point-wait'),
                zooms: [...new Set(els.map((e) => e.dataset.zoom))].sort(),
                moving: document.getAnimations().filter((a) => a.effect && a.effect.target && a.effect.target.matches('[data-count]')).length};
        });
        map.setZoom(7);
    }""")
    wait_level(page, 7)
    tiled = "tiles" in [l for l in entry["levels"] if l["zoom"] == 7][0]
    assert page.evaluate("window.atZoomEnd") == {"hidden": True, "zooms": ["6"] if tiled else ["6", "7"], "moving": 0}
    page.wait_for_function("() => !document.querySelector('.matsite-point-leaving')", timeout=20000)
    page.evaluate("() => document.getAnimations().forEach((a) => a.finish())")
    assert_at_own_places(page, level(site, entry, 7), drawn(page))
    assert page.evaluate("getComputedStyle(document.querySelector('.matsite-point-root')).opacity") == "1"


def test_frame_changes_change_counts_as_published(tab, points):
    srv, site = points
    entry = layer_entry(site)
    page = tab.page
    open_player(page, srv)
    set_view(page, 46.0, 0.0, 3)
    wait_level(page, 3)
    data = level(site, entry, 3)
    totals = []
    for frame in range(len(TIMES)):
        page.evaluate("(f) => document.querySelector('[data-matsite-player]')._matsitePlayer.seek(f)", frame)
        page.wait_for_function("(f) => document.querySelector('[data-matsite-player]').dataset.frame === String(f)", arg=frame)
        expected = {i: count_at(data, i, frame) for i in range(len(data["lat"])) if count_at(data, i, frame) > 0}
        page.wait_for_function(
            "(exp) => { const els = [...document.querySelectorAll('.leaflet-marker-pane [data-count]:not(.matsite-point-leaving)')];"
            " return els.length === Object.keys(exp).length && els.every((e) => exp[e.dataset.index] === +e.dataset.count); }",
            arg={str(k): v for k, v in expected.items()}, timeout=10000)
        total = sum(expected.values())
        totals.append(total)
        assert f"({total} points)" in page.get_by_role("group", name="Point layers").inner_text()
    assert len(set(totals)) > 1, f"the frames' counts should differ: {totals}"


def test_hostile_property_strings_stay_text(tab, points):
    srv, site = points
    page = tab.page
    open_player(page, srv)
    # Deeper than max_zoom: every point on its own, labels shown.
    set_view(page, 44.0, -5.0, 10)
    wait_level(page, 10)
    # A point's label is its data-label, shown by the stylesheet as generated text.
    hostile = page.locator(".leaflet-marker-pane button.matsite-point[data-label*='onerror']")
    assert hostile.count() > 0
    assert hostile.first.get_attribute("data-label") == HOSTILE
    shown = hostile.first.evaluate("(e) => getComputedStyle(e, '::after').content")
    assert shown == json.dumps(HOSTILE), shown
    assert page.locator(".leaflet-marker-pane img").count() == 0
    assert page.locator(".leaflet-marker-pane button.matsite-point *").count() == 0
    point = page.locator(".leaflet-marker-pane button.matsite-point").first
    point.focus()
    page.keyboard.press("Enter")
    popup = page.locator(".leaflet-popup-content")
    popup.wait_for()
    # Readable: long values wrap in a popup of some width, not a letter or two a line.
    assert popup.bounding_box()["width"] >= 180, popup.bounding_box()
    assert HOSTILE_POPUP in popup.inner_text()
    assert popup.locator("script, img").count() == 0
    # Keyboard: the popup's close button has focus; Enter closes and focus returns to the point.
    assert page.evaluate("() => document.activeElement.classList.contains('leaflet-popup-close-button')")
    page.keyboard.press("Enter")
    page.wait_for_function("() => !document.querySelector('.leaflet-popup')")
    assert page.evaluate("() => document.activeElement.classList.contains('matsite-point')")
    assert not tab.dialogs and not tab.page_errors


def test_the_toggle_hides_and_shows_a_layer(tab, points):
    srv, _ = points
    page = tab.page
    open_player(page, srv)
    box = page.get_by_role("checkbox", name="Storm reports")
    assert box.is_checked()
    box.uncheck()
    page.wait_for_function("() => !document.querySelector('.leaflet-marker-pane [data-count]')")
    box.check()
    page.wait_for_selector(".leaflet-marker-pane [data-count]")


def test_reduced_motion_moves_nothing(tabs, points):
    srv, site = points
    tab = tabs.open(reduced_motion="reduce")
    page = tab.page
    open_player(page, srv)
    set_view(page, 46.0, 0.0, 5)
    wait_level(page, 5)
    set_view(page, 46.0, 0.0, 6)
    wait_level(page, 6)
    assert page.evaluate("() => document.querySelectorAll('.matsite-point-enter, .matsite-point-leaving').length") == 0
    # No split moves either: no animation runs on any point element.
    assert page.evaluate("() => document.getAnimations().filter((a) => a.effect && a.effect.target"
                         " && a.effect.target.closest && a.effect.target.closest('.matsite-point-item')).length") == 0
    lower = level(site, layer_entry(site), 6)
    els = drawn(page)
    assert_at_own_places(page, lower, els)


@pytest.mark.parametrize("width,height", [(390, 844), (1280, 800)])
def test_the_zoom_notice_leaves_the_map_controls_clear(tabs, points, width, height):
    """Zoomed in past the frames' detail, the status says so: on a phone as on a desktop
    it must not cover the zoom buttons or the point layers' toggle."""
    srv, _ = points
    page = tabs.open(viewport={"width": width, "height": height}).page
    open_player(page, srv)
    set_view(page, 46.0, 0.0, 8)
    page.wait_for_function("() => { const s = document.querySelector('.matsite-status.matsite-status-on');"
                           " return s && s.textContent.includes('Zoom'); }")
    boxes = page.evaluate("""() => ['.matsite-status', '.leaflet-control-zoom', '.matsite-point-layers'].map((s) => {
        const r = document.querySelector(s).getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom];
    })""")
    status, zoom, toggle = boxes
    assert status[2] > status[0] and status[3] > status[1], "the status is not shown"
    for other in (zoom, toggle):
        apart = status[2] <= other[0] or other[2] <= status[0] or status[3] <= other[1] or other[3] <= status[1]
        assert apart, (status, other)


def test_points_are_csp_clean_and_axe_clean(tabs, points_site):
    srv = SiteServer(str(points_site), csp=STRICT_CSP)
    try:
        tab = tabs.open()
        page = tab.page
        page.add_init_script("window.__csp = []; document.addEventListener('securitypolicyviolation',"
                             " (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));")
        open_player(page, srv)
        set_view(page, 46.0, 0.0, 5)
        wait_level(page, 5)
        set_view(page, 46.0, 0.0, 6)
        wait_level(page, 6)
        set_view(page, 44.0, -5.0, 10)
        wait_level(page, 10)
        page.locator(".leaflet-marker-pane button.matsite-point").first.click()
        page.locator(".leaflet-popup-content").wait_for()
        # Leaflet fades a popup in: check its colours once it is opaque.
        page.wait_for_function("() => getComputedStyle(document.querySelector('.leaflet-popup')).opacity === '1'")
        assert page.evaluate("() => window.__csp") == []
        assert not tab.console_errors and not tab.page_errors
        results = Axe().run(page)
        violations = [(v["id"], [(n["target"], n.get("failureSummary")) for n in v["nodes"]][:5]) for v in results.response["violations"]]
        assert not violations, violations
    finally:
        srv.stop()


@pytest.mark.parametrize("width", [390, 1280])
def test_in_the_embed_the_title_leaves_the_toggle_uncovered(tabs, points, width):
    """The embed page's title link and the point layer's toggle share the map's top right
    corner: neither covers the other, and a press on the toggle reaches the toggle."""
    srv, _ = points
    tab = tabs.open(viewport={"width": width, "height": 700}, is_mobile=width < 600, has_touch=width < 600)
    page = tab.page
    page.goto(srv.url("radar/embed.html?autoplay=0"))
    wait_state(page, "ready")
    boxes = page.evaluate("""() => {
        const rect = (e) => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; };
        const title = document.querySelector('.matsite-embed-link');
        const toggle = document.querySelector('.matsite-point-toggle');
        const t = rect(toggle);
        const hit = document.elementFromPoint(t.x + t.w / 2, t.y + t.h / 2);
        return {title: rect(title), toggle: t, control: rect(toggle.closest('.leaflet-control')),
                reached: toggle.contains(hit)};
    }""")
    title, control = boxes["title"], boxes["control"]
    apart = (title["y"] + title["h"] <= control["y"] + 0.5 or control["y"] + control["h"] <= title["y"] + 0.5 or
             title["x"] + title["w"] <= control["x"] + 0.5 or control["x"] + control["w"] <= title["x"] + 0.5)
    assert apart, boxes
    assert boxes["reached"], boxes
    assert not tab.page_errors, tab.page_errors


def test_pressing_a_cluster_keeps_the_animation_playing(tab, points):
    """A press on a cluster that splits deeper than the frames' detail zooms in no deeper
    than the animation plays (the frames' zoom and one past it): playback goes on. A second
    press, from there, goes on to where the cluster splits."""
    srv, _ = points
    page = tab.page
    page.goto(srv.url("radar/index.html?autoplay=1"))
    wait_state(page, "playing")
    page.wait_for_selector(".leaflet-marker-pane .matsite-cluster")
    picked = page.evaluate("""() => {
        const player = document.querySelector('[data-matsite-player]')._matsitePlayer;
        const layer = player._points._layers[0];
        for (const el of document.querySelectorAll('.leaflet-marker-pane .matsite-cluster:not(.matsite-point-leaving)')) {
            const z = +el.dataset.zoom, i = +el.dataset.index, d = layer._levels.data(z);
            if (d && d.split && d.split[i] > 6) {
                el.setAttribute('data-picked', '1');
                return {zoom: player.getMap().getZoom(), split: d.split[i]};
            }
        }
        return null;
    }""")
    assert picked and picked["zoom"] < 6, picked
    page.locator("[data-picked]").click()
    page.wait_for_function("() => document.querySelector('[data-matsite-player]')._matsitePlayer.getMap().getZoom() > %s"
                           % picked["zoom"])
    page.wait_for_timeout(600)
    zoom = page.evaluate("() => document.querySelector('[data-matsite-player]')._matsitePlayer.getMap().getZoom()")
    state = player_state(page)
    assert zoom <= 6, (zoom, picked)
    assert state["state"] == "playing" and not state["reason"], state
    assert not tab.page_errors, tab.page_errors


FINGERTIP = """() => {
    const els = [...document.querySelectorAll('.leaflet-marker-pane [data-count]:not(.matsite-point-leaving)')];
    const centre = (e) => { const b = e.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; };
    const map = document.querySelector('.matsite-map').getBoundingClientRect();
    const controls = [...document.querySelectorAll('.leaflet-control, .matsite-status-on')].map((c) => c.getBoundingClientRect());
    const out = {points: 0, clusters: 0, missed: [], all: els.length};
    els.forEach((e) => {
        const [x, y] = centre(e);
        // Only a point whose fingertip box lies on open map: inside the map, off its controls.
        const inside = (r, pad) => x - 22 >= r.left - pad && x + 22 <= r.right + pad && y - 22 >= r.top - pad && y + 22 <= r.bottom + pad;
        if (!inside(map, 0) || controls.some((r) => !(x + 22 < r.left || x - 22 > r.right || y + 22 < r.top || y - 22 > r.bottom))) { return; }
        const alone = els.every((o) => o === e || Math.hypot(centre(o)[0] - x, centre(o)[1] - y) >= 44);
        if (!alone) { return; }
        e.classList.contains('matsite-point') ? out.points++ : out.clusters++;
        for (const [dx, dy] of [[20, 0], [-20, 0], [0, 20], [0, -20]]) {
            const hit = document.elementFromPoint(x + dx, y + dy);
            if (!(hit === e || e.contains(hit))) {
                out.missed.push({cls: e.className, dx, dy, hit: hit && (hit.className || hit.tagName)});
            }
        }
    });
    return out;
}"""


def test_on_a_phone_every_point_and_cluster_takes_a_fingertip(tabs, points):
    """At 390 px on a touch screen a press 20 px from the centre of a point or a cluster
    (a 44 x 44 target, like every control) still reaches it, wherever no other item is near:
    clusters at zoom 6, single points past the clustering's last zoom."""
    srv, _ = points
    tab = tabs.open(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = tab.page
    open_player(page, srv)
    set_view(page, 46.0, 0.0, 6)
    wait_level(page, 6)
    settled = "() => !document.querySelector('.leaflet-marker-pane').getAnimations({subtree: true}).length"
    page.wait_for_function(settled)
    clusters = page.evaluate(FINGERTIP)
    assert clusters["clusters"] >= 1 and not clusters["missed"], clusters
    set_view(page, 44.0, -5.0, 10)
    wait_level(page, 10)
    page.wait_for_function(settled)
    singles = page.evaluate(FINGERTIP)
    assert singles["points"] >= 1 and not singles["missed"], singles
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "points-phone-390.png"))
    assert not tab.page_errors, tab.page_errors
