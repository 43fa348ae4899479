"""One command for the pages' screenshots: every page of dpviz, once its charts are drawn, at a
laptop's 1280 x 800 and a phone's 390 x 844, as a person first sees it (the window), into
docs/screens/; every page whole, top to bottom at 1500 px wide, into docs/screenshots/ (the
README's picture and docs/pages.md's); and the gallery, every chart alone at the size the page
draws it, on each page's defaults and after one changed setting (tests/paper_pages.py
GALLERY_VIEWS), into docs/gallery/ to be looked at one by one.

    .venv/bin/python scripts/screens.py            (starts a server of its own, on defaults)
    .venv/bin/python scripts/screens.py whole      (every page whole, into docs/screenshots/)
    .venv/bin/python scripts/screens.py gallery    (the gallery; each picture checked non-blank)
    .venv/bin/python scripts/screens.py gallery budget   (one page's views only)

It drives the same headless Chromium (Debian's ``chromium``, through Playwright) as the browser
tests, against a server started as they start one.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the tests' helpers; dpviz is imported as installed (pip install -e .)

SIZES = ((1280, 800), (390, 844))


def pages() -> list[tuple[str, str, int]]:
    """(name, path, charts drawn without a click) of every page."""
    from paper_pages import charts_drawn, url_path

    from dpviz import papers

    out = [("home", "", 0)]
    out += [(p.key, url_path(p.key), charts_drawn(p.key)) for p in papers.all_papers()]
    return out + [("audit", "Audit_a_mechanism", 0), ("lessons", "Lessons", 0)]


@contextlib.contextmanager
def _browser_on_a_server():
    """A server of its own (on an empty cache, as a fresh install) and Chromium, the full browser a
    reader has: yields (browser, url); both stopped after."""
    from browser_support import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server
    from playwright.sync_api import sync_playwright

    proc, url, log = start_server(Path(tempfile.mkdtemp()))
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield browser, url
            browser.close()
    finally:
        stop_server(proc, log)


def _idle(page) -> None:
    """Wait until no run of the page is on (Streamlit's status widget gone)."""
    page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')")


def _settled(page, charts: int, last_line: bool = True) -> None:
    """Wait until the page shows its title (every page has one: an empty window until the script
    has sent it), its first ``charts`` charts are drawn, its script ran to its last line (a paper
    page's "Notes.", when ``last_line``) and no run is on."""
    from browser_support import wait_for_charts

    page.wait_for_selector('[data-testid="stMainBlockContainer"] h1')
    if charts:
        wait_for_charts(page, charts)
        if last_line:
            page.wait_for_selector("text=Notes.")
    _idle(page)


def _not_blank(out: Path, least: tuple[int, int] = (300, 250)) -> None:
    """Refuse a picture smaller than ``least`` or of one colour (a page not drawn yet)."""
    from PIL import Image, ImageStat

    with Image.open(out) as im:
        if im.size[0] < least[0] or im.size[1] < least[1] or ImageStat.Stat(im.convert("L")).stddev[0] <= 5:
            raise SystemExit(f"{out.name} looks blank ({im.size}): look at the page")
    print(f"wrote {out.relative_to(ROOT)}", flush=True)


def main() -> None:
    """Start a server, take every page at every size, stop the server."""
    out = ROOT / "docs" / "screens"
    out.mkdir(parents=True, exist_ok=True)
    with _browser_on_a_server() as (browser, url):
        for width, height in SIZES:
            for name, path, charts in pages():
                page = browser.new_page(viewport={"width": width, "height": height})
                page.set_default_timeout(300_000)
                page.goto(f"{url}/{path}")
                _settled(page, charts, last_line=False)
                page.wait_for_timeout(1500)  # Plotly's last transitions
                stem = out / f"{name}-{width}x{height}"
                page.screenshot(path=f"{stem}.png")
                _not_blank(Path(f"{stem}.png"))
                page.close()


WHOLE_WIDTH = 1500


def whole() -> None:
    """Every page whole into docs/screenshots/<name>.png, at 1500 px wide: the window made as tall
    as the page's content once its run has ended (Streamlit scrolls its main block, not the
    document, so a full-page screenshot of a short window holds only the window), so that every
    chart is in view and drawn."""
    out = ROOT / "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    with _browser_on_a_server() as (browser, url):
        for name, path, charts in pages():
            page = browser.new_page(viewport={"width": WHOLE_WIDTH, "height": 1100})
            page.set_default_timeout(300_000)
            page.goto(f"{url}/{path}")
            _settled(page, charts)
            for _ in range(3):  # the page grows as charts below the first window are drawn
                tall = page.evaluate(
                    "() => Math.ceil(document.querySelector('[data-testid=\"stMainBlockContainer\"]')"
                    ".getBoundingClientRect().height) + 160"
                )
                if tall <= page.viewport_size["height"]:
                    break
                page.set_viewport_size({"width": WHOLE_WIDTH, "height": tall})
                page.wait_for_timeout(2500)  # charts that came into view drawn, Plotly's transitions
            _idle(page)
            target = out / f"{name}.png"
            page.screenshot(path=str(target), full_page=True)
            _not_blank(target)
            page.close()


def _chart_ids(page) -> list[str]:
    """Figure id of every chart in page order, read from the chart's element key (chart-<id>)."""
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('[class*="st-key-chart-"]')).map(
            e => Array.from(e.classList).find(c => c.startsWith('st-key-chart-')).slice('st-key-chart-'.length))"""
    )


def _shoot(page, locator, out: Path) -> None:
    """An element screenshot of ``locator`` into ``out``, once Plotly has drawn it; refuses a blank one."""
    locator.scroll_into_view_if_needed()
    _idle(page)
    page.wait_for_timeout(400)  # Plotly's transitions
    locator.screenshot(path=str(out))
    _not_blank(out, (500, 250))


def gallery(only: str | None = None) -> None:
    """Every chart alone, on each page's defaults and after one changed setting, and the audit
    page's chart for each example, into docs/gallery/ with its index (README.md); ``only``: one
    page's views (its key), and no audit example."""
    from browser_support import wait_for_charts  # (the audit chart)
    from paper_pages import AUDIT_EXAMPLES, GALLERY_VIEWS, charts_drawn, url_path

    out = ROOT / "docs" / "gallery"
    out.mkdir(parents=True, exist_ok=True)
    with _browser_on_a_server() as (browser, url):
        for key, state, query in GALLERY_VIEWS:
            if only and key != only:
                continue
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            page.set_default_timeout(300_000)
            page.goto(f"{url}/{url_path(key)}" + (f"?{query}" if query else ""))
            _settled(page, min(6, charts_drawn(key)))
            for fid in _chart_ids(page):
                _shoot(page, page.locator(f".st-key-chart-{fid}"), out / f"{fid}--{state}.png")
            page.close()
        for example in () if only else AUDIT_EXAMPLES:
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            page.set_default_timeout(300_000)
            page.goto(f"{url}/Audit_a_mechanism?example={example}")
            wait_for_charts(page, 1)
            _shoot(page, page.locator(".st-key-audit-chart"), out / f"audit--{example}.png")
            page.close()
    lines = [
        "# Gallery: every chart alone, at the size the page draws it",
        "",
        "Written by `python scripts/screens.py gallery`: each chart on its page's defaults and after one",
        "changed setting (the settings are `GALLERY_VIEWS` in `tests/paper_pages.py`).",
        "",
    ]
    for shot in sorted(out.glob("*.png")):
        fid, state = shot.stem.split("--")
        lines += [f"## {fid} ({state})", "", f"![{fid}, {state}]({shot.name})", ""]
    (out / "README.md").write_text("\n".join(lines))


if __name__ == "__main__":
    if sys.argv[1:2] == ["gallery"]:
        gallery(sys.argv[2] if len(sys.argv) > 2 else None)
    elif sys.argv[1:2] == ["whole"]:
        whole()
    else:
        main()
