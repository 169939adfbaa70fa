"""Fixtures for the player's real-browser tests.

The site under test is built by the real binary: `$MATSITE_BIN build --config
<tmp>/matsite.yml --output <tmp>/site` (MATSITE_BIN defaults to
.build/debug/matsite) from the offline `demo` source. Set MATSITE_TEST_SITE to
an already built site folder to skip the build (handy while editing the player:
the folder must hold an animation with id `radar`).

Every page runs in a context whose requests are all routed: anything not for
127.0.0.1 is aborted and recorded, and a test fails if one happened.
"""
from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import sync_playwright

from helpers import (DEMO_CONFIG, FEATURES_CONFIG, LEVELS_CONFIG, PYRAMID_CONFIG, STRICT_CSP, XSS_CONFIG, BuildFailed,
                     SiteServer, build_pyramid_site, build_site, layers_config, satellite_tiles)

CHROMIUM = os.environ.get("MATSITE_CHROMIUM", "/usr/bin/chromium")


def _build(tmp: Path, config: str) -> Path:
    try:
        return build_site(tmp, config)
    except BuildFailed as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory) -> Path:
    prebuilt = os.environ.get("MATSITE_TEST_SITE")
    if prebuilt:
        return Path(prebuilt)
    return _build(tmp_path_factory.mktemp("demo"), DEMO_CONFIG)


@pytest.fixture(scope="session")
def xss_site_dir(tmp_path_factory) -> Path:
    prebuilt = os.environ.get("MATSITE_TEST_XSS_SITE")
    if prebuilt:
        return Path(prebuilt)
    return _build(tmp_path_factory.mktemp("xss"), XSS_CONFIG)


@pytest.fixture(scope="session")
def features_site_dir(tmp_path_factory) -> Path:
    return _build(tmp_path_factory.mktemp("features"), FEATURES_CONFIG)


# True: Tests/browser/pyramid_standin.py cuts the levels from a normal build (for a binary
# without `pyramid:`). False: the binary's own `pyramid:` output.
PYRAMID_STAND_IN = False


def build_pyramid(tmp: Path, config: str) -> Path:
    """A site built from `config` (which has a `pyramid:` key), levels published."""
    try:
        return build_pyramid_site(tmp, config, PYRAMID_STAND_IN)
    except BuildFailed as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def pyramid_site_dir(tmp_path_factory) -> Path:
    """The site of every pyramid test: frames of two levels (helpers.PYRAMID_CONFIG).
    MATSITE_TEST_PYRAMID_SITE: such a site already built (development)."""
    prebuilt = os.environ.get("MATSITE_TEST_PYRAMID_SITE")
    if prebuilt:
        return Path(prebuilt)
    return build_pyramid(tmp_path_factory.mktemp("pyramid"), PYRAMID_CONFIG)


@pytest.fixture(scope="session")
def pyramid_server(pyramid_site_dir):
    srv = SiteServer(str(pyramid_site_dir))
    yield srv
    srv.stop()


# True: Tests/browser/levels_standin.py cuts the reduced levels from a normal build (for a
# binary that does not write them). False: the binary's own.
LEVELS_STAND_IN = False


@pytest.fixture(scope="session")
def levels_site_dir(tmp_path_factory) -> Path:
    """The site of the reduced-levels tests: six frames of 1820 x 1581 px, each with levels at
    a half and a quarter (helpers.LEVELS_CONFIG). MATSITE_TEST_LEVELS_SITE: such a site
    already built (development)."""
    prebuilt = os.environ.get("MATSITE_TEST_LEVELS_SITE")
    if prebuilt:
        return Path(prebuilt)
    site = _build(tmp_path_factory.mktemp("levels"), LEVELS_CONFIG)
    if LEVELS_STAND_IN:
        import levels_standin
        levels_standin.cut(site)
    return site


@pytest.fixture(scope="session")
def levels_server(levels_site_dir):
    srv = SiteServer(str(levels_site_dir))
    yield srv
    srv.stop()


def build_layers(tmp: Path, steps: int, levels: bool = False) -> Path:
    """A site whose animation `storm` has two data layers (helpers.LAYERS_CONFIG) over
    `steps` timeline steps; with `levels`, the radar's frames published as levels too."""
    satellite_tiles(tmp, steps)
    try:
        return build_site(tmp, layers_config(steps, levels=levels), expect="storm")
    except BuildFailed as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def layers_site_dir(tmp_path_factory) -> Path:
    """The site of test_layers.py: a JPEG satellite every 10 minutes under a PNG radar every 5."""
    return build_layers(tmp_path_factory.mktemp("layers"), 8)


@pytest.fixture(scope="session")
def layers_server(layers_site_dir):
    """Serves the layers site under the strict CSP the README promises."""
    srv = SiteServer(str(layers_site_dir), csp=STRICT_CSP)
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def layers_levels_site_dir(tmp_path_factory) -> Path:
    """The layers site with the radar's frames published as levels (a pyramid layer over an
    image layer)."""
    return build_layers(tmp_path_factory.mktemp("layers-levels"), 8, levels=True)


@pytest.fixture(scope="session")
def server(site_dir):
    srv = SiteServer(str(site_dir))
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def _fresh_server(request):
    yield
    for name in ("server", "pyramid_server", "layers_server", "levels_server"):
        if name in request.fixturenames:
            request.getfixturevalue(name).clear()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM)
        yield b
        b.close()


@dataclass
class Tab:
    """A page plus everything it logged: console errors, page errors, dialogs
    and requests to hosts other than 127.0.0.1 (aborted)."""
    page: object
    context: object
    console_errors: list = field(default_factory=list)
    page_errors: list = field(default_factory=list)
    dialogs: list = field(default_factory=list)
    foreign: list = field(default_factory=list)


class Tabs:
    def __init__(self, browser):
        self._browser = browser
        self.tabs: list[Tab] = []

    def open(self, **context_options) -> Tab:
        opts = {"viewport": {"width": 1280, "height": 800}, "locale": "en-US", "timezone_id": "UTC"}
        opts.update(context_options)
        context = self._browser.new_context(**opts)
        page = context.new_page()
        tab = Tab(page=page, context=context)

        def guard(route):
            host = urlsplit(route.request.url).hostname
            if host == "127.0.0.1":
                route.continue_()
            else:
                tab.foreign.append(route.request.url)
                route.abort()

        context.route("**/*", guard)
        page.on("console", lambda m: tab.console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: tab.page_errors.append(str(e)))

        def on_dialog(d):
            tab.dialogs.append(d.message)
            d.dismiss()

        page.on("dialog", on_dialog)
        self.tabs.append(tab)
        return tab

    def close(self):
        for t in self.tabs:
            t.context.close()


@pytest.fixture
def tabs(browser):
    t = Tabs(browser)
    yield t
    foreign = [u for tab in t.tabs for u in tab.foreign]
    t.close()
    assert not foreign, f"requests to hosts other than 127.0.0.1: {foreign}"


@pytest.fixture
def tab(tabs) -> Tab:
    return tabs.open()


def pytest_report_header(config):
    return [textwrap.shorten(f"chromium: {CHROMIUM}; MATSITE_BIN={os.environ.get('MATSITE_BIN', '.build/debug/matsite')}",
                             200)]
