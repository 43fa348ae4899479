"""Bad input to a report gets one sentence (the command line: one line, exit 2) and nothing is
computed or written; a hosted demo caps a report's settings as it caps the page's; the captions'
Markdown is escaped before it becomes HTML."""

import pytest
from cli_support import cli

from dpviz import page_report, registry
from dpviz.errors import InputError
from dpviz.page_report.markup import inline_html, markdown_html, plain_text


@pytest.mark.parametrize(
    "args, says",
    [
        (["nowhere", "--out", "r.html"], "Unknown page 'nowhere'"),
        (["audit", "--out", "r.html"], "has no report yet"),
        (["adept", "--set", "epsilon=-1", "--out", "r.html"], "epsilon"),
        (["adept", "--set", "colour=red", "--out", "r.html"], "Unknown parameter 'colour'"),
        (["adept", "--set", "epsilon", "--out", "r.html"], "key=value"),
        (["adept", "--out", "r.docx"], ".html, .pdf or .ipynb"),
        (["adept", "--out", "report"], "names no format"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, says):
    args = [a if a not in ("r.html", "r.docx", "report") else str(tmp_path / a) for a in args]
    done = cli("report", *args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpviz: ") and says in lines[0], done.stderr
    assert "Traceback" not in done.stderr and list(tmp_path.iterdir()) == []


def test_unwritable_paths_are_one_line_and_exit_2(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    folder = tmp_path / "folder.html"
    folder.mkdir()
    for out, says in ((blocker / "sub" / "r.html", "is a file, not a folder"), (folder, "it is a folder")):
        done = cli("report", "adept", "--out", str(out))
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "cannot write the report" in done.stderr and says in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "folder.html"]


def test_refusals_come_before_any_work(monkeypatch, tmp_path):
    def no_work(*a, **k):
        raise AssertionError("computed although the input is refused")

    monkeypatch.setattr(page_report, "build", no_work)
    for page, raw, out in (
        ("adept", {}, "r.txt"),
        ("adept", {"epsilon": "x"}, "r.html"),
        ("nowhere", {}, "r.pdf"),
        ("hoho", {"lambda_": "0"}, "r.ipynb"),
    ):
        with pytest.raises(InputError):
            page_report.write(page, raw, tmp_path / out)


def test_a_chart_refusing_its_settings_names_the_chart():
    with pytest.raises(InputError, match="cannot be drawn with these settings.*needs 2 values"):
        page_report.build("partial", {"people": "40"}, draw=False)


def test_hosted_caps_apply_to_reports(monkeypatch):
    spec = registry.get("adept-violations")
    cap = spec.param("pairs").hosted_max
    assert cap is not None
    page_report.settings_of("adept", {"pairs": str(cap * 10)})  # allowed off a hosted demo
    monkeypatch.setenv("DPVIZ_HOSTED", "1")
    with pytest.raises(InputError, match="pairs"):
        page_report.settings_of("adept", {"pairs": str(cap * 10)})


def test_markup_escapes_then_marks():
    assert markdown_html("a <b>x</b> & **y**") == "<p>a &lt;b&gt;x&lt;/b&gt; &amp; <strong>y</strong></p>"
    assert inline_html("*ε*-DP, not 2*C*n") == "<em>ε</em>-DP, not 2*C*n"
    assert inline_html("`**not bold**`") == "<code>**not bold**</code>"
    assert inline_html("[x](https://a.org/p?q=1)") == '<a href="https://a.org/p?q=1">x</a>'
    assert inline_html("[x](javascript:alert(1))") == "[x](javascript:alert(1))"
    assert inline_html('[x](https://a.org/"onmouseover=1)') == '[x](https://a.org/"onmouseover=1)'
    assert markdown_html("one\n\ntwo\nlines") == "<p>one</p>\n<p>two lines</p>"
    assert plain_text("**b** *i* `c` [t](https://u.org)") == "b i c t (https://u.org)"
