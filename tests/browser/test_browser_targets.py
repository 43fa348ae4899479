"""Choosing the setting from a target, in Chromium as a person does it: pick the target measure
and type its value in the sidebar, read the answer, click the button that moves the slider there,
and see the slider, the link and the frontier chart follow; a bad value is a sentence and the
sliders keep their values."""

from __future__ import annotations

import math
import re

import pytest
from browser_support import FAST, SETTLE_MS, look_at, submit, wait_for_charts, wait_run_ended
from paper_pages import charts_drawn

pytestmark = pytest.mark.timeout(600)


def _frontier_ring(page, mechanism_label: str) -> list[float]:
    """The (x, y) of the ring that marks the sliders' setting on a curve of the ADePT frontier (as
    Plotly holds it: its full data has the typed arrays decoded)."""
    return page.evaluate(
        """(label) => { const gd = document.querySelector('.st-key-chart-adept-frontier .dpviz-chart');
        const t = gd._fullData.find(t => t.name === `${label} at the sliders' setting`);
        return t ? [Array.from(t.x)[0], Array.from(t.y)[0]] : null; }""",
        mechanism_label,
    )


def test_a_typed_target_is_reached_with_one_click(server, page):
    page.goto(f"{server}/ADePT_sensitivity?{FAST}&dim=16")
    wait_for_charts(page, charts_drawn("adept"))
    box = page.get_by_role("combobox", name="Target measure", exact=True)
    box.scroll_into_view_if_needed()
    box.click()
    box.fill("epsilon_act")  # as a person narrows a long list
    page.get_by_role("option", name=re.compile(r"^epsilon_actual")).click()
    submit(page.get_by_role("spinbutton", name="Target value", exact=True), "2")
    page.wait_for_function("() => location.search.includes('target_measure=epsilon_actual')", timeout=60_000)
    button = page.get_by_role("button", name="Move epsilon to 0.5 (adept)")
    button.wait_for(timeout=120_000)
    assert page.get_by_text("epsilon_actual at most 2").count() >= 1
    # clicked once the run that drew the button has ended, as a person clicks a page that has
    # settled: a click while that run still draws what follows the panel was lost twice in the
    # full run (runs 15 and 17; never alone, nor under 8 busy processes). A likely cause, not shown:
    # Streamlit runs the button's callback at the start of the click's run, and a rerun the browser
    # asks for before the moved slider reached it sends the slider's old value, which overrides the
    # callback's (streamlit/streamlit#8365 describes that order of events)
    wait_run_ended(page, timeout=120_000, hold_ms=SETTLE_MS)
    button.click()
    # the slider, the link and the frontier's ring follow: ADePT at claimed ε = 2/√16 is 2-DP
    slider = page.get_by_role("slider", name="Privacy budget ε (claimed)")
    page.wait_for_function(
        "() => document.querySelector('input[aria-label=\"Privacy budget ε (claimed)\"]')"
        ".getAttribute('aria-valuetext') === '0.5'",
        timeout=60_000,
    )
    page.wait_for_function("() => /[?&]epsilon=0\\.5(&|$)/.test(location.search)", timeout=60_000)
    assert "target_value=2" in page.url
    look_at(page, ".st-key-chart-adept-frontier")
    page.wait_for_function(
        "() => { const gd = document.querySelector('.st-key-chart-adept-frontier .dpviz-chart');"
        " const t = gd && gd._fullData && gd._fullData.find(t => t.name && t.name.startsWith('ADePT as published') &&"
        ' t.name.endsWith("at the sliders\' setting")); return t && Math.abs(Array.from(t.x)[0] - 2) < 1e-9; }',
        timeout=60_000,
    )
    x, y = _frontier_ring(page, "ADePT as published (L2 clip, Laplace 2C/ε)")
    assert x == pytest.approx(2.0, rel=1e-9) and y == pytest.approx(2 * math.sqrt(2 * 16) / 0.5, rel=1e-9)
    assert slider.get_attribute("aria-valuetext") == "0.5"
    assert page.locator('[data-testid="stException"]').count() == 0
    # the link reopens the answer
    page.goto(page.url)
    page.get_by_role("button", name="Move epsilon to 0.5 (adept)").wait_for(timeout=120_000)


def test_a_bad_target_value_is_a_sentence_and_the_sliders_stay(server, page):
    page.goto(f"{server}/ADePT_sensitivity?{FAST}&epsilon=2&target_measure=epsilon_actual&target_value=2")
    wait_for_charts(page, charts_drawn("adept"))
    page.get_by_role("button", name=re.compile(r"^Move epsilon to")).first.wait_for(timeout=120_000)
    submit(page.get_by_role("spinbutton", name="Target value", exact=True), "-0.5")
    page.wait_for_function("() => document.body.innerText.includes('must be above 0')", timeout=60_000)
    assert page.get_by_role("slider", name="Privacy budget ε (claimed)").get_attribute("aria-valuetext") == "2"
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(".st-key-chart-adept-frontier .js-plotly-plot").count() == 1  # the page keeps working


def test_the_smallest_sigma_is_chosen_in_the_sidebar_and_one_click_sets_the_noise_slider(server, page):
    """The privacy-budget page solved for σ at k (Opacus's question): "Solve for" chosen in the
    sidebar like the target, the answer per accountant, and the button moves the σ slider (off
    its grid: the answer's four digits): the slider, the link and the charts' titles follow."""
    from dpviz import calibrate

    page.goto(f"{server}/Privacy_budget?k=1000&target_measure=epsilon&target_value=3")
    wait_for_charts(page, charts_drawn("budget"))
    box = page.get_by_role("combobox", name="Solve for", exact=True)
    box.scroll_into_view_if_needed()
    box.click()
    page.get_by_role("option", name="Noise multiplier σ").click()
    page.wait_for_function("() => location.search.includes('target_solve=sigma')", timeout=60_000)
    from webui.panels.targets import slider_value

    wanted = calibrate("budget", epsilon=3, solve="sigma", settings={"k": 1000}).set_index("mechanism")
    sigma = slider_value(float(wanted.loc["pld", "sigma"]), wanted.loc["pld", "side"])  # 43.98 (4 digits, up)
    button = page.get_by_role("button", name=f"Move sigma to {sigma:g} (pld)")
    button.wait_for(timeout=120_000)
    wait_run_ended(page, timeout=120_000, hold_ms=SETTLE_MS)  # (as the test above says why)
    button.click()
    page.wait_for_function(f"() => /[?&]sigma={sigma:g}(&|$)/.test(location.search)", timeout=60_000)
    from playwright.sync_api import expect

    expect(page.get_by_role("slider", name="Noise multiplier σ")).to_have_attribute(
        "aria-valuetext", f"{sigma:g}", timeout=60_000
    )
    look_at(page, ".st-key-chart-budget-composition")  # (a chart out of view is redrawn when it comes into view)
    page.wait_for_function(
        "(said) => { const gd = document.querySelector('.st-key-chart-budget-composition .dpviz-chart');"
        " return gd && gd.layout && String(gd.layout.title && gd.layout.title.text).includes(said); }",
        arg=f"σ = {sigma:g}",
        timeout=60_000,
    )
    assert page.locator('[data-testid="stException"]').count() == 0
