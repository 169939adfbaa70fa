"""Issue 3, test 5: embed page parameters and the postMessage API."""
import html
import json
import re
import tempfile
from pathlib import Path

import pytest

from helpers import DEMO_CONFIG, BuildFailed, SiteServer, build_site, player_state, read_manifest, wait_state

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

# A parent page that records what it receives and every targetOrigin the
# player passes to its postMessage (same-origin frames call this very function).
PARENT = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>parent</title>
<script>
window.received = []; window.targets = [];
const original = window.postMessage.bind(window);
window.postMessage = function (message, target, transfer) { window.targets.push(target); return original(message, target, transfer); };
window.addEventListener('message', (e) => window.received.push({origin: e.origin, data: e.data}));
</script></head><body><iframe src="%s" width="640" height="400" title="player"></iframe></body></html>"""


def send(page, message):
    page.evaluate("(m) => document.querySelector('iframe').contentWindow.postMessage(m, '*')", message)


def received(page, type_=None):
    msgs = page.evaluate("window.received")
    return [m for m in msgs if type_ is None or (isinstance(m["data"], dict) and m["data"].get("type") == type_)]


def child(page):
    return next(f for f in page.frames if f.url.split("?")[0].endswith("/radar/embed.html"))


def test_parameters_autoplay_loop_speed_frame_controls_utc(tab, server, site_dir):
    m = read_manifest(str(site_dir))
    n = len(m["frames"])
    page = tab.page
    page.goto(server.url("radar/embed.html?autoplay=1&loop=0&speed=2&frame=first&controls=0&utc=1"))
    wait_state(page, "playing")
    assert not page.locator(".matsite-controls").is_visible()
    # speed=2: the clock schedules every frame for half its time. Its own schedule, not a
    # stopwatch around the run, which a loaded machine stretches past any budget.
    shown = page.evaluate("""(n) => { const c = document.querySelector('[data-matsite-player]')._matsitePlayer._clock;
                                      return [...Array(n).keys()].map((i) => c._durationOf(i)); }""", n)
    assert shown == [f["duration_ms"] / 2 for f in m["frames"]], shown
    # loop=0: the run ends on the last frame, paused (waited for, however long it takes).
    wait_state(page, "paused", timeout=0)
    assert player_state(page)["frame"] == n - 1
    # Fills the iframe without scrollbars.
    dims = page.evaluate("""() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight,
                                   innerWidth, innerHeight, document.querySelector('[data-matsite-player]').getBoundingClientRect().height]""")
    assert dims[0] <= dims[2] and dims[1] <= dims[3] and dims[4] == dims[3], dims
    if "time" in m["frames"][-1]:
        assert "UTC" in page.locator('[role="slider"]').get_attribute("aria-valuetext")


@pytest.mark.parametrize("param,expected", [("", -1), ("frame=first", 0), ("frame=last", -1), ("frame=2", 2)])
def test_embed_opens_paused_on_the_requested_frame(tab, server, site_dir, param, expected):
    n = len(read_manifest(str(site_dir))["frames"])
    page = tab.page
    page.goto(server.url("radar/embed.html?" + param))
    wait_state(page, "ready")
    assert player_state(page)["frame"] == (expected if expected >= 0 else n - 1)
    assert page.locator(".matsite-controls").is_visible()
    page.wait_for_timeout(400)
    assert player_state(page)["state"] == "ready"


def test_post_message_commands_events_and_exact_origins(tab, server, site_dir):
    m = read_manifest(str(site_dir))
    n = len(m["frames"])
    server.override("__test/parent.html", (PARENT % "/radar/embed.html").encode(), "text/html")
    page = tab.page
    page.goto(server.url("__test/parent.html"))
    page.wait_for_function("() => window.received.some((m) => m.data && m.data.type === 'matsite:ready')", timeout=20000)
    ready = received(page, "matsite:ready")
    assert ready[0]["data"] == {"type": "matsite:ready", "frames": n}
    assert ready[0]["origin"] == server.origin
    frame = child(page)

    send(page, {"type": "matsite:play"})
    page.wait_for_function("() => window.received.some((m) => m.data.type === 'matsite:state' && m.data.state === 'playing')")
    page.wait_for_function("() => window.received.some((m) => m.data.type === 'matsite:frame')")
    event = received(page, "matsite:frame")[0]["data"]
    assert isinstance(event["index"], int) and 0 <= event["index"] < n
    if "time" in m["frames"][event["index"]]:
        assert event["time"] == m["frames"][event["index"]]["time"]

    send(page, {"type": "matsite:pause"})
    page.wait_for_function("() => window.received.some((m) => m.data.type === 'matsite:state' && m.data.state === 'paused')")
    assert frame.evaluate("document.querySelector('[data-matsite-player]').dataset.state") == "paused"

    send(page, {"type": "matsite:seek", "frame": 3})
    page.wait_for_function("() => window.received.some((m) => m.data.type === 'matsite:frame' && m.data.index === 3)")
    assert frame.evaluate("document.querySelector('[data-matsite-player]').dataset.frame") == "3"

    if "time" in m["frames"][1]:
        send(page, {"type": "matsite:seek", "time": m["frames"][1]["time"]})
        page.wait_for_function("() => document.querySelector('iframe').contentDocument.querySelector('[data-matsite-player]').dataset.frame === '1'")

    # Malformed or unknown messages are ignored, and nothing is evaluated.
    before = frame.evaluate("document.querySelector('[data-matsite-player]').dataset.frame")
    for bad in [
        {"type": "matsite:seek", "frame": "2"},
        {"type": "matsite:seek", "frame": n},
        {"type": "matsite:seek", "frame": -1},
        {"type": "matsite:seek", "frame": 1.5},
        {"type": "matsite:seek", "frame": 2, "extra": True},
        {"type": "matsite:seek", "time": "yesterday"},
        {"type": "matsite:seek"},
        {"type": "matsite:play", "code": "window.pwned = 1"},
        {"type": "matsite:eval", "code": "window.pwned = 1"},
        "window.pwned = 1",
        "{\"type\": \"matsite:play\", \"then\": \"window.pwned = 1\"}",
        ["matsite:play"],
        None,
        42,
    ]:
        send(page, bad)
    page.wait_for_timeout(500)
    assert frame.evaluate("document.querySelector('[data-matsite-player]').dataset.frame") == before
    assert frame.evaluate("document.querySelector('[data-matsite-player]').dataset.state") == "paused"
    assert frame.evaluate("window.pwned === undefined")

    # A JSON string of a valid command is accepted.
    send(page, json.dumps({"type": "matsite:seek", "frame": 0}))
    page.wait_for_function("() => document.querySelector('iframe').contentDocument.querySelector('[data-matsite-player]').dataset.frame === '0'")

    targets = page.evaluate("window.targets")
    assert targets and all(t == server.origin for t in targets), targets


@pytest.fixture
def other_origin():
    """A second server on 127.0.0.1 (another port, so another origin) for the parent page."""
    folder = tempfile.mkdtemp()
    srv = SiteServer(folder)
    yield srv
    srv.stop()


def test_a_foreign_origin_is_ignored_and_an_allowed_one_obeyed(tab, server, site_dir, other_origin):
    m = read_manifest(str(site_dir))
    n = len(m["frames"])
    page = tab.page
    other_origin.override("parent.html", (PARENT % server.url("radar/embed.html")).encode(), "text/html")

    restricted = dict(m, embed={"allowed_origins": ["https://allowed.example"]})
    server.override("radar/manifest.json", json.dumps(restricted).encode(), "application/json")
    page.goto(other_origin.url("parent.html"))
    page.wait_for_function("() => document.querySelector('iframe').contentDocument === null")
    frame = child(page)
    frame.wait_for_function("document.querySelector('[data-matsite-player]').dataset.state === 'ready'", timeout=20000)
    send(page, {"type": "matsite:play"})
    send(page, {"type": "matsite:seek", "frame": 0})
    page.wait_for_timeout(800)
    state = frame.evaluate("[document.querySelector('[data-matsite-player]').dataset.state, document.querySelector('[data-matsite-player]').dataset.frame]")
    assert state == ["ready", str(n - 1)]
    assert received(page) == [], "a parent whose origin is not allowed must get no events"

    allowed = dict(m, embed={"allowed_origins": [other_origin.origin]})
    server.override("radar/manifest.json", json.dumps(allowed).encode(), "application/json")
    page.reload()
    frame = child(page)
    page.wait_for_function("() => window.received.some((m) => m.data.type === 'matsite:ready')", timeout=20000)
    send(page, {"type": "matsite:seek", "frame": 0})
    frame.wait_for_function("document.querySelector('[data-matsite-player]').dataset.frame === '0'")
    assert all(r["origin"] == server.origin for r in received(page))


# The state messages that reached the parent after message `start`, up to the frame event
# `k` that follows the first of them: when the player sent that event, it had finished
# every command sent before it, and messages from one window arrive in the order sent.
STATES_UNTIL_FRAME = """([start, k]) => {
    const states = [];
    for (const m of window.received.slice(start)) {
        const d = m.data;
        if (!d || typeof d !== 'object') continue;
        if (d.type === 'matsite:state') states.push(d.state);
        else if (d.type === 'matsite:frame' && d.index === k && states.length) return states;
    }
    return null;
}"""


def test_each_command_is_answered_with_one_state_event(tab, server, site_dir):
    m = read_manifest(str(site_dir))
    n = len(m["frames"])
    assert n >= 6 and "time" in m["frames"][2]
    server.override("__test/parent.html", (PARENT % "/radar/embed.html").encode(), "text/html")
    page = tab.page
    page.goto(server.url("__test/parent.html"))
    page.wait_for_function("() => window.received.some((m) => m.data && m.data.type === 'matsite:ready')", timeout=20000)
    # The parent page is the referrer, so it receives state events from the start.
    assert [r["data"]["state"] for r in received(page, "matsite:state")] == ["ready"]
    commands = [
        ({"type": "matsite:play"}, "playing"),
        ({"type": "matsite:pause"}, "paused"),
        ({"type": "matsite:pause"}, "paused"),  # no change, and still an answer
        ({"type": "matsite:seek", "frame": 1}, "paused"),
        ({"type": "matsite:seek", "time": m["frames"][2]["time"]}, "paused"),
        ({"type": "matsite:opacity", "value": 0.5}, "paused"),
        ({"type": "matsite:play"}, "playing"),
        ({"type": "matsite:play"}, "playing"),
        ({"type": "matsite:seek", "frame": 0}, "playing"),
        ({"type": "matsite:pause"}, "paused"),
    ]
    for step, (command, state) in enumerate(commands):
        # A seek to a frame none of the commands asks for, sent right after: its frame event
        # closes the command's messages.
        fence = 3 + step % (n - 3)
        start = len(page.evaluate("window.received"))
        send(page, command)
        send(page, {"type": "matsite:seek", "frame": fence})
        states = page.wait_for_function(STATES_UNTIL_FRAME, arg=[start, fence], timeout=20000).json_value()
        assert states == [state], (command, states)
    assert not tab.page_errors and not tab.console_errors


# Issue 26, item 3: the embed code works on another site's page, and the share tags are
# whole URLs, when base_url is. The site is served on a port chosen first, so that its
# base_url can name it.
@pytest.fixture(scope="module")
def absolute_site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("absolute")
    (folder / "site").mkdir()
    srv = SiteServer(str(folder / "site"))
    try:
        try:
            build_site(folder, f"base_url: {srv.origin}/\n" + DEMO_CONFIG)
        except BuildFailed as e:
            pytest.fail(str(e), pytrace=False)
        yield srv, folder / "site"
    finally:
        srv.stop()


def embed_code(site) -> str:
    """The embed code exactly as the index page hands it out."""
    index = (Path(site) / "index.html").read_text(encoding="utf-8")
    return html.unescape(re.search(r'<pre class="matsite-snippet"[^>]*><code>(.*?)</code></pre>', index, re.S).group(1))


INSIDE = """() => {
    const rect = (e) => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; };
    const c = document.querySelector('.matsite-controls');
    return {w: innerWidth, h: innerHeight, scrollH: document.documentElement.scrollHeight,
            scrollW: document.documentElement.scrollWidth, bar: rect(c), map: rect(document.querySelector('.matsite-map')),
            info: rect(document.querySelector('.matsite-info')),
            time: {sw: c.querySelector('.matsite-time').scrollWidth, cw: c.querySelector('.matsite-time').clientWidth}};
}"""


@pytest.mark.parametrize("width", [360, 800, 1280])
def test_the_embed_code_works_on_another_sites_page_at_any_width(tabs, absolute_site, tmp_path, width):
    srv, site = absolute_site
    m = read_manifest(str(site))
    code = embed_code(site)
    host = SiteServer(str(tmp_path))
    try:
        assert host.origin != srv.origin
        host.override("host.html", (
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'><title>A host page</title></head>"
            f"<body style='margin:0'><p>Someone else's page.</p>{code}<p>After the map.</p></body></html>").encode(),
            "text/html")
        tab = tabs.open(viewport={"width": width, "height": 900}, is_mobile=width < 600, has_touch=width < 600)
        page = tab.page
        page.goto(host.url("host.html"))
        iframe = page.locator("iframe")
        assert iframe.get_attribute("src") == f"{srv.origin}/radar/embed.html"
        iframe.scroll_into_view_if_needed()
        # A lazy iframe: waits for its page to load, then for the player.
        page.frame_locator("iframe").locator('[data-matsite-player][data-state="ready"]').wait_for(timeout=20000)
        frame = iframe.element_handle().content_frame()
        # Full width, the frames' aspect ratio for the map and the bar's own height below it.
        box = iframe.bounding_box()
        assert abs(box["width"] - width) <= 1, box
        r = frame.evaluate(INSIDE)
        # The controls: three rows up to 768 px, two above; the legend's row under the map.
        bar = 125 if width <= 768 else 104
        assert abs(r["bar"]["h"] - bar) <= 2, (r["bar"], bar)
        assert abs(r["info"]["h"] - 26) <= 1, r["info"]
        assert abs(box["height"] - (width * m["height"] / m["width"] + bar + 26)) <= 2, (box, bar)
        assert abs(r["map"]["h"] - width * m["height"] / m["width"]) <= 2, (r["map"], box)
        # Nothing cut: the bar whole inside the frame, no scrolling, the time label whole.
        assert r["bar"]["y"] + r["bar"]["h"] <= r["h"] + 0.5, r
        assert r["scrollH"] <= r["h"] and r["scrollW"] <= r["w"], r
        assert r["time"]["sw"] <= r["time"]["cw"], r["time"]
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"embed-host-{width}.png"), full_page=True)
        assert not tab.page_errors, tab.page_errors
    finally:
        host.stop()


def test_share_tags_are_whole_urls_from_base_url(tab, absolute_site):
    srv, site = absolute_site
    page = tab.page
    page.goto(srv.url("radar/index.html?autoplay=0"))
    meta = lambda attr, name: page.locator(f'meta[{attr}="{name}"]').get_attribute("content")  # noqa: E731
    assert meta("property", "og:image") == f"{srv.origin}/radar/poster.png"
    assert meta("property", "og:url") == f"{srv.origin}/radar/index.html"
    assert meta("name", "twitter:card") == "summary_large_image"
    assert page.evaluate("async (u) => (await fetch(u)).headers.get('content-type')", meta("property", "og:image")) == "image/png"


def test_with_a_relative_base_url_the_tags_stay_relative(tab, server, site_dir):
    page = tab.page
    page.goto(server.url("radar/index.html?autoplay=0"))
    assert page.locator('meta[property="og:image"]').get_attribute("content") == "poster.png"
    assert page.locator('meta[property="og:url"]').count() == 0
    assert 'src="/radar/embed.html"' in embed_code(site_dir)
