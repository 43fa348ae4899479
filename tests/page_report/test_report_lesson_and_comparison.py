"""A lesson and a side-by-side comparison as one report, read back as the page reports are:
every chart the lesson draws (each side of a comparison, the charts shown with an answer) by its
key in step order, each question with the answer dpviz computes, CSVs equal to the figures'
tables computed directly at the stated settings, nothing loaded from elsewhere; the notebook runs
in a Jupyter kernel and gives the same tables; the PDF has the charts' titles and page numbers;
bad input is one sentence and exit 2, before any work."""

import html
import subprocess

import pandas as pd
import pytest
from browser_support import needs_chromium
from cli_support import cli
from report_support import ReportReader, run_notebook

from dpviz import registry
from dpviz.lessons.answers import answers
from dpviz.lessons.format import load
from dpviz.page_report import report_format
from dpviz.page_report.comparison import write_comparison
from dpviz.page_report.lesson import lesson_charts, write_lesson


def _direct(figure: str, raw: dict) -> pd.DataFrame:
    return registry.run(figure, {k: str(v) for k, v in raw.items()}, draw=False)[1]


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(
        a.reset_index(drop=True), b.reset_index(drop=True), check_exact=False, rtol=1e-9, check_dtype=False
    )


def test_a_lesson_report_holds_every_step_answer_and_chart(tmp_path):
    lesson = load("adept")
    rep, path = write_lesson("adept", None, tmp_path / "adept.html")
    text = path.read_text(encoding="utf-8")
    read = ReportReader(text)
    items = lesson_charts(lesson, list(range(1, len(lesson.steps) + 1)))
    # every chart the lesson draws, before and after the reveals, both sides of the comparison
    charts = sum(len(s.charts) + len(s.reveal_charts) for s in lesson.steps) + sum(
        1 for s in lesson.steps for c in (*s.charts, *s.reveal_charts) if c.compare
    )
    assert len(items) == charts == len(read.keys) and read.keys == [key for key, *_ in items]
    assert read.figure_ids == [figure for *_, figure in items]
    assert [k for k in read.keys if k.endswith(("-A", "-B"))] == ["step6-1-A", "step6-1-B"]
    for key, _, raw, figure in items:  # the data are the figures' tables at the lesson's settings
        _same(read.table(key), _direct(figure, raw))
    at = 0
    for number, question, truth in answers(lesson):  # every question and its computed answer, in step order
        at = text.index(f"<strong>Step {number}:", at)
        asked = text.index(html.escape(question.ask, quote=False), at)
        assert text.index(f"Answer, computed by dpviz:</strong> {truth.shown}", asked) < text.index(
            "<strong>Step", asked
        )
    assert text.index("Step 1: The claim") < text.index('class="chart"')  # the lesson's text comes first
    assert not read.external and "Lessons?lesson=adept" in " ".join(read.links)
    assert read.setting_values() == {"lesson": "adept", "step": "all"}


@pytest.mark.kernel
def test_one_step_and_its_notebook(tmp_path, monkeypatch):
    _, html = write_lesson("hoho", 5, tmp_path / "s.html")
    _, nb = write_lesson("hoho", 5, tmp_path / "s.ipynb")
    read = ReportReader(html.read_text(encoding="utf-8"))
    assert read.keys == ["step5-1-A", "step5-1-B"] and read.setting_values()["step"] == "5"
    a, b = read.table("step5-1-A"), read.table("step5-1-B")
    _same(a, _direct("hoho-example", {"lambda_": 1}))
    _same(b, _direct("hoho-example", {"lambda_": 100}))
    assert not a.equals(b)
    tables = run_notebook(nb, monkeypatch)
    assert list(tables) == read.keys
    for key, table in tables.items():
        _same(table, read.table(key))


def test_a_comparison_report_is_the_two_sides(tmp_path):
    raw = {"dim": "16", "draws": "100", "seed": "3"}
    rep, path = write_comparison("adept", raw, "adept-fixes", "epsilon", "1", "10", tmp_path / "c.html")
    read = ReportReader(path.read_text(encoding="utf-8"))
    assert read.keys == ["adept-fixes-A", "adept-fixes-B"] and read.figure_ids == ["adept-fixes"] * 2
    for key, eps in (("adept-fixes-A", 1), ("adept-fixes-B", 10)):
        _same(read.table(key), _direct("adept-fixes", {**raw, "epsilon": eps}))
    shown = read.setting_values()
    assert shown["dim"] == "16" and shown["seed"] == "3" and shown["draws"] == "100"
    assert not read.external and any(link.endswith("#side-by-side") for link in read.links)
    assert "--compare adept-fixes epsilon 1 10" in rep.remake and "--set dim=16" in rep.remake


@needs_chromium
def test_the_comparison_as_pdf_has_both_titles_and_page_numbers(tmp_path):
    _, path = write_comparison("hoho", {}, "hoho-bounds", "lambda_", "2", "50", tmp_path / "c.pdf")
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True).stdout
    assert "A: λ = 2" in text and "B: λ = 50" in text and "Page 1 of" in text
    assert report_format(path) == ".pdf"


@pytest.mark.parametrize(
    "args, said",
    [
        (["lesson", "report", "nope", "--out", "x.html"], "There is no lesson 'nope'"),
        (["lesson", "report", "adept", "--step", "0", "--out", "x.html"], "has steps 1 to 7"),
        (["lesson", "report", "adept", "--out", "x.docx"], ".html, .pdf or .ipynb"),
        (["lesson", "report", "adept"], "needs --out"),
        (["report", "adept", "--compare", "adept-nope", "epsilon", "1", "2", "--out", "x.html"], "no chart"),
        (["report", "adept", "--compare", "adept-fixes", "nope", "1", "2", "--out", "x.html"], "no parameter"),
        (["report", "adept", "--compare", "adept-fixes", "epsilon", "1", "-2", "--out", "x.html"], "B: "),
        (["report", "audit", "--compare", "x", "y", "1", "2", "--out", "x.html"], "has no report"),
    ],
)
def test_bad_input_is_one_sentence_before_any_work(tmp_path, args, said):
    done = cli(*[str(tmp_path / a) if a.startswith("x.") else a for a in args])
    assert done.returncode == 2 and said in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not list(tmp_path.glob("x.*"))
