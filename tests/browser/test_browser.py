"""The app in the real browser: headless Debian Chromium driven by Playwright against a real
`streamlit run` server on a free localhost port (started here, stopped here, nothing else)."""

from __future__ import annotations

import io
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pandas as pd
import pytest
from browser_support import (
    FAST,
    HOHO_FAST,
    MDP_FAST,
    PS_FAST,
    SETTLE_MS,
    chart_html,
    chart_js,
    close_export,
    open_export,
    slide_right,
    start_server,
    stop_server,
    submit,
    wait_for_charts,
    wait_run_ended,
    watch_console,
)
from paper_pages import charts_drawn, url_path

from dpviz import papers, registry


def settled(page, url_pattern: str, chart: int, before: str) -> None:
    """Wait for the URL to carry the new value, chart ``chart`` to be redrawn and the run to end."""
    page.wait_for_url(re.compile(url_pattern), timeout=90_000)
    page.wait_for_function(
        "([i, before]) => { const c = " + chart_js("all[i]") + "; return c && c.innerHTML !== before; }",
        arg=[chart, before],
        timeout=90_000,
    )
    wait_run_ended(page, timeout=90_000, hold_ms=SETTLE_MS)
    assert page.locator('[data-testid="stException"]').count() == 0


def has_3d_scene(page, index: int) -> bool:
    """A WebGL 3-D scene (plotly draws it on a canvas; 2-D charts are SVG only)."""
    return page.locator(".js-plotly-plot").nth(index).locator("canvas").count() > 0


def wait_chart_text(page, index: int, text: str, present: bool = True) -> None:
    page.wait_for_function(
        "([i, t, present]) => { const c = " + chart_js("all[i]") + "; "
        # by its words' letters: the page wraps long titles to the chart's width (live_js/text_fit.js fitLayout)
        "const flat = (s) => s.replace(/\\s+/g, ''); "
        "return !!c && flat(c.innerText).includes(flat(t)) === present; }",  # a chart being redrawn is briefly absent
        arg=[index, text, present],
        timeout=60_000,
    )


def wait_3d_scene(page, index: int, present: bool) -> None:
    """Plotly builds (or removes) the WebGL canvas after the chart's first redraw: wait for it."""
    page.wait_for_function(
        "([i, present]) => { const c = " + chart_js("all[i]") + "; "
        "return !!c && (c.querySelector('canvas') !== null) === present; }",
        arg=[index, present],
        timeout=60_000,
    )


def choose(page, label: str, option: str) -> None:
    """A selectbox as a person uses it: open it, type to filter, click the option."""
    box = page.get_by_role("combobox", name=label, exact=True)
    box.click()
    box.fill(option[:5])
    page.get_by_role("option", name=option, exact=True).click()


def unselect(page, option: str) -> None:
    """Remove one chosen option of a multiselect (the x on its tag)."""
    page.get_by_role("button", name=f"Remove {option}", exact=True).click()


def pick(page, label: str, option: str) -> None:
    page.get_by_role("radiogroup", name=label).get_by_test_id("stRadioOption").filter(has_text=option).click()


def test_deep_link_is_the_first_request_to_a_fresh_server(tmp_path, browser):
    """The known trap: on a fresh server a deep link must still run the page with its params; the
    page, computed cold, logs no error in the browser."""
    proc, url, log = start_server(tmp_path)
    try:
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        pg = ctx.new_page()
        seen = watch_console(pg)
        pg.set_default_timeout(60_000)
        pg.goto(f"{url}/ADePT_sensitivity?dim=49&seed=11&{FAST}")
        wait_for_charts(pg, 6)
        assert (
            pg.get_by_role("slider", name="Dimension n").get_attribute("aria-valuetext") == "49"
        )  # off the grid, as typed
        wait_chart_text(pg, 0, "n = 49: 2C√n = 140")
        assert "seed=11" in pg.url
        wait_run_ended(pg, timeout=60_000)
        assert not seen, seen
        ctx.close()
    finally:
        stop_server(proc, log)
    assert proc.poll() is not None  # we stopped the server we started


# the keys of the first answers' chart elements the page has held (st-key-chart-<figure>-first), noted
# as they come: a first answer is replaced when its full answer is ready, which may come before the
# page's last first answer, so no single moment need show them all
FIRST_ANSWERS_SEEN = """
window.__firstAnswers = new Set();
new MutationObserver(() => {
  for (const e of document.querySelectorAll('[class*="st-key-chart-"][class*="-first"]')) {
    const key = [...e.classList].find((c) => c.startsWith("st-key-chart-"));
    if (key && e.querySelector(".dpviz-chart")) window.__firstAnswers.add(key);
  }
}).observe(document, { childList: true, subtree: true });
"""


def _drawn_from_draws(key: str) -> list[str]:
    """The figures of a page that take the draws per word (those the paper's first answer cheapens)."""
    return [
        fid
        for section in papers.get(key).sections
        for fid in section.figures
        if not registry.get(fid).on_demand and "samples" in {p.name for p in registry.get(fid).params}
    ]


def test_a_fresh_server_shows_first_answers_then_replaces_them_in_place(tmp_path, browser):
    """A newcomer on a fresh server: the metric page's charts come first at 100 draws per word,
    each marked as a first answer, and each is replaced by the full answer in its place; the
    browser logs no error on the way (a page computed cold: progress bars, first answers and
    their replacement, every chart's first drawing)."""
    proc, url, log = start_server(tmp_path, {"DPVIZ_WARMUP": "0"})
    try:
        ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
        pg = ctx.new_page()
        seen = watch_console(pg)
        pg.add_init_script(FIRST_ANSWERS_SEEN)
        pg.set_default_timeout(90_000)
        pg.goto(f"{url}/Metric_DP?seed=5")
        notes = pg.locator('[data-testid="stAlert"]', has_text="First answer")
        notes.first.wait_for()
        assert "Draws per word (N): 100 instead of 1000" in notes.first.inner_text()
        notes.first.wait_for(state="detached", timeout=120_000)  # every first answer is replaced in its place
        wait_for_charts(pg, charts_drawn("metric"))  # the run has ended: every full answer is in
        # a first answer came in the place of every chart drawn from the words' draws, each under
        # the key of its figure's first answer; the nearest-neighbour charts take no draws (their
        # first answer would cost what their full one does) and are drawn once, in full
        first = pg.evaluate("[...window.__firstAnswers]")
        assert sorted(first) == [f"st-key-chart-{fid}-first" for fid in sorted(_drawn_from_draws("metric"))], first
        assert pg.locator('[class*="st-key-chart-"][class*="-first"]').count() == 0  # all replaced
        pg.wait_for_function(
            "() => ![...document.querySelectorAll('[data-testid=stAlert]')]"
            ".some(a => a.innerText.includes('First answer'))",
            timeout=120_000,
        )
        assert pg.locator(".js-plotly-plot").count() == charts_drawn("metric")
        wait_chart_text(pg, 0, "1,000 draws per word")
        wait_run_ended(pg, timeout=60_000)
        assert not seen, seen
        ctx.close()
    finally:
        stop_server(proc, log)


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
    assert slider.get_attribute("aria-valuetext") == "100"
    assert page.get_by_role("slider", name="Privacy budget ε (claimed)").get_attribute("aria-valuetext") == "2"
    assert page.get_by_role("spinbutton", name="Random seed", exact=True).input_value() == "3"
    wait_chart_text(page, 0, "n = 100: 2C√n = 200")
    wait_chart_text(page, 1, "ADePT claims ε = 2")
    assert page.locator('[data-testid="stException"]').count() == 0

    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"dim=120"), timeout=60_000)  # the next position of n's grid
    page.wait_for_function(chart_js("all[0]") + "?.innerText.includes('n = 120')", timeout=60_000)
    assert "epsilon=2" in page.url and "seed=3" in page.url  # the rest of the view stays in the link

    # the live log slider for epsilon: one step on the grid, 2 -> 2.5
    slide_right(page, "Privacy budget ε (claimed)")
    page.wait_for_url(re.compile(r"epsilon=2.5"), timeout=60_000)
    page.wait_for_function(chart_js("all[1]") + "?.innerText.includes('ADePT claims ε = 2.5')", timeout=60_000)


def test_bad_url_parameters_show_a_message_and_the_page_works(server, page):
    page.goto(f"{server}/ADePT_sensitivity?dim=5000&colour=red&epsilon=-1&{FAST}")
    wait_for_charts(page, 6)
    alerts = " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())
    assert "dim = '5000' is not allowed (out of range)" in alerts
    assert "epsilon = '-1' is not allowed" in alerts
    assert "no parameter 'colour'" in alerts
    assert page.get_by_role("slider", name="Dimension n").get_attribute("aria-valuetext") == "64"
    wait_chart_text(page, 0, "n = 64")
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "dim=" not in page.url and "colour" not in page.url


def test_downloads_give_a_parsable_csv_and_a_png(server, page):
    page.goto(f"{server}/ADePT_sensitivity?{FAST}")
    wait_for_charts(page, 6)
    dialog = open_export(page, "adept-violations")  # the violation rates
    with page.expect_download() as dl:
        dialog.get_by_role("button", name="⬇ CSV").click()
    df = pd.read_csv(dl.value.path())
    assert list(df.columns) == ["dim", "distribution", "violation_rate", "ci_low", "ci_high"]
    assert df["dim"].max() == 40 and df["violation_rate"].between(0, 1).all()
    close_export(page)
    dialog = open_export(page, "adept-sensitivity")
    with page.expect_download(timeout=120_000) as dl:
        dialog.get_by_role("button", name="⬇ PNG").click()
    data = Path(dl.value.path()).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        assert im.size[0] > 800


def test_partial_page_deep_link_and_a_hostile_formula(server, page):
    from urllib.parse import quote

    page.goto(
        f"{server}/Partial_sensitivity?expr={quote('a*b')}&ranges={quote('a=0:1,b=0:2')}&individuals=1"
        f"&people={quote('1,2; 0.5,0.5')}&{PS_FAST}"
    )
    wait_for_charts(page, 6)
    box = page.get_by_role("textbox", name="Query per individual f", exact=True)
    assert box.input_value() == "a*b"
    wait_chart_text(page, 0, "Global sensitivity 2.236068 at (a = 1, b = 2)")
    assert page.locator('[data-testid="stException"]').count() == 0

    submit(box, "__import__('os').system('id')")
    page.wait_for_function("document.body.innerText.includes('cannot be used in a formula')", timeout=60_000)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length === 3", timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    wait_chart_text(page, 0, "Training SGD and DP-SGD")  # the network section still works

    submit(box, "a**2 + b")
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 6", timeout=60_000)
    page.wait_for_url(re.compile(r"expr=a"), timeout=60_000)
    wait_chart_text(page, 0, "Global sensitivity 2.236068")  # g = sqrt(4a^2 + 1) at a = 1: sqrt(5)


def test_metric_page_deep_link_and_editing_the_epsilon_list(server, page):
    page.goto(f"{server}/Metric_DP?{MDP_FAST}&seed=5")
    wait_for_charts(page, 8)
    box = page.get_by_role("textbox", name="Values of ε", exact=True)
    # the link's list once the page has settled (a box drawn again during the first runs may be
    # empty, or absent, for a moment)
    wait_run_ended(page, timeout=90_000, hold_ms=SETTLE_MS)
    page.wait_for_function(
        "(v) => (document.querySelector('input[aria-label=\"Values of ε\"]') || {}).value === v", arg="2,5,10,30"
    )
    assert box.input_value() == "2,5,10,30"
    wait_chart_text(page, 1, "Average plausible deniability")
    assert page.locator('[data-testid="stException"]').count() == 0
    submit(box, "3,6,12")
    page.wait_for_url(re.compile(r"epsilons=3%2C6%2C12|epsilons=3,6,12"), timeout=90_000)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 8", timeout=90_000)
    submit(box, "3,-6")
    page.wait_for_function("document.body.innerText.includes(\"epsilons = '3,-6' is not allowed\")", timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_hoho_page_deep_link_and_the_example_number_input(server, page):
    page.goto(f"{server}/HoHo_attack?{HOHO_FAST}&sentence_index=7&seed=2")
    wait_for_charts(page, 6)
    box = page.get_by_role("spinbutton", name="Example sentence (#)", exact=True)
    # the link's value once the page has settled (a box drawn again during the first runs may
    # show its default for a moment)
    wait_run_ended(page, timeout=90_000, hold_ms=SETTLE_MS)
    page.wait_for_function(  # (the box may be between two drawings: absent for a moment)
        "(v) => (document.querySelector('input[aria-label=\"Example sentence (#)\"]') || {}).value === v", arg="7"
    )
    assert box.input_value() == "7"
    wait_chart_text(page, 1, "#7:")
    assert page.locator('[data-testid="stException"]').count() == 0
    submit(box, "12")
    page.wait_for_url(re.compile(r"sentence_index=12"), timeout=60_000)
    page.wait_for_function(chart_js("all[1]") + "?.innerText.includes('#12:')", timeout=60_000)


# --- every page: each kind of control it has, downloads, bad links, defaults ----------------------


def test_adept_selectbox_multiselect_radio_and_list_controls(server, page):
    page.goto(f"{server}/ADePT_sensitivity?{FAST}")
    wait_for_charts(page, 6)
    before = chart_html(page, 5)
    choose(page, "Sweep over", "dimension n")
    settled(page, r"sweep=dim", 5, before)
    wait_chart_text(page, 5, "dimension n (log scale)")

    wait_chart_text(page, 2, "uniform")
    before = chart_html(page, 2)
    unselect(page, "uniform U[-C, C]")
    settled(page, r"distributions=", 2, before)
    wait_chart_text(page, 2, "uniform", present=False)
    assert "uniform" not in page.url

    assert not has_3d_scene(page, 3)
    before = chart_html(page, 3)
    pick(page, "Picture in", "3")
    settled(page, r"geometry_dim=3", 3, before)
    wait_3d_scene(page, 3, True)

    before = chart_html(page, 2)
    submit(page.get_by_role("textbox", name="Dimensions to simulate", exact=True), "1-20")
    settled(page, r"dims=1-20", 2, before)
    assert "sweep=dim" in page.url and "geometry_dim=3" in page.url  # earlier changes stay in the link


def test_metric_selectbox_slider_and_number_controls(server, page):
    page.goto(f"{server}/Metric_DP?{MDP_FAST}")
    wait_for_charts(page, 8)
    # the embeddings are chosen from a list of what is available, not typed
    before = chart_html(page, 1)
    choose(page, "Compare with", "fastText 100d trained here (stand-in, ~15 s once)")
    settled(page, r"compare=fasttext-local", 1, before)
    wait_chart_text(page, 1, "fasttext-local")
    wait_run_ended(page, timeout=90_000, hold_ms=SETTLE_MS)
    idx = 4  # metric-calibrate, fifth on the page
    wait_chart_text(page, idx, "Calibrate ε to a plausible-deniability target")
    before = chart_html(page, idx)
    choose(page, "Target statistic", "average S_w (distinct outputs)")
    settled(page, r"target_stat=s_w", idx, before)

    before = chart_html(page, 0)
    slide_right(page, "Words sampled")
    settled(page, r"words=4", 0, before)

    slide_right(page, "ε")  # the live slider: 10 -> 12, the try-it box follows
    page.wait_for_url(re.compile(r"epsilon=12"), timeout=60_000)
    page.wait_for_function("document.body.innerText.includes('(ε = 12, the slider')", timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_hoho_multiselect_slider_and_list_controls(server, page):
    page.goto(f"{server}/HoHo_attack?{HOHO_FAST}")
    wait_for_charts(page, 6)
    wait_chart_text(page, 2, "SUE")
    before = chart_html(page, 2)
    unselect(page, "SUE")
    settled(page, r"mechanisms=ome%2Coue|mechanisms=ome,oue", 2, before)
    wait_chart_text(page, 2, "SUE", present=False)

    before = chart_html(page, 4)  # the bounds chart
    slide_right(page, "Values per input (r)")
    settled(page, r"[?&]r=2", 4, before)

    before = chart_html(page, 2)
    submit(page.get_by_role("textbox", name="Values of λ", exact=True), "1,100")
    settled(page, r"lambdas=1%2C100|lambdas=1,100", 2, before)


def test_partial_selectbox_slider_and_number_controls(server, page):
    page.goto(f"{server}/Partial_sensitivity?{PS_FAST}")
    wait_for_charts(page, 6)
    wait_3d_scene(page, 1, True)  # the paper's 3-D view by default
    before = chart_html(page, 1)
    choose(page, "Figure 1 view", "contour maps over the box")
    settled(page, r"view=contours", 1, before)
    wait_3d_scene(page, 1, False)

    before = chart_html(page, 1)
    slide_right(page, "Grid points per axis")
    settled(page, r"grid=62", 1, before)

    before = chart_html(page, 2)
    slide_right(page, "Gaussian noise σ")  # a live log slider: 10 -> 12
    settled(page, r"sigma=12", 2, before)
    assert "σ = 12" in page.locator("body").inner_text()


def test_metric_page_uses_an_uploaded_embedding_and_refuses_a_broken_one(server, page, tmp_path):
    from dpviz.data.embeddings import get

    glove = get("glove-6b-50d")
    path = tmp_path / "glove-top2000.vec"
    lines = [f"{w} " + " ".join(f"{x:.5f}" for x in glove.vectors[i]) for i, w in enumerate(glove.vocab[:2000])]
    path.write_text("2000 50\n" + "\n".join(lines) + "\n")
    page.goto(f"{server}/Metric_DP?{MDP_FAST}")
    wait_for_charts(page, 8)
    before = chart_html(page, 0)
    page.get_by_text("Use your own embedding file").click()
    page.locator("input[type=file]").first.set_input_files(str(path))
    page.wait_for_selector("text=Read 2,000 words × 50 dimensions", timeout=60_000)
    page.get_by_role("button", name="Use this file").click()
    settled(page, r"embedding=upload%3A[0-9a-f]{16}\.vec", 0, before)
    # the select box shows the upload as the chosen embedding
    page.wait_for_function(
        "document.querySelector('.st-key-embedding input').value.startsWith('your upload (')", timeout=60_000
    )
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 8", timeout=90_000)

    broken = tmp_path / "broken.bin"
    broken.write_bytes(b"\xba\x16\x4f\x2f" + b"\x00" * 64 + b"not a fastText model" * 10)
    page.locator("input[type=file]").first.set_input_files(str(broken))
    page.wait_for_function("document.querySelector('[data-testid=\"stAlertContentError\"]') !== null", timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".js-plotly-plot").count() >= 8  # the page still works, on the uploaded file
    assert "embedding=upload" in page.url


def test_hoho_page_uses_uploaded_sentences_and_refuses_too_few(server, page, tmp_path):
    good = tmp_path / "reviews.csv"
    rows = [
        f"the film was {w} and the acting {v},{k % 2}"
        for k, (w, v) in enumerate(
            [
                ("wonderful", "superb"),
                ("dull", "weak"),
                ("moving", "strong"),
                ("boring", "flat"),
                ("funny", "sharp"),
                ("slow", "stiff"),
            ]
            * 4
        )
    ]
    good.write_text("sentence,label\n" + "\n".join(rows) + "\n")
    page.goto(f"{server}/HoHo_attack?{HOHO_FAST}")
    wait_for_charts(page, 6)
    page.get_by_text("Use your own sentences").click()
    upload = page.locator("input[type=file]").first
    bad = tmp_path / "three.txt"
    bad.write_text("one sentence\ntwo sentences\nthree sentences\n")
    upload.set_input_files(str(bad))
    page.wait_for_selector("text=At least 10 sentences are needed, got 3.", timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0

    upload.set_input_files(str(good))
    page.wait_for_selector("text=24 sentences with labels.", timeout=60_000)
    before = chart_html(page, 0)
    page.get_by_role("button", name="Use these sentences").click()
    settled(page, r"corpus=upload%3A[0-9a-f]{16}\.csv", 0, before)
    wait_chart_text(page, 1, "the film was wonderful")  # the example encodes sentence #0 of the upload
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 6", timeout=90_000)


PAGE_QUERIES = {"adept": FAST + "&audit_samples=2000", "metric": MDP_FAST, "hoho": HOHO_FAST, "partial": PS_FAST}
PAGES_FAST = {
    url_path(key): (PAGE_QUERIES.get(key, ""), charts_drawn(key)) for key in (p.key for p in papers.all_papers())
}


@pytest.mark.parametrize(
    "path, chart", [("ADePT_sensitivity", 0), ("Metric_DP", 0), ("HoHo_attack", 1), ("Partial_sensitivity", 3)]
)
def test_every_page_downloads_a_parsable_csv_and_a_png(server, page, path, chart):
    from PIL import Image
    from playwright.sync_api import expect

    from dpviz import registry

    query, n = PAGES_FAST[path]
    page.goto(f"{server}/{path}?{query}")
    wait_for_charts(page, n)
    dialog = open_export(page, nth=chart)
    with page.expect_download() as dl:
        dialog.get_by_role("button", name="⬇ CSV").click()
    figure_id = dl.value.suggested_filename.removesuffix(".csv")
    df = pd.read_csv(dl.value.path())
    assert len(df) > 0 and list(df.columns) == list(registry.get(figure_id).columns)
    # the dialog says how to get the same figure again: this view's link and its command line
    # (its code blocks are drawn a moment after the sentences that introduce them)
    expect(dialog).to_contain_text(f"python -m dpviz figure {figure_id}", timeout=30_000)
    expect(dialog).to_contain_text(f"{server}/{path}?", timeout=30_000)
    with page.expect_download(timeout=120_000) as dl:  # the same card's PNG button (by its key, not its place)
        dialog.locator(f".st-key-dl-png-{figure_id}").get_by_role("button", name="⬇ PNG").click()
    assert dl.value.suggested_filename == f"{figure_id}.png"
    with Image.open(io.BytesIO(Path(dl.value.path()).read_bytes())) as im:
        assert im.format == "PNG" and im.size[0] > 800


BAD_LINKS = {
    "Metric_DP": (
        "samples=5&epsilons=x,2&shade=blue",
        ["samples = '5' is not allowed (out of range)", "epsilons = 'x,2' is not allowed", "no parameter 'shade'"],
        ("spinbutton", "Draws per word (N)", "1000"),
    ),
    "HoHo_attack": (
        "targets=0&lambdas=abc&colour=red",
        ["targets = '0' is not allowed (out of range)", "lambdas = 'abc' is not allowed", "no parameter 'colour'"],
        ("textbox", "Values of λ", "1,10,100"),
    ),
    "Partial_sensitivity": (
        "grid=5&sigma=abc&x=1",
        ["grid = '5' is not allowed (out of range)", "sigma = 'abc' is not allowed", "no parameter 'x'"],
        ("slider", "Gaussian noise σ", "10"),
    ),
}


@pytest.mark.parametrize("path", sorted(BAD_LINKS))
def test_bad_links_on_every_page_say_what_was_wrong_and_the_page_works(server, page, path):
    bad, messages, (role, label, shown) = BAD_LINKS[path]
    query, n = PAGES_FAST[path]
    good = "&".join(kv for kv in query.split("&") if kv.split("=")[0] not in {b.split("=")[0] for b in bad.split("&")})
    page.goto(f"{server}/{path}?{good}&{bad}")
    wait_for_charts(page, n)
    alerts = " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())
    for message in messages:
        assert message in alerts
    control = page.get_by_role(role, name=label, exact=role != "slider")  # a slider's name repeats its label
    value = control.get_attribute("aria-valuetext") if role == "slider" else control.input_value()
    assert (float(value) == float(shown)) if role in ("spinbutton", "slider") else value == shown  # the default
    assert page.locator('[data-testid="stException"]').count() == 0
    left = parse_qs(urlsplit(page.url).query)
    assert not {b.split("=")[0] for b in bad.split("&")} & set(left)  # the bad keys left the link
    assert left["seed"] == ["0"]


@pytest.mark.parametrize(
    "path, n",
    [
        ("ADePT_sensitivity", charts_drawn("adept")),
        ("Metric_DP", charts_drawn("metric")),
        ("HoHo_attack", charts_drawn("hoho")),
        ("Partial_sensitivity", charts_drawn("partial")),
    ],
)
def test_every_page_on_its_defaults_has_no_error(server, page, path, n):
    page.goto(f"{server}/{path}")
    wait_for_charts(page, n)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0
    assert page.locator('[data-testid="stAlertContentWarning"]').count() == 0
    assert "seed=0" in page.url


# --- list boxes keep their whole value ------------------------------------------------------------

NEWEST_CHART = (
    "const all = document.querySelectorAll(`.st-key-chart-${id} .js-plotly-plot`); const gd = all[all.length - 1];"
    " if (gd) gd.scrollIntoView({block: 'nearest'});"  # dpviz redraws a chart out of view when it comes into view
)
"""JS: ``gd``, the newest chart drawn under figure ``id``'s key (a rerun briefly shows old and new side by side)."""


def wait_chart_shows(page, figure_id: str, xs=(), text: str = "") -> None:
    """Wait until the newest chart drawn under a figure's key has every x value in ``xs`` in
    its Plotly data and ``text`` in its legend."""
    page.wait_for_function(
        """([id, xs, text]) => { """
        + NEWEST_CHART
        + """ if (!gd || !gd._fullData) return false;
               // Plotly's decoded traces (numpy arrays arrive base64-encoded in gd.data)
               const drawn = new Set(gd._fullData.flatMap(
                   t => Array.from(t.x || []).filter(v => typeof v === 'number')));
               return xs.every(x => drawn.has(x)) && gd.innerText.includes(text); }""",
        arg=[figure_id, list(xs), text],
        timeout=180_000,
    )


# (page, query, box label, a long valid list, the figure that draws it, legend text it must show)
LONG_LISTS = [
    (
        "ADePT_sensitivity",
        FAST,
        "Dimensions to simulate",
        "2,4,6,8,10,12,14,16,18,20,24,28,32,36,40",
        "adept-violations",
        "",
    ),
    ("Metric_DP", MDP_FAST, "Values of ε", "1,2,3,4,5,6,7,8,9,10,12,15,20,25,30,40,50,60", "metric-figure3", ""),
    ("Metric_DP", MDP_FAST, "ε for the histograms", "5,6,7,8,9,11,12,13", "metric-histograms", "ε = 13"),
    # 14 characters against the box's old cap of 12 (the item cap of HoHo's ε list); each value is an
    # attack at every λ and mechanism, two runs of it (the list, then a new seed): 4 values, not 10
    ("HoHo_attack", HOHO_FAST, "Values of ε", "0.01,0.1,0.5,1", "hoho-linking", ""),
    ("HoHo_attack", HOHO_FAST, "Values of λ", "1,2,5,10,20,50,100", "hoho-linking", "OME, λ = 50"),
]


@pytest.mark.parametrize(
    "path, query, label, typed, figure_id, legend", LONG_LISTS, ids=[f"{p}-{lab}" for p, _, lab, _, _, _ in LONG_LISTS]
)
def test_a_long_list_survives_a_change_of_another_control(server, page, path, query, label, typed, figure_id, legend):
    """A list longer than its item cap in characters was cut to that many characters by the text
    box; after another control changed, the cut text was refused or silently lost values."""
    xs = [] if legend else [float(t) for t in typed.split(",")]
    page.goto(f"{server}/{path}?{query}")
    wait_for_charts(page, 6)
    box = page.get_by_role("textbox", name=label, exact=True)
    submit(box, typed)
    page.wait_for_function(
        "(t) => decodeURIComponent(location.search.replace(/\\+/g, ' ')).includes(t)", arg=typed, timeout=120_000
    )
    wait_chart_shows(page, figure_id, xs, legend)
    submit(page.get_by_role("spinbutton", name="Random seed", exact=True), "7")
    page.wait_for_url(re.compile(r"seed=7"), timeout=120_000)
    wait_run_ended(page, timeout=180_000, hold_ms=SETTLE_MS)
    wait_chart_shows(page, figure_id, xs, legend)  # redrawn for the new seed, with the whole list
    assert box.input_value() == typed
    assert typed in [v for values in parse_qs(urlsplit(page.url).query).values() for v in values]
    alerts = " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())
    assert "is not allowed" not in alerts
    assert page.locator('[data-testid="stException"]').count() == 0


def test_html_download_works_offline(server, page, tmp_path):
    """The page's HTML download inlines plotly.js: no script is fetched from a CDN."""
    page.goto(f"{server}/ADePT_sensitivity?{FAST}")
    wait_for_charts(page, 6)
    dialog = open_export(page, nth=0)
    with page.expect_download(timeout=120_000) as dl:
        dialog.get_by_role("button", name="⬇ HTML").click()
    html = Path(dl.value.path()).read_text(encoding="utf-8")
    assert re.search(r"<script[^>]+src=\"https?://", html) is None
    assert len(html) > 1_000_000  # plotly.js itself is inside
    # and it draws offline: open the file with the network cut off
    saved = tmp_path / "chart.html"
    saved.write_text(html, encoding="utf-8")
    ctx = page.context.browser.new_context(offline=True)
    offline = ctx.new_page()
    offline.goto(saved.as_uri())
    offline.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
    ctx.close()


# --- every live slider: a key press moves it, its chart and the link follow ------------------------

CHART_DATA = "(id) => { " + NEWEST_CHART + " return gd && gd.data ? JSON.stringify(gd.data) + gd.innerText : ''; }"

LIVE_SLIDERS = [  # page, query, slider label, URL key, value after one ArrowRight, figure that follows it
    ("ADePT_sensitivity", FAST, "Privacy budget ε (claimed)", "epsilon", "1.2", "adept-epsilon"),
    ("ADePT_sensitivity", FAST, "Dimension n", "dim", "70", "adept-sensitivity"),
    ("Metric_DP", MDP_FAST, "ε", "epsilon", "12", "metric-live"),
    ("HoHo_attack", HOHO_FAST, "Claimed ε", "epsilon", "1.2", "hoho-live"),
    ("HoHo_attack", HOHO_FAST, "λ", "lambda_", "12", "hoho-live"),
    ("Partial_sensitivity", PS_FAST, "Gaussian noise σ", "sigma", "12", "partial-individuals"),
    ("Partial_sensitivity", PS_FAST, "Rényi order α", "alpha", "2.5", "partial-individuals"),
    ("Privacy_budget", "", "Releases k", "k", "120", "budget-composition"),
    ("Privacy_budget", "", "Attacker's prior belief π", "prior", "0.012", "budget-posterior"),
    ("Privacy_budget", "", "δ", "delta", "2e-05", "budget-composition"),
    ("Privacy_budget", "", "Noise multiplier σ", "sigma", "5", "budget-composition"),
    ("Privacy_budget", "mechanism=laplace", "ε₀ of one release", "epsilon0", "1", "budget-delta"),
]


@pytest.mark.parametrize(
    "path, query, label, key, after, figure_id", LIVE_SLIDERS, ids=[f"{p}-{k}" for p, _, _, k, _, _ in LIVE_SLIDERS]
)
def test_every_live_slider_moves_its_chart_and_the_link(server, page, path, query, label, key, after, figure_id):
    charts = PAGES_FAST[path][1]
    page.goto(f"{server}/{path}?{query}")
    wait_for_charts(page, charts)
    wait_run_ended(page, timeout=180_000, hold_ms=SETTLE_MS)
    slider = page.get_by_role("slider", name=label)  # a slider's accessible name repeats its label: no exact match
    before = page.evaluate(CHART_DATA, figure_id)
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(rf"[?&]{key}={re.escape(after)}(&|$)"), timeout=60_000)
    page.wait_for_function("([id, b]) => (" + CHART_DATA + ")(id) !== b", arg=[figure_id, before], timeout=60_000)
    wait_run_ended(page, timeout=60_000, hold_ms=SETTLE_MS)
    assert slider.get_attribute("aria-valuetext").startswith(after)
    assert page.locator('[data-testid="stException"]').count() == 0
    # the rest of the page is still there (a chart the fragment redrew gets its plot class back when drawn)
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {charts}", timeout=60_000)


def _follow_to_the_budget_page(page, link_name: str, query: str, legend: str) -> None:
    """Click the link named ``link_name`` (a pattern) on the page open now, land on the privacy-budget
    page with ``query`` in its URL, and wait for its attacker's chart to draw the attack named
    ``legend`` and to say that the promise does not hold."""
    link = page.get_by_role("link", name=re.compile(link_name))
    link.scroll_into_view_if_needed()
    link.click()
    page.wait_for_url(re.compile(rf"/Privacy_budget\?.*{query}"), timeout=60_000)
    wait_chart_shows(page, "budget-attacker", (), legend)
    wait_chart_shows(page, "budget-attacker", (), "the promise does not hold")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_the_hoho_pages_link_draws_its_attack_over_the_budget_pages_promise(server, page):
    """The HoHo page's link carries the sliders' (ε, λ) to the privacy-budget page, which draws the
    ε-DP promise (randomized response at that ε, one release) with HoHo's exact attack on top and
    says the promise does not hold."""
    page.goto(f"{server}/HoHo_attack?{HOHO_FAST}&epsilon=0.5&lambda_=20")
    wait_for_charts(page, 6)
    _follow_to_the_budget_page(
        page,
        r"See HoHo's attack on OME at claimed ε = 0\.5, λ = 20",
        r"hoho_epsilon=0\.5",
        "HoHo's attack on OME (ε = 0.5, λ = 20), exact",
    )
    assert page.get_by_role("spinbutton", name="HoHo's attack on OME: its claimed ε", exact=True).input_value() == "0.5"


def test_the_audit_pages_link_draws_its_certified_attack_over_the_budget_pages_promise(server, page):
    """The Audit page's link carries the attack an audit certified (ADePT's worst pair against its
    ε = 1 claim) to the privacy-budget page, which draws it over the ε-DP promise and says, as the
    audit did, that the promise does not hold."""
    page.goto(f"{server}/Audit_a_mechanism?example=adept")
    wait_for_charts(page, 1)
    _follow_to_the_budget_page(
        page, r"See this audit's attack \(TPR ≥ .* at FPR ≤ .*\)", "audit_tpr=", "an audit's certified attack (TPR ≥"
    )
