"""Issue 37, item 5: past and future on one timeline. Two sites built by matsite at a fixed
clock (`--at 10:55`) over a tile feed on 127.0.0.1 whose tiles are drawn from their time:
`window`, a rolling window reaching into the future (`last: PT1H, next: PT30M, step:
PT10M`): observed frames 09:50 to 10:50, forecasts 11:00 to 11:20; `model`, a model's
`{run}/{time}` template (`runs: { every: PT1H, delay: PT50M }`) over 10:20 to 11:20, every
frame a forecast of run 10:00, those up to 10:50 in the past. Tests: the now mark between
the frame now follows and the next at 390 and 1280 px (nothing overflowing), the forecast
labels and `aria-valuetext` (with the run), `data-kind`, playback opening at now and playing
on through the forecast, `frame=now`, `matsite:frame` with kind and run, `matsite:seek` to
now, the site index's line, and axe on every page with a forecast shown.
Screenshots: artifacts/forecast-*.png."""
from __future__ import annotations

import http.server
import io
import re
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from helpers import BuildFailed, SiteServer, build_site, read_manifest, wait_state

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
AT = "2026-11-21T10:55:00Z"

# What the three sites share: one animation over the same box, at the same pace
# (animation(site, title) names them); each config adds its frames and source or layers.
ANIMATION = """\
title: SITE
base_map: {{ demo: true }}
animations:
  - id: radar
    title: TITLE
    bbox: [-10.0, 40.0, 10.0, 52.0]
    zoom: 4
    frame_duration_ms: 250
    last_frame_duration_ms: 500
    crossfade_ms: 100
"""

# The feed's two kinds of source, in the config's terms: observed tiles by time, and a
# model's by run and valid time.
OBSERVED = """source: {{ url: "{feed}/radar/{{time}}/{{z}}/{{x}}/{{y}}.png" }}
time_format: "%Y%m%d%H%M"
"""
MODEL = """source: {{ url: "{feed}/model/{{run}}/{{time}}/{{z}}/{{x}}/{{y}}.png" }}
time_format: "%Y%m%d%H%M"
runs: {{ every: PT1H, delay: PT50M }}
run_format: "%Y%m%d%H"
"""


def animation(site: str, title: str) -> str:
    return ANIMATION.replace("SITE", site).replace("TITLE", title)


def indent(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in text.splitlines())


FORECAST_CONFIG = animation("Forecast", "Radar and nowcast") + indent(OBSERVED, 4) + \
    "    frames: {{ last: PT1H, next: PT30M, step: PT10M }}\n"

MODEL_CONFIG = animation("Model", "Model rain") + indent(MODEL, 4) + \
    "    frames: {{ last: PT30M, next: PT30M, step: PT10M }}\n"

# The radar observed up to now under the model's run after it, as layers of one timeline.
LAYERS_CONFIG = animation("Layers", "Radar then model") + \
    "    frames: {{ last: PT30M, next: PT30M, step: PT10M }}\n    layers:\n" + \
    "      - id: radar\n        title: Radar\n" + indent(OBSERVED, 8) + "        frames: {{ last: PT30M, step: PT10M }}\n" + \
    "      - id: model\n        title: Model\n" + indent(MODEL, 8)


def tile_png(stamp: str, z: int, x: int, y: int) -> bytes:
    """A 256 px tile of a rain cell that drifts east with its time (`%Y%m%d%H%M`), so
    every frame differs; transparent around it."""
    from PIL import Image, ImageDraw
    minutes = int(stamp[8:10]) * 60 + int(stamp[10:12])
    image = Image.new("RGBA", (256, 256), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    # The cell's centre in global pixels at z 4 (the frames' zoom: the box spans x 1934 to
    # 2162), from the box's west third at 09:50 eastwards by 1.2 px a minute.
    cx, cy = 1990 + (minutes - 590) * 1.2 - x * 256, 1455 - y * 256
    for radius, colour in ((40, (120, 200, 230, 255)), (25, (240, 230, 40, 255)), (10, (200, 20, 20, 255))):
        draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=colour)
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


class TileFeed:
    """Serves /radar/<time>/<z>/<x>/<y>.png and /model/<run>/<time>/<z>/<x>/<y>.png on
    127.0.0.1 for every time and run asked: a feed whose past and future are both there."""

    def __init__(self):
        feed = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):  # noqa: D102 - quiet
                pass

            def do_GET(self):  # noqa: N802
                m = re.fullmatch(r"/(?:radar|model/\d{10})/(\d{12})/(\d+)/(\d+)/(\d+)\.png", self.path)
                if not m:
                    self.send_error(404)
                    return
                body = tile_png(m.group(1), *map(int, m.group(2, 3, 4)))
                feed.asked.append(m.group(1))
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.asked: list[str] = []
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def stop(self):
        self._httpd.shutdown()
        self._httpd.server_close()


def build(tmp: Path, config: str) -> Path:
    """The site of `config` (FORECAST_CONFIG or MODEL_CONFIG) built at AT from a TileFeed."""
    feed = TileFeed()
    try:
        return build_site(tmp, config.format(feed=feed.origin), args=["--at", AT])
    except BuildFailed as e:
        pytest.fail(str(e), pytrace=False)
    finally:
        feed.stop()


@pytest.fixture(scope="module")
def forecast_site(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("forecast"), FORECAST_CONFIG)


@pytest.fixture(scope="module")
def forecast_server(forecast_site):
    srv = SiteServer(str(forecast_site))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def model_server(tmp_path_factory):
    srv = SiteServer(str(build(tmp_path_factory.mktemp("model"), MODEL_CONFIG)))
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def _fresh(request):
    yield
    for name in ("forecast_server", "model_server", "layers_server"):
        if name in request.fixturenames:
            request.getfixturevalue(name).clear()


@pytest.fixture(scope="module")
def manifest(forecast_site) -> dict:
    return read_manifest(str(forecast_site))


@pytest.fixture(scope="module")
def layers_server(tmp_path_factory):
    srv = SiteServer(str(build(tmp_path_factory.mktemp("layers"), LAYERS_CONFIG)))
    yield srv
    srv.stop()


@pytest.fixture(params=["window", "model", "layers"])
def loop(request):
    """Each site, as (server, manifest)."""
    server = request.getfixturevalue(f"{'forecast' if request.param == 'window' else request.param}_server")
    return server, read_manifest(server.root)


def parse(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def kinds(m: dict) -> list[str]:
    return [f.get("kind", "observed") for f in m["frames"]]


def now_index(m: dict) -> int:
    """The index of the frame now follows: the newest at or before the manifest's now (for
    the window, the newest observed frame)."""
    return max(i for i, f in enumerate(m["frames"]) if parse(f["time"]) <= parse(m["now"]))


def clock_words(iso: str) -> str:
    """`2026-11-21T10:00:00Z` as en-US in UTC writes the clock: `10:00 AM UTC`."""
    t = parse(iso)
    return f"{t.hour % 12 or 12}:{t.minute:02d} {'AM' if t.hour < 12 else 'PM'} UTC"


def test_the_builds_made_observed_frames_then_forecasts_and_a_models_run(manifest, model_server, layers_server):
    # What the rest relies on: the windows at 10:55, now in the manifests, the kinds in order.
    times = [f["time"] for f in manifest["frames"]]
    assert manifest["now"] == AT
    assert times[0] == "2026-11-21T09:50:00Z" and times[-1] == "2026-11-21T11:20:00Z", times
    assert kinds(manifest) == ["observed"] * 7 + ["forecast"] * 3, kinds(manifest)
    assert not any("run" in f for f in manifest["frames"])
    model = read_manifest(model_server.root)
    assert model["now"] == AT and kinds(model) == ["forecast"] * 7, model["frames"]
    assert [f["time"][11:16] for f in model["frames"]] == ["10:20", "10:30", "10:40", "10:50", "11:00", "11:10", "11:20"]
    assert {f["run"] for f in model["frames"]} == {"2026-11-21T10:00:00Z"}
    # Layered: the radar up to 10:50, the model's run after it; neither where the other is.
    layered = read_manifest(layers_server.root)
    assert kinds(layered) == ["observed"] * 4 + ["forecast"] * 3, layered["frames"]
    assert [f.get("run") for f in layered["frames"]] == [None] * 4 + ["2026-11-21T10:00:00Z"] * 3
    assert [[i is not None for i in f["layers"]] for f in layered["frames"]] == [[True, False]] * 4 + [[False, True]] * 3


SLIDER = """() => {
    const r = document.querySelector('[data-matsite-player]');
    const box = (e) => { const q = e.getBoundingClientRect(); return {l: q.left, r: q.right, t: q.top, b: q.bottom, x: q.left + q.width / 2}; };
    const marks = r.querySelectorAll('[data-now]');
    const slider = r.querySelector('[role="slider"]');
    return {
        frame: Number(r.dataset.frame), kind: r.dataset.kind || null, marks: marks.length,
        now: marks.length ? box(marks[0]) : null, thumb: box(r.querySelector('.matsite-thumb')),
        track: box(r.querySelector('.matsite-track')), slider: box(slider),
        stripes: box(r.querySelector('.matsite-forecast-track')),
        word: box(r.querySelector('.matsite-now-word')),
        valuetext: slider.getAttribute('aria-valuetext'), label: r.querySelector('.matsite-time').textContent,
        forecastLabel: r.querySelector('.matsite-time').classList.contains('matsite-forecast'),
        labelLines: (() => { const q = document.createRange(); q.selectNodeContents(r.querySelector('.matsite-time'));
            return new Set([...q.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top))).size; })(),
        pageWidth: document.documentElement.scrollWidth, viewport: innerWidth,
        inside: [...r.querySelectorAll('.matsite-controls > *')].every((e) => e.getBoundingClientRect().right <= innerWidth + 0.5),
    };
}"""


def message(m: dict, i: int) -> dict:
    """The matsite:frame message frame `i` of manifest `m` makes."""
    f = m["frames"][i]
    return {"type": "matsite:frame", "index": i, "time": f["time"], "kind": f.get("kind", "observed"),
            **({"run": f["run"]} if "run" in f else {})}


@pytest.mark.parametrize("page_path", ["radar/index.html", "radar/embed.html"])
@pytest.mark.parametrize("width,height", [(390, 844), (1280, 800)])
def test_the_now_mark_sits_between_the_frame_now_follows_and_the_next(tabs, loop, page_path, width, height):
    server, manifest = loop
    tab = tabs.open(viewport={"width": width, "height": height})
    page = tab.page
    page.goto(server.url(page_path + "?autoplay=0"))
    wait_state(page, "ready")
    newest = now_index(manifest)
    at_now = page.evaluate(SLIDER)
    assert at_now["frame"] == newest and at_now["kind"] == manifest["frames"][newest].get("kind", "observed"), at_now
    assert at_now["marks"] == 1, at_now
    # Step once: the first frame after now, a forecast, by the keyboard as a viewer would.
    page.locator('[role="slider"]').focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.frame === '%d'" % (newest + 1))
    at_forecast = page.evaluate(SLIDER)
    assert at_forecast["kind"] == "forecast" and at_forecast["forecastLabel"], at_forecast
    # A forecast's label, run and all, on one line of the bar beside the other controls.
    assert width < 768 or at_forecast["labelLines"] == 1, at_forecast
    mark, before, after = at_now["now"], at_now["thumb"]["x"], at_forecast["thumb"]["x"]
    # Between the two steps' thumbs, clear of both centres.
    assert before + 1 < mark["x"] < after - 1, (before, mark, after)
    # The stripes from the first forecast on (where now is, after the observed frames; the
    # whole track for a model's frames) to the track's end.
    start = mark["x"] if kinds(manifest)[0] == "observed" else at_now["track"]["l"]
    assert abs(at_now["stripes"]["l"] - start) <= 1.5 and abs(at_now["stripes"]["r"] - at_now["track"]["r"]) <= 1.5, at_now
    # The mark and its word inside the slider, nothing past the page's width.
    for part in (mark, at_now["word"]):
        assert at_now["slider"]["l"] <= part["l"] and part["r"] <= at_now["slider"]["r"], (part, at_now["slider"])
        assert at_now["slider"]["t"] <= part["t"] and part["b"] <= at_now["slider"]["b"], (part, at_now["slider"])
    assert at_now["pageWidth"] <= at_now["viewport"] and at_now["inside"], at_now
    ARTIFACTS.mkdir(exist_ok=True)
    name = page_path.split("/")[1].split(".")[0]
    page.screenshot(path=str(ARTIFACTS / f"forecast-{manifest['title'].lower().replace(' ', '-')}-{name}-{width}.png"), full_page=True)
    assert not tab.console_errors and not tab.page_errors, (tab.console_errors, tab.page_errors)


def test_forecast_labels_say_forecast_how_far_from_now_and_the_run(tab, loop):
    server, manifest = loop
    page = tab.page
    page.goto(server.url("radar/index.html?autoplay=0&frame=first"))
    wait_state(page, "ready")
    now = parse(manifest["now"])
    newest = now_index(manifest)
    slider = page.locator('[role="slider"]')
    slider.focus()
    for i, frame in enumerate(manifest["frames"]):
        if i:
            page.keyboard.press("ArrowRight")
        page.wait_for_function("(i) => document.querySelector('[data-matsite-player]').dataset.frame === String(i)", arg=i)
        state = page.evaluate(SLIDER)
        text = state["valuetext"]
        assert state["label"] == text and state["kind"] == frame.get("kind", "observed"), (i, state)
        # A layer of one kind has nothing at the other's steps by design: not "no data" there.
        assert "no data" not in text, text
        if frame.get("kind") == "forecast":
            minutes = round((parse(frame["time"]) - now).total_seconds() / 60)
            when = f"in {minutes} minutes" if minutes > 0 else f"{-minutes} minutes ago"
            # The day of now: the clock alone.
            assert text.startswith(f"Forecast, {when} \u00b7 {clock_words(frame['time'])}"), text
            run = frame.get("run")
            assert text.endswith(f" \u00b7 run {clock_words(run)}") if run else ("run" not in text), text
            assert state["forecastLabel"], state
        else:
            assert "Forecast" not in text and not state["forecastLabel"], state
            assert text.endswith("\u00b7 newest observed") == (i == newest), text


def test_playback_opens_at_now_and_plays_on_through_the_forecast(tab, loop):
    server, manifest = loop
    n = len(manifest["frames"])
    newest = now_index(manifest)
    page = tab.page
    # Every frame the root shows, from the first: the player's own data-frame as it changes.
    page.add_init_script("""
        window.shown = [];
        new MutationObserver((records) => records.forEach((r) => {
            const v = r.target.getAttribute('data-frame');
            if (r.target.hasAttribute('data-matsite-player') && v !== null && window.shown[window.shown.length - 1] !== v) { window.shown.push(v); }
        })).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-frame']});
    """)
    page.goto(server.url("radar/index.html"))
    wait_state(page, "playing")
    # Until it has looped back to the start and on to the second frame.
    page.wait_for_function("() => window.shown.join(',').includes(',0,1')", timeout=0)
    shown = [int(v) for v in page.evaluate("window.shown")]
    expected = list(range(newest, n)) + [0, 1]
    assert shown[:len(expected)] == expected, shown


def test_frame_now_and_the_other_frame_parameters(tab, loop):
    server, manifest = loop
    n = len(manifest["frames"])
    page = tab.page
    for param, expected in (("frame=now", now_index(manifest)), ("", now_index(manifest)), ("frame=first", 0),
                            ("frame=last", n - 1), (f"frame={n - 2}", n - 2)):
        page.goto(server.url("radar/embed.html?" + param))
        wait_state(page, "ready")
        state = page.evaluate(SLIDER)
        assert state["frame"] == expected, (param, state)
        assert state["kind"] == manifest["frames"][expected].get("kind", "observed"), (param, state)


PARENT = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>parent</title>
<script>window.received = []; window.addEventListener('message', (e) => window.received.push(e.data));</script>
</head><body><iframe src="/radar/embed.html" width="640" height="400" title="player"></iframe></body></html>"""


def test_frame_messages_carry_kind_and_run_and_seek_goes_to_now(tab, loop):
    server, manifest = loop
    server.override("__test/parent.html", PARENT.encode(), "text/html")
    page = tab.page
    page.goto(server.url("__test/parent.html"))
    page.wait_for_function("() => window.received.some((m) => m.type === 'matsite:ready')", timeout=20000)
    n = len(manifest["frames"])

    def seek(frame):
        count = page.evaluate("window.received.length")
        page.evaluate("(f) => document.querySelector('iframe').contentWindow.postMessage({type: 'matsite:seek', frame: f}, '*')",
                      frame)
        page.wait_for_function("(c) => window.received.slice(c).some((m) => m.type === 'matsite:frame')", arg=count)
        return next(m for m in page.evaluate("window.received")[count:] if m["type"] == "matsite:frame")

    assert seek(n - 1) == message(manifest, n - 1)
    assert seek(0) == message(manifest, 0)
    assert seek("now") == message(manifest, now_index(manifest))
    # The forecasts name their run when they have one, and only then.
    assert ("run" in message(manifest, n - 1)) == (manifest["title"] != "Radar and nowcast")


def test_the_index_says_where_the_observed_frames_and_the_forecast_end(tab, loop):
    server, manifest = loop
    page = tab.page
    page.goto(server.url("index.html"))
    meta = page.locator(".matsite-card-meta")
    frames = manifest["frames"]
    times = meta.locator("time").evaluate_all("(ts) => ts.map((t) => t.getAttribute('datetime'))")
    run = frames[-1].get("run")
    if kinds(manifest)[0] == "observed":
        observed = frames[now_index(manifest)]["time"]
        assert times == [frames[0]["time"], observed, frames[-1]["time"]] + ([run] if run else []), times
        span = f"observed Nov 21, 2026, {clock_words(frames[0]['time'])} to {clock_words(observed)}, forecast to"
    else:
        assert times == [frames[0]["time"], frames[-1]["time"]] + ([run] if run else []), times
        span = f"forecast Nov 21, 2026, {clock_words(frames[0]['time'])} to"
    words = f"{len(frames)} frames, {span} {clock_words(frames[-1]['time'])}" + (f" (run {clock_words(run)})" if run else "")
    assert meta.inner_text() == words


@pytest.mark.parametrize("page_path", ["index.html", "radar/index.html", "radar/embed.html"])
@pytest.mark.parametrize("width,height", [(390, 844), (1280, 800)])
def test_axe_finds_no_violation_with_a_forecast_shown(tabs, loop, page_path, width, height):
    server, manifest = loop
    tab = tabs.open(viewport={"width": width, "height": height})
    page = tab.page
    first = now_index(manifest) + 1
    if page_path == "index.html":
        page.goto(server.url(page_path))
        page.wait_for_load_state("load")
    else:
        page.goto(server.url(f"{page_path}?autoplay=0&frame={first}"))
        wait_state(page, "ready")
        assert page.evaluate("document.querySelector('[data-matsite-player]').dataset.kind") == "forecast"
    violations = Axe().run(page).response["violations"]
    assert not violations, [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:5]) for v in violations]
