"""Issue 3, test 6 and issue 6's output safety: no console errors, no request
to any other host, pages that work under a strict CSP, and user strings that
render as text."""
import html.parser
from pathlib import Path

import pytest

from helpers import XSS_TITLE
from helpers import STRICT_CSP, SiteServer, player_state, wait_state

PAGES = ["index.html", "radar/index.html", "radar/embed.html"]

CSP_PROBE = """window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => window.__csp.push([e.violatedDirective, e.blockedURI, e.sourceFile, e.lineNumber, e.sample, location.pathname].join(' ')));"""


class InlineFinder(html.parser.HTMLParser):
    """Collects what a strict CSP would block: inline scripts, style elements
    and attributes, event handler attributes, javascript: URLs."""

    def __init__(self):
        super().__init__()
        self.problems = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        if tag == "script":
            self._in_script = "src" not in names
        if tag == "style":
            self.problems.append("<style> element")
        for name, value in attrs:
            if name == "style":
                self.problems.append(f"style= on <{tag}>")
            if name.startswith("on"):
                self.problems.append(f"{name}= on <{tag}>")
            if value and value.strip().lower().startswith("javascript:"):
                self.problems.append(f"javascript: URL in <{tag} {name}>")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.problems.append("inline <script>")


@pytest.mark.parametrize("page_path", PAGES)
def test_pages_have_no_inline_script_style_or_handlers(site_dir, page_path):
    finder = InlineFinder()
    finder.feed((Path(site_dir) / page_path).read_text(encoding="utf-8"))
    assert not finder.problems, finder.problems


@pytest.fixture
def csp_server(site_dir):
    srv = SiteServer(str(site_dir), csp=STRICT_CSP)
    yield srv
    srv.stop()


def test_pages_work_under_a_strict_csp_without_console_errors(tab, csp_server):
    """Under `default-src 'self'` and nothing else (no data: images either): any
    violation, reported as an event or only logged to the console, fails."""
    page = tab.page
    page.add_init_script(CSP_PROBE)
    logged = []
    page.on("console", lambda m: logged.append(f"{m.type}: {m.text}") if "Content Security Policy" in m.text else None)

    page.goto(csp_server.url("index.html"))
    page.wait_for_load_state("load")
    assert page.locator(".matsite-card").count() >= 1
    assert page.evaluate("window.__csp") == []

    page.goto(csp_server.url("radar/index.html"))
    wait_state(page, "playing")
    start = player_state(page)["frame"]
    page.wait_for_function("(f) => document.querySelector('[data-matsite-player]').dataset.frame !== String(f)", arg=start)
    page.wait_for_function("() => document.querySelectorAll('.leaflet-tile-loaded').length > 0", timeout=10000)
    assert page.evaluate("window.__csp") == []
    # Zooming in (fallback tiles), panning and zooming out drop and cancel tiles: Leaflet
    # would point them at a data: GIF, which this policy forbids.
    page.evaluate("""async () => {
        const map = Matsite.players[0].getMap();
        const settle = () => new Promise((done) => setTimeout(done, 250));
        const z = map.getZoom();
        map.setZoom(z + 3, {animate: false}); await settle();
        map.panBy([300, 200], {animate: false}); await settle();
        map.setZoom(z + 1, {animate: false}); map.setZoom(z, {animate: false}); await settle();
    }""")
    assert page.evaluate("window.__csp") == []

    page.goto(csp_server.url("radar/embed.html?autoplay=1"))
    wait_state(page, "playing")
    assert page.evaluate("window.__csp") == []

    assert not logged, logged
    assert not tab.console_errors, tab.console_errors
    assert not tab.page_errors, tab.page_errors
    assert not tab.foreign


@pytest.fixture
def xss_server(xss_site_dir):
    srv = SiteServer(str(xss_site_dir), csp=STRICT_CSP)
    yield srv
    srv.stop()


def test_a_hostile_title_renders_as_text_and_runs_nothing(tab, xss_server):
    page = tab.page
    page.add_init_script(CSP_PROBE)
    page.goto(xss_server.url("index.html"))
    page.wait_for_load_state("load")
    assert page.locator("h1").inner_text() == XSS_TITLE
    assert page.locator(".matsite-card h2").inner_text() == XSS_TITLE
    snippet = page.locator("pre.matsite-snippet").inner_text()
    assert snippet.startswith("<div style=") and "<iframe" in snippet and "<script>" not in snippet
    # The snippet is HTML to paste: the title inside it stays escaped.
    assert 'title="&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in snippet

    for path in ("radar/index.html", "radar/embed.html"):
        page.goto(xss_server.url(path))
        wait_state(page, ["ready", "playing"])
        assert page.title().startswith(XSS_TITLE)
        if path.endswith("index.html"):
            assert page.locator("h1").inner_text() == XSS_TITLE
        # In attributes too: the value is the title itself, not markup.
        assert page.locator("[data-matsite-player]").get_attribute("aria-label").startswith(XSS_TITLE)
        assert page.locator("img.matsite-frame").first.get_attribute("alt") == XSS_TITLE
        assert page.locator("script:not([src])").count() == 0
        attribution = page.locator(".leaflet-control-attribution")
        assert attribution.locator("img, script").count() == 0
        hrefs = attribution.locator("a").evaluate_all("(as) => as.map((a) => a.getAttribute('href'))")
        assert all(h.startswith(("https://", "http://")) for h in hrefs), hrefs
        assert attribution.locator("a").evaluate_all("(as) => as.every((a) => a.rel.includes('noopener'))")

    assert tab.dialogs == [], tab.dialogs
    assert page.evaluate("window.__csp") == []
    assert not tab.page_errors
