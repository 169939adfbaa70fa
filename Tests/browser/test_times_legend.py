"""Issue 14, items 3 and 4: the legend as real, accessible text; time labels in
the manifest's zone, in UTC with utc=1, 12 or 24 hours by locale, relative to a
fixed clock and moving on with it; the newest frame marked; left-out times
noted without alarm. The features site is built from a config with opacity,
legend, time_zone and time_label, so the keys are checked from YAML to page."""
import datetime as dt
import json
import re

import pytest

from helpers import SiteServer, colour_bar_png, read_manifest, wait_state

# Counts the Intl objects a page makes (DateTimeFormat and RelativeTimeFormat: the time
# words' formatters), before any script of the page runs.
COUNT_INTL = """
window.__intl = 0;
for (const name of ['DateTimeFormat', 'RelativeTimeFormat']) {
    const Real = Intl[name];
    Intl[name] = new Proxy(Real, {construct(target, args) { window.__intl++; return Reflect.construct(target, args); }});
}
"""

UTC = dt.timezone.utc


@pytest.fixture
def features(features_site_dir):
    srv = SiteServer(str(features_site_dir))
    yield srv, read_manifest(str(features_site_dir))
    srv.stop()


def label(page):
    return page.locator('[role="slider"][aria-label="Frame"]').get_attribute("aria-valuetext")


def test_the_legend_is_text_with_its_unit(tab, server, site_dir):
    m = read_manifest(str(site_dir))
    assert m["legend"] == {"unit": "dBZ", "stops": [[10, "#78c8e6"], [40, "#f0e628", "heavy"], [60, "#c81414"]]}
    page = tab.page
    page.goto(server.url("radar/index.html?autoplay=0"))
    wait_state(page, "ready")
    legend = page.get_by_role("group", name="Legend (dBZ)")
    assert legend.count() == 1
    assert [t.strip() for t in legend.locator("li").all_inner_texts()] == ["10", "heavy", "60"]
    swatches = legend.locator(".matsite-swatch").evaluate_all("(s) => s.map((e) => getComputedStyle(e).backgroundColor)")
    assert swatches == ["rgb(120, 200, 230)", "rgb(240, 230, 40)", "rgb(200, 20, 20)"]
    # What a screen reader gets: the group's name and the values as text.
    tree = page.locator(".matsite-legend").aria_snapshot()
    assert "Legend (dBZ)" in tree and "heavy" in tree, tree


def test_a_legend_image_is_published_with_its_words(tab, features, features_site_dir):
    srv, m = features
    image = m["legend"]["image"]
    assert re.fullmatch(r"legend-[0-9a-f]{8}\.png", image), image
    assert (features_site_dir / "radar" / image).read_bytes() == colour_bar_png()
    assert m["legend"]["image_alt"].startswith("Rain rate from light blue")
    page = tab.page
    page.goto(srv.url("radar/index.html?autoplay=0"))
    wait_state(page, "ready")
    img = page.locator(".matsite-legend img.matsite-legend-image")
    img.wait_for()
    assert img.evaluate("(i) => i.complete && i.naturalWidth") == 96
    assert img.get_attribute("alt") == m["legend"]["image_alt"]
    # Beside the stops, never instead of them: the stops stay text.
    assert page.get_by_role("group", name="Legend (mm/h)").locator("li").count() == 3


def test_config_keys_reach_the_manifest_and_the_page(tabs, features):
    srv, m = features
    assert m["opacity"] == 0.7 and m["time_zone"] == "Asia/Tokyo" and m["time_label"] == "both"
    assert m["legend"]["unit"] == "mm/h" and m["legend"]["stops"][0] == [0.5, "#78c8e6", "light"]
    tab = tabs.open(timezone_id="America/New_York")
    page = tab.page
    # Twelve minutes after the newest frame (10:50 UTC = 19:50 in Tokyo).
    page.clock.set_fixed_time(dt.datetime(2026, 11, 21, 11, 2, tzinfo=UTC))
    page.goto(srv.url("radar/index.html?autoplay=0"))
    wait_state(page, "ready")
    text = label(page)
    assert re.search(r"\b7:50\b", text) and "PM" in text and "GMT+9" in text, text
    assert "12 minutes ago" in text and "newest" in text, text
    assert "newest" in page.locator(".matsite-time").inner_text()
    assert page.locator(".matsite-time.matsite-newest").count() == 1
    assert abs(page.evaluate("() => Number(getComputedStyle(document.querySelector('.matsite-frames')).opacity)") - 0.7) < 1e-6
    assert page.get_by_role("group", name="Legend (mm/h)").locator("li").all_inner_texts()[0].strip() == "light"
    # An older frame is not marked newest.
    page.get_by_role("button", name="Previous frame", exact=True).click()
    assert "newest" not in label(page) and "22 minutes ago" in label(page)
    page.get_by_role("button", name="Next frame", exact=True).click()
    # The relative part moves on with the clock, without announcing itself.
    page.clock.set_fixed_time(dt.datetime(2026, 11, 21, 11, 5, tzinfo=UTC))
    page.wait_for_function("() => document.querySelector('.matsite-time').textContent.includes('15 minutes ago')",
                           timeout=30000)
    assert page.locator(".matsite-time").get_attribute("aria-live") == "off"
    # utc=1 still means UTC.
    page.goto(srv.url("radar/index.html?autoplay=0&utc=1"))
    wait_state(page, "ready")
    assert re.search(r"\b10:50\b", label(page)) and "UTC" in label(page), label(page)


def test_24_hours_by_locale_and_the_viewers_zone_without_time_zone(tabs, server, site_dir):
    last = read_manifest(str(site_dir))["frames"][-1]["time"]  # 10:50 UTC
    tab = tabs.open(locale="en-GB", timezone_id="Europe/Berlin")
    page = tab.page
    page.goto(server.url("radar/index.html?autoplay=0"))
    wait_state(page, "ready")
    text = label(page)
    assert last.endswith("10:50:00Z")
    assert re.search(r"\b11:50\b", text) and "AM" not in text and "PM" not in text, text
    assert "ago" not in text  # absolute only, by default


def test_left_out_times_are_noted_without_alarm(tab, server, site_dir):
    m = read_manifest(str(site_dir))
    m["skipped"] = [{"time": "2026-11-21T11:00:00Z", "reason": "not published yet"}]
    server.override("radar/manifest.json", json.dumps(m).encode(), "application/json")
    page = tab.page
    page.goto(server.url("radar/index.html?autoplay=0&utc=1"))
    wait_state(page, "ready")
    note = page.locator(".matsite-skipped")
    assert note.count() == 1
    text = note.inner_text()
    assert "Not in this loop yet" in text and "11:00" in text and "not published yet" in text, text
    assert note.get_attribute("role") is None and page.locator('[role="alert"]').count() == 0
    assert page.locator("[data-matsite-player]").get_attribute("data-error") is None


def test_a_loop_without_times_makes_no_date_formatter(tabs, server, pyramid_site_dir):
    """A page's first Intl object costs 40-130 ms on a phone's CPU: frames without times
    ("Frame 2 of 5") are labelled without one, through loading, playing and a step; frames
    with times make theirs (so the count is seen to move)."""
    srv = SiteServer(str(pyramid_site_dir))
    try:
        tab = tabs.open()
        page = tab.page
        page.add_init_script(COUNT_INTL)
        page.goto(srv.url("radar/index.html"))
        wait_state(page, "playing")
        page.focus("[data-matsite-player]")
        page.keyboard.press("Space")
        page.keyboard.press("ArrowRight")
        assert re.fullmatch(r"Frame \d of 5", label(page)), label(page)
        assert page.evaluate("window.__intl") == 0
        assert not tab.page_errors and not tab.console_errors
    finally:
        srv.stop()
    timed = tabs.open()
    timed.page.add_init_script(COUNT_INTL)
    timed.page.goto(server.url("radar/index.html?autoplay=0&utc=1"))
    wait_state(timed.page, "ready")
    assert "UTC" in label(timed.page) and timed.page.evaluate("window.__intl") >= 1
