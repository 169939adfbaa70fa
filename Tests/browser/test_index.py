"""Issue 3: the site index lists every animation with its poster, title, links and the
embed code. Issue 26, item 2: a page worth sharing at 390 and 1280 px: the times in the
reader's words (as the player writes them), the poster over the base map, nothing cut or
wrapped mid-link, and a Copy button for the embed code that a keyboard reaches.
Screenshots are kept in Tests/browser/artifacts/."""
from pathlib import Path

import pytest

from helpers import read_manifest, wait_state

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

# Every text box of the cards: its content against its box, and how many lines each
# link and each time takes.
MEASURE = """() => {
    const box = (e) => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; };
    const lines = (e) => { const r = document.createRange(); r.selectNodeContents(e);
        return new Set([...r.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top))).size; };
    const card = document.querySelector('.matsite-card');
    return {
        viewport: innerWidth, pageScroll: document.documentElement.scrollWidth,
        texts: [...card.querySelectorAll('h2, p, li, pre, button, .matsite-snippet-label')].map((e) => ({
            cls: e.className || e.tagName, text: e.textContent.slice(0, 40), sh: e.scrollHeight, ch: e.clientHeight,
            sw: e.scrollWidth, cw: e.clientWidth, ...box(e)})),
        links: [...card.querySelectorAll('.matsite-card-links a')].map((a) => ({text: a.textContent, lines: lines(a)})),
        times: [...card.querySelectorAll('time')].map((t) => ({text: t.textContent, lines: lines(t)})),
        card: box(card), poster: box(card.querySelector('.matsite-card-poster svg')),
    };
}"""


def test_the_index_lists_the_animation_with_poster_links_and_embed_code(tab, server, site_dir):
    m = read_manifest(str(site_dir))
    page = tab.page
    page.goto(server.url("index.html"))
    card = page.locator(".matsite-card")
    assert card.count() == 1
    assert card.locator("h2 a").inner_text() == "Demo radar"
    assert card.locator("h2 a").get_attribute("href") == "radar/index.html"
    meta = card.locator(".matsite-card-meta")
    assert meta.inner_text().startswith(f"{len(m['frames'])} frames")
    times = meta.locator("time").evaluate_all("(ts) => ts.map((t) => t.getAttribute('datetime'))")
    assert times == [m["frames"][0]["time"], m["frames"][-1]["time"]]
    assert card.get_by_role("link", name="Embed page").get_attribute("href") == "radar/embed.html"
    # The poster in the frames' format, over the demo base map's tiles, all of them loaded.
    assert m["poster"] == "poster.png"
    assert card.locator("image.matsite-card-frame").get_attribute("href") == "radar/poster.png"
    tiles = card.locator("image.matsite-card-base").evaluate_all("(ts) => ts.map((t) => t.getAttribute('href'))")
    assert tiles and all(t.startswith("assets/demo-basemap-") for t in tiles), tiles
    for t in tiles + ["radar/poster.png"]:
        assert (Path(site_dir) / t).is_file(), t
        assert page.evaluate("async (u) => (await fetch(u)).ok", t), t
    code = card.locator("pre.matsite-snippet").inner_text()
    assert code.startswith("<div style=") and code.endswith("></iframe></div>"), code
    for part in ('title="Demo radar"', 'loading="lazy"', "allowfullscreen", "radar/embed.html", "width:100%"):
        assert part in code, part
    assert card.get_by_role("button", name="Copy").is_visible()

    card.locator("h2 a").click()
    wait_state(page, ["ready", "playing"])
    assert page.locator("h1").inner_text() == "Demo radar"
    assert not tab.page_errors and not tab.console_errors, (tab.page_errors, tab.console_errors)


@pytest.mark.parametrize("locale,zone,first,last", [
    ("en-US", "America/New_York", "Nov 21, 2026, 5:00 AM EST", "5:50 AM EST"),
    ("en-GB", "Europe/Berlin", "21 Nov 2026, 11:00 CET", "11:50 CET"),
])
def test_the_times_are_in_the_readers_words_as_the_player_writes_them(tabs, server, locale, zone, first, last):
    tab = tabs.open(locale=locale, timezone_id=zone)
    page = tab.page
    page.goto(server.url("index.html"))
    times = page.locator(".matsite-card-meta time")
    page.wait_for_function("() => !document.querySelector('.matsite-card-meta time').textContent.startsWith('2026-')")
    assert times.all_inner_texts() == [first, last]
    # The player says the newest frame's time in the same words.
    page.goto(server.url("radar/index.html?autoplay=0"))
    wait_state(page, "ready")
    label = page.locator('[role="slider"]').get_attribute("aria-valuetext")
    assert first.rsplit(", ", 1)[0] + ", " + last in label, (label, first, last)


def test_without_javascript_the_times_read_in_utc(browser, server):
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(server.url("index.html"))
        assert page.locator(".matsite-card-meta time").all_inner_texts() == ["2026-11-21 10:00 UTC", "2026-11-21 10:50 UTC"]
        # No script, no button that would do nothing; the code is still all there to select.
        assert not page.locator("button.matsite-copy").is_visible()
        assert page.locator("pre.matsite-snippet").inner_text().endswith("</iframe></div>")
    finally:
        context.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_nothing_is_cut_and_no_link_or_time_wraps_inside(tabs, server, width):
    tab = tabs.open(viewport={"width": width, "height": 900}, is_mobile=width < 600, has_touch=width < 600)
    page = tab.page
    page.goto(server.url("index.html"))
    page.wait_for_function("() => [...document.querySelectorAll('.matsite-card image')].length > 0")
    page.wait_for_function("() => !document.querySelector('.matsite-card-meta time').textContent.startsWith('2026-')")
    r = page.evaluate(MEASURE)
    assert r["pageScroll"] <= r["viewport"], "the page scrolls sideways"
    for t in r["texts"]:
        assert t["sh"] <= t["ch"] + 1 and t["sw"] <= t["cw"] + 1, t
        assert t["x"] >= 0 and t["x"] + t["w"] <= r["viewport"] + 0.5, t
    assert [link["text"] for link in r["links"]] == ["Open the player", "Embed page"]
    assert all(link["lines"] == 1 for link in r["links"]), r["links"]
    assert all(t["lines"] == 1 for t in r["times"]), r["times"]
    # The poster is as wide as the card and has the animation's aspect ratio.
    m = read_manifest(str(Path(server.root)))
    assert abs(r["poster"]["w"] - r["card"]["w"]) <= 2, (r["poster"], r["card"])
    assert abs(r["poster"]["h"] - r["poster"]["w"] * m["height"] / m["width"]) <= 2, r["poster"]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"index-{width}.png"), full_page=True)
    assert not tab.page_errors and not tab.console_errors, (tab.page_errors, tab.console_errors)


def test_the_copy_button_copies_the_embed_code_from_the_keyboard(tabs, server):
    tab = tabs.open()
    tab.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.origin)
    page = tab.page
    page.goto(server.url("index.html"))
    button = page.locator("button.matsite-copy")
    button.wait_for(state="visible")
    # Reached with Tab alone, pressed with Enter.
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.classList.contains('matsite-copy')"):
            break
    else:
        pytest.fail("Tab never reaches the Copy button")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('button.matsite-copy').textContent === 'Copied'")
    assert page.locator(".matsite-copy-status").inner_text() == "Copied to the clipboard"
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == page.locator("pre.matsite-snippet").inner_text()
    assert copied.startswith("<div style=") and "<iframe src=" in copied
    # The code is selected as well: Ctrl+C works where the clipboard API is refused.
    assert page.evaluate("() => getSelection().toString()") == copied
    assert not tab.page_errors and not tab.console_errors, (tab.page_errors, tab.console_errors)
