"""Shared fixtures: an isolated disk cache for every test session; the real browser and a real
server for the browser tests. A test that uses the ``browser`` fixture is marked ``browser``
(``pytest -m "not browser"`` runs the fast suite alone) and skipped where no Chromium is."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory):
    os.environ["DPVIZ_CACHE_DIR"] = str(tmp_path_factory.mktemp("dpviz-cache"))
    os.environ.pop("DPVIZ_HOSTED", None)
    # charts are drawn by the server on every move, as without frames; the tests of frames turn
    # them on for their own servers (tests/browser/test_browser_frames.py)
    os.environ["DPVIZ_FRAMES"] = "0"
    yield


from browser_support import CHROMIUM, CHROMIUM_ARGS, needs_chromium, start_server, stop_server  # noqa: E402


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
            item.add_marker(needs_chromium)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("server")
    proc, url, log = start_server(tmp)
    yield url
    stop_server(proc, log)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100}, accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    ctx.close()
