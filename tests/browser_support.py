"""What the browser tests and the benchmarks share: the Chromium to drive, a real `streamlit run`
server (through the same start script as Docker) on a free port, and waiting for charts."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from dpviz.export import find_chromium
from webui.figure_card import EXPORT_LABEL

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = find_chromium()
TEST_BROWSER = shutil.which("chromium-headless-shell") or CHROMIUM
"""What the browser tests drive: Debian's ``chromium-headless-shell`` where it is installed (the same
Chromium without the full browser's windowing layers: a third less of the browser's CPU per page
opened here, ADePT, Partial and HoHo opened three times each), else ``chromium``. The benchmarks
and the screenshots keep the full browser a reader has."""
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("DPVIZ_REQUIRE_BROWSER"),
    reason="no Chromium here (CI installs it and sets DPVIZ_REQUIRE_BROWSER=1)",
)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
FAST = "pairs=1000&dims=1-40&samples=5000&draws=200"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(
    tmp_path: Path,
    extra_env: dict | None = None,
    cpus: set[int] | None = None,
    cache_from: Path | list[Path] | None = None,
    port: int | None = None,
    command=None,
):
    """Start `streamlit run app.py` on a free port (or ``port``); wait for /_stcore/health. ``cpus``: the cores
    the server may use (a benchmark that keeps the browser off the server's cores). ``cache_from``:
    a prepared cache (the tests' ``warm_cache``), or several laid one over the other, that the server
    starts with a copy of; without it, the server starts on an empty cache, as a fresh install does.
    ``command(port)``: another start command than the repository's (an installed ``dpviz-app``),
    started in ``tmp_path``."""
    port = port or _free_port()
    if cache_from is not None:
        from warm_cache import copy_into

        for warm in cache_from if isinstance(cache_from, list) else [cache_from]:
            copy_into(warm, tmp_path / "cache")
    # the supervised start command's control files in the test's own folder (removed with it)
    env = dict(os.environ, DPVIZ_CACHE_DIR=str(tmp_path / "cache"), DPVIZ_RUN_DIR=str(tmp_path / "run"))
    env.update(extra_env or {})
    log = open(tmp_path / f"streamlit-{port}.log", "w")
    # the same start command as Docker and scripts/start.sh use
    env.update(PORT=str(port), DPVIZ_ADDRESS="127.0.0.1", PYTHON=sys.executable)
    pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    argv, cwd = (["bash", "scripts/serve.sh"], ROOT) if command is None else (command(port), tmp_path)
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, preexec_fn=pin)
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


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (from /proc; none once it has ended)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(c) for c in fh.read().split()]
    except OSError:
        return []


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``: its children, theirs, and so on (from /proc)."""
    out, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        out += kids
        todo += kids
    return out


# Streamlit's own start-up probe: opened at a page's address, it first asks for /<page>/_stcore/health
# and /<page>/_stcore/host-config (404) before the app's root (streamlit/streamlit#7074, open)
STREAMLIT_PROBE = re.compile(r"/[A-Za-z_]+/_stcore/(health|host-config)$")


def watch_console(page) -> list[str]:
    """What goes wrong in ``page`` from now on, as lines: a console error, an uncaught page error, a
    failed request (HTTP 400 or more) but Streamlit's start-up probe (:data:`STREAMLIT_PROBE`, whose
    own "Failed to load resource" console line is let through). The list fills as the page runs."""
    seen: list[str] = []
    failed: set[str] = set()

    def on_response(r):
        if r.status >= 400:
            failed.add(r.url)
            if not STREAMLIT_PROBE.search(r.url.split("?")[0]):
                seen.append(f"HTTP {r.status} {r.url}")

    page.on("response", on_response)
    page.on(
        "console",
        lambda m: (
            seen.append(f"console: {m.text} ({m.location.get('url', '')})")
            if m.type == "error" and not (m.text.startswith("Failed to load resource") and failed)
            else None
        ),
    )
    page.on("pageerror", lambda e: seen.append(f"page error: {e}"))
    return seen


def chart_js(expr: str) -> str:
    """JS: ``expr`` (an expression over the page's charts, ``all``: document order), with the
    chart it picks scrolled into view first, as a reader looks at a chart: dpviz redraws a chart
    out of view when it comes into view (webui/live_js/). ``None`` while there is no such chart."""
    return (
        "(() => { const all = document.querySelectorAll('.js-plotly-plot'); const c = " + expr + "; "
        "if (c) c.scrollIntoView({block: 'nearest'}); return c; })()"
    )


# a slider's thumb and track, from its input (Streamlit's slider: the input sits in the thumb, the
# thumb on the track): the thumb's centre x, y and the track's left edge and width, in page pixels
SLIDER_GEOMETRY = """(e) => { const t = e.parentElement.parentElement, r = t.getBoundingClientRect(),
  k = t.parentElement.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2, k.x, k.width]; }"""


def slider_geometry(slider) -> list[float]:
    """The Playwright locator ``slider``'s thumb centre (x, y) and its track's left and width."""
    return slider.evaluate(SLIDER_GEOMETRY)


def look_at(page, selector: str) -> None:
    """Scroll the element ``selector`` picks into the middle of the window, as a reader who looks at
    it: once it is on the page (a page's run draws its elements in order; the page's default timeout)."""
    page.wait_for_function(
        "(s) => { const e = document.querySelector(s); if (e) e.scrollIntoView({block: 'center'}); return !!e; }",
        arg=selector,
    )


# every chart element under a selector drawn as it now stands: a chart that came into view draws
# what it held back (webui/live_js/chart.js show) once its watcher has seen it; then two frames
DRAWN_IN_VIEW = """async (sel) => {
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  await frame(); await frame();
  for (const gd of document.querySelectorAll(sel + ' .dpviz-chart')) {
    for (let i = 0; i < 600 && gd.__dpvizPending; i++) await frame();
    await Promise.resolve(gd.__dpvizLast).catch(() => null);
  }
  await frame(); await frame();
}"""


def look_at_drawn(page, selector: str) -> None:
    """:func:`look_at`, then wait until the charts under ``selector`` are drawn as they now stand
    (not a fixed pause: a chart out of view is redrawn when it comes into view)."""
    look_at(page, selector)
    page.evaluate(DRAWN_IN_VIEW, selector)


# how long a run must stay ended before a test reads the page: a run stopped for a rerun ends, and
# the next one starts a frame or two later, with the stopped run's unreached elements still the
# previous run's (wait_run_ended)
SETTLE_MS = 300
RUN_STATE = "document.querySelector('[data-testid=\"stApp\"]')?.dataset.testScriptState"
"""JS: the page's run state, as Streamlit's app element carries it (``data-test-script-state``:
initial, running, rerunRequested, stopRequested, notRunning, compilationError). Streamlit's status
widget is no sign of it: with ``client.toolbarMode = "minimal"`` (.streamlit/config.toml) the
header never shows it, so a wait for the widget to go returned at once, mid-run."""
RUN_ENDED = f"() => ['notRunning', 'compilationError'].includes({RUN_STATE})"
"""Whether the page's run has ended: it ran, and runs no more."""


def wait_run_ended(page, timeout: float | None = None, hold_ms: int = 0) -> None:
    """Until the page's run has ended (``timeout`` ms, else the page's own default) and stayed
    ended for ``hold_ms``. A run stopped for a rerun (a second widget event while it ran) ends
    and the next one starts a frame or two later: between them the page does not run, though
    the elements the stopped run had not reached yet are still the previous run's."""
    if not hold_ms:
        page.wait_for_function(RUN_ENDED, timeout=timeout)
        return
    page.evaluate("window.__dpvizEndedAt = null")  # counted from this call, not an earlier one
    page.wait_for_function(
        "hold => {"
        f"    if (!({RUN_ENDED})()) {{"
        """
                window.__dpvizEndedAt = null;
                return false;
            }
            window.__dpvizEndedAt ??= performance.now();
            return performance.now() - window.__dpvizEndedAt >= hold;
        }""",
        arg=hold_ms,
        timeout=timeout,
    )


def wait_for_charts(page, n: int) -> None:
    page.wait_for_selector('[data-testid="stApp"]')
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {n}", timeout=90_000)
    wait_run_ended(page, timeout=90_000, hold_ms=SETTLE_MS)
    # every chart element of the finished run drawn (a chart that replaced a first answer is a new
    # element, drawn a moment after the run ends; until then the charts' order on the page is not theirs)
    page.wait_for_function(
        "[...document.querySelectorAll('.dpviz-chart')].every(gd => gd.classList.contains('js-plotly-plot'))",
        timeout=90_000,
    )


PS_FAST = "per_class=100&sgd_steps=100&dpsgd_steps=100&eval_per_class=50"
MDP_FAST = "words=3&samples=100&knn_words=20&epsilons=2,5,10,30"
HOHO_FAST = "targets=0.05&epsilons=0.1,1&lambdas=1,10&audit_samples=2000"
WARM_QUERIES = (("adept", FAST), ("partial", PS_FAST), ("metric", MDP_FAST), ("hoho", HOHO_FAST))
"""The reduced settings the browser tests open the paper pages at, which the warm cache holds
(tests/warm_cache.py) beside the defaults."""


EXPORT = EXPORT_LABEL  # the label of a chart card's button that opens its downloads and Reproduce box


def open_export(page, figure_id: str | None = None, nth: int = 0):
    """Open a chart's "Download · Reproduce" dialog (the card of ``figure_id``, or the ``nth``
    such button on the page) and return the dialog."""
    if figure_id is not None:
        button = page.locator(f".st-key-export-{figure_id}").get_by_role("button", name=EXPORT)
    else:
        button = page.get_by_role("button", name=EXPORT).nth(nth)
    button.click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("button", name="⬇ CSV").wait_for(timeout=60_000)
    return dialog


def close_export(page) -> None:
    """Close the open dialog by its Close button and wait until it is gone."""
    page.get_by_role("dialog").get_by_role("button", name="Close").click()
    page.get_by_role("dialog").wait_for(state="detached", timeout=30_000)


def submit(box, text: str) -> None:
    """Type into a text or number box and press Enter, as a person does."""
    box.fill(text)
    box.press("Enter")


def chart_text(page, index: int) -> str:
    return page.locator(".js-plotly-plot").nth(index).inner_text()


def chart_html(page, index: int) -> str:
    return page.locator(".js-plotly-plot").nth(index).inner_html()


def slide_right(page, label: str) -> None:
    """One step right, as a person presses the arrow key. A key press that lands while the page is
    redrawing the slider is lost (the element is replaced), and a person would press again: so
    press again, at most twice, only while the slider still shows its old value."""
    slider = page.get_by_role("slider", name=label)

    def shown():  # a select slider keeps its position in aria-valuenow, its value in aria-valuetext
        return slider.get_attribute("aria-valuenow"), slider.get_attribute("aria-valuetext")

    old = shown()
    for _ in range(3):
        slider.focus()
        page.keyboard.press("ArrowRight")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if shown() != old:
                return
            time.sleep(0.2)


AXE = Path(__file__).resolve().parents[1] / ".venv" / "axe" / "axe.min.js"
AXE_RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
AXE_RUN = """async (tags) => {
  const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}});
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => n.target.join(' ') + ': ' + (n.failureSummary || '').replace(/\\s+/g, ' '))}));
}"""


def axe_violations(page) -> list[dict]:
    """axe-core's WCAG 2.0-2.2 A/AA violations on the page as it is now."""
    assert AXE.exists(), f"axe-core is missing at {AXE}: run bash scripts/test.sh (it fetches it with npm)"
    page.add_script_tag(path=str(AXE))
    return page.evaluate(AXE_RUN, AXE_RULES)


def axe_check(page, where: str) -> None:
    """Fail on a violation of impact serious or critical; list the rest."""
    found = axe_violations(page)
    bad = [v for v in found if v["impact"] in ("serious", "critical")]
    for v in found:  # the rest, listed
        print(f"{where}: {v['impact']} {v['id']} ({len(v['nodes'])} nodes): {v['help']}")
    assert not bad, f"{where}: " + "; ".join(f"{v['id']} {v['impact']}: {v['nodes'][:3]}" for v in bad)
