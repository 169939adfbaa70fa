"""A page whose player never starts (its scripts blocked, lost or broken) still shows what
the loop is: the newest frame as a still image, and a sentence saying the player has not
started, after a few seconds (a player that starts takes them away first). The image is
the player's own poster, so a page that plays fetches it once."""
import pytest
from axe_playwright_python.sync_playwright import Axe

from helpers import read_manifest, wait_state

STILL = ".matsite-still"


@pytest.mark.parametrize("page_path", ["radar/index.html", "radar/embed.html"])
@pytest.mark.parametrize("lost", ["player-bundle", "leaflet.js"])
def test_a_player_that_never_starts_leaves_the_newest_frame_and_says_so(tabs, server, site_dir, page_path, lost):
    tab = tabs.open(viewport={"width": 390, "height": 844})
    page = tab.page
    page.route(f"**/*{lost}*", lambda route: route.abort())
    page.goto(server.url(page_path))
    still = page.locator(STILL)
    assert still.count() == 1
    # Not at once: a player that is only slow to arrive takes it away unseen. Read against the
    # still's own animation clock, not the test's, so a busy machine cannot make it pass late.
    shown, delay, elapsed = page.evaluate("""(s) => {
        const el = document.querySelector(s), a = el.getAnimations()[0];
        return [getComputedStyle(el).visibility, a.effect.getTiming().delay, a.currentTime];
    }""", STILL)
    assert delay == 4000, delay
    assert shown == ("visible" if elapsed >= delay else "hidden"), (shown, elapsed)
    still.wait_for(state="visible", timeout=10000)
    assert "player has not started" in still.inner_text()
    poster = read_manifest(str(site_dir))["poster"]
    img = still.locator("img")
    assert img.get_attribute("src") == poster
    assert img.evaluate("(i) => i.complete && i.naturalWidth") > 0
    box = img.bounding_box()
    assert box and box["width"] > 100 and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert page.locator("[data-matsite-player]").get_attribute("data-state") == "loading"
    violations = Axe().run(page).response["violations"]
    assert not violations, [(v["id"], [n["target"] for n in v["nodes"]][:5]) for v in violations]


def test_a_player_that_starts_takes_the_still_away_and_fetches_the_poster_once(tab, server):
    page = tab.page
    page.goto(server.url("radar/index.html?autoplay=0"))
    wait_state(page, "ready")
    assert page.locator(STILL).count() == 0
    page.wait_for_timeout(4500)
    assert page.locator(STILL).count() == 0
    assert server.requested("/radar/poster.") == 1, server.requests
    assert not tab.page_errors and not tab.console_errors
