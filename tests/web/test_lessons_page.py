"""The Lessons page and the paper pages' side-by-side box in AppTest (the browser walks a class
in tests/browser/test_browser_class.py)."""

import json
from pathlib import Path

from paper_pages import charts, page_file
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def _run(page, query=None):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.switch_page(page)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    return at.run()


def test_a_link_opens_its_step_and_next_moves_the_url():
    at = _run("pages/6_Lessons.py", {"lesson": "hoho", "step": "3"})
    assert not at.exception and not at.error
    assert any("Step 3 of 7" in p.text for p in at.get("progress"))
    assert len(charts(at)) == 0  # its chart comes with the answer
    at.button(key="step-back").click().run()
    assert not at.exception
    assert at.query_params["step"] == "2"
    assert len(charts(at)) == 0
    at.button(key="step-back").click().run()
    assert at.query_params.get("step") is None  # step 1 is the default
    assert len(charts(at)) == 1


def test_a_teachers_folder_adds_lessons_and_paths_are_refused(tmp_path, monkeypatch):
    (tmp_path / "cosine.md").write_text(
        "title: A teacher's lesson\npaper: adept\n\n## Only step\nSome text.\n\nchart: adept-sensitivity dim=16\n"
    )
    monkeypatch.setenv("DPVIZ_LESSONS_DIR", str(tmp_path))
    at = _run("pages/6_Lessons.py", {"lesson": "cosine"})
    assert not at.exception and not at.error
    assert "cosine" in at.selectbox(key="_lesson_pick").options or any(
        "A teacher's lesson" in o for o in at.selectbox(key="_lesson_pick").options
    )
    assert any(h.value == "A teacher's lesson" for h in at.header)
    for path in ("../lessons/adept", "/etc/passwd"):  # a name, never a path
        at = _run("pages/6_Lessons.py", {"lesson": path})
        assert not at.exception
        assert any(f"There is no lesson {path!r}" in e.value for e in at.error)


def test_the_projector_view_drops_the_sidebar():
    at = _run("pages/6_Lessons.py", {"lesson": "adept", "step": "2", "present": "true"})
    assert not at.exception
    css = " ".join(m.value for m in at.markdown if "<style>" in m.value)
    assert 'stSidebar"]' in css and "display: none" in css
    assert at.button(key="present-off")


def test_side_by_side_on_a_paper_page():
    at = _run(page_file("adept"), {"pairs": "500", "dims": "1-30", "samples": "5000", "draws": "200"})
    before = len(charts(at))
    at.toggle(key="sbs-on-adept").set_value(True).run()
    assert not at.exception
    at.text_input(key="sbs-b-adept-adept-sensitivity-dim").set_value("256").run()
    assert not at.exception and not at.error
    assert len(charts(at)) == before + 2
    at.text_input(key="sbs-b-adept-adept-sensitivity-dim").set_value("-3").run()
    assert any("B:" in e.value and "dim" in e.value for e in at.error)


def test_side_by_side_stacks_charts_of_several_panels():
    """A chart of one panel and a short title goes in two columns; one of several panels (the
    fixes: three) or a title that would be clipped goes A above B, each the full width (at half
    the width the fixes' axes ran into each other)."""
    from dpviz import registry
    from webui import views
    from webui.plotly_element import ChartJSON
    from webui.side_by_side import fits_half_width, legend_below

    def chart(figure, **values):
        spec = registry.get(figure)
        return views.compute_view(spec, {p.name: values.get(p.name, p.default) for p in spec.params})[1]

    one, three = chart("adept-sensitivity"), chart("adept-fixes", draws=50)
    assert fits_half_width(one) and not fits_half_width(three)
    below = legend_below(one)  # at half width the legend goes under the plot, the rest unchanged
    legend = json.loads(below.spec)["layout"]["legend"]
    assert legend["orientation"] == "h" and legend["y"] < 0 and below.height > one.height
    assert json.loads(below.spec)["data"] == json.loads(one.spec)["data"]
    long = '{"layout": {"title": {"text": "%s<br><sup>short</sup>"}}}'
    assert fits_half_width(ChartJSON(long % ("x" * 60), 400)) and not fits_half_width(ChartJSON(long % ("x" * 61), 400))
    assert fits_half_width(ChartJSON(long % ("&amp;" * 60), 400))  # an entity is one character

    at = _run(page_file("adept"), {"pairs": "500", "dims": "1-30", "samples": "5000", "draws": "50"})
    in_columns = lambda: sum(len(charts(c)) for c in at.columns)  # noqa: E731
    base = in_columns()
    at.toggle(key="sbs-on-adept").set_value(True).run()
    assert in_columns() == base + 2  # the first chart, ADePT's sensitivity: side by side
    assert any("fixes" in o for o in at.selectbox(key="sbs-chart-adept").options)
    at.session_state["sbs-chart-adept"] = "adept-fixes"  # AppTest cannot pick an option whose label is formatted
    at.run()
    assert not at.exception and not at.error
    assert in_columns() == base  # stacked
    assert sum(1 for m in at.markdown if m.value.startswith(("**A:", "**B:"))) == 2


def test_a_lesson_and_a_comparison_as_one_report():
    """The Lessons page's report box makes the lesson's report (or one step's); the side-by-side
    box makes a report of its two charts, at the values typed for A and B."""
    at = _run("pages/6_Lessons.py", {"lesson": "hoho", "step": "5"})
    assert not at.exception
    at.button(key="report-make-lesson-hoho").click().run()
    assert not at.exception and not at.error
    fmt, state, data = at.session_state["report-lesson-hoho"]
    text = data.decode("utf-8")
    assert fmt == ".html" and state == ("hoho", None)
    from dpviz.lessons.format import load
    from dpviz.page_report.lesson import lesson_charts

    every = lesson_charts(load("hoho"), list(range(1, 8)))
    assert text.count('class="chart"') == len(every) == 7  # steps 1-4 and 6 draw one chart each, step 5 two
    assert 'id="step5-1-A"' in text and "Step 4: The real privacy loss" in text
    at.toggle(key="report-step-only-hoho").set_value(True).run()
    at.button(key="report-make-lesson-hoho").click().run()
    fmt, state, data = at.session_state["report-lesson-hoho"]
    assert state == ("hoho", 5) and data.decode("utf-8").count('class="chart"') == 2

    at = _run(page_file("adept"), {"pairs": "500", "dims": "1-30", "samples": "5000", "draws": "50"})
    at.toggle(key="sbs-on-adept").set_value(True).run()
    at.text_input(key="sbs-b-adept-adept-sensitivity-dim").set_value("256").run()
    at.button(key="report-make-sbs-adept").click().run()
    assert not at.exception and not at.error
    fmt, state, data = at.session_state["report-sbs-adept"]
    text = data.decode("utf-8")
    assert state[:3] == ("adept-sensitivity", "dim", ("64", "256"))
    assert 'id="adept-sensitivity-A"' in text and 'id="adept-sensitivity-B"' in text and "Dimension n = 256" in text
