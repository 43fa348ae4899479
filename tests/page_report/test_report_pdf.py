"""The PDF report: it opens (poppler's pdfinfo), every chart's title and its axis text are text in
it (pdftotext), the line charts are vector paths (no raster image on a page of line charts), every
page is numbered "Page k of n", and every page renders (pdftoppm) with ink on it."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from browser_support import needs_chromium
from PIL import Image

from dpviz import page_report
from dpviz.page_report.pdf import own_ids

needs_poppler = pytest.mark.skipif(
    shutil.which("pdftotext") is None and not os.environ.get("DPVIZ_REQUIRE_BROWSER"),
    reason="poppler-utils (pdftotext) not installed (CI installs it and sets DPVIZ_REQUIRE_BROWSER=1)",
)


@pytest.fixture(scope="module")
def adept_pdf(tmp_path_factory):
    out = tmp_path_factory.mktemp("pdf") / "adept.pdf"
    rep, path = page_report.write("adept", {"epsilon": "2", "pairs": "500"}, out)
    return rep, path


def _pages(path) -> int:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"Pages:\s+(\d+)", info).group(1))


@needs_chromium
@needs_poppler
def test_pdf_opens_with_every_chart_as_text_and_vectors(adept_pdf):
    rep, path = adept_pdf
    assert path.read_bytes()[:5] == b"%PDF-"
    n = _pages(path)
    # a front page, the charts two a page, then the notes and commands
    assert n >= 1 + (len(rep.charts) + 1) // 2
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    flat = " ".join(text.split())
    for chart in rep.charts:
        assert " ".join(chart.title.split()) in flat, chart.title
    assert "dimension n of the encoder output (log scale)" in flat  # an axis title, drawn as text
    for k in range(1, n + 1):
        assert f"Page {k} of {n}" in flat
    images = subprocess.run(["pdfimages", "-list", str(path)], capture_output=True, text=True, check=True).stdout
    assert len(images.strip().splitlines()) == 2, images  # the header lines only: no raster image


@needs_chromium
@needs_poppler
def test_every_pdf_page_renders_with_ink(adept_pdf, tmp_path):
    _, path = adept_pdf
    subprocess.run(["pdftoppm", "-r", "30", "-png", str(path), str(tmp_path / "p")], check=True)
    pngs = sorted(tmp_path.glob("p-*.png"))
    assert len(pngs) == _pages(path)
    for png in pngs:
        gray = np.asarray(Image.open(png).convert("L"))
        assert (gray < 200).mean() > 0.003, f"{png.name} is (nearly) blank"


def test_svg_ids_are_made_each_charts_own():
    svg = (
        '<svg><defs><clipPath id="clip1x"><rect/></clipPath><clipPath id="clip1"><rect/></clipPath></defs>'
        '<g clip-path="url(#clip1x)"></g><g style="clip-path: url(\'#clip1\')"></g><use href="#clip1"/></svg>'
    )
    a, b = own_ids(svg, "a"), own_ids(svg, "b")
    assert 'id="a-clip1x"' in a and 'id="a-clip1"' in a and "url(#a-clip1x)" in a and "url('#a-clip1')" in a
    assert 'href="#a-clip1"' in a
    assert not set(re.findall(r'id="([^"]+)"', a)) & set(re.findall(r'id="([^"]+)"', b))
    assert own_ids("<svg><rect/></svg>", "a") == "<svg><rect/></svg>"
