"""Streamlit AppTest smoke tests of each page (the real browser is in test_browser.py)."""

import json
import os
from pathlib import Path

import numpy as np
import pytest
from paper_pages import AUDIT_EXAMPLES, GALLERY_VIEWS, charts, charts_drawn, page_file
from streamlit.testing.v1 import AppTest

from dpviz import papers, registry
from dpviz.export import find_chromium

ROOT = Path(__file__).resolve().parents[2]
ADEPT = page_file("adept")
FAST = {"pairs": "500", "dims": "1-30", "samples": "5000", "draws": "200", "audit_samples": "2000"}


def _run(page=None, query=None):
    """Open the app at its entry point (as a server does), then the page, with a query string."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    if page:
        at.switch_page(page)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    return at.run()


def test_home_page_lists_every_paper():
    at = _run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown) + " ".join(s.value for s in at.subheader)
    for title in ("ADePT sensitivity", "Metric DP", "HoHo", "Partial sensitivity"):  # the four the app began with
        assert title in text
    for paper in papers.all_papers():
        assert paper.title in text and paper.claim in text


def test_adept_page_defaults_draw_all_charts_without_errors():
    at = _run(ADEPT, dict(FAST, seed="918273"))  # a seed no other test computed: the audit is not cached yet
    assert not at.exception
    assert not at.error
    assert len(charts(at)) == charts_drawn("adept")  # the audit samples by nature: it waits for its button
    explained = registry.get("adept-audit").caption[:60]
    assert sum(explained in m.value for m in at.markdown) == 1  # its explanation beside the button
    at.button(key="run-adept-audit").click().run()
    assert not at.exception
    assert len(charts(at)) == len(papers.get("adept").figures)
    assert sum(explained in m.value for m in at.markdown) == 1  # once, beside the chart (it was twice)


def test_a_charts_downloads_wait_behind_one_button_until_it_is_pressed():
    """Every chart card has one "Download · Reproduce" button and no download button of its own
    on a run (a slider's release sends the live section's cards again); pressing it opens a dialog
    with the five downloads, the view's link and the command line of that chart at these values."""
    at = _run(ADEPT, dict(FAST, dim="100"))
    exports = {b.key for b in at.button if b.key and b.key.startswith("export-")}
    figures = [registry.get(f) for f in papers.get("adept").figures]
    # every chart drawn has its button (the audit, which runs on request, once another test ran it)
    assert {f"export-{f.id}" for f in figures if not f.on_demand} <= exports <= {f"export-{f.id}" for f in figures}
    assert at.get("download_button") == []
    at.button(key="export-adept-sensitivity").click().run()
    assert not at.exception
    labels = [d.proto.label for d in at.get("download_button")]
    if find_chromium() or os.environ.get("DPVIZ_REQUIRE_BROWSER"):  # (the full run installs Chromium, CI requires it)
        assert labels == ["⬇ CSV", "⬇ PNG", "⬇ SVG", "⬇ PDF", "⬇ HTML"]
    else:  # the quick tier on a machine without Chromium: the pictures it cannot draw are said, not offered
        assert labels == ["⬇ CSV", "⬇ HTML"]
        assert any("PNG/SVG/PDF need Chromium" in c.value for c in at.caption)
    codes = [c.value for c in at.code]
    assert any("python -m dpviz figure adept-sensitivity" in c and "--set dim=100" in c for c in codes)
    assert any(c.split("?")[-1].startswith("dim=100&") or "&dim=100&" in c for c in codes if "?" in c)  # the link


def test_adept_page_deep_link_sets_controls():
    at = _run(ADEPT, dict(FAST, dim="100", epsilon="2", seed="7"))
    assert at.select_slider(key="dim").value == 100
    assert at.select_slider(key="epsilon").value == 2.0
    assert at.number_input(key="seed").value == 7
    assert at.query_params["dim"] in ("100", ["100"])
    # the box's own default is the link's seed, so a browser that mounts the box again from an
    # element without the run's "set by the script" flag still shows 7 (webui.widgets._shown_number)
    assert at.number_input(key="seed").proto.default == 7
    at.run()  # a second run: the flag is gone, the default stays
    assert at.number_input(key="seed").proto.default == 7 and at.number_input(key="seed").value == 7
    at.number_input(key="seed").set_value(12).run()  # a typed seed becomes the box's default in turn
    assert at.number_input(key="seed").proto.default == 12 and at.number_input(key="seed").value == 12


@pytest.mark.parametrize(
    "query, fragment",
    [
        ({"dim": "5000"}, "dim = '5000' is not allowed (out of range)"),
        ({"epsilon": "abc"}, "epsilon = 'abc' is not allowed (not a number)"),
        ({"dims": "9-1"}, "runs backwards"),
        ({"colour": "red"}, "this page has no parameter 'colour'"),
    ],
)
def test_bad_url_parameters_warn_and_fall_back(query, fragment):
    at = _run(ADEPT, dict(FAST, **query))
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert fragment in warnings
    assert len(charts(at)) >= 6  # the rest of the page keeps working (the audit, once run, is kept)
    if "dim" in query:
        assert at.select_slider(key="dim").value == 64


def test_moving_a_slider_updates_url_and_chart():
    at = _run(ADEPT, FAST)
    at.select_slider(key="dim").set_value(80).run()
    assert not at.exception
    assert at.query_params["dim"] in ("80", ["80"])


def test_bad_typed_list_shows_error_and_keeps_page():
    at = _run(ADEPT, FAST)
    at.text_input(key="dims").input("1-5000").run()
    assert not at.exception
    assert any("dims = '1-5000'" in e.value for e in at.error)
    assert len(charts(at)) >= 6


PARTIAL = page_file("partial")
NET_FAST = {"per_class": "100", "sgd_steps": "100", "dpsgd_steps": "100", "eval_per_class": "50"}


def test_partial_page_defaults_draw_all_charts():
    at = _run(PARTIAL, NET_FAST)
    assert not at.exception and not at.error
    assert len(charts(at)) == charts_drawn("partial")
    assert at.text_input(key="expr").value == "a**2 + exp(2*b - a)"


@pytest.mark.parametrize(
    "expr, fragment",
    [
        ("__import__('os').system('id')", "cannot be used in a formula"),
        ("a.__class__", "Attribute access"),
        ("a +", "could not be read"),
    ],
)
def test_hostile_formula_in_the_url_gives_a_message_and_the_network_still_works(expr, fragment):
    at = _run(PARTIAL, dict(NET_FAST, expr=expr))
    assert not at.exception
    assert any(fragment in e.value for e in at.error)
    assert len(charts(at)) == charts_drawn("partial", section=1)  # the network charts


def test_typing_a_new_formula_updates_the_url():
    at = _run(PARTIAL, NET_FAST)
    at.text_input(key="expr").input("a*b").run()
    assert not at.exception
    assert at.query_params["expr"] in ("a*b", ["a*b"])
    assert len(charts(at)) == charts_drawn("partial")


METRIC = page_file("metric")
MDP_FAST = {"words": "3", "samples": "100", "epsilons": "2,5,10,30", "knn_words": "20", "sentence": "the hospital"}


def test_metric_page_defaults_draw_all_charts():
    at = _run(METRIC, MDP_FAST)
    assert not at.exception and not at.error
    assert len(charts(at)) == charts_drawn("metric")
    assert any("Original:" in h.value for h in at.html)  # the try-it panel, drawn as one piece of HTML


def test_metric_page_bad_embedding_is_a_message():
    at = _run(METRIC, dict(MDP_FAST, embedding="/no/such.vec"))
    assert not at.exception
    assert any("No embedding file" in e.value for e in at.error)


HOHO_FAST = {"targets": "0.05", "epsilons": "0.1,1", "lambdas": "1,10", "audit_samples": "2000"}


def test_hoho_page_draws_its_charts():
    at = _run(page_file("hoho"), HOHO_FAST)
    assert not at.exception and not at.error
    assert len(charts(at)) == charts_drawn("hoho")  # the audit waits for its button


def _slider_default(at, key):
    """The value a select-slider's element carries as its own default (what a browser shows when it
    mounts the slider without the run's "set by the script" flag)."""
    slider = at.select_slider(key=key)
    return slider.options[int(slider.proto.default[0])]


def test_live_sliders_carry_the_sessions_value_as_their_default():
    # webui.widgets: every widget is created with the session's value as its default; a slider
    # created without it fell back to its first position (ε = 0.0001) when the browser mounted it
    # again, and sent that with the next run
    at = _run(page_file("hoho"), dict(HOHO_FAST, epsilon="2", lambda_="100"))
    assert not at.exception
    assert at.select_slider(key="epsilon").value == 2.0 and at.select_slider(key="lambda_").value == 100.0
    assert _slider_default(at, "epsilon") == "2" and _slider_default(at, "lambda_") == "100"
    at.run()  # a second run: the flag is gone, the defaults stay
    assert _slider_default(at, "epsilon") == "2" and _slider_default(at, "lambda_") == "100"
    at.select_slider(key="lambda_").set_value(10.0).run()  # the moved slider's value becomes its default
    assert _slider_default(at, "lambda_") == "10" and _slider_default(at, "epsilon") == "2"
    assert at.select_slider(key="epsilon").value == 2.0
    at = _run(page_file("hoho"), dict(HOHO_FAST, epsilon="1.2345"))  # off the grid, put in its place
    assert at.select_slider(key="epsilon").value == 1.2345 and _slider_default(at, "epsilon") == "1.2345"
    at = _run(page_file("hoho"), dict(HOHO_FAST, mechanism="sue", epsilons="0.5,2"))
    assert at.selectbox(key="mechanism").value == "sue" and at.selectbox(key="mechanism").proto.default == 1
    assert at.text_input(key="epsilons").proto.default == "0.5,2"  # select boxes and text boxes alike


def test_hoho_page_unknown_corpus_is_a_message():
    at = _run(page_file("hoho"), dict(HOHO_FAST, corpus="../../etc/passwd"))
    assert not at.exception
    assert any("Unknown corpus" in e.value for e in at.error)
    assert len(charts(at)) == 2  # the bounds and the audit work on one float, no corpus


def test_hosted_mode_caps_parameters_and_says_so(monkeypatch):
    monkeypatch.setenv("DPVIZ_HOSTED", "1")
    at = _run(ADEPT, dict(FAST, pairs="50000"))
    assert not at.exception
    assert any("hosted demo's cap" in w.value and "10000" in w.value for w in at.warning)
    assert any("Hosted demo" in i.value for i in at.sidebar.info)
    assert at.number_input(key="pairs").proto.max == 10_000  # the widget cannot go past the cap


def test_a_link_value_off_the_slider_grid_is_shown_as_typed_and_kept():
    """The log slider's grid has 2 and 2.5; a link with ε = 2.37 shows 2.37 and keeps it in the URL."""
    at = _run(ADEPT, dict(FAST, epsilon="2.37"))
    assert not at.exception
    slider = at.select_slider(key="epsilon")
    assert slider.value == 2.37
    assert "2.37" in [str(o) for o in slider.options]  # added to the grid, between 2 and 2.5
    assert at.query_params["epsilon"] in ("2.37", ["2.37"])


def _page_with_a_failing_chart():
    """A chart whose computation hits a bug (not a refused input), beside one that works."""
    from dpviz import registry
    from dpviz.registry import FigureSpec
    from webui.figure_card import show_figure

    def broken(v, progress=None):
        raise RuntimeError("/srv/secret/path internal detail")

    spec = FigureSpec(
        id="test-broken", title="Broken", page="test", params=(), compute=broken, render=None, caption="", columns=()
    )
    show_figure(spec, {}, [])
    from dpviz.params import validate

    ok = registry.get("adept-sensitivity")
    show_figure(ok, validate(ok.params, {"max_dim": "16"})[0], list(ok.params))


def test_a_bug_in_a_chart_shows_no_traceback_on_a_hosted_demo(monkeypatch):
    monkeypatch.setenv("DPVIZ_HOSTED", "1")
    at = AppTest.from_function(_page_with_a_failing_chart, default_timeout=120).run()
    assert not at.exception
    text = " ".join(e.value for e in at.error)
    assert "internal error (RuntimeError)" in text and "/srv/secret" not in text
    assert len(charts(at)) == 1  # the other chart is drawn


def test_a_bug_in_a_chart_is_shown_whole_when_running_locally(monkeypatch):
    monkeypatch.delenv("DPVIZ_HOSTED", raising=False)
    at = AppTest.from_function(_page_with_a_failing_chart, default_timeout=120).run()
    assert at.exception and "internal detail" in at.exception[0].message


def test_an_absent_gensim_model_offers_its_download_and_the_page_keeps_working(tmp_path, monkeypatch):
    monkeypatch.setenv("GENSIM_DATA_DIR", str(tmp_path / "gensim-data"))
    # a cache of its own: another test may have left a converted copy of the model in the session's cache
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path / "cache"))
    at = _run(
        METRIC,
        {"embedding": "glove-wiki-gigaword-300", "words": "3", "samples": "50", "knn_words": "20"},
    )
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "python -m dpviz download glove-wiki-gigaword-300" in errors
    assert any("Download glove-wiki-gigaword-300 (376 MB)" in b.label for b in at.button)
    labels = at.selectbox(key="embedding").options
    assert any("download, 376 MB" in o for o in labels) and any("GloVe 6B 50d" in o for o in labels)


def test_a_hosted_demo_offers_no_download(tmp_path, monkeypatch):
    monkeypatch.setenv("GENSIM_DATA_DIR", str(tmp_path / "gensim-data"))
    monkeypatch.setenv("DPVIZ_HOSTED", "1")
    at = _run(
        METRIC,
        {"embedding": "glove-wiki-gigaword-300", "words": "3", "samples": "50", "knn_words": "20"},
    )
    assert not at.exception
    assert "does not download" in " ".join(e.value for e in at.error)
    assert not any("Download" in b.label for b in at.button)


def test_the_report_box_makes_a_report_of_the_settings_on_screen():
    at = _run(ADEPT, dict(FAST, epsilon="2", seed="11"))
    assert not at.exception
    at.button(key="report-make-adept").click().run()
    assert not at.exception and not at.error
    fmt, query, data = at.session_state["report-adept"]
    assert fmt == ".html" and query["epsilon"] == "2" and query["seed"] == "11"
    text = data.decode("utf-8")
    assert all(f'data-figure-id="{fid}"' in text for fid in papers.get("adept").figures)
    at.radio(key="report-format-adept").set_value("Notebook (.ipynb, recomputes every chart)").run()
    at.button(key="report-make-adept").click().run()
    assert at.session_state["report-adept"][0] == ".ipynb"
    notebook = json.loads(at.session_state["report-adept"][2])
    code = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    assert code.count("epsilon='2'") >= 2 and "seed='11'" in code


def test_a_target_in_the_link_is_answered_and_one_click_moves_the_slider():
    """ADePT at n = 16: a true ε of 2 takes a claimed ε of 2/√16 = 0.5 for ADePT as published; its
    button moves the ε slider there and the link follows."""
    at = _run(ADEPT, dict(FAST, dim="16", target_measure="epsilon_actual", target_value="2"))
    assert not at.exception and not at.error
    assert any("Target:" in m.value and "epsilon_actual at most 2" in m.value for m in at.markdown)
    button = next(b for b in at.button if b.label.startswith("Move epsilon to 0.5 (adept)"))
    button.click().run()
    assert not at.exception
    assert at.select_slider(key="epsilon").value == pytest.approx(0.5, rel=1e-9)
    assert float(
        at.query_params["epsilon"][0] if isinstance(at.query_params["epsilon"], list) else at.query_params["epsilon"]
    ) == pytest.approx(0.5, rel=1e-6)
    assert at.query_params["target_measure"] in ("epsilon_actual", ["epsilon_actual"])


def test_an_unreachable_target_is_a_sentence_and_the_sliders_stay():
    at = _run(ADEPT, dict(FAST, target_measure="rms_error_relative", target_value="1e-9", epsilon="2"))
    assert not at.exception
    assert any("not reachable" in str(v) for v in at.dataframe[-1].value.note)
    assert at.select_slider(key="epsilon").value == 2.0


def test_a_point_of_omes_epsilon_lambda_curve_moves_both_sliders():
    """HoHo at λ = 10: OME cannot keep the linking AUC at 0.6; at λ = 1 it can, and that row's
    button sets ε and λ together (the ε the exact attack needs there)."""
    from dpviz.papers.hoho import exact
    from dpviz.papers.hoho.pipeline import attack_counts

    at = _run(page_file("hoho"), dict(HOHO_FAST, target_measure="auc_mean", target_value="0.6"))
    assert not at.exception and not at.error
    button = next(b for b in at.button if b.label.startswith("Move epsilon to") and "λ to 1 (ome)" in b.label)
    button.click().run()
    assert not at.exception
    eps, lam = at.select_slider(key="epsilon").value, at.select_slider(key="lambda_").value
    assert lam == 1.0
    auc = float(np.mean(exact.exact_attack(attack_counts("movie-reviews", "ome", 0.05, 0), 1.0, eps)["auc"]))
    assert (
        auc
        <= 0.6
        < float(np.mean(exact.exact_attack(attack_counts("movie-reviews", "ome", 0.05, 0), 1.0, eps * 1.02)["auc"]))
    )


@pytest.mark.parametrize(
    "key, query, target, value, slider",
    [
        ("adept", FAST, "rms_error_relative", "0.75", "epsilon"),
        ("metric", MDP_FAST, "share_kept", "0.5", "epsilon"),
        ("hoho", HOHO_FAST, "reconstruction_mean", "0.6", "epsilon"),
        ("partial", {"per_class": "100", "sgd_steps": "100", "dpsgd_steps": "100"}, "rdp_epsilon", "1", "sigma"),
        ("budget", {"sigma": "8"}, "epsilon", "3", "k"),
        ("budget", {"k": "1000", "target_solve": "sigma"}, "epsilon", "3", "sigma"),
    ],
)
def test_every_paper_page_answers_a_target_and_draws_its_frontier(key, query, target, value, slider):
    at = _run(page_file(key), dict(query, target_measure=target, target_value=value))
    assert not at.exception and not at.error
    assert any(f"{target} " in m.value and value in m.value for m in at.markdown if m.value.startswith("**Target:**"))
    moves = [b for b in at.button if b.label.startswith(f"Move {slider} to")]
    assert moves
    wanted = float(moves[0].label.split(" to ")[1].split()[0].rstrip(","))
    moves[0].click().run()
    assert not at.exception
    sliders = [w for w in at.select_slider if w.key == slider]  # (the budget page's k is a number box)
    widget = sliders[0] if sliders else at.number_input(key=slider)
    assert widget.value == pytest.approx(wanted, rel=1e-12)
    assert len(charts(at)) == charts_drawn(key)  # the frontier among them


@pytest.mark.parametrize("key, state, query", GALLERY_VIEWS, ids=[f"{k}-{s}" for k, s, _ in GALLERY_VIEWS])
def test_the_gallery_settings_draw_every_chart(key, state, query):
    """Each page on the settings the gallery shows (scripts/screens.py gallery): every chart it
    draws without a click, each once, and no error."""
    at = _run(page_file(key), dict(kv.split("=", 1) for kv in query.split("&") if kv))
    assert not at.exception and not at.error
    drawn = charts(at)
    assert len(drawn) >= charts_drawn(key)  # and an on-demand chart another test computed, from the cache
    keys = [c.proto.id for c in drawn]
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize("example", AUDIT_EXAMPLES)
def test_the_audit_pages_examples_draw_their_chart(example):
    at = _run("pages/5_Audit_a_mechanism.py", {"example": example})
    assert not at.exception  # (a verdict of violation is an error box by design)
    assert len(charts(at)) == 1


@pytest.mark.parametrize(
    "mechanism, active",
    [("gaussian", {"sigma"}), ("laplace", {"epsilon0"}), ("rr", {"epsilon0"}), ("subsampled", {"sigma", "q"})],
)
def test_the_budget_pages_mechanism_sliders_are_live_where_they_play_a_part(mechanism, active):
    """The privacy-budget page's σ, ε₀ and q are live sliders (beside k, δ and the prior); each
    plays a part for some mechanisms only, and elsewhere it is drawn disabled, its help saying
    where it does, and no frames are asked for along it."""
    at = _run(page_file("budget"), {"mechanism": mechanism, "k": "10"})
    assert not at.exception and not at.error
    sliders = {w.key: w for w in at.select_slider}
    assert {"k", "delta", "prior", "sigma", "epsilon0", "q"} <= set(sliders)
    for name in ("sigma", "epsilon0", "q"):
        assert sliders[name].disabled == (name not in active), name
        assert ("plays a part for" in sliders[name].help) == (name not in active), name
    for name in ("k", "delta", "prior"):
        assert not sliders[name].disabled
