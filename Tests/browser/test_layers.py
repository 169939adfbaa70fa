"""Issue 28, item 4: data layers on one timeline, in the player. The site (conftest.py,
layers_site_dir) has one animation, `storm`: a JPEG "infrared satellite" every 10 minutes
(none for the first two steps) under a PNG radar every 5, served under the strict CSP.

Preloading waits for every frame of every layer; sampled at every animation frame, a layer
whose frame does not change at a step stays exactly as it was (its frame fully opaque, no
fade), the changing one crossfades with full coverage, and a layer without a frame at a
step is hidden there and said to be ("Infrared satellite: no data"); the layers control
works by mouse, keyboard and touch at 390 and 1280 px; the `layers=` parameter and the
`matsite:layer` message; fallback tiles per layer; axe clean. Screenshots at 390 and 1280
px are kept in Tests/browser/artifacts/."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from helpers import STRICT_CSP, SiteServer, open_holding_frames, player_state, read_manifest, wait_state
from test_embed import PARENT, send

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

# Per layer pane, at every animation frame: whether it is shown, its images' opacities and
# running animations, the image fully on top at rest; and every timeline step change.
SAMPLER = """async (ms) => {
    const root = document.querySelector('[data-matsite-player]');
    // A layer's two frame elements: images, or the canvases of frames published as levels.
    const layers = [...root.querySelectorAll('.matsite-layer-pane')].map((pane) => ({
        id: pane.dataset.layer, pane, imgs: [...pane.querySelectorAll('img.matsite-frame, .matsite-pyramid-frame')],
        minCov: 1, worst: null, unsteady: [], fadeAt: [], hiddenAt: [], shownAt: [], paneFadeAt: [], rest: [], faded: 1,
    }));
    const changes = [];
    const mo = new MutationObserver(() => changes.push([performance.now(), Number(root.dataset.frame)]));
    mo.observe(root, {attributes: true, attributeFilter: ['data-frame']});
    let samples = 0;
    const t0 = performance.now();
    const add = (list, v) => { if (!list.includes(v)) list.push(v); };
    // Every fade started, by layer and step, as it starts: a sample may come too late to see a
    // short fade on a busy machine, a call cannot be missed.
    // A layer's pane itself fades only to and from steps without its data.
    const started = {}, paneStarted = {};
    const animate = Element.prototype.animate;
    Element.prototype.animate = function (...args) {
        const pane = this.closest('.matsite-layer-pane');
        const into = pane === this ? paneStarted : started;
        if (pane) add(into[pane.dataset.layer] = into[pane.dataset.layer] || [], Number(root.dataset.frame));
        return animate.apply(this, args);
    };
    await new Promise((done) => {
        const tick = () => {
            samples++;
            const step = Number(root.dataset.frame);
            for (const l of layers) {
                if (getComputedStyle(l.pane).visibility === 'hidden') { add(l.hiddenAt, step); continue; }
                if (l.pane.getAnimations().length > 0) { add(l.paneFadeAt, step); continue; }
                add(l.shownAt, step);
                const op = l.imgs.map((i) => Number(getComputedStyle(i).opacity));
                const cov = 1 - (1 - op[0]) * (1 - op[1]);
                if (cov < l.minCov) { l.minCov = cov; l.worst = {op, step}; }
                l.faded = Math.min(l.faded, Number(getComputedStyle(l.imgs[0].parentElement).opacity));
                if (l.imgs.some((i) => i.getAnimations().length > 0)) { add(l.fadeAt, step); continue; }
                // At rest: one frame fully on top, drawn (an image decoded), the other at 0.
                const top = l.imgs.filter((i, k) => op[k] >= 0.999);
                const seen = l.imgs.filter((i, k) => op[k] > 0.001);
                const drawn = (e) => e.tagName !== 'IMG' || (e.complete && e.naturalWidth > 0);
                if (top.length !== 1 || seen.length !== 1 || !drawn(top[0])) {
                    l.unsteady.push({step, op});
                } else {
                    l.rest.push([step, top[0].tagName === 'IMG' ? top[0].getAttribute('src') : Number(top[0].dataset.index)]);
                }
            }
            if (performance.now() - t0 < ms) requestAnimationFrame(tick); else done();
        };
        requestAnimationFrame(tick);
    });
    mo.disconnect();
    Element.prototype.animate = animate;
    return {samples, changes, layers: layers.map(({pane, imgs, ...rest}) => ({
        ...rest, started: started[rest.id] || [], paneStarted: paneStarted[rest.id] || []}))};
}"""

PANES = """() => Object.fromEntries([...document.querySelectorAll('.matsite-layer-pane')].map((p) => [p.dataset.layer, {
    frame: p.dataset.layerFrame, off: p.classList.contains('matsite-layer-off'),
    hidden: getComputedStyle(p).visibility === 'hidden',
    opacity: Number(getComputedStyle(p.querySelector('.matsite-frames')).opacity),
    front: (p.querySelector('img.matsite-front') || {}).getAttribute?.('src') || null,
}]))"""


def manifest(site) -> dict:
    return read_manifest(str(site), "storm")


def layer_index(m, layer_id) -> int:
    return [layer["id"] for layer in m["layers"]].index(layer_id)


def shown(m, layer_id, step):
    """The layer frame the manifest says `layer_id` shows at timeline step `step`, or None."""
    return m["frames"][step]["layers"][layer_index(m, layer_id)]


def test_the_manifest_under_test_has_two_layers_at_their_own_cadences(layers_site_dir):
    m = manifest(layers_site_dir)
    assert [layer["id"] for layer in m["layers"]] == ["satellite", "radar"]
    assert len(m["frames"]) == 8
    sat, radar = m["layers"]
    assert all(f["url"].endswith(".jpg") for f in sat["frames"]), sat["frames"]
    assert all(f["url"].endswith(".png") for f in radar["frames"]), radar["frames"]
    assert [s["layers"] for s in m["frames"]] == [[None, 0], [None, 1], [0, 2], [0, 3], [1, 4], [1, 5], [2, 6], [2, 7]]


def test_playback_waits_for_every_frame_of_every_layer(tab, layers_server, layers_site_dir):
    m = manifest(layers_site_dir)
    total = sum(len(layer["frames"]) for layer in m["layers"])
    held = m["layers"][0]["frames"][1]["url"]
    release = layers_server.hold(held)
    page = tab.page
    open_holding_frames(page, layers_server.url("storm/index.html"))
    page.wait_for_function("(t) => (document.querySelector('.matsite-progress') || {}).textContent === t",
                           arg=f"{total - 1} / {total} frames", timeout=20000)
    s = player_state(page)
    assert s["state"] == "loading" and s["playDisabled"] is True, s
    page.focus("[data-matsite-player]")
    page.keyboard.press("Space")
    page.wait_for_timeout(300)
    assert player_state(page)["state"] == "loading"
    release.set()
    wait_state(page, "playing")
    # Every layer frame came once, whatever the number of steps showing it.
    for layer in m["layers"]:
        for f in layer["frames"]:
            assert layers_server.requested(f["url"]) == 1, f["url"]
    assert not tab.console_errors and not tab.page_errors, (tab.console_errors, tab.page_errors)


def test_a_missing_layer_frame_is_named_with_its_layer(tab, layers_server, layers_site_dir):
    m = manifest(layers_site_dir)
    broken = json.loads(json.dumps(m))
    broken["layers"][0]["frames"][1]["url"] = "satellite/frames/does-not-exist.jpg"
    layers_server.override("storm/manifest.json", json.dumps(broken).encode(), "application/json")
    page = tab.page
    page.goto(layers_server.url("storm/index.html"))
    page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.error", timeout=20000)
    s = player_state(page)
    assert s["state"] == "loading", s
    n = len(m["layers"][0]["frames"])
    assert s["error"] == f"Infrared satellite: Frame 2 of {n} could not be loaded (HTTP 404).", s["error"]
    assert "Infrared satellite: Frame 2" in page.locator(".matsite-status").inner_text()


@pytest.mark.parametrize("radar", ["images", "levels"])
def test_only_the_layer_whose_frame_changes_crossfades(tab, request, radar):
    # The radar's frames as images, or as levels (a pyramid layer over an image layer).
    site = request.getfixturevalue("layers_site_dir" if radar == "images" else "layers_levels_site_dir")
    m = manifest(site)
    assert ("pyramid" in m["layers"][1]) == (radar == "levels")
    n = len(m["frames"])
    loop_ms = sum(f["duration_ms"] for f in m["frames"])
    server = SiteServer(str(site), csp=STRICT_CSP)
    try:
        sample_two_loops(tab, server, m, n, loop_ms)
    finally:
        server.stop()
    if radar == "levels":
        assert server.requested("/frames/") and not any(
            server.requested(f["url"]) for f in m["layers"][1]["frames"]), "the radar's whole frames were fetched"


def sample_two_loops(tab, server, m, n, loop_ms):
    page = tab.page
    page.goto(server.url("storm/index.html"))
    wait_state(page, "playing")
    r = page.evaluate(SAMPLER, 2 * loop_ms + 300)
    steps = [s for _, s in r["changes"]]
    assert len(steps) >= 2 * n, f"only {len(steps)} steps in two loops"
    for a, b in zip(steps, steps[1:]):
        assert b == (a + 1) % n, f"step {b} followed step {a}"
    by_id = {layer["id"]: layer for layer in r["layers"]}
    assert list(by_id) == ["satellite", "radar"], "panes bottom to top"
    for lid, sampled in by_id.items():
        k = layer_index(m, lid)
        frames = m["layers"][k]["frames"]
        urls = [f["url"] for f in frames]
        assert sampled["minCov"] >= 0.99, (lid, sampled["worst"])
        assert sampled["faded"] == 1, (lid, "the layer's frames were faded as a whole")
        assert not sampled["unsteady"], (lid, sampled["unsteady"][:5])
        # Hidden at the steps without a frame of the layer, and only there.
        nulls = {s for s in range(n) if shown(m, lid, s) is None}
        assert not nulls & set(sampled["shownAt"]) and set(sampled["hiddenAt"]) <= nulls, \
            (lid, sampled["shownAt"], sampled["hiddenAt"], nulls)
        # The pane fades out at a step without the layer's data, and in at the step its data is
        # back: the layer neither blinks out nor pops in.
        edges = {s for s in range(n) if (shown(m, lid, s) is None) != (shown(m, lid, (s - 1) % n) is None)}
        assert set(sampled["paneStarted"]) == edges, (lid, sorted(sampled["paneStarted"]), sorted(edges))
        assert set(sampled["paneFadeAt"]) <= edges, (lid, sorted(sampled["paneFadeAt"]), sorted(edges))
        # A fade where the layer's frame changes from one frame to another, and nowhere else.
        changing = {s for s in range(n) if shown(m, lid, s) is not None and shown(m, lid, (s - 1) % n) is not None
                    and shown(m, lid, s) != shown(m, lid, (s - 1) % n)}
        assert set(sampled["started"]) == changing, (lid, sorted(sampled["started"]), sorted(changing))
        assert set(sampled["fadeAt"]) <= changing, (lid, sorted(sampled["fadeAt"]), sorted(changing))
        # At rest, the frame on top is the one the manifest gives for the step: never a stale one.
        wrong = [(s, top) for s, top in sampled["rest"]
                 if top != shown(m, lid, s) and not (isinstance(top, str) and top.endswith(urls[shown(m, lid, s)]))]
        assert not wrong, (lid, wrong[:5])
    assert by_id["satellite"]["started"] and len(by_id["radar"]["started"]) == n
    assert not tab.console_errors and not tab.page_errors


def test_a_layer_without_a_frame_is_hidden_and_said_to_be(tab, layers_server, layers_site_dir):
    m = manifest(layers_site_dir)
    page = tab.page
    page.goto(layers_server.url("storm/index.html?autoplay=0&frame=0"))
    wait_state(page, "ready")
    panes = page.evaluate(PANES)
    assert panes["satellite"]["frame"] == "none" and panes["satellite"]["hidden"], panes
    assert panes["radar"]["frame"] == "0" and not panes["radar"]["hidden"], panes
    label = page.locator(".matsite-time").inner_text()
    assert "Infrared satellite: no data" in label and "Radar" not in label, label
    assert "Infrared satellite: no data" in page.get_by_role("slider", name="Frame").get_attribute("aria-valuetext")
    note = page.locator('.matsite-layer[data-layer="satellite"] .matsite-layer-nodata')
    assert note.is_visible() and note.inner_text() == "no data at this time"
    assert not page.locator('.matsite-layer[data-layer="radar"] .matsite-layer-nodata').is_visible()
    # Two steps on, the satellite has its first frame: shown, and the notes gone.
    page.get_by_role("button", name="Next frame").click()
    page.get_by_role("button", name="Next frame").click()
    page.wait_for_function("() => !document.querySelector('[data-layer=\"satellite\"].matsite-layer-pane').classList.contains('matsite-layer-blank')")
    panes = page.evaluate(PANES)
    assert panes["satellite"]["frame"] == "0" and not panes["satellite"]["hidden"], panes
    assert panes["satellite"]["front"].endswith(m["layers"][0]["frames"][0]["url"]), panes
    assert "no data" not in page.locator(".matsite-time").inner_text()
    assert not note.is_visible()
    # A hidden layer's lack of data is not news.
    page.keyboard.press("Home")
    page.locator('.matsite-layer[data-layer="satellite"] input[type="checkbox"]').uncheck()
    assert "no data" not in page.locator(".matsite-time").inner_text()


def viewport(width: int) -> dict:
    touch = width < 600
    return {"viewport": {"width": width, "height": 844 if touch else 800}, "is_mobile": touch, "has_touch": touch}


CONTROL = """() => [...document.querySelectorAll('.matsite-layer')].map((row) => {
    const box = (e) => { const r = e.getBoundingClientRect(); return {w: r.width, h: r.height, x: r.x, y: r.y}; };
    const toggle = row.querySelector('.matsite-layer-toggle'), range = row.querySelector('input[type="range"]');
    return {id: row.dataset.layer, toggle: box(toggle), range: box(range), label: range.getAttribute('aria-label'),
            checked: row.querySelector('input[type="checkbox"]').checked, legend: !!row.querySelector('.matsite-legend')
            && row.querySelector('.matsite-legend').checkVisibility()};
})"""


@pytest.mark.parametrize("width", [390, 1280])
def test_the_layers_control_by_mouse_keyboard_and_touch(tabs, layers_server, width):
    tab = tabs.open(**viewport(width))
    page = tab.page
    page.goto(layers_server.url("storm/index.html?autoplay=0"))
    wait_state(page, "ready")
    rows = page.evaluate(CONTROL)
    # Top layer first, as a layer list reads; every target a fingertip's size.
    assert [r["id"] for r in rows] == ["radar", "satellite"]
    assert [r["label"] for r in rows] == ["Opacity: Radar", "Opacity: Infrared satellite"]
    for r in rows:
        assert r["checked"], r
        for target in (r["toggle"], r["range"]):
            assert target["w"] >= 44 and target["h"] >= 44, (r["id"], target)
            assert target["x"] >= 0 and target["x"] + target["w"] <= width + 0.5, (r["id"], target)
    assert rows[0]["legend"], "the radar's legend is shown"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    # The bar's own opacity control gives way to the layers' ones.
    assert page.get_by_role("slider", name="Opacity", exact=True).count() == 0 or \
        not page.get_by_role("slider", name="Opacity", exact=True).is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"layers-{width}.png"))

    radar = page.get_by_role("checkbox", name="Radar")
    satellite = page.get_by_role("checkbox", name="Infrared satellite")
    # Mouse, or a finger on a phone.
    if width < 600:
        radar.tap()
    else:
        radar.click()
    panes = page.evaluate(PANES)
    assert panes["radar"]["off"] and panes["radar"]["hidden"] and not panes["satellite"]["off"], panes
    assert not page.evaluate(CONTROL)[0]["legend"], "a hidden layer's legend is not shown"
    # The checkbox's label, its title, is part of the target.
    name = page.locator('.matsite-layer[data-layer="radar"] .matsite-layer-name')
    if width < 600:
        name.tap()
    else:
        name.click()
    assert not page.evaluate(PANES)["radar"]["off"]
    # Keyboard: Space on the focused checkbox, arrows on the focused range (not the frames).
    frame = player_state(page)["frame"]
    satellite.focus()
    page.keyboard.press("Space")
    assert page.evaluate(PANES)["satellite"]["off"] and not satellite.is_checked()
    page.keyboard.press("Space")
    assert not page.evaluate(PANES)["satellite"]["off"]
    opacity = page.get_by_role("slider", name="Opacity: Infrared satellite")
    opacity.focus()
    for _ in range(4):
        page.keyboard.press("ArrowLeft")
    assert opacity.input_value() == "80" and opacity.get_attribute("aria-valuetext") == "80%"
    assert abs(page.evaluate(PANES)["satellite"]["opacity"] - 0.8) < 1e-6
    assert page.evaluate(PANES)["radar"]["opacity"] == 1
    assert player_state(page)["frame"] == frame
    # A finger (or the mouse) on the radar's range sets it where it lands.
    box = page.get_by_role("slider", name="Opacity: Radar").bounding_box()
    x, y = box["x"] + box["width"] * 0.25, box["y"] + box["height"] / 2
    if width < 600:
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)
    value = int(page.get_by_role("slider", name="Opacity: Radar").input_value())
    assert 10 <= value <= 45, value
    assert abs(page.evaluate(PANES)["radar"]["opacity"] - value / 100) < 1e-6
    assert not tab.console_errors and not tab.page_errors, (tab.console_errors, tab.page_errors)


def test_the_layers_parameter_picks_the_layers_shown(tab, layers_server):
    page = tab.page
    for query, off in (("layers=radar", {"satellite"}), ("layers=satellite,radar", set()),
                       ("layers=satellite", {"radar"}), ("layers=", {"satellite", "radar"}),
                       ("layers=radar,nope,%3Cb%3E", {"satellite"}), ("", set())):
        page.goto(layers_server.url("storm/embed.html?" + query))
        wait_state(page, "ready")
        panes = page.evaluate(PANES)
        assert {k for k, v in panes.items() if v["off"]} == off, (query, panes)
        checked = {r["id"] for r in page.evaluate(CONTROL) if not r["checked"]}
        assert checked == off, (query, checked)


def test_the_layer_message_sets_visibility_and_opacity(tab, layers_site_dir):
    # The test's parent page runs an inline script: served without the CSP.
    server = SiteServer(str(layers_site_dir))
    try:
        layer_messages(tab.page, server)
    finally:
        server.stop()


def layer_messages(page, server):
    server.override("parent.html", (PARENT % "storm/embed.html").encode(), "text/html")
    page.goto(server.url("parent.html"))
    frame = next(f for f in page.frames if f.url.split("?")[0].endswith("/storm/embed.html"))
    wait_state(frame, "ready")
    send(page, {"type": "matsite:layer", "id": "radar", "visible": True, "opacity": 0.6})
    frame.wait_for_function("() => Math.abs(Number(getComputedStyle(document.querySelector("
                            "'[data-layer=\"radar\"] .matsite-frames')).opacity) - 0.6) < 1e-6")
    assert frame.get_by_role("slider", name="Opacity: Radar").get_attribute("aria-valuetext") == "60%"
    send(page, {"type": "matsite:layer", "id": "satellite", "visible": False})
    frame.wait_for_function("() => document.querySelector('[data-layer=\"satellite\"].matsite-layer-pane')"
                            ".classList.contains('matsite-layer-off')")
    assert not frame.get_by_role("checkbox", name="Infrared satellite").is_checked()
    # Unknown keys, wrong types, out of range, no change asked, an unknown layer: ignored.
    before = frame.evaluate(PANES)
    for bad in ({"type": "matsite:layer", "id": "radar", "opacity": 1.5},
                {"type": "matsite:layer", "id": "radar", "visible": "false"},
                {"type": "matsite:layer", "id": "radar", "visible": False, "x": 1},
                {"type": "matsite:layer", "id": "radar"},
                {"type": "matsite:layer", "id": "nope", "visible": False},
                {"type": "matsite:layer", "id": 3, "visible": False}):
        send(page, bad)
    send(page, {"type": "matsite:pause"})  # answered after the ones above: they have been handled
    page.wait_for_function("() => window.received.some((m) => m.data && m.data.type === 'matsite:state')")
    assert frame.evaluate(PANES) == before
    # The JSON text of a command works as the object does.
    send(page, json.dumps({"type": "matsite:layer", "id": "satellite", "visible": True}))
    frame.wait_for_function("() => !document.querySelector('[data-layer=\"satellite\"].matsite-layer-pane')"
                            ".classList.contains('matsite-layer-off')")
    # Each change, by a command or by the viewer, is told to the parent page.
    told = "(id, visible) => window.received.some((m) => m.data.type === 'matsite:layer' && m.data.id === id && m.data.visible === visible)"
    page.wait_for_function(f"() => ({told})('satellite', true)")
    assert [m["data"] for m in page.evaluate("window.received") if m["data"].get("type") == "matsite:layer"][:2] == [
        {"type": "matsite:layer", "id": "radar", "visible": True, "opacity": 0.6},
        {"type": "matsite:layer", "id": "satellite", "visible": False, "opacity": 1}]
    frame.get_by_role("checkbox", name="Radar").uncheck()
    page.wait_for_function(f"() => ({told})('radar', false)")


def test_each_layer_falls_back_to_its_own_tiles_past_the_frames(tab, layers_server, layers_site_dir):
    m = manifest(layers_site_dir)
    radar = m["layers"][layer_index(m, "radar")]
    satellite = m["layers"][layer_index(m, "satellite")]
    assert "fallback" in radar and "fallback" not in satellite
    page = tab.page
    page.goto(layers_server.url("storm/index.html?autoplay=0"))
    wait_state(page, "ready")
    page.evaluate("(z) => document.querySelector('[data-matsite-player]')._matsitePlayer.getMap().setZoom(z, {animate: false})",
                  m["zoom"] + 1.5)
    page.wait_for_function("() => document.querySelector('[data-matsite-player]').classList.contains('matsite-fallback-active')")
    page.wait_for_function("""() => {
        const tiles = [...document.querySelectorAll('[data-layer="radar"] .matsite-fallback img.leaflet-tile')];
        return tiles.length > 0 && tiles.every((t) => t.classList.contains('leaflet-tile-loaded'));
    }""", timeout=15000)
    srcs = page.evaluate("() => [...document.querySelectorAll('.matsite-fallback img.leaflet-tile')].map((t) => t.getAttribute('src'))")
    # Only the radar's pane has fallback tiles (of the radar's frame shown); the satellite's
    # scaled frame stays, as a one-source animation's does without fallback tiles.
    step = player_state(page)["frame"]
    fb, li = radar["fallback"], shown(m, "radar", step)
    prefix = fb["templates"][li].split("{z}")[0]
    assert srcs and all(s.startswith(prefix) for s in srcs), (prefix, srcs)
    assert page.locator('[data-layer="satellite"] .matsite-fallback').count() == 0
    visible = page.evaluate("""() => Object.fromEntries(['satellite', 'radar'].map((id) => [id,
        getComputedStyle(document.querySelector(`[data-layer="${id}"] .matsite-frames`)).visibility]))""")
    assert visible == {"satellite": "visible", "radar": "hidden"}, visible
    # Back in range, both draw their frames again.
    page.evaluate("(z) => document.querySelector('[data-matsite-player]')._matsitePlayer.getMap().setZoom(z, {animate: false})",
                  m["zoom"])
    page.wait_for_function("() => !document.querySelector('[data-matsite-player]').classList.contains('matsite-fallback-active')")
    assert page.locator(".matsite-fallback").count() == 0
    assert not tab.console_errors and not tab.page_errors, (tab.console_errors, tab.page_errors)


@pytest.mark.parametrize("page_path", ["storm/index.html", "storm/embed.html"])
@pytest.mark.parametrize("width", [390, 1280])
def test_axe_finds_no_violation(tabs, layers_server, page_path, width):
    tab = tabs.open(**viewport(width))
    page = tab.page
    # Opened on the first step: the "no data" note is on the page too.
    page.goto(layers_server.url(page_path + "?autoplay=0&frame=0"))
    wait_state(page, "ready")
    violations = Axe().run(page).response["violations"]
    assert not violations, [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:5]) for v in violations]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"layers-{width}-{page_path.replace('/', '-')}-no-data.png"))
    assert not tab.console_errors, tab.console_errors


@pytest.mark.parametrize("width", [390, 1280])
def test_a_layers_note_of_left_out_times_stays_on_screen(tabs, layers_server, layers_site_dir, width):
    """Six times of the radar left out, each with a server's long words: the note in the
    layers control wraps inside the control and the screen at a phone's and a desk's width."""
    m = manifest(layers_site_dir)
    reason = "the server answered 404 for every tile of this time (not published yet), asked again next build"
    m["layers"][layer_index(m, "radar")]["skipped"] = [
        {"time": f"2026-11-21T11:{10 * k:02d}:00Z", "reason": reason} for k in range(6)]
    layers_server.override("storm/manifest.json", json.dumps(m).encode(), "application/json")
    tab = tabs.open(**viewport(width))
    page = tab.page
    page.goto(layers_server.url("storm/index.html?autoplay=0&utc=1"))
    wait_state(page, "ready")
    r = page.evaluate("""() => {
        const note = document.querySelector('.matsite-layer[data-layer="radar"] .matsite-skipped');
        const box = (e) => { const b = e.getBoundingClientRect(); return {x: b.x, y: b.y, w: b.width, h: b.height}; };
        const holder = note.closest('.leaflet-control') || note.closest('[data-matsite-player]');
        return {note: box(note), holder: box(holder), scroll: note.scrollWidth, client: note.clientWidth,
                page: document.documentElement.scrollWidth, view: innerWidth, text: note.textContent};
    }""")
    assert "6 times not in this loop yet" in r["text"], r["text"]
    note, holder = r["note"], r["holder"]
    assert note["x"] >= 0 and note["x"] + note["w"] <= r["view"] + 0.5, r
    assert note["x"] >= holder["x"] - 0.5 and note["x"] + note["w"] <= holder["x"] + holder["w"] + 0.5, r
    assert r["scroll"] <= r["client"] + 1 and r["page"] <= r["view"], r
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"layers-skipped-{width}.png"))
    assert not tab.page_errors, tab.page_errors


@pytest.mark.parametrize("page_path", ["storm/index.html", "storm/embed.html", "radar/index.html", "radar/embed.html"])
@pytest.mark.parametrize("width", [390, 1280])
def test_the_first_view_shows_the_whole_box(tabs, request, page_path, width):
    """Whatever room the controls take below the map (the layers control, a legend), the
    player opens on the whole of the loop's box, filling the map's width or its height
    (within the half-zoom steps the map snaps to): no edge cut off, no empty base map
    where the box should be."""
    srv = request.getfixturevalue("layers_server" if page_path.startswith("storm") else "server")
    tab = tabs.open(**viewport(width))
    page = tab.page
    page.goto(srv.url(page_path + "?autoplay=0"))
    wait_state(page, "ready")
    r = page.evaluate("""() => {
        const player = document.querySelector('[data-matsite-player]')._matsitePlayer;
        const map = player.getMap();
        const box = player._frameBounds;
        const nw = map.latLngToContainerPoint(box.getNorthWest()), se = map.latLngToContainerPoint(box.getSouthEast());
        const el = map.getContainer();
        return {nw: [nw.x, nw.y], se: [se.x, se.y], size: [el.clientWidth, el.clientHeight],
                zoom: map.getZoom(), deepest: player._manifest.zoom + 1};
    }""")
    (x0, y0), (x1, y1), (w, h) = r["nw"], r["se"], r["size"]
    assert x0 >= -1 and y0 >= -1 and x1 <= w + 1 and y1 <= h + 1, r
    # Small frames on a large screen open one level past their detail, no deeper.
    if r["zoom"] < r["deepest"]:
        # A zoom step of 0.5 shrinks the box by 1/sqrt(2) at most from filling the map.
        assert (x1 - x0) >= 0.7 * w or (y1 - y0) >= 0.7 * h, r
    # Centred: the box's middle within a few pixels of the map's.
    assert abs((x0 + x1) / 2 - w / 2) <= 3 and abs((y0 + y1) / 2 - h / 2) <= 3, r
    assert not tab.page_errors, tab.page_errors


def late_radar(m, beyond_max_age: bool) -> dict:
    """`m` as a build writes it when the radar's newest frame is late (issue 35 item 5): left
    out as not published yet, the last step showing the radar's frame before it (within
    `max_age`), or, when that one is too old as well, no radar frame at the last two steps."""
    late = json.loads(json.dumps(m))
    k = layer_index(m, "radar")
    radar = late["layers"][k]
    newest = radar["frames"].pop()
    radar["skipped"] = [{"time": newest["time"], "reason": "not published yet: the server answered 404 for every tile"}]
    if beyond_max_age:
        radar["frames"].pop()
        late["frames"][-2]["layers"][k] = None
        late["frames"][-1]["layers"][k] = None
    else:
        late["frames"][-1]["layers"][k] = len(radar["frames"]) - 1
    return late


# The boxes of what sits around the map, and the map's own: a step that changes one of them
# makes the page jump, and the map resize under the loop.
LAYOUT = """() => Object.fromEntries(['.leaflet-container', '.matsite-layers', '.matsite-time', '.matsite-controls']
    .map((s) => { const r = document.querySelector(s).getBoundingClientRect();
                  return [s, [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)]]; }))"""


@pytest.mark.parametrize("page_path", ["storm/index.html", "storm/embed.html"])
@pytest.mark.parametrize("width", [390, 1280])
def test_a_layer_whose_newest_frames_are_late(tabs, layers_server, layers_site_dir, page_path, width):
    """Issue 35 item 5: the radar's newest frame late. Within `max_age` the radar shows its
    newest frame at the loop's last steps and nothing says "no data"; past it, the last two
    steps say "Radar: no data" (label and layers control) without a blink: the time label,
    the layers strip, the controls and the map keep their place and size at every step (on a
    phone the note's extra line shrank the map at those steps, at every loop), and the map
    is never resized while the loop plays."""
    m = manifest(layers_site_dir)
    n = len(m["frames"])
    radar_at = lambda late, s: late["frames"][s]["layers"][layer_index(m, "radar")]  # noqa: E731
    note = '.matsite-layer[data-layer="radar"] .matsite-layer-nodata'
    for beyond in (False, True):
        late = late_radar(m, beyond)
        layers_server.override("storm/manifest.json", json.dumps(late).encode(), "application/json")
        tab = tabs.open(**viewport(width))
        page = tab.page
        page.goto(layers_server.url(page_path + "?autoplay=0&frame=first"))
        wait_state(page, "ready")
        page.focus("[data-matsite-player]")
        layouts = set()
        for step in range(n):
            if step:
                page.keyboard.press("ArrowRight")
            page.wait_for_function("(s) => Number(document.querySelector('[data-matsite-player]').dataset.frame) === s", arg=step)
            panes, label = page.evaluate(PANES), page.locator(".matsite-time").inner_text()
            expected = radar_at(late, step)
            if expected is None:
                assert panes["radar"]["frame"] == "none" and panes["radar"]["hidden"], (step, panes)
                assert "Radar: no data" in label and page.locator(note).is_visible(), (step, label)
            else:
                assert panes["radar"]["frame"] == str(expected) and not panes["radar"]["hidden"], (step, panes)
                assert "Radar: no data" not in label and not page.locator(note).is_visible(), (step, label)
            layouts.add(json.dumps(page.evaluate(LAYOUT)))
        assert len(layouts) == 1, f"the layout moved between steps ({'past' if beyond else 'within'} max_age): {layouts}"
        # Played: not one resize of the map over a whole loop.
        resized = page.evaluate("""(ms) => new Promise((done) => {
            let count = -1;  // a ResizeObserver reports once when it starts
            const ro = new ResizeObserver(() => count++);
            ro.observe(document.querySelector('.leaflet-container'));
            Matsite.players[0].play();
            setTimeout(() => { ro.disconnect(); done(count); }, ms);
        })""", sum(f["duration_ms"] for f in m["frames"]) + 400)
        assert resized == 0, f"the map was resized {resized} times in a loop"
        assert not tab.page_errors and not tab.console_errors, (tab.page_errors, tab.console_errors)
        tab.context.close()
    layers_server.clear()
