"""The report box in the real browser, as an author uses it: explore the page (a live slider
moved), make the report of what is on screen, download it, read it back, and follow its link
back to the same view."""

from __future__ import annotations

import re
import subprocess

from browser_support import FAST, slide_right, wait_for_charts
from report_support import ReportReader

from dpviz import papers


def _make_and_download(page, fmt: str):
    page.get_by_role("heading", name="This page as one report").scroll_into_view_if_needed()
    page.get_by_test_id("stRadioOption").filter(has_text=fmt).click()
    page.get_by_role("button", name="Make the report").click()
    button = page.get_by_role("button", name=re.compile(r"Download dpviz-adept-report"))
    button.wait_for(timeout=120_000)
    with page.expect_download() as dl:
        button.click()
    return dl.value


def test_report_of_the_view_on_screen_and_back(server, page):
    page.goto(f"{server}/ADePT_sensitivity?epsilon=2&seed=5&{FAST}")
    wait_for_charts(page, 6)
    slide_right(page, "Privacy budget ε (claimed)")  # 2 -> 2.5, a live move the report must see
    page.wait_for_url(re.compile(r"epsilon=2.5"), timeout=60_000)
    view = page.url

    download = _make_and_download(page, "HTML")
    assert download.suggested_filename == "dpviz-adept-report.html"
    read = ReportReader(open(download.path(), encoding="utf-8").read())
    assert read.figure_ids == list(papers.get("adept").figures)
    assert read.setting_values()["epsilon"] == "2.5" and read.setting_values()["seed"] == "5"
    assert read.external == []
    (link,) = {h for h in read.links if "ADePT_sensitivity" in h}
    assert link.split("?")[0] == view.split("?")[0]

    page.goto(link)  # the report's link reopens the view it was made of
    wait_for_charts(page, 6)
    assert page.get_by_role("slider", name="Privacy budget ε (claimed)").get_attribute("aria-valuetext") == "2.5"
    assert page.get_by_role("spinbutton", name="Random seed", exact=True).input_value() == "5"


def test_pdf_report_from_the_page(server, page, tmp_path):
    page.goto(f"{server}/ADePT_sensitivity?seed=5&{FAST}")
    wait_for_charts(page, 6)
    download = _make_and_download(page, "PDF")
    path = tmp_path / "r.pdf"
    download.save_as(path)
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    assert "dpviz report: ADePT sensitivity" in text and "Page 1 of" in text
