"""Issue 3, test 3: controls, slider, keyboard and ARIA attributes do what they say."""
import re

import pytest

from helpers import player_state, read_manifest, wait_state

ROOT = "[data-matsite-player]"


def frame(page):
    return player_state(page)["frame"]


def front_layer(page):
    """The frame image on top: its URL tail, opacity and running animations."""
    return page.evaluate("""() => {
        const imgs = [...document.querySelectorAll('img.matsite-frame')];
        const z = (i) => Number(getComputedStyle(i).zIndex) || 0;
        const top = imgs.sort((a, b) => z(b) - z(a))[0];
        return {src: top.getAttribute('src'), opacity: Number(getComputedStyle(top).opacity),
                animations: imgs.reduce((n, i) => n + i.getAnimations().length, 0)};
    }""")


@pytest.fixture
def paused(tabs, server, site_dir):
    """The full-page player opened paused (autoplay=0), in New York time."""
    tab = tabs.open(timezone_id="America/New_York")
    tab.page.goto(server.url("radar/index.html?autoplay=0"))
    wait_state(tab.page, "ready")
    return tab.page, read_manifest(str(site_dir))


def test_it_opens_paused_on_the_newest_frame_with_labelled_controls(paused):
    page, m = paused
    n = len(m["frames"])
    assert frame(page) == n - 1
    for name in ("Play", "Previous frame", "Next frame"):
        assert page.get_by_role("button", name=name, exact=True).count() == 1, name
    slider = page.locator('[role="slider"]')
    assert slider.count() == 1
    assert slider.get_attribute("aria-valuemin") == "0"
    assert slider.get_attribute("aria-valuemax") == str(n - 1)
    assert slider.get_attribute("aria-valuenow") == str(n - 1)
    text = slider.get_attribute("aria-valuetext")
    assert text == page.locator(".matsite-time").inner_text()
    assert page.locator(".matsite-time").get_attribute("aria-live") == "polite"
    last = m["frames"][-1]
    if "time" in last:
        # The viewer's zone (New York), not UTC; 12-hour clock for en-US.
        hour = (int(last["time"][11:13]) - 5) % 24
        assert re.search(rf"\b{hour % 12 or 12}:{last['time'][14:16]}\b", text), text
        assert re.search(r"\b(AM|PM)\b", text) and ("EST" in text or "EDT" in text), text
    else:
        assert text == f"Frame {n} of {n}"


def test_utc_parameter_shows_times_in_utc(tabs, server, site_dir):
    m = read_manifest(str(site_dir))
    last = m["frames"][-1]
    # conftest builds the test site with frames.times, so every frame has a time.
    assert "time" in last, "the test site's frames must carry times"
    tab = tabs.open(timezone_id="America/New_York")
    tab.page.goto(server.url("radar/index.html?autoplay=0&utc=1"))
    wait_state(tab.page, "ready")
    text = tab.page.locator('[role="slider"]').get_attribute("aria-valuetext")
    hour = int(last["time"][11:13])
    assert "UTC" in text and re.search(rf"\b{hour % 12 or 12}:{last['time'][14:16]}\b", text), text


def test_buttons_step_and_wrap(paused):
    page, m = paused
    n = len(m["frames"])
    page.get_by_role("button", name="Next frame", exact=True).click()
    assert frame(page) == 0
    assert page.locator('[role="slider"]').get_attribute("aria-valuenow") == "0"
    page.get_by_role("button", name="Previous frame", exact=True).click()
    assert frame(page) == n - 1
    page.get_by_role("button", name="Previous frame", exact=True).click()
    assert frame(page) == n - 2
    assert player_state(page)["state"] == "ready"


def test_play_pause_button_and_labels(paused):
    page, _ = paused
    page.get_by_role("button", name="Play", exact=True).click()
    wait_state(page, "playing")
    assert page.get_by_role("button", name="Pause", exact=True).count() == 1
    assert page.locator(".matsite-time").get_attribute("aria-live") == "off"
    page.get_by_role("button", name="Pause", exact=True).click()
    wait_state(page, "paused")
    assert page.get_by_role("button", name="Play", exact=True).count() == 1
    stopped = frame(page)
    page.wait_for_timeout(700)
    assert frame(page) == stopped


def test_keyboard_works_only_with_focus_and_without_modifiers(paused):
    page, m = paused
    n = len(m["frames"])
    # Focus outside the player: keys do nothing to it.
    page.locator("a").first.focus()
    for key in ("ArrowLeft", "Home", "Space"):
        page.keyboard.press(key)
    assert frame(page) == n - 1 and player_state(page)["state"] == "ready"

    page.focus(ROOT)
    page.keyboard.press("Home")
    assert frame(page) == 0
    page.keyboard.press("ArrowRight")
    assert frame(page) == 1
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert frame(page) == n - 1
    page.keyboard.press("Home")
    page.keyboard.press("End")
    assert frame(page) == n - 1
    for combo in ("Shift+ArrowLeft", "Control+ArrowLeft", "Alt+Home", "Meta+Home", "Control+Space"):
        page.keyboard.press(combo)
    assert frame(page) == n - 1 and player_state(page)["state"] == "ready"

    page.keyboard.press("Space")
    wait_state(page, "playing")
    page.keyboard.press("Space")
    wait_state(page, "paused")

    # Keys on the focused slider act the same.
    page.focus('[role="slider"]')
    page.keyboard.press("Home")
    assert frame(page) == 0


def test_slider_click_and_drag_jump_without_fade(paused):
    page, m = paused
    n = len(m["frames"])
    track = page.locator(".matsite-track").bounding_box()
    y = track["y"] + track["height"] / 2
    page.mouse.click(track["x"] + 1, y)
    assert frame(page) == 0
    layer = front_layer(page)
    assert layer["src"].endswith(m["frames"][0]["url"]) and layer["opacity"] == 1 and layer["animations"] == 0

    # Drag across: every position maps to a frame, ending on the last.
    page.mouse.move(track["x"] + 1, y)
    page.mouse.down()
    seen = []
    for i in range(1, 11):
        page.mouse.move(track["x"] + track["width"] * i / 10, y)
        seen.append(frame(page))
    page.mouse.up()
    assert seen[-1] == n - 1
    assert seen == sorted(seen)
    layer = front_layer(page)
    assert layer["src"].endswith(m["frames"][-1]["url"]) and layer["animations"] == 0


def test_speed_and_loop_buttons(paused):
    page, _ = paused
    speed = page.get_by_role("button", name="Playback speed", exact=True)
    assert speed.inner_text().strip() == "1×"
    speed.click()
    assert speed.inner_text().strip() == "2×"
    speed.click()
    assert speed.inner_text().strip() == "½×"
    loop = page.get_by_role("button", name="Loop", exact=True)
    assert loop.get_attribute("aria-pressed") == "true"
    loop.click()
    assert loop.get_attribute("aria-pressed") == "false"


def test_fullscreen_button_is_offered(paused):
    page, _ = paused
    assert page.evaluate("document.fullscreenEnabled"), "headless Chromium offers full screen"
    button = page.get_by_role("button", name="Full screen", exact=True)
    assert button.count() == 1
    button.click()
    page.wait_for_function("() => document.fullscreenElement === document.querySelector('[data-matsite-player]')")
    # The label follows the fullscreenchange event, which may come a moment after.
    page.get_by_role("button", name="Exit full screen", exact=True).wait_for(timeout=5000)
