"""The app in the real browser: headless Debian Chromium driven by Playwright against a real
`streamlit run` server on a free localhost port (started here, stopped here, nothing else)."""

from __future__ import annotations

import io
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from dpviz.export import find_chromium

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("DPVIZ_REQUIRE_BROWSER"),
    reason="no Chromium here (CI installs it and sets DPVIZ_REQUIRE_BROWSER=1)",
)
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
FAST = "pairs=1000&dims=1-40&samples=5000&draws=200"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(tmp_path: Path, extra_env: dict | None = None):
    """Start `streamlit run app.py` on a free port; wait for /_stcore/health."""
    port = _free_port()
    env = dict(os.environ, DPVIZ_CACHE_DIR=str(tmp_path / "cache"), **(extra_env or {}))
    log = open(tmp_path / f"streamlit-{port}.log", "w")
    # the same start command as Docker and scripts/start.sh use
    env.update(PORT=str(port), DPVIZ_ADDRESS="127.0.0.1", PYTHON=sys.executable)
    proc = subprocess.Popen(["bash", "scripts/serve.sh"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early: {(tmp_path / f'streamlit-{port}.log').read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc, url, log
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise RuntimeError("streamlit did not become healthy within 90 s")


def stop_server(proc, log) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()


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


def wait_for_charts(page, n: int) -> None:
    page.wait_for_selector('[data-testid="stApp"]')
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {n}", timeout=90_000)
    page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=90_000)


def submit(box, text: str) -> None:
    """Type into a text or number box and press Enter, as a person does."""
    box.fill(text)
    box.press("Enter")


def chart_text(page, index: int) -> str:
    return page.locator(".js-plotly-plot").nth(index).inner_text()


def test_deep_link_is_the_first_request_to_a_fresh_server(tmp_path, browser):
    """The known trap: on a fresh server a deep link must still run the page with its params."""
    proc, url, log = start_server(tmp_path)
    try:
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        pg = ctx.new_page()
        pg.set_default_timeout(60_000)
        pg.goto(f"{url}/ADePT_sensitivity?dim=49&seed=11&{FAST}")
        wait_for_charts(pg, 6)
        assert pg.get_by_role("slider", name="Dimension n").input_value() == "49"
        assert "n = 49: 2C√n = 140" in chart_text(pg, 0)
        assert "seed=11" in pg.url
        ctx.close()
    finally:
        stop_server(proc, log)
    assert proc.poll() is not None  # we stopped the server we started


def test_home_page_links_to_the_adept_page(server, page):
    page.goto(server)
    page.wait_for_selector("text=dpviz: where published privacy guarantees break")
    assert page.locator('[data-testid="stException"]').count() == 0
    page.get_by_role("link", name="Open the ADePT sensitivity page").click()
    wait_for_charts(page, 6)
    assert "ADePT_sensitivity" in page.url


def test_deep_link_sets_controls_and_moving_the_slider_changes_chart_and_url(server, page):
    page.goto(f"{server}/ADePT_sensitivity?dim=100&epsilon=2&seed=3&{FAST}")
    wait_for_charts(page, 6)
    slider = page.get_by_role("slider", name="Dimension n")
    assert slider.input_value() == "100"
    assert page.get_by_role("spinbutton", name="Privacy budget ε (claimed)", exact=True).input_value() == "2"
    assert page.get_by_role("spinbutton", name="Random seed", exact=True).input_value() == "3"
    assert "n = 100: 2C√n = 200" in chart_text(page, 0)
    assert "ADePT claims ε = 2" in chart_text(page, 1)
    assert page.locator('[data-testid="stException"]').count() == 0

    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"dim=101"), timeout=60_000)
    page.wait_for_function(
        "document.querySelectorAll('.js-plotly-plot')[0].innerText.includes('n = 101')", timeout=60_000
    )
    assert "epsilon=2" in page.url and "seed=3" in page.url  # the rest of the view stays in the link

    # a second kind of control: the number input for epsilon
    box = page.get_by_role("spinbutton", name="Privacy budget ε (claimed)", exact=True)
    submit(box, "3")
    page.wait_for_url(re.compile(r"epsilon=3"), timeout=60_000)
    page.wait_for_function(
        "document.querySelectorAll('.js-plotly-plot')[1].innerText.includes('ADePT claims ε = 3')", timeout=60_000
    )


def test_bad_url_parameters_show_a_message_and_the_page_works(server, page):
    page.goto(f"{server}/ADePT_sensitivity?dim=5000&colour=red&epsilon=-1&{FAST}")
    wait_for_charts(page, 6)
    alerts = " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())
    assert "dim = '5000' is not allowed (out of range)" in alerts
    assert "epsilon = '-1' is not allowed" in alerts
    assert "no parameter 'colour'" in alerts
    assert page.get_by_role("slider", name="Dimension n").input_value() == "64"
    assert "n = 64" in chart_text(page, 0)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "dim=" not in page.url and "colour" not in page.url


def test_downloads_give_a_parsable_csv_and_a_png(server, page):
    page.goto(f"{server}/ADePT_sensitivity?{FAST}")
    wait_for_charts(page, 6)
    buttons = page.get_by_role("button", name="⬇ CSV")
    with page.expect_download() as dl:
        buttons.nth(2).click()  # third chart: the violation rates
    df = pd.read_csv(dl.value.path())
    assert list(df.columns) == ["dim", "distribution", "violation_rate", "ci_low", "ci_high"]
    assert df["dim"].max() == 40 and df["violation_rate"].between(0, 1).all()
    with page.expect_download(timeout=120_000) as dl:
        page.get_by_role("button", name="⬇ PNG").first.click()
    data = Path(dl.value.path()).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        assert im.size[0] > 800


PS_FAST = "per_class=100&sgd_steps=100&dpsgd_steps=100&eval_per_class=50"


def test_partial_page_deep_link_and_a_hostile_formula(server, page):
    from urllib.parse import quote

    page.goto(f"{server}/Partial_sensitivity?expr={quote('a*b')}&ranges={quote('a=0:1,b=0:2')}&individuals=1&people={quote('1,2; 0.5,0.5')}&{PS_FAST}")
    wait_for_charts(page, 6)
    box = page.get_by_role("textbox", name="Query per individual f", exact=True)
    assert box.input_value() == "a*b"
    assert "Global sensitivity 2.236068 at (a = 1, b = 2)" in chart_text(page, 0)
    assert page.locator('[data-testid="stException"]').count() == 0

    submit(box, "__import__('os').system('id')")
    page.wait_for_function("document.body.innerText.includes('cannot be used in a formula')", timeout=60_000)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length === 3", timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "Training SGD and DP-SGD" in chart_text(page, 0)  # the network section still works

    submit(box, "a**2 + b")
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 6", timeout=60_000)
    page.wait_for_url(re.compile(r"expr=a"), timeout=60_000)
    assert "Global sensitivity 2.236068" in chart_text(page, 0)  # g = sqrt(4a^2 + 1) at a = 1: sqrt(5)


MDP_FAST = "words=3&samples=100&knn_words=20&epsilons=2,5,10,30"


def test_metric_page_deep_link_and_editing_the_epsilon_list(server, page):
    page.goto(f"{server}/Metric_DP?{MDP_FAST}&seed=5")
    wait_for_charts(page, 8)
    box = page.get_by_role("textbox", name="Values of ε", exact=True)
    assert box.input_value() == "2,5,10,30"
    assert "Average plausible deniability" in chart_text(page, 0)
    assert page.locator('[data-testid="stException"]').count() == 0
    submit(box, "3,6,12")
    page.wait_for_url(re.compile(r"epsilons=3%2C6%2C12|epsilons=3,6,12"), timeout=90_000)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 8", timeout=90_000)
    submit(box, "3,-6")
    page.wait_for_function("document.body.innerText.includes(\"epsilons = '3,-6' is not allowed\")", timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0


HOHO_FAST = "repeats=20&targets=0.05&epsilons=0.1,1&lambdas=1,10&audit_samples=2000"


def test_hoho_page_deep_link_and_the_example_number_input(server, page):
    page.goto(f"{server}/HoHo_attack?{HOHO_FAST}&sentence_index=7&seed=2")
    wait_for_charts(page, 6)
    box = page.get_by_role("spinbutton", name="Example sentence (#)", exact=True)
    assert box.input_value() == "7"
    assert "#7:" in chart_text(page, 0)
    assert page.locator('[data-testid="stException"]').count() == 0
    submit(box, "12")
    page.wait_for_url(re.compile(r"sentence_index=12"), timeout=60_000)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot')[0].innerText.includes('#12:')", timeout=60_000)


@pytest.mark.skipif(not os.environ.get("DPVIZ_SCREENSHOTS"), reason="screenshot mode: set DPVIZ_SCREENSHOTS=1")
@pytest.mark.parametrize("name, path", [("home", ""), ("adept", "/ADePT_sensitivity"), ("metric", "/Metric_DP"), ("hoho", "/HoHo_attack"), ("partial", "/Partial_sensitivity")])
def test_write_screenshots(server, browser, name, path):
    """Screenshot mode: one full-page PNG per page into docs/screenshots/ (used by the README)."""
    ctx = browser.new_context(viewport={"width": 1500, "height": {"": 1100, "/ADePT_sensitivity": 6100, "/Metric_DP": 7300, "/HoHo_attack": 4900}.get(path, 5300)})
    pg = ctx.new_page()
    pg.goto(server + path)
    if path:
        wait_for_charts(pg, {"/Metric_DP": 8, "/ADePT_sensitivity": 7}.get(path, 6))
    else:
        pg.wait_for_selector("text=dpviz: where published privacy guarantees break")
    time.sleep(2)  # let plotly finish its transitions
    out = ROOT / "docs" / "screenshots" / f"{name}.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(out), full_page=True)
    ctx.close()
    assert out.stat().st_size > 10_000
