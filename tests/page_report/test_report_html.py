"""The HTML report read back: every chart of the page by figure id in page order, the settings
table equal to the link's parameters plus the defaults, nothing loaded from elsewhere, each
chart's CSV equal to the table the figure computes on its own, and command lines that set what
the chart used."""

import io
import re
import shlex
from urllib.parse import parse_qsl, urlsplit

import pandas as pd
import pytest
from report_support import ReportReader

from dpviz import page_report, papers, registry
from dpviz.params import format_value, parse_value, validate

# a changed setting on every page (a live slider, a sample size, a list) next to the defaults
SETTINGS = {
    "adept": {"epsilon": "2", "pairs": "500", "dims": "1-64"},
    "metric": {"epsilon": "8", "words": "6", "samples": "300"},
    "hoho": {"lambda_": "100", "epsilon": "0.01"},
    "partial": {"expr": "a**2 + exp(b)", "sigma": "2", "seed": "3"},
}


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    done = {}
    for page, raw in SETTINGS.items():
        rep, path = page_report.write(page, raw, out / f"{page}.html", base_url="https://dpviz.example.org/demo")
        done[page] = (rep, ReportReader(path.read_text(encoding="utf-8")), path.read_text(encoding="utf-8"))
    return done


@pytest.mark.parametrize("page", list(SETTINGS))
def test_every_chart_of_the_page_in_page_order(written, page):
    _, read, _ = written[page]
    assert read.figure_ids == list(papers.get(page).figures)
    assert sorted(read.csv) == sorted(papers.get(page).figures)


@pytest.mark.parametrize("page", list(SETTINGS))
def test_settings_table_is_the_link_plus_defaults(written, page):
    rep, read, _ = written[page]
    params = registry.page_params(page)
    (link,) = {href for href in read.links if href.startswith("https://dpviz.example.org/demo/")}
    parts = urlsplit(link)
    assert parts.path == "/demo/" + page_report.url_path(papers.get(page).page)
    query = dict(parse_qsl(parts.query))
    defaults = {p.name: format_value(p, p.default) for p in params}
    assert read.setting_values() == {**defaults, **query}
    # what the visitor changed is in the link, canonical, and marked as changed in the table
    for name, raw in SETTINGS[page].items():
        p = next(p for p in params if p.name == name)
        assert query[name] == format_value(p, parse_value(p, raw))
        assert read.settings[name]["class"] == "changed"
    assert "seed" in query  # the seed is always carried
    unchanged = set(defaults) - set(SETTINGS[page]) - {"seed"}
    assert unchanged and all(read.settings[n]["class"] == "default" for n in unchanged)


@pytest.mark.parametrize("page", list(SETTINGS))
def test_nothing_is_loaded_from_elsewhere(written, page):
    _, read, text = written[page]
    assert read.external == []
    assert read.scripts >= 1 + len(read.figure_ids)  # plotly.js inlined once, a script per chart
    css = "".join(read.styles)
    assert "@import" not in css and not re.search(r"url\(\s*['\"]?(https?:)?//", css)
    assert "Plotly.newPlot" in text and "cdn.plot.ly/plotly" not in text.split("</head>")[1]


@pytest.mark.parametrize("page", list(SETTINGS))
def test_csvs_are_the_figures_tables_computed_directly(written, page):
    rep, read, _ = written[page]
    for chart in rep.charts:
        _, table, _ = registry.run(chart.id, dict(chart.parameters), draw=False)
        got = read.table(chart.id)
        want = pd.read_csv(io.StringIO(table.to_csv(index=False)))
        pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)


@pytest.mark.parametrize("page", list(SETTINGS))
def test_command_lines_set_what_the_chart_used(written, page):
    rep, _, text = written[page]
    for chart in rep.charts:
        words = shlex.split(chart.command)
        assert words[:4] == ["python", "-m", "dpviz", "figure"] and words[4] == chart.id
        sets = dict(w.split("=", 1) for w, flag in zip(words[1:], words) if flag == "--set")
        assert sets == dict(chart.parameters)
        assert validate(registry.get(chart.id).params, sets)[1] == []
        assert chart.command.replace("&", "&amp;").replace("'", "&#x27;").replace('"', "&quot;") in text


def test_header_says_version_date_and_paper(written):
    rep, _, text = written["adept"]
    assert f"dpviz {rep.version}" in text
    assert re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", rep.created) and rep.created in text
    assert "Habernal (2021)" in text
    # the captions' Markdown is HTML, not asterisks
    assert "<strong>L1</strong>" in text and "**" not in text.split("<main>")[1].split("</main>")[0]


def test_live_values_change_the_charts(written, tmp_path):
    """The report at ε = 2 is not the report on defaults (the live slider's value reaches the charts)."""
    rep, _, _ = written["adept"]
    default = page_report.build("adept", {"pairs": "500", "dims": "1-64"})
    a = {c.id: c.table for c in rep.charts}["adept-epsilon"]
    b = {c.id: c.table for c in default.charts}["adept-epsilon"]
    assert not a.equals(b)


def test_a_target_in_the_settings_puts_its_calibration_in_every_format(written, tmp_path):
    """At n = 16 a true ε of 2 is a claimed ε of 2/√16 = 0.5 for ADePT as published and 2 for the
    fixes; the HTML's calibration table says so, the notebook solves it again, and a report
    without a target has no calibration."""
    import json

    from dpviz.page_report import notebook

    raw = {"pairs": "500", "dims": "1-20", "draws": "200", "dim": "16", "target_measure": "epsilon_actual"}
    rep, path = page_report.write("adept", dict(raw, target_value="2"), tmp_path / "t.html")
    text = path.read_text(encoding="utf-8")
    assert 'id="calibration"' in text and "epsilon_actual at most 2" in text
    section = text[text.index('id="calibration"') : text.index("</table>", text.index('id="calibration"'))]
    head = re.findall(r"<th>([^<]*)</th>", section)
    rows = [re.findall(r"<td>([^<]*)</td>", r) for r in re.findall(r"<tr[^>]*>(.*?)</tr>", section, flags=re.S)]
    rows = [r for r in rows if r]  # the header row has no cells
    solved = {r[head.index("mechanism")]: float(r[head.index("epsilon")]) for r in rows}
    assert solved == pytest.approx({"adept": 0.5, "l1_clip": 2.0, "laplace_corrected": 2.0, "gaussian": 2.0}, rel=1e-9)
    cells = json.loads(notebook.notebook_json(rep))["cells"]
    assert any("dpviz.calibrate('adept', epsilon_actual=2" in "".join(c["source"]) for c in cells)
    bad, _ = page_report.write("adept", dict(raw, target_value="-1"), tmp_path / "bad.html")
    assert bad.calibration is None and "must be above 0" in bad.calibration_note
    plain, _ = written["adept"][0], None
    assert plain.calibration is None and 'id="calibration"' not in written["adept"][2]


def test_a_target_solved_for_sigma_is_the_reports_calibration_and_its_notebook_call(tmp_path):
    """The privacy-budget page solved for σ at k = 1000 ("Solve for" in the link): the report's
    calibration is the panel's (σ per accountant), and the notebook's call solves for σ again at
    that k; running the call gives the same σ."""
    import json

    from dpviz import calibrate
    from dpviz.page_report import notebook

    raw = {"k": "1000", "target_measure": "epsilon", "target_value": "3", "target_solve": "sigma"}
    rep, _ = page_report.write("budget", raw, tmp_path / "b.html")
    assert rep.calibration is not None and rep.calibration.attrs["solved"] == "sigma"
    call = notebook.calibration_call(rep)
    assert "solve='sigma'" in call and "k='1000'" in call
    cells = json.loads(notebook.notebook_json(rep))["cells"]
    assert any(call in "".join(c["source"]) for c in cells)
    again = eval(call, {"dpviz": __import__("dpviz")})  # noqa: S307 - the report's own line, as a notebook runs it
    assert again.set_index("mechanism")["sigma"].equals(rep.calibration.set_index("mechanism")["sigma"])
    assert calibrate("budget", epsilon=3, solve="sigma", settings={"k": 1000})["sigma"].notna().any()
