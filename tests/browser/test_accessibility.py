"""Accessibility, checked as Lighthouse checks it: axe-core (the WCAG 2.0-2.2 A/AA rules) run in
Chromium on every page once its charts are drawn, and in the states people bring a page to: the
report box open, a chart's download dialog open, an audit example loaded, a class started. A
violation of impact serious or critical fails the test; the rest are listed. ``bash scripts/test.sh`` fetches axe-core
(``npm pack axe-core``) into ``.venv/axe/`` (``browser_support.axe_check``). In every one of those
states the browser's console is watched too: an error there, an uncaught page error or a failed
request fails the test (the ``page`` fixture below)."""

from __future__ import annotations

import re

import pytest
from browser_support import (
    FAST,
    PS_FAST,
    SETTLE_MS,
    axe_check,
    open_export,
    wait_for_charts,
    wait_run_ended,
    watch_console,
)
from paper_pages import charts_drawn

from dpviz.text_fit import NARROW

pytestmark = pytest.mark.timeout(900)
_check = axe_check


def _settled(page) -> None:
    wait_run_ended(page, timeout=180_000, hold_ms=SETTLE_MS)
    page.wait_for_timeout(800)


PAGES = [
    ("home", "", 0),
    ("ADePT_sensitivity", FAST, charts_drawn("adept")),
    # 1000 draws: the live chart's panels end in a tick "1000" beside the next one's "0"
    ("Metric_DP", "words=3&samples=1000&knn_words=20", charts_drawn("metric")),
    ("HoHo_attack", "targets=0.05&audit_samples=2000", charts_drawn("hoho")),
    ("Partial_sensitivity", PS_FAST, charts_drawn("partial")),
    ("Privacy_budget", "", charts_drawn("budget")),
    ("Audit_a_mechanism", "", 0),
    ("Lessons", "", 0),
]


@pytest.fixture
def page(page):
    """The browser tab of a test here, watched: the test fails if the page logs a console error, an
    uncaught page error or a failed request but Streamlit's start-up probe in any of the states it
    is brought to (:func:`browser_support.watch_console`). A page computed cold, with its progress
    bars and first answers, is watched by the fresh-server tests (tests/browser/test_browser.py)."""
    seen = watch_console(page)
    yield page
    assert not seen, f"the browser logged: {seen}"


@pytest.mark.parametrize("path, query, charts", PAGES, ids=[p for p, _, _ in PAGES])
def test_every_page_on_its_defaults(server, page, path, query, charts):
    page.goto(f"{server}/{'' if path == 'home' else path}" + (f"?{query}" if query else ""))
    page.wait_for_selector('[data-testid="stApp"]')
    if charts:
        wait_for_charts(page, charts)
    _settled(page)
    assert page.get_by_text("Page not found").count() == 0  # the page itself, not Streamlit's 404
    _check(page, path)


def test_a_page_with_its_report_box_open_and_a_target_answered(server, page):
    page.goto(f"{server}/ADePT_sensitivity?{FAST}&target_measure=epsilon_actual&target_value=2")
    wait_for_charts(page, charts_drawn("adept"))
    page.get_by_role("button", name=re.compile(r"^Move epsilon to")).first.wait_for(timeout=120_000)
    page.get_by_role("heading", name="This page as one report").scroll_into_view_if_needed()
    page.get_by_role("button", name="Make the report").click()
    page.get_by_role("button", name=re.compile(r"Download dpviz-adept-report")).wait_for(timeout=180_000)
    _settled(page)
    _check(page, "ADePT, report made, target answered")


def test_a_charts_download_and_reproduce_dialog_open(server, page):
    page.goto(f"{server}/HoHo_attack?targets=0.05&audit_samples=2000")
    wait_for_charts(page, charts_drawn("hoho"))
    dialog = open_export(page, nth=1)
    _settled(page)
    assert dialog.get_by_role("button", name="⬇ PNG").count() == 1
    _check(page, "HoHo, a chart's Download · Reproduce dialog open")


def test_the_audit_with_an_example_loaded(server, page):
    page.goto(f"{server}/Audit_a_mechanism")
    page.get_by_role("button", name="ADePT at its worst-case pair (n = 16)").click()
    wait_for_charts(page, 1)
    assert "example=adept" in page.url
    _settled(page)
    _check(page, "Audit, example loaded")


def test_a_lesson_with_a_class_started(server, page):
    page.goto(f"{server}/Lessons?lesson=adept")
    page.get_by_text("Step 1 of 7").wait_for(timeout=120_000)
    page.get_by_role("button", name="Class mode").click()
    page.get_by_role("button", name="Start a class with this lesson").click()
    page.get_by_text(re.compile(r"Class code [A-Z0-9]{6}")).first.wait_for(timeout=120_000)
    _settled(page)
    _check(page, "Lessons, class started")


def test_a_formula_wider_than_its_column_is_a_region_the_keyboard_scrolls(server, page):
    """A typed query whose derivatives do not fit their column (Heaviside steps of a max()): each
    display box that scrolls sideways is reached by Tab and scrolled by the arrow keys (axe-core's
    scrollable-region-focusable, found on this page on 2026-12-04), and one that fits gets no tab stop."""
    from urllib.parse import quote

    query = f"{PS_FAST}&expr={quote('max(sin(a), b**3)*log(2.504)')}&ranges={quote('a=-0.575:1,b=0.35:0.577')}"
    page.goto(f"{server}/Partial_sensitivity?{query}&individuals=22")
    page.get_by_text("Notes.").first.wait_for(timeout=180_000)  # (the listed individuals lie outside this box)
    page.wait_for_function("() => document.querySelectorAll('.katex-display').length >= 4", timeout=120_000)
    _settled(page)
    boxes = page.evaluate(
        """() => Array.from(document.querySelectorAll('.katex-display'), (el) => ({
            wide: el.scrollWidth > el.clientWidth + 1, tab: el.getAttribute('tabindex'),
            role: el.getAttribute('role'), name: el.getAttribute('aria-label')}))"""
    )
    wide = [b for b in boxes if b["wide"]]
    assert wide and len(wide) < len(boxes), boxes  # (the case: some formulas scroll, some fit)
    assert all(b["tab"] == "0" and b["role"] == "region" and "scroll it sideways" in b["name"] for b in wide), boxes
    assert all(b["tab"] is None and b["role"] is None for b in boxes if not b["wide"]), boxes
    region = page.locator('.katex-display[role="region"]').first
    region.focus()
    assert region.evaluate("(el) => el === document.activeElement && el.scrollLeft === 0")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("(el) => el.scrollLeft > 0", arg=region.element_handle(), timeout=5_000)
    _check(page, "Partial sensitivity, a query whose formulas scroll sideways")


def _described(page, fid: str) -> dict:
    return page.evaluate(
        """(fid) => { const gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);
        const box = gd.parentElement.querySelector('details.dpviz-describe');
        const by = document.getElementById(gd.getAttribute('aria-describedby'));
        return {role: gd.getAttribute('role'), name: gd.getAttribute('aria-label'),
                text: by && by.textContent, inBox: !!by && box.contains(by),
                title: gd.__dpvizShown.layout.title.text}; }""",
        fid,
    )


def test_a_chart_is_named_and_described_by_what_it_draws(server, page):
    """ADePT's ε chart at n up to 1024: a figure named by its title, described as ε√n rising from
    ε to 32ε (√1024 = 32: the closed form), the description following the slider; its box opens a
    table of the data drawn."""
    from browser_support import look_at, slide_right

    page.goto(f"{server}/ADePT_sensitivity?{FAST}&epsilon=1")
    wait_for_charts(page, charts_drawn("adept"))
    look_at(page, ".st-key-chart-adept-epsilon")
    page.wait_for_function(
        "() => { const gd = document.querySelector('.st-key-chart-adept-epsilon .dpviz-chart');"
        " return gd.getAttribute('role') === 'figure'; }",
        timeout=60_000,
    )
    d = _described(page, "adept-epsilon")
    assert d["role"] == "figure" and d["inBox"]
    assert d["name"] and d["name"].startswith("ADePT claims ε = 1 but gives ε√n")
    assert "ε actual = ε√n" in d["text"] and "rises from 1 to 32 " in d["text"]
    slide_right(page, "Privacy budget ε (claimed)")
    value = float(page.get_by_role("slider", name="Privacy budget ε (claimed)").get_attribute("aria-valuetext"))
    expected = f"rises from {value:.4g} to {32 * value:.4g} "
    page.wait_for_function(
        "(t) => { const gd = document.querySelector('.st-key-chart-adept-epsilon .dpviz-chart');"
        " return document.getElementById(gd.getAttribute('aria-describedby')).textContent.includes(t); }",
        arg=expected,
        timeout=60_000,
    )
    box = page.locator(".st-key-chart-adept-epsilon details.dpviz-describe")
    box.locator("summary").click()
    rows = box.locator("table tbody tr")
    rows.first.wait_for()
    drawn = page.evaluate(
        "() => document.querySelector('.st-key-chart-adept-epsilon .dpviz-chart')._fullData"
        ".filter(t => t.visible === true).reduce((n, t) => n + Math.min(t.x.length, t.y.length, 200), 0)"
    )
    assert rows.count() == drawn
    _check(page, "ADePT, a chart's description open")


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
def test_the_live_panel_stays_in_view_while_the_charts_scroll(server, browser, width, height):
    """Scrolled to the first, a middle and the last chart the sliders drive, the slider panel's
    top stays under the app's header, the same each time, and it takes under a quarter of the
    window (a phone shows the sliders without their introducing line); a chart brought into view
    by scrollIntoView stops under the panel, not behind it."""
    from browser_support import look_at_drawn

    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.goto(f"{server}/ADePT_sensitivity?{FAST}")
        wait_for_charts(page, charts_drawn("adept"))
        spots = []
        for fid in ("adept-sensitivity", "adept-privacy-loss", "adept-frontier"):
            look_at_drawn(page, f".st-key-chart-{fid}")
            chart_top = page.evaluate(
                f"() => document.querySelector('.st-key-chart-{fid}').getBoundingClientRect().top"
            )
            panel = page.evaluate(
                "() => { const r = document.querySelector('.st-key-live-panel').getBoundingClientRect();"
                " return [r.top, r.bottom]; }"
            )
            spots.append((chart_top, *panel))
        first = page.evaluate(
            "() => document.querySelector('.st-key-chart-adept-sensitivity').getBoundingClientRect().top"
        )
        assert first < -height  # the page scrolled far past the first chart
        tops = {round(top) for _, top, _ in spots}
        assert len(tops) == 1 and 0 <= tops.pop() <= 100  # pinned under the header
        assert all(bottom - top < height / 4 for _, top, bottom in spots)
        # a chart brought into view by scrollIntoView (as focus and links do) stops under the panel
        cleared = page.evaluate(
            "() => { const chart = document.querySelector('.st-key-chart-adept-privacy-loss');"
            " chart.scrollIntoView({block: 'start'});"
            " return [chart.getBoundingClientRect().top,"
            " document.querySelector('.st-key-live-panel').getBoundingClientRect().bottom]; }"
        )
        assert cleared[0] >= cleared[1] - 2, cleared
        page.get_by_role("slider", name="Privacy budget ε (claimed)").focus()  # reachable while scrolled
    finally:
        page.close()


# every text box Plotly drew in a chart, and the pairs that overlap (by more than 2 px each way)
OVERLAPS = """(fid) => {
  const gd = document.querySelector(`.st-key-chart-${fid} .dpviz-chart`);
  const boxes = [...gd.querySelectorAll('svg text')]
    .filter(t => t.textContent.trim() && getComputedStyle(t).display !== 'none' && +getComputedStyle(t).opacity !== 0)
    .map(t => ({r: t.getBoundingClientRect(), text: t.textContent.trim().slice(0, 40),
                legend: !!t.closest('g.legend')}))
    .filter(b => b.r.width > 0 && b.r.height > 0);
  const out = [];
  const frame = gd.querySelector('svg.main-svg').getBoundingClientRect();
  for (const b of boxes)  // cut off at the chart's edge (a title longer than a phone is wide)
    if (b.r.left < frame.left - 2 || b.r.right > frame.right + 2) out.push(`"${b.text}" runs off the chart`);
  // two texts on one line closer than GAP read as one ("1000" beside "0" reads "10000"): text
  // boxes are the glyphs' advance boxes, so letters that merely touch already show a gap of ~0
  const GAP = 4;
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i].r, b = boxes[j].r;
    const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (w > 2 && h > 2) out.push(`"${boxes[i].text}" over "${boxes[j].text}"`);
    else if (w > -GAP && h > a.height / 2)
      out.push(`"${boxes[i].text}" touches "${boxes[j].text}" (${(-w).toFixed(1)} px apart)`);
  }
  for (const bg of gd.querySelectorAll('g.legend rect.bg')) {  // a legend over a tick label or a title
    const L = bg.getBoundingClientRect();
    for (const t of boxes.filter(t => !t.legend)) {
      const w = Math.min(L.right, t.r.right) - Math.max(L.left, t.r.left);
      const h = Math.min(L.bottom, t.r.bottom) - Math.max(L.top, t.r.top);
      if (w > 1 && h > 1) out.push(`the legend over "${t.text}"`);
    }
  }
  return out;
}"""


# the paper pages on their defaults, and ADePT with its marked point high on its charts, where the
# curve reaches the top (a legend in the plot's upper left corner met the point's label there)
DRAWN = [p for p in PAGES if p[2]] + [("ADePT_sensitivity", f"{FAST}&dim=300", charts_drawn("adept"))]


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)], ids=["1280x800", "390x844"])
@pytest.mark.parametrize("path, query, charts", DRAWN, ids=[p[0] for p in PAGES if p[2]] + ["ADePT_sensitivity-dim300"])
def test_no_chart_draws_text_over_text(server, browser, path, query, charts, width, height):
    """At 1280 x 800 and on a phone (390 x 844), in every chart the page draws: no title, tick
    label, legend entry or label over another or closer beside it than a few pixels, no legend
    over a text, and none running off the chart."""
    from browser_support import look_at_drawn

    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(f"{server}/{path}?{query}")
    wait_for_charts(page, charts)
    page.wait_for_function(  # every first answer replaced by its full answer
        "() => ![...document.querySelectorAll('[class*=\"st-key-chart-\"]')]"
        ".some(e => [...e.classList].some(c => c.startsWith('st-key-chart-') && c.endsWith('-first')))",
        timeout=300_000,
    )
    _settled(page)
    ids = page.evaluate(
        "() => [...document.querySelectorAll('[class*=\"st-key-chart-\"]')]"
        ".map(e => [...e.classList].find(c => c.startsWith('st-key-chart-')).slice(13))"
    )
    assert len(ids) >= charts
    found = {}
    for fid in ids:
        look_at_drawn(page, f".st-key-chart-{fid}")
        overlaps = page.evaluate(OVERLAPS, fid)
        if overlaps:
            found[fid] = overlaps[:3]
    page.close()
    for fid, overlaps in found.items():
        print(f"{path} {width}x{height} {fid}: {overlaps}")
    assert not found, found


# Partial's pixel maps as drawn: per heatmap, its cells' numbers shown, the colour bar's
# orientation, and where the bar and the panels lie on the page
PIXEL_MAPS = """() => {
  const gd = document.querySelector('.st-key-chart-partial-dpsgd .dpviz-chart');
  const bar = gd.querySelector('.colorbar .cbfill').getBoundingClientRect();
  const chart = gd.querySelector('svg.main-svg').getBoundingClientRect();
  const plots = Object.values(gd._fullLayout._plots).map(p => ({
    left: chart.left + p.xaxis._offset, right: chart.left + p.xaxis._offset + p.xaxis._length,
    top: chart.top + p.yaxis._offset, bottom: chart.top + p.yaxis._offset + p.yaxis._length}));
  const numbers = [...gd.querySelectorAll('.heatmaplayer text')].filter(t => t.textContent.trim()).length;
  const scale = gd._fullData.find(t => t.showscale);
  return {numbers, orientation: scale.colorbar.orientation, bar: [bar.left, bar.top, bar.right, bar.bottom],
          lowest: Math.max(...plots.map(r => r.bottom)), highest: Math.min(...plots.map(r => r.top)),
          left: Math.min(...plots.map(r => r.left)), right: Math.max(...plots.map(r => r.right)),
          width: chart.width};
}"""


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)], ids=["1280x800", "390x844"])
def test_pixel_maps_show_their_numbers_and_keep_the_colour_bar_clear_of_the_panels(server, browser, width, height):
    """Partial's pixel maps (4 maps of 5 x 5 cells with numbers, 2 pictures without): every cell's
    number is drawn at both sizes. On a screen the colour bar stands beside the panels; on a phone,
    where the panels are stacked one per row, it lies under the last one, across most of the width
    (beside them it took a quarter of the width and ran the height of all six, and the cells were
    too narrow for their numbers)."""
    from browser_support import look_at_drawn

    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.goto(f"{server}/Partial_sensitivity?{PS_FAST}")
        page.wait_for_selector(".st-key-chart-partial-dpsgd .dpviz-chart .heatmaplayer", timeout=300_000)
        _settled(page)
        look_at_drawn(page, ".st-key-chart-partial-dpsgd")
        got = page.evaluate(PIXEL_MAPS)
    finally:
        page.close()
    assert got["numbers"] == 4 * 25, got
    left, top, right, bottom = got["bar"]
    if width < NARROW:
        assert got["orientation"] == "h", got
        assert top > got["lowest"], got  # under the last panel
        assert right - left > 0.6 * got["width"], got
        assert got["right"] - got["left"] > 0.75 * got["width"], got  # the panels keep the width
    else:
        assert got["orientation"] != "h", got
        assert left > got["right"] and bottom > got["highest"], got  # beside the panels
