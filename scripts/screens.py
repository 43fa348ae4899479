"""One command for the pages' screenshots: every page of dpviz, once its charts are drawn, at a
laptop's 1280 x 800 and a phone's 390 x 844, as a person first sees it (the window), into
docs/screens/ (the whole pages, in a tall window, are docs/screenshots/: see the README).

    .venv/bin/python scripts/screens.py            (starts a server of its own, on defaults)

It drives the same headless Chromium (Debian's ``chromium``, through Playwright) as the browser
tests, against a server started as they start one.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

SIZES = ((1280, 800), (390, 844))


def pages() -> list[tuple[str, str, int]]:
    """(name, path, charts drawn without a click) of every page."""
    from paper_pages import charts_drawn, url_path

    from dpviz import papers

    out = [("home", "", 0)]
    out += [(p.key, url_path(p.key), charts_drawn(p.key)) for p in papers.all_papers()]
    return out + [("audit", "Audit_a_mechanism", 0), ("lessons", "Lessons", 0)]


def main() -> None:
    """Start a server, take every page at every size, stop the server."""
    from browser_support import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server, wait_for_charts
    from playwright.sync_api import sync_playwright

    out = ROOT / "docs" / "screens"
    out.mkdir(parents=True, exist_ok=True)
    proc, url, log = start_server(Path(tempfile.mkdtemp()))
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for width, height in SIZES:
                for name, path, charts in pages():
                    page = browser.new_page(viewport={"width": width, "height": height})
                    page.set_default_timeout(300_000)
                    page.goto(f"{url}/{path}")
                    page.wait_for_selector('[data-testid="stApp"]')
                    if charts:
                        wait_for_charts(page, charts)
                    page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')")
                    page.wait_for_timeout(1500)  # Plotly's last transitions
                    stem = out / f"{name}-{width}x{height}"
                    page.screenshot(path=f"{stem}.png")
                    print(f"wrote {stem}.png", flush=True)
                    page.close()
            browser.close()
    finally:
        stop_server(proc, log)


if __name__ == "__main__":
    main()
