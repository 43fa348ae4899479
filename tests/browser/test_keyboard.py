"""Keyboard alone (issue #37): every control a page has is reached with Tab, shows where the focus
is (WCAG 2.4.7) and is not hidden under the sticky slider panel (2.4.11); a slider moves with the
arrow keys and redraws its chart, a chart's description opens with Enter, a download button
downloads with Enter.

"Shows where the focus is" is measured as a person sees it: the pixels around the focused
control, screenshotted focused and again after the focus is taken away, must differ. Streamlit
hides some inputs (a slider's range input, a radio's circle) behind what it draws; for those, the
control's widget box is what is compared."""

from __future__ import annotations

import base64
import io
import re

import pytest
from browser_support import EXPORT, FAST, SETTLE_MS, look_at, wait_for_charts, wait_run_ended
from paper_pages import charts_drawn

pytestmark = pytest.mark.timeout(900)

# what has the focus, and the box a person looks at for it: the element itself, or for an input
# Streamlit hides behind its own drawing (range, radio, checkbox) the widget that draws it
FOCUSED = """() => {
  const e = document.activeElement;
  const hidden = e.tagName === 'INPUT' && ['range', 'radio', 'checkbox'].includes(e.type);
  const box = hidden ? (e.closest('label') && e.type !== 'range' ? e.closest('label')
                        : e.closest('[data-testid=stElementContainer]')) : e;
  const r = box.getBoundingClientRect();
  const left = Math.max(0, r.left), top = Math.max(0, r.top);
  const right = Math.min(innerWidth, r.right), bottom = Math.min(innerHeight, r.bottom);
  let seen = 0, tried = 0;  // of nine points spread over the box, how many show the control itself
  for (const fx of [0.2, 0.5, 0.8]) for (const fy of [0.2, 0.5, 0.8]) {
    const x = left + fx * (right - left), y = top + fy * (bottom - top);
    if (right - left < 1 || bottom - top < 1) continue;
    tried += 1;
    const hit = document.elementFromPoint(x, y);
    if (hit && (box.contains(hit) || hit.contains(box))) seen += 1;
  }
  const name = (e.getAttribute('aria-label') || e.innerText || e.value || '').replace(/\\s+/g, ' ').trim();
  return {tag: e.tagName, type: e.type || '', name: name.slice(0, 60), box: [left, top, right, bottom],
          seen, tried};
}"""


# a text box's blinking caret is no focus indicator: hidden, so that it cannot pass for one; and no
# CSS transition: a focus ring's fade in or out (0.1-0.2 s) is drawn at once in its final state,
# which is what a person sees a moment later (waiting each out took 7 of every 10 s of the walk)
NO_CARET = "*, *::before, *::after { caret-color: transparent !important; transition: none !important; }"


def _shooter(page):
    """A function of a box (viewport pixels) to the RGB picture of it and 6 px around (an outline
    drawn outside the box, with its offset), as Chromium paints the page now. Taken through the
    DevTools protocol: Playwright's screenshot costs 3-4 round trips of its own per picture (the
    caret hidden and shown, animations stopped and let go), and the Tab walk takes two pictures
    at each of some 150 stops; the caret is hidden once here and the animations near the control
    are waited out (SETTLED)."""
    from PIL import Image

    page.add_style_tag(content=NO_CARET)
    cdp = page.context.new_cdp_session(page)

    def shoot(box, scroll):
        left, top, right, bottom = box
        m = 6
        x0, y0 = max(0, left - m), max(0, top - m)
        size = page.viewport_size
        x1, y1 = min(size["width"], right + m), min(size["height"], bottom + m)
        sx, sy = scroll  # the clip is in page pixels: the viewport's offset, read with the box
        clip = {"x": x0 + sx, "y": y0 + sy, "width": x1 - x0, "height": y1 - y0, "scale": 1}
        shot = cdp.send("Page.captureScreenshot", {"format": "png", "clip": clip})
        return Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("RGB")

    return shoot


def _changed(a, b) -> int:
    from PIL import ImageChops

    return sum(ImageChops.difference(a, b).convert("L").histogram()[41:])  # pixels that changed, not by a shade


# the focused control drawn as it stays: no transition or animation running on it, its ancestors or
# its children (a focus ring fades in or out), then two animation frames so the last state is
# painted; with `again`, the control focused last time (after its blur, as it fades out)
SETTLED = """(again) => new Promise((done) => {
  const el = again ? window.__tabbed : (window.__tabbed = document.activeElement || document.body);
  const near = (a) => { const t = a.effect && a.effect.target; return t && (t.contains(el) || el.contains(t)); };
  const check = () => document.getAnimations().some((a) => a.playState === "running" && near(a))
    ? requestAnimationFrame(check)
    : requestAnimationFrame(() => requestAnimationFrame(done));
  check();
})"""


# the page's scroll offset (a screenshot's clip is in page pixels)
SCROLL = "[visualViewport.pageLeft, visualViewport.pageTop]"
# one call per picture (a round trip to the browser each; some 150 stops, two pictures each): the
# focused control settled, then what has the focus and the scroll offset; and after the blur, the
# control settled again and the scroll offset
FOCUSED_SETTLED = f"async () => {{ await ({SETTLED})(false); return {{...({FOCUSED})(), scroll: {SCROLL}}}; }}"
BLURRED_SETTLED = f"async () => {{ document.activeElement.blur(); await ({SETTLED})(true); return {SCROLL}; }}"


def _tab_through(page, stops: int = 250) -> list[dict]:
    """Tab from the top of the page until the focus comes back to where it started; every stop
    with whether its focus was visible (changed pixels) and not hidden (points of it in sight)."""
    page.evaluate("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
    pixels = _shooter(page)
    seen, first = [], None
    for _ in range(stops):
        page.keyboard.press("Tab")
        stop = page.evaluate(FOCUSED_SETTLED)
        key = (stop["tag"], stop["name"])
        if stop["tag"] == "BODY" or key == first:
            break
        first = first or key
        left, top, right, bottom = stop["box"]
        on_screen = right - left >= 1 and bottom - top >= 1  # focused off the window: nobody sees it
        focused = pixels(stop["box"], stop["scroll"]) if on_screen else None
        scroll = page.evaluate(BLURRED_SETTLED)  # the next Tab goes on from the blurred control (Chromium)
        stop["changed"] = _changed(focused, pixels(stop["box"], scroll)) if on_screen else 0
        seen.append(stop)
    return seen


def _check(stops: list[dict], where: str) -> None:
    assert len(stops) > 10, f"{where}: only {len(stops)} stops reached by Tab"
    invisible = [f"{s['tag']} {s['name']!r}" for s in stops if s["changed"] < 20]
    hidden = [f"{s['tag']} {s['name']!r}" for s in stops if s["tried"] and s["seen"] == 0]
    assert not invisible, f"{where}: focus not visible on {invisible}"
    assert not hidden, f"{where}: focused control hidden under something on {hidden}"


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)], ids=["1280x800", "390x844"])
def test_every_control_of_a_paper_page_shows_its_focus(server, browser, width, height):
    """ADePT, charts drawn: every Tab stop of the sidebar and the page (number boxes, sliders,
    radio, multiselect, help buttons, links, the charts' tool and download buttons, the
    descriptions) is visible when focused and not under the sticky slider panel."""
    page = browser.new_page(viewport={"width": width, "height": height}, accept_downloads=True)
    try:
        page.goto(f"{server}/ADePT_sensitivity?{FAST}")
        wait_for_charts(page, charts_drawn("adept"))
        page.wait_for_timeout(800)
        stops = _tab_through(page)
        names = {s["name"] for s in stops}
        # the kinds of control the page has were all reached
        # (a phone's sidebar is closed: its controls are out of the Tab order until it is opened)
        sidebar = ("Random seed",) if width > 600 else ("Expand sidebar",)
        for expected in ("Skip to main content", "Privacy budget ε (claimed)", EXPORT, *sidebar):
            assert expected in names, f"{expected!r} not reached by Tab: {sorted(names)[:40]}"
        if width > 600:
            assert any(s["type"] == "radio" for s in stops)
        else:
            assert "Random seed" not in names
        assert any(s["tag"] == "SUMMARY" for s in stops)
        _check(stops, f"ADePT {width}x{height}")
    finally:
        page.close()


@pytest.mark.parametrize("path", ["Audit_a_mechanism", "Lessons"])
def test_every_control_of_a_tool_page_shows_its_focus(server, browser, path):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(f"{server}/{path}")
        page.wait_for_selector('[data-testid="stApp"]')
        wait_run_ended(page, timeout=180_000, hold_ms=SETTLE_MS)
        page.wait_for_timeout(1500)
        _check(_tab_through(page), path)
    finally:
        page.close()


def _tab_to(page, name: str, tag: str | None = None, stops: int = 250) -> None:
    for _ in range(stops):
        page.keyboard.press("Tab")
        stop = page.evaluate(FOCUSED)
        if stop["name"] == name and (tag is None or stop["tag"] == tag):
            return
    raise AssertionError(f"{name!r} not reached by Tab")


def test_a_slider_a_description_and_a_download_work_by_keyboard_alone(server, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    try:
        page.goto(f"{server}/ADePT_sensitivity?{FAST}")
        wait_for_charts(page, charts_drawn("adept"))
        page.wait_for_timeout(800)
        gd = ".st-key-chart-adept-epsilon .dpviz-chart"
        _tab_to(page, "Privacy budget ε (claimed)")
        look_at(page, ".st-key-chart-adept-epsilon")  # the chart in view (one out of view is drawn when seen)
        slider = page.get_by_role("slider", name="Privacy budget ε (claimed)")
        before = slider.get_attribute("aria-valuetext")
        page.evaluate(  # every drawing of the chart from now on
            "(s) => { window.__drawn = 0; document.querySelector(s).addEventListener('dpviz-drawn',"
            " () => { window.__drawn += 1; }); }",
            gd,
        )
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        page.wait_for_function("() => window.__drawn > 0", timeout=60_000)
        assert slider.get_attribute("aria-valuetext") != before
        assert float(slider.get_attribute("aria-valuetext")) > float(before)
        # on from the slider: the first chart's description, opened with Enter
        _tab_to(page, "Describe this chart: text and data table", "SUMMARY")
        assert page.evaluate("document.activeElement.parentElement.open") is False
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.parentElement.open") is True
        # on to the chart's "Download · Reproduce" button: Enter opens its dialog, where Tab reaches
        # the CSV button, Enter downloads, and Escape closes the dialog
        _tab_to(page, EXPORT, "BUTTON")
        page.keyboard.press("Enter")
        dialog = page.get_by_role("dialog")
        dialog.get_by_role("button", name="⬇ CSV").wait_for(timeout=60_000)
        _tab_to(page, "⬇ CSV", "BUTTON", stops=20)
        assert page.evaluate("!!document.activeElement.closest('[role=dialog]')")
        with page.expect_download(timeout=60_000) as got:
            page.keyboard.press("Enter")
        assert re.search(r"\.csv$", got.value.suggested_filename)
        # (a download can take the focus out of the dialog, where Escape does not reach it: Tab
        # brings it back inside, as the dialog keeps the focus within itself)
        inside = "!!document.activeElement.closest('[role=dialog]')"
        for _ in range(5):
            page.keyboard.press("Tab")
            if page.evaluate(inside):
                break
        assert page.evaluate(inside), "Tab did not bring the focus back into the dialog"
        page.keyboard.press("Escape")
        dialog.wait_for(state="detached", timeout=30_000)
    finally:
        page.close()
