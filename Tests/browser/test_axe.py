"""Issue 14: axe-core finds no accessibility violation on any page, at a phone's
and a desktop's width, with the player loaded (and, on the player pages, with
the legend and every control present)."""
import pytest
from axe_playwright_python.sync_playwright import Axe

from helpers import wait_state

PAGES = ["index.html", "radar/index.html", "radar/embed.html"]


@pytest.mark.parametrize("page_path", PAGES)
@pytest.mark.parametrize("width,height", [(390, 844), (1280, 800)])
def test_axe_finds_no_violation(tabs, server, page_path, width, height):
    tab = tabs.open(viewport={"width": width, "height": height})
    page = tab.page
    page.goto(server.url(page_path + ("?autoplay=0" if page_path != "index.html" else "")))
    if page_path != "index.html":
        wait_state(page, "ready")
    else:
        page.wait_for_load_state("load")
    results = Axe().run(page)
    violations = results.response["violations"]
    summary = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:5]) for v in violations]
    assert not violations, summary
