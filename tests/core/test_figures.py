"""Figure registry: every spec computes its declared table and renders with the house template."""

import ast
import dataclasses
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import pytest
from shared_models import share_models

from dpviz import caches, memo, registry, syntax, tables
from dpviz.params import ParamError
from dpviz.theme import OKABE_ITO, TEMPLATE_NAME

ROOT = Path(__file__).resolve().parents[2]
SMALL = {s.id: dict(s.quick) for s in registry.all_figures()}  # each figure's declared quick settings
IDS = [s.id for s in registry.all_figures()]


@pytest.mark.parametrize("fid", IDS)
def test_every_figure_computes_its_columns_and_renders(fid):
    values, df, fig = registry.run(fid, SMALL.get(fid, {}))
    spec = registry.get(fid)
    assert list(df.columns) == list(spec.columns)
    assert len(df) > 0
    assert isinstance(fig, go.Figure)
    assert tuple(fig.layout.template.layout.colorway) == OKABE_ITO  # the house template, explicitly
    assert fig.layout.title.text
    assert len(spec.caption.split(". ")) >= 2  # a few sentences of explanation


def _from_scratch(fid, raw, folder, monkeypatch) -> pd.DataFrame:
    """The figure's table computed with nothing kept from an earlier run: every in-process cache
    emptied and an empty disk cache."""
    caches.empty_all()
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(folder))
    share_models(folder)  # (the fastText stand-in is an input, trained once per run)
    return registry.run(fid, raw, draw=False)[1]


def _another_setting(spec, raw: dict) -> dict:
    """``raw`` with its seed moved on, else its first number moved within its range: a run between
    the two compared leaves another setting's state behind, as a visitor's last move does."""
    names = {p.name: p for p in spec.params}
    if "seed" in names:
        return {**raw, "seed": str(int(raw.get("seed", names["seed"].default)) + 1)}
    for p in spec.params:
        if p.kind in ("float", "int") and p.min is not None and p.max is not None and p.max > p.min:
            value = float(raw.get(p.name, p.default))
            other = value * 2 if value * 2 <= p.max else (value + p.min) / 2
            return {**raw, p.name: str(int(other) if p.kind == "int" else other)}
    return raw


def assert_pure(fid, raw, tmp_path, monkeypatch) -> None:
    """Two runs of the figure at ``raw``, each from scratch, with a run at another setting between
    them, give the same table: a figure that reads state a module keeps (a global an earlier run
    set, a cache keyed by less than its parameters) fails. The run between is made on top of the
    first's caches (a visitor's next move; what it leaves behind is what the second run must not
    read), not from scratch: the metric page's embeddings were loaded a third time for it."""
    spec = registry.get(fid)
    a = _from_scratch(fid, raw, tmp_path / "first", monkeypatch)
    registry.run(fid, _another_setting(spec, raw), draw=False)
    b = _from_scratch(fid, raw, tmp_path / "second", monkeypatch)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("fid", IDS)
def test_figures_are_pure_functions_of_their_parameters(fid, tmp_path, monkeypatch):
    assert_pure(fid, SMALL.get(fid, {}), tmp_path, monkeypatch)


def test_the_purity_check_fails_on_a_figure_that_reads_a_module_level_variable(tmp_path, monkeypatch):
    """The check above can fail: a figure whose table reads a module-level variable that its last
    run set (here the seed) gives another table on the second run, caches emptied or not."""
    spec = registry.get("adept-privacy-loss")
    monkeypatch.setitem(_STATE, "last_seed", 0)

    def compute_reading_a_global(values, progress=None):
        df = pd.DataFrame({c: [float(_STATE["last_seed"])] for c in spec.columns})
        _STATE["last_seed"] = values["seed"]
        return df

    impure = dataclasses.replace(
        spec, compute=compute_reading_a_global, prepare=None, evaluate=None, live=(), mark=None, disk_cache=False
    )
    monkeypatch.setitem(registry.REGISTRY, spec.id, impure)
    with pytest.raises(AssertionError):
        assert_pure(spec.id, {"samples": "5000", "seed": "1"}, tmp_path, monkeypatch)


_STATE = {"last_seed": 0}  # the module-level variable the impure figure above reads


def test_seed_changes_random_figures():
    a = registry.run("adept-privacy-loss", {"samples": "5000", "seed": "1"})[1]
    b = registry.run("adept-privacy-loss", {"samples": "5000", "seed": "2"})[1]
    assert not a.equals(b)


def test_template_is_explicit():
    fig = registry.run("adept-sensitivity", {})[2]
    assert fig.layout.template.layout.colorway[0] == "#0072B2"
    import plotly.io as pio

    assert TEMPLATE_NAME in pio.templates


def test_run_is_strict():
    with pytest.raises(ParamError, match="dim = '0'"):
        registry.run("adept-sensitivity", {"dim": "0"})
    with pytest.raises(ParamError, match="Unknown parameter 'dimension'"):
        registry.run("adept-sensitivity", {"dimension": "3"})
    with pytest.raises(ParamError, match="Unknown figure"):
        registry.get("adept-nope")


def test_page_parameters_share_one_spec_per_name():
    names = [p.name for p in registry.page_params("adept")]
    assert len(names) == len(set(names))
    assert {"dim", "clip", "epsilon", "seed", "pairs"} <= set(names)


def _prepared_key(spec, values):
    return f"{spec.id}.prepared", {k: spec.canonical(values)[k] for k in spec.fixed(values)}


def test_disk_cache_hit_skips_compute(monkeypatch):
    spec = registry.get("adept-violations")
    values = registry.run("adept-violations", {"dims": "3-5", "pairs": "300"})[0]
    assert tables.is_cached(*_prepared_key(spec, values))
    monkeypatch.setattr(registry, "_STATES", memo.ProcessMemo())  # a fresh process: only the disk remembers
    calls = []
    spec2 = registry.FigureSpec(**{**spec.__dict__, "prepare": lambda v, p=None: calls.append(1) or pd.DataFrame()})
    df = spec2.table(values)
    assert calls == [] and len(df) == 3 * 4
    # the marked n is live: moving it needs no new computation
    assert spec2.is_ready(dict(values, dim=values["dim"] + 7))
    assert spec2.table(dict(values, dim=values["dim"] + 7)).equals(df) and calls == []
    other = dict(values, seed=values["seed"] + 1)
    assert not tables.is_cached(*_prepared_key(spec, other))


def test_corrupt_cache_file_is_recomputed(monkeypatch):
    spec = registry.get("adept-violations")
    values = registry.run("adept-violations", {"dims": "6-7", "pairs": "300"})[0]
    path = tables.table_path(*_prepared_key(spec, values))
    path.write_bytes(b"not parquet")
    monkeypatch.setattr(registry, "_STATES", memo.ProcessMemo())
    assert len(spec.table(values)) == 2 * 4


def test_live_figures_evaluate_without_preparing_again(monkeypatch):
    """A live figure's prepared state is computed once per fixed setting; every slider position
    is evaluated from it, and equals a fresh computation at that position."""
    spec = registry.get("adept-fixes")
    calls = []
    spec2 = registry.FigureSpec(
        **{
            **spec.__dict__,
            "id": "adept-fixes-probe",
            "prepare": lambda v, p=None: calls.append(1) or spec.prepare(v, p),
        }
    )
    base = registry.run("adept-fixes", {"draws": "200", "sweep": "dim"})[0]
    for eps in (0.3, 2.0, 17.0):
        for n in (64, 100):
            vals = dict(base, epsilon=eps, dim=n)
            fresh = spec.evaluate(spec.prepare(spec.fixed(vals)), vals)
            pd.testing.assert_frame_equal(spec2.table(vals), fresh)
    assert calls == [1]


def _imports(path):
    tree = syntax.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_compute_layer_never_imports_streamlit():
    bad = [str(p) for p in (ROOT / "dpviz").rglob("*.py") if any(m.split(".")[0] == "streamlit" for m in _imports(p))]
    assert bad == []


def test_no_eval_or_exec_anywhere():
    for p in (
        list((ROOT / "dpviz").rglob("*.py"))
        + list((ROOT / "webui").rglob("*.py"))
        + list((ROOT / "pages").glob("*.py"))
        + [ROOT / "app.py"]
    ):
        for node in ast.walk(syntax.parse(p.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("eval", "exec"), p


# --- what the captions promise is drawn, where the data are ------------------------------------------


def _axis_names(fig):
    return {k: fig.layout[k] for k in fig.layout.to_plotly_json() if k.startswith(("xaxis", "yaxis"))}


def _trace_values(fig, ref: str):
    """All finite numeric data of the traces drawn on axis ``ref`` ('x', 'x2', 'y', 'y3', ...)."""
    import numpy as np

    letter = ref[0]
    out = []
    for tr in fig.data:
        own = getattr(tr, f"{letter}axis", None) if hasattr(tr, f"{letter}axis") else None
        if (own or letter) != ref:
            continue
        vals = getattr(tr, letter, None)
        if vals is None:
            continue
        arr = pd.to_numeric(pd.Series(list(vals)), errors="coerce").to_numpy(dtype=float)
        out.append(arr[np.isfinite(arr) & (arr > 0)])
    return np.concatenate(out) if out else np.array([])


@pytest.mark.parametrize("fid", IDS)
def test_no_mark_lands_outside_the_data_on_a_log_axis(fid):
    """Plotly reads shapes and annotations on a log axis in log10 units: a mark placed in data units
    (a line "at 6") lands at 10^6 and stretches the axis. Every shape or annotation on a log axis
    must sit within a decade of that axis's data."""
    import numpy as np

    fig = registry.run(fid, SMALL.get(fid, {}))[2]
    axes = _axis_names(fig)
    for item in list(fig.layout.shapes) + list(fig.layout.annotations):
        for letter in ("x", "y"):
            ref = getattr(item, f"{letter}ref", None) or letter
            name = ref.replace(" domain", "").replace("x", "xaxis").replace("y", "yaxis")
            if " domain" in ref or ref == "paper" or axes.get(name) is None or axes[name].type != "log":
                continue
            data = _trace_values(fig, ref)
            coords = [
                getattr(item, a, None) for a in ((letter,) if hasattr(item, "text") else (f"{letter}0", f"{letter}1"))
            ]
            for c in coords:
                if c is not None and len(data):
                    assert np.log10(data.min()) - 1 <= float(c) <= np.log10(data.max()) + 1, (fid, item)


def _named(fig, start):
    return [t for t in fig.data if (t.name or "").startswith(start)]


def test_violation_chart_marks_the_chosen_dimension():
    fig = registry.run("adept-violations", {"dims": "1-80", "pairs": "300", "dim": "64"})[2]
    (mark,) = _named(fig, "n = 64")
    assert list(mark.x) == [64, 64] and list(mark.y) == [0, 100]
    fig = registry.run("adept-violations", {"dims": "1-40", "pairs": "300", "dim": "64"})[2]
    assert _named(fig, "n = 64") == []  # outside the simulated range: no mark promised


def test_epsilon_chart_marks_six_times_the_claim_on_its_data_scale():
    fig = registry.run("adept-epsilon", {"max_dim": "200"})[2]
    (mark,) = _named(fig, "6× the claim")
    assert list(mark.y) == [6, 6] and list(mark.x) == [1, 200]
    assert len(fig.layout.shapes) == 0


def test_calibration_chart_draws_the_target_and_each_matched_epsilon():
    values, df, fig = registry.run(
        "metric-calibrate", {"words": "3", "samples": "100", "epsilons": "2,5,10,30", "target": "10"}
    )
    (target,) = _named(fig, "target: average N_w at most 10")
    assert list(target.y) == [10, 10] and list(target.x) == [2, 30]
    e = float(df["epsilon_at_target"].iloc[0])
    assert 2 <= e <= 30  # a matched epsilon in data units, within the computed grid
    (matched,) = _named(fig, "glove-6b-50d: matched ε")
    assert list(matched.x) == [e, e] and list(matched.y) == [0, 10]
    assert len(fig.layout.shapes) == 0


def test_audit_chart_draws_the_claim_in_each_panel():
    values, df, fig = registry.run("hoho-audit", {"audit_samples": "2000"})
    claims = _named(fig, "claimed ε")
    assert len(claims) == 2
    assert sorted(float(c.y[0]) for c in claims) == [0.001, 1.0]
    assert all(len(set(c.y)) == 1 and len(c.x) == 3 for c in claims)


def test_linking_chart_says_what_its_error_bars_are():
    fig = registry.run("hoho-linking", SMALL["hoho-linking"])[2]
    assert "not a standard error" in fig.layout.title.text
    assert "not a standard error" in registry.get("hoho-linking").caption


def test_utility_chart_counts_never_go_below_zero_on_the_right_axis():
    values, df, fig = registry.run("metric-utility", SMALL["metric-utility"])
    lo, hi = fig.layout.yaxis2.range
    assert lo == pytest.approx(-0.05 * 100) and hi == pytest.approx(1.05 * 100)  # ticks 0 .. N, aligned with 0 .. 1


@pytest.mark.parametrize("sigma, alpha", [(0.3, 1.5), (10.0, 2.0), (250.0, 64.0)])
def test_individual_rdp_slider_values_equal_the_direct_computation(sigma, alpha):
    """partial-individuals is evaluated from a state prepared at σ = 1, α = 2: at any slider position it
    must equal partial_sensitivity.individuals_table computed directly at (σ, α)."""
    from dpviz.papers.partial import sensitivity as ps

    values, df, _ = registry.run("partial-individuals", {"sigma": str(sigma), "alpha": str(alpha)})
    a = ps.analyse(values["expr"], values["ranges"], values["individuals"])
    direct = ps.individuals_table(a, ps.parse_people(values["people"], a), sigma, alpha)
    got = df.drop_duplicates("individual")["rdp_epsilon"].to_numpy()
    assert got == pytest.approx(direct["rdp_epsilon"].to_numpy(), rel=1e-12)


MARKED = [s.id for s in registry.all_figures() if s.mark is not None]


@pytest.mark.parametrize("fid", MARKED)
def test_marked_figures_draw_their_fixed_part_without_the_live_parameters(fid):
    """A figure with live marks caches its drawing without them: its render must not depend on
    the live parameters (or the cache would show a stale picture), and the mark must follow them."""
    spec = registry.get(fid)
    values, df, fig = registry.run(fid, SMALL.get(fid, {}))
    other = dict(values)
    for name in spec.live:
        p = spec.param(name)
        other[name] = p.min if values[name] != p.min else p.max
    assert spec.render(df, values).to_dict() == spec.render(df, other).to_dict()
    moved = spec.draw(df, other)
    assert moved.to_dict() != fig.to_dict()  # the mark moved
    base_names = {t.name for t in spec.render(df, other).data}
    assert {t.name for t in moved.data} - base_names  # drawn on top of the cached part


MARKED = [s.id for s in registry.all_figures() if s.mark is not None]


@pytest.mark.parametrize("fid", MARKED)
def test_a_marked_figure_from_its_stand_in_equals_the_figure_drawn_whole(fid):
    """FigureSpec.figure_dict (the base's traces + a mark drawn on a stand-in) gives the same
    Plotly dict as drawing the figure and marking it directly, at slider values inside, at the
    edges of and outside the data (where the mark stretches a log axis and its labels); by Plotly and
    by the fast drawing alike, one value after the other on the same base (whose stand-in is made
    once and copied for each mark: a mark must not reach the next one's)."""
    import json

    from dpviz import theme

    spec = registry.get(fid)
    live = [p for p in spec.params if p.name in spec.live]
    values, df, _ = registry.run(fid, SMALL.get(fid, {}))
    marked = 0
    for p in live:
        for x in {p.min, p.default, p.max, (p.min * p.max) ** 0.5 if p.log else (p.min + p.max) / 2}:
            v = dict(values, **{p.name: type(p.default)(x)})
            table = spec.table(v)
            direct = spec.draw(table, v).to_dict()
            fast = spec.figure_dict(table, v)
            assert json.dumps(fast, sort_keys=True, default=str) == json.dumps(direct, sort_keys=True, default=str)
            with theme.fast_drawing():
                drawn_fast = spec.figure_dict(table, v)
            assert json.dumps(drawn_fast, sort_keys=True, default=str) == json.dumps(
                direct, sort_keys=True, default=str
            )
            marked += fast != spec._base(table, v)
    assert marked  # the mark was drawn at some of the values


@pytest.fixture
def compute_unavailable(monkeypatch):
    """Every route from a render back into compute fails: the process memos (prepared states,
    loaded corpora, analyses), the table cache, the embedding and corpus loaders, the formula worker."""
    from dpviz import sandbox
    from dpviz.data import corpora, embeddings

    def refuse(*args, **kwargs):
        raise AssertionError("a render reached back into compute")

    monkeypatch.setattr(memo.ProcessMemo, "get", refuse)
    monkeypatch.setattr(tables, "cached_table", refuse)
    monkeypatch.setattr(embeddings, "get", refuse)
    monkeypatch.setattr(embeddings, "resolve", refuse)
    monkeypatch.setattr(corpora, "movie_reviews", refuse)
    monkeypatch.setattr(sandbox, "run_limited", refuse)


@pytest.mark.parametrize("fid", IDS)
def test_a_render_draws_from_its_table_alone(fid, request):
    """docs/design.md: render draws only from its table (the CSV is the data behind the figure)."""
    spec = registry.get(fid)
    values, df, _ = registry.run(fid, SMALL.get(fid, {}))
    own = {p.name: values[p.name] for p in spec.params}
    expected = spec.render(df, own).to_json()
    request.getfixturevalue("compute_unavailable")
    assert spec.render(df.copy(), own).to_json() == expected
