"""Issue 3: the site index lists every animation with its poster, title, links
and a copyable iframe snippet, laid out by CSS alone."""
from helpers import read_manifest, wait_state


def test_the_index_lists_the_animation_with_poster_links_and_snippet(tab, server, site_dir):
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
    assert times == ([m["frames"][0]["time"], m["frames"][-1]["time"]] if "time" in m["frames"][0] else [])
    assert card.get_by_role("link", name="Embed page").get_attribute("href") == "radar/embed.html"
    poster = card.locator("img")
    poster.scroll_into_view_if_needed()
    page.wait_for_function("() => { const i = document.querySelector('.matsite-card img'); return i.complete && i.naturalWidth > 0; }")
    assert poster.get_attribute("src") == "radar/poster.png"
    snippet = card.get_by_label("Embed code").input_value()
    assert snippet.startswith('<iframe src="') and snippet.endswith("></iframe>")
    for part in ('title="Demo radar"', 'loading="lazy"', "allowfullscreen", 'width="', 'height="', "radar/embed.html"):
        assert part in snippet, part
    assert card.get_by_label("Embed code").get_attribute("readonly") is not None
    assert page.locator("script").count() == 0

    card.locator("h2 a").click()
    wait_state(page, ["ready", "playing"])
    assert page.locator("h1").inner_text() == "Demo radar"
