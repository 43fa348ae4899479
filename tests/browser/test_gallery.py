"""Every chart looked at alone: an element screenshot of each chart at the size the page draws
it, on the page's defaults and after one changed setting, into a gallery.

With DPVIZ_SCREENSHOTS=1 the pictures go to docs/gallery/ (and docs/gallery/README.md lists
them); otherwise to a temporary folder, so the test still checks that every chart is drawn,
named and non-blank on every run."""

from __future__ import annotations

import os

import pytest
from browser_support import ROOT, wait_for_charts

GALLERY = ROOT / "docs" / "gallery"
WRITE_DOCS = bool(os.environ.get("DPVIZ_SCREENSHOTS"))

# (page path, state name, query): defaults, then one changed setting per page
VIEWS = [
    ("ADePT_sensitivity", "default", ""),
    (
        "ADePT_sensitivity",
        "changed",
        "dim=9&clip=7&epsilon=1.3&sweep=dim&geometry_dim=3&distributions=uniform,normal,normal_tight",
    ),
    ("Metric_DP", "default", ""),
    (
        "Metric_DP",
        "changed",
        "words=12&epsilons=1,2,5,10,20,40&hist_epsilons=5,9,12&target_stat=s_w&target=500&compare=fasttext-local",
    ),
    ("HoHo_attack", "default", ""),
    ("HoHo_attack", "changed", "epsilons=0.001,1&lambdas=1,10,50&r=50&lambda_=2&sentence_index=3"),
    ("Partial_sensitivity", "default", ""),
    ("Partial_sensitivity", "changed", "view=contours&sigma=3&alpha=8"),
]


def _chart_ids(page) -> list[str]:
    """Figure id of every chart in page order, read from the chart's element key (chart-<id>)."""
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('[class*="st-key-chart-"]')).map(
            e => Array.from(e.classList).find(c => c.startsWith('st-key-chart-')).slice('st-key-chart-'.length))"""
    )


@pytest.mark.parametrize("path, state, query", VIEWS, ids=[f"{p}-{s}" for p, s, _ in VIEWS])
def test_gallery_of_every_chart(server, browser, tmp_path, path, state, query):
    from PIL import Image, ImageStat

    out_dir = GALLERY if WRITE_DOCS else tmp_path
    out_dir.mkdir(parents=True, exist_ok=True)
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    pg = ctx.new_page()
    pg.set_default_timeout(180_000)
    pg.goto(f"{server}/{path}" + (f"?{query}" if query else ""))
    wait_for_charts(pg, 6)
    pg.wait_for_selector("text=Notes.", timeout=240_000)  # the page's last line: the script ran to the end
    pg.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=240_000)
    assert pg.locator('[data-testid="stException"]').count() == 0
    ids = _chart_ids(pg)
    assert len(ids) >= 6 and len(set(ids)) == len(ids)
    for fid in ids:
        chart = pg.locator(f".st-key-chart-{fid}")
        chart.scroll_into_view_if_needed()
        pg.wait_for_timeout(400)  # plotly's transitions
        out = out_dir / f"{fid}--{state}.png"
        chart.screenshot(path=str(out))
        with Image.open(out) as im:
            assert im.size[0] > 500 and im.size[1] > 250, (fid, im.size)
            spread = ImageStat.Stat(im.convert("L")).stddev[0]
            assert spread > 5, f"{fid} ({state}) looks blank"
    ctx.close()
    if WRITE_DOCS:
        _write_index()


AUDIT_EXAMPLES = ("laplace", "adept", "metric")


@pytest.mark.parametrize("example", AUDIT_EXAMPLES)
def test_gallery_of_the_audit_chart(server, browser, tmp_path, example):
    """The audit page's chart for a numeric (histograms and a threshold) and a categorical (bars
    of words) example, at the size the page draws it."""
    from PIL import Image, ImageStat

    out_dir = GALLERY if WRITE_DOCS else tmp_path
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    pg = ctx.new_page()
    pg.set_default_timeout(180_000)
    pg.goto(f"{server}/Audit_a_mechanism?example={example}")
    wait_for_charts(pg, 1)
    chart = pg.locator(".st-key-audit-chart")
    chart.scroll_into_view_if_needed()
    pg.wait_for_timeout(400)
    out = out_dir / f"audit--{example}.png"
    chart.screenshot(path=str(out))
    with Image.open(out) as im:
        assert im.size[0] > 500 and im.size[1] > 250 and ImageStat.Stat(im.convert("L")).stddev[0] > 5
    ctx.close()
    if WRITE_DOCS:
        _write_index()


def _write_index() -> None:
    shots = sorted(GALLERY.glob("*.png"))
    lines = [
        "# Gallery: every chart alone, at the size the page draws it",
        "",
        "Written by `DPVIZ_SCREENSHOTS=1 python -m pytest tests/browser/test_gallery.py`: each chart on its page's",
        "defaults and after one changed setting (the settings are in `tests/browser/test_gallery.py`).",
        "",
    ]
    for shot in shots:
        fid, state = shot.stem.split("--")
        lines += [f"## {fid} ({state})", "", f"![{fid}, {state}]({shot.name})", ""]
    (GALLERY / "README.md").write_text("\n".join(lines))
