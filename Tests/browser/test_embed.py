"""Issue 3, test 5: embed page parameters and the postMessage API."""
import json
import tempfile
import time

import pytest

from helpers import SiteServer, player_state, read_manifest, wait_state

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
    total = sum(f["duration_ms"] for f in m["frames"])
    page = tab.page
    page.goto(server.url("radar/embed.html?autoplay=1&loop=0&speed=2&frame=first&controls=0&utc=1"))
    wait_state(page, "playing")
    started = time.monotonic()
    assert not page.locator(".matsite-controls").is_visible()
    wait_state(page, "paused", timeout=total * 3)
    elapsed = (time.monotonic() - started) * 1000
    assert player_state(page)["frame"] == n - 1
    assert elapsed < total * 0.9, f"a 2x run took {elapsed:.0f} ms of {total} ms"
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
