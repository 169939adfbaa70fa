"""Issue 26 item 5: the embedded demo (`matsite build` with no matsite.yml) shows the whole
product to a newcomer: a loop of its own times with relative labels, ending in a nowcast
after now (issue 37), a legend with words,
a point layer of storm reports, a base map drawn at the zoom the player shows, and the
exported loop to download. Built once by the real binary at a fixed `--at`; screenshots at
390 and 1280 px are kept in Tests/browser/artifacts/."""
import os
import subprocess
import urllib.request
from pathlib import Path

import pytest

from helpers import REPO, SiteServer, read_manifest, wait_state

AT = "2026-11-26T00:10:00Z"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PLAYER = "document.querySelector('[data-matsite-player]')._matsitePlayer"


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("embedded-demo")
    binary = os.environ.get("MATSITE_BIN", str(REPO / ".build" / "debug" / "matsite"))
    proc = subprocess.run([binary, "build", "--at", AT, "--quiet"], cwd=folder, capture_output=True, text=True, timeout=1200)
    if proc.returncode != 0:
        pytest.fail(f"the embedded demo did not build ({proc.returncode}):\n{proc.stderr}", pytrace=False)
    return folder / "site"


@pytest.fixture(scope="module")
def demo(demo_site):
    srv = SiteServer(str(demo_site))
    yield srv, demo_site
    srv.stop()


def test_the_demo_is_a_live_window_with_reports_legend_words_and_exports(demo_site):
    m = read_manifest(str(demo_site))
    observed = [f["time"] for f in m["frames"] if "kind" not in f]
    forecast = [f["time"] for f in m["frames"] if f.get("kind") == "forecast"]
    # Two hours up to now, then the nowcast: half an hour of the same weather carried on.
    assert observed[-1] == AT and len(observed) == 12, observed
    assert forecast == ["2026-11-26T00:20:00Z", "2026-11-26T00:30:00Z", "2026-11-26T00:40:00Z"], forecast
    assert m["now"] == AT, m.get("now")
    assert m["time_label"] == "both"
    assert [s[2] for s in m["legend"]["stops"] if len(s) > 2] == ["20 light", "40 moderate", "50 heavy", "60 hail"]
    assert [p["id"] for p in m["points"]] == ["reports"] and m["points"][0]["count"] > 0
    assert "gif" in m["exports"], m.get("exports")
    assert m["base_map"]["detail"]["max_native_zoom"] > m["zoom"], m["base_map"]


@pytest.mark.parametrize("width", [390, 1280])
def test_the_demo_page_shows_legend_words_reports_times_and_downloads(tabs, demo, width):
    srv, site = demo
    m = read_manifest(str(site))
    tab = tabs.open(viewport={"width": width, "height": 900})
    page = tab.page
    page.goto(srv.url("radar/index.html?autoplay=0"))
    wait_state(page, "ready")

    # The legend's words, each whole inside the page's width.
    stops = page.eval_on_selector_all(
        ".matsite-legend-stop", "els => els.map(e => { const r = e.getBoundingClientRect(); return [e.textContent.trim(), r.left, r.right]; })")
    words = [text for text, _, _ in stops]
    for label in ["20 light", "40 moderate", "50 heavy", "60 hail"]:
        assert label in words, words
    assert all(left >= 0 and right <= width for _, left, right in stops), stops
    # The newest frame's time, in words relative to now as well.
    label = page.text_content(".matsite-time")
    assert "ago" in label and "newest" in label, label

    # The reports: a toggle naming the layer, and on a frame with reports, their marks
    # with a label for each single report.
    assert "Storm reports" in page.text_content(".matsite-point-toggle")
    frame = None
    for index in reversed(range(len(m["frames"]))):
        page.evaluate(f"(i) => {PLAYER}.seek(i)", index)
        page.wait_for_function("(i) => document.querySelector('[data-matsite-player]').dataset.frame === String(i)", arg=index)
        page.wait_for_timeout(300)
        if page.locator(".leaflet-marker-pane [data-count]").count() > 0:
            frame = index
            break
    assert frame is not None, "no frame of the demo shows a storm report"
    toggle = page.text_content(".matsite-point-toggle")
    assert "0 points" not in toggle and "point" in toggle, toggle
    page.wait_for_timeout(500)  # the marks' fade-in

    # The base map is drawn at the zoom the player shows, not scaled up from a coarser one.
    zoom = page.evaluate(f"() => {PLAYER}.getMap().getZoom()")
    page.wait_for_function("""(z) => { const t = [...document.querySelectorAll('.leaflet-tile-pane img.leaflet-tile')]
        .filter((i) => new RegExp('/demo-basemap-[0-9]+/([0-9]+)/').exec(i.src)?.[1] === String(z));
        return t.length > 0 && t.every((i) => i.classList.contains('leaflet-tile-loaded')); }""", arg=round(zoom), timeout=20000)

    # The exported loops, linked for download and served.
    links = page.eval_on_selector_all(".matsite-downloads a", "els => els.map(e => e.getAttribute('href'))")
    assert sorted(links) == sorted(m["exports"].values()), links
    for href in links:
        with urllib.request.urlopen(srv.url("radar/" + href)) as answer:
            assert answer.status == 200 and len(answer.read()) > 1000

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"demo-embedded-{width}.png"), full_page=True)
    assert not tab.console_errors and not tab.page_errors, (tab.console_errors, tab.page_errors)
