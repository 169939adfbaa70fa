"""Issue 14, item 2: the animation layer's opacity, by the control (aria-label
"Opacity"), the opacity= parameter, the matsite:opacity message and the
manifest's default; both frame layers fade together, so the crossfade keeps
full coverage at opacity 0.6."""
import json

from helpers import read_manifest, wait_state
from test_crossfade import SAMPLER
from test_embed import PARENT, child, send

LAYER = "() => Number(getComputedStyle(document.querySelector('.matsite-frames')).opacity)"


def test_the_control_sets_the_opacity_by_keyboard(tab, server):
    page = tab.page
    page.goto(server.url("radar/index.html?autoplay=0"))
    wait_state(page, "ready")
    control = page.get_by_role("slider", name="Opacity", exact=True)
    assert control.count() == 1
    assert control.get_attribute("aria-valuetext") == "100%"
    assert page.evaluate(LAYER) == 1
    control.focus()
    for _ in range(8):
        page.keyboard.press("ArrowLeft")
    assert control.input_value() == "60"
    assert control.get_attribute("aria-valuetext") == "60%"
    assert abs(page.evaluate(LAYER) - 0.6) < 1e-6
    # Arrow keys on the opacity control do not step frames.
    assert page.locator("[data-matsite-player]").get_attribute("data-frame") == str(len(read_manifest(server.root)["frames"]) - 1)
    # Both frame images sit inside the faded layer and keep their own opacities.
    assert page.locator(".matsite-frames img.matsite-frame").count() == 2


def test_the_url_parameter_and_the_manifest_default(tab, server, site_dir):
    page = tab.page
    page.goto(server.url("radar/embed.html?opacity=0.25"))
    wait_state(page, "ready")
    assert abs(page.evaluate(LAYER) - 0.25) < 1e-6
    assert page.get_by_role("slider", name="Opacity").input_value() == "25"
    # The manifest's default, and the parameter over it; a bad value leaves the default.
    m = read_manifest(str(site_dir))
    m["opacity"] = 0.5
    server.override("radar/manifest.json", json.dumps(m).encode(), "application/json")
    for query, expected in (("", 0.5), ("?opacity=0.8", 0.8), ("?opacity=2", 0.5), ("?opacity=x", 0.5)):
        page.goto(server.url("radar/embed.html" + query))
        wait_state(page, "ready")
        assert abs(page.evaluate(LAYER) - expected) < 1e-6, query


def test_the_postmessage_command(tab, server):
    page = tab.page
    server.override("parent.html", (PARENT % "radar/embed.html").encode(), "text/html")
    page.goto(server.url("parent.html"))
    frame = child(page)
    wait_state(frame, "ready")
    send(page, {"type": "matsite:opacity", "value": 0.6})
    frame.wait_for_function(f"() => Math.abs(({LAYER})() - 0.6) < 1e-6")
    assert frame.get_by_role("slider", name="Opacity").get_attribute("aria-valuetext") == "60%"
    # Out of range, extra keys or the wrong type: ignored.
    for bad in ({"type": "matsite:opacity", "value": 1.5}, {"type": "matsite:opacity", "value": "0.1"},
                {"type": "matsite:opacity", "value": 0.1, "x": 1}, {"type": "matsite:opacity"}):
        send(page, bad)
    send(page, {"type": "matsite:pause"})  # answered after the ones above: they have been handled
    page.wait_for_function("() => window.received.some((m) => m.data && m.data.type === 'matsite:state')")
    assert abs(frame.evaluate(LAYER) - 0.6) < 1e-6


def test_the_crossfade_keeps_full_coverage_at_opacity_0_6(tab, server, site_dir):
    frames = read_manifest(str(site_dir))["frames"]
    loop_ms = sum(f["duration_ms"] for f in frames)
    page = tab.page
    page.goto(server.url("radar/index.html?opacity=0.6"))
    wait_state(page, "playing")
    r = page.evaluate(SAMPLER, 2 * loop_ms + 400)
    assert abs(page.evaluate(LAYER) - 0.6) < 1e-6
    assert r["layers"] == 2
    assert r["minCov"] >= 0.99, f"coverage inside the layer dipped to {r['minCov']}: {r['worst']}"
    assert r["both"] == 0 and r["undrawn"] == 0, r
    assert len(r["changes"]) >= 2 * len(frames)
