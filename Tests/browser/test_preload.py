"""Issue 3, test 1: playback cannot start before every frame decoded."""
import json
import time

from helpers import open_holding_frames, player_state, read_manifest, wait_state


def test_a_held_back_frame_blocks_playback_and_the_progress_counts_it(tab, server, site_dir):
    manifest = read_manifest(str(site_dir))
    n = len(manifest["frames"])
    assert n >= 3
    held = manifest["frames"][n // 2]["url"]
    release = server.hold(held)
    page = tab.page
    open_holding_frames(page, server.url("radar/index.html"))
    # Every other frame arrives; the held one does not.
    page.wait_for_function(
        "(t) => (document.querySelector('.matsite-progress') || {}).textContent === t",
        arg=f"{n - 1} / {n} frames", timeout=20000,
    )
    first = player_state(page)
    assert first["state"] == "loading"
    assert first["playDisabled"] is True
    # Nothing the viewer does can start playback, and no frame change happens.
    page.focus("[data-matsite-player]")
    page.keyboard.press("Space")
    page.keyboard.press("ArrowRight")
    seen = set()
    for _ in range(8):
        s = player_state(page)
        seen.add((s["state"], s["frame"]))
        time.sleep(0.1)
    assert seen == {("loading", first["frame"])}, seen
    assert server.requested(held) == 1
    release.set()
    wait_state(page, ["playing"])
    assert player_state(page)["progress"] == ""
    page.wait_for_function(
        "(f) => Number(document.querySelector('[data-matsite-player]').dataset.frame) !== f",
        arg=first["frame"], timeout=5000,
    )
    assert not tab.page_errors


def test_a_missing_frame_shows_a_clear_message(tab, server, site_dir):
    manifest = read_manifest(str(site_dir))
    broken = dict(manifest)
    broken["frames"] = [dict(f) for f in manifest["frames"]]
    broken["frames"][1]["url"] = "frames/does-not-exist.png"
    server.override("radar/manifest.json", json.dumps(broken).encode(), "application/json")
    page = tab.page
    page.goto(server.url("radar/index.html"))
    page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.error", timeout=20000)
    s = player_state(page)
    assert s["state"] == "loading"
    assert "Frame 2 of" in s["error"] and "404" in s["error"], s["error"]
    assert page.locator(".matsite-status").inner_text().find("404") >= 0


def test_a_half_written_manifest_is_read_again_and_the_loop_plays(tab, server, site_dir):
    # What a reader of an SFTP target can get while a deploy rewrites the manifest in place:
    # the first half of it, once. The player asks again and plays; it never says "failed".
    whole = (site_dir / "radar" / "manifest.json").read_bytes()
    server.override("radar/manifest.json", whole[: len(whole) // 2], "application/json", times=1)
    page = tab.page
    page.goto(server.url("radar/index.html"))
    wait_state(page, ["ready", "playing"])
    # The page's preload got the half; the player's second try, past the cache, the whole.
    assert server.requested("radar/manifest.json") == 2
    assert not player_state(page).get("error")


def test_a_manifest_that_stays_broken_fails_clearly_after_two_more_tries(tab, server, site_dir):
    server.override("radar/manifest.json", b'{"frames": [', "application/json")
    page = tab.page
    page.goto(server.url("radar/index.html"))
    page.wait_for_function("() => document.querySelector('[data-matsite-player]').dataset.error", timeout=20000)
    assert server.requested("radar/manifest.json") == 3
    assert "could not be loaded" in player_state(page)["error"]
