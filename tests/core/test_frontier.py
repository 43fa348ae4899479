"""The privacy-utility frontier of every page (dpviz/frontier.py), against independent routes:
ADePT's closed forms (ε√n, RMS error 2√(2n)/ε), HoHo's exact attack, the metric page's per-word
statistics, partial sensitivity's α g²/(2σ²); the beaten band's edges; the target line."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpviz import registry
from dpviz.params import validate


def _table(fid: str, raw: dict):
    spec = registry.get(fid)
    values, errors = validate(spec.params, raw)
    assert not errors, errors
    return spec.table(values), values


@pytest.mark.parametrize("dim", [1, 49, 64])  # n = 1 (no gap), a square, a power of two
def test_adept_curves_are_the_closed_forms(dim):
    df, v = _table("adept-frontier", {"dim": str(dim), "draws": "100", "epsilon": "2"})
    adept = df[(df.kind == "curve") & (df.mechanism == "adept")]
    assert len(adept) >= 10
    eps = adept.setting.to_numpy()
    assert np.allclose(adept.privacy, eps * math.sqrt(dim), rtol=1e-12)
    assert np.allclose(adept.utility, 2 * math.sqrt(2 * dim) / eps, rtol=1e-12)
    fix2 = df[(df.kind == "curve") & (df.mechanism == "laplace_corrected")]
    assert np.allclose(fix2.privacy, fix2.setting, rtol=1e-12)
    # ADePT as published lies on Fix 2's curve: RMS/C = 2√2·n / (true ε) for both
    for part in (adept, fix2):
        assert np.allclose(part.utility * part.privacy, 2 * math.sqrt(2) * dim, rtol=1e-12)
    here = df[(df.kind == "current") & (df.mechanism == "adept")].iloc[0]
    assert here.setting == 2.0 and here.privacy == pytest.approx(2 * math.sqrt(dim), rel=1e-12)


@pytest.mark.parametrize(
    "fid, raw",
    [("adept-frontier", {"dim": "64", "draws": "200"}), ("hoho-frontier", {"targets": "0.05"})],
)
def test_the_beaten_band_is_the_best_and_the_worst_frontier(fid, raw):
    """By brute force over the curves' points, at each band level x: the best edge is at least as
    good as every curve's best point at least as private as x (the step through its points), and
    no better than the best any curve reaches one of its points further (the joining segment
    cannot beat its own end); the worst edge is no better than the best edge."""
    from dpviz.frontier import AXES

    df, _ = _table(fid, raw)
    axes = AXES[fid.split("-")[0]]
    curves = [part for _, part in df[df.kind == "curve"].groupby("mechanism")]
    best = df[df.kind == "band_best"].sort_values("privacy")
    worst = df[df.kind == "band_worst"].sort_values("privacy")
    assert len(best) == len(worst) > 5
    lower = axes.utility_better == "lower"
    good = (lambda a, b: a <= b * (1 + 1e-9) + 1e-12) if lower else (lambda a, b: a >= b - 1e-9)
    pick = min if lower else max
    private = (lambda p, x: p <= x) if axes.privacy_better == "lower" else (lambda p, x: p >= x)
    for x, b, w in zip(best.privacy, best.utility, worst.utility):
        steps, reach = [], []
        for part in curves:
            pts = list(zip(part.privacy, part.utility))
            usable = [u for p, u in pts if private(p, x)]
            if not usable:
                continue
            steps.append(pick(usable))
            further = [p for p, _ in pts if not private(p, x)]
            nearest = min(further, key=lambda p: abs(p - x)) if further else None
            reach.append(pick(usable + [u for p, u in pts if p == nearest]))
        assert len(steps) >= 2
        assert good(b, pick(steps))  # no curve has a setting at least as private that beats the edge
        assert good(pick(reach), b)  # the edge is no better than the curves reach a point further on
        assert good(b, w)


def test_hoho_current_points_are_the_exact_attack():
    from dpviz.papers.hoho import exact
    from dpviz.papers.hoho.pipeline import attack_counts

    df, v = _table("hoho-frontier", {"targets": "0.05", "epsilon": "3", "lambda_": "2"})
    for mech, lam in (("sue", 1.0), ("ome", 2.0)):
        r = exact.exact_attack(attack_counts("movie-reviews", mech, 0.05, 0), lam, 3.0)
        here = df[(df.kind == "current") & (df.mechanism == mech)].iloc[0]
        assert here.privacy == pytest.approx(float(np.mean(r["auc"])), abs=1e-12)
        assert here.utility == pytest.approx(float(np.mean(r["reconstruction"])), abs=1e-12)
    assert (df[df.kind == "curve"].privacy.between(0.0, 1.0)).all()


@pytest.mark.parametrize("dim", [1, 16, 17, 300])  # one coordinate, a whole block of 16, one past, many blocks
def test_adept_measures_read_lazily_are_the_fixes_rows(dim):
    """The ADePT page's measures, the cosine computed only when read and the clip's bias without
    the noises' dot products, are the fixes' table's own row to the last bit, for every mechanism;
    the frontier's L1-clip curve has that RMS error at each of its ε."""
    from dpviz.papers.adept import sensitivity as S
    from dpviz.papers.adept.targets import TARGETS

    df, v = _table("adept-frontier", {"dim": str(dim), "draws": "200", "epsilon": "2"})
    key = (dim, float(v["clip"]), 200, int(v["seed"]))
    full = S.fixes_draws(*key)
    assert S.fixes_bias_sq(*key) == full["bias_sq"]
    for mech in TARGETS.mechanisms_for(v):
        state = TARGETS.prepare(v, mech)
        for eps in (0.05, 2.0, 40.0):
            row = dict(zip(S.FIXES_COLUMNS, S.fix_row(full, dim, eps, v["clip"], v["delta"], mech)))
            got = TARGETS.evaluate(state, v, mech, eps)
            assert got["rms_error_relative"] == row["rms_error_relative"]
            assert got["epsilon_actual"] == row["epsilon_actual"]
            assert dict(got.items()) == {k: float(row[k]) for k in got}
    clipped = df[(df.kind == "curve") & (df.mechanism == "l1_clip")]
    for eps, util in zip(clipped.setting, clipped.utility):
        row = dict(zip(S.FIXES_COLUMNS, S.fix_row(full, dim, float(eps), v["clip"], v["delta"], "l1_clip")))
        assert util == row["rms_error_relative"]


def test_metric_curves_computed_at_once_are_each_points_own():
    """The metric DP curves' points from one ``stats_at`` call over the ε (the page's
    ``evaluate_many``): equal to the page's own ``evaluate`` at each ε to the last bit, a tie among
    the ε, one word and several."""
    from dpviz.papers.metric.targets import TARGETS

    for words in ("1", "4"):
        _, v = _table("metric-frontier", {"words": words, "samples": "60"})
        state = TARGETS.prepare(v, v["embedding"])
        xs = [0.1, 2.0, 2.0, 35.0, 5000.0]
        one = [dict(TARGETS.evaluate(state, v, v["embedding"], x).items()) for x in xs]
        assert TARGETS.evaluate_many(state, v, v["embedding"], xs) == one


@pytest.mark.parametrize("lam", [1.0, 3.0, 9000.0])
def test_hoho_curves_computed_at_once_are_each_points_own(lam):
    """The HoHo curves' points come from one compiled pass per curve (the page's ``evaluate_many``):
    equal to the page's own ``evaluate`` at each ε to the last bit, and the frontier's OME curve is
    the exact attack's AUC and reconstruction at each of its ε."""
    from dpviz.papers.hoho import exact
    from dpviz.papers.hoho.pipeline import attack_counts
    from dpviz.papers.hoho.targets import TARGETS

    df, v = _table("hoho-frontier", {"targets": "0.05", "epsilon": "3", "lambda_": str(lam)})
    for mech in ("ome", "sue"):
        state = TARGETS.prepare(v, mech)
        xs = [0.05, 1.0, 1.0, 7.5]  # a tie among them
        one = [dict(TARGETS.evaluate(state, v, mech, x).items()) for x in xs]
        assert TARGETS.evaluate_many(state, v, mech, xs) == one
    curve = df[(df.kind == "curve") & (df.mechanism == "ome")]
    assert len(curve) >= 20
    counts = attack_counts("movie-reviews", "ome", 0.05, 0)
    for eps, priv, util in zip(curve.setting, curve.privacy, curve.utility):
        r = exact.exact_attack(counts, lam, float(eps))
        assert priv == pytest.approx(float(np.mean(r["auc"])), abs=1e-13)
        assert util == pytest.approx(float(np.mean(r["reconstruction"])), abs=1e-15)


def test_metric_current_point_is_the_words_own_statistics():
    from dpviz.data.embeddings import resolve
    from dpviz.papers.metric import mechanism as mdp
    from dpviz.papers.metric.pipeline import word_state

    raw = {"words": "20", "samples": "200", "epsilon": "7"}
    df, v = _table("metric-frontier", raw)
    rows = mdp.stats_at(resolve("glove-6b-50d"), word_state(v, "embedding"), [7.0], v["eta"])
    here = df[df.kind == "current"].iloc[0]
    assert here.privacy == pytest.approx(rows.s_w.mean(), rel=1e-12)
    assert here.utility == pytest.approx(rows.cosine.mean(), rel=1e-12)
    assert df[df.kind == "band_best"].empty  # one embedding: nothing to beat


def test_partial_curves_are_alpha_g_squared_over_two_sigma_squared():
    df, v = _table("partial-frontier", {"alpha": "5", "sigma": "2"})
    table = registry.get("partial-individuals").table(
        {**{p.name: v[p.name] for p in registry.get("partial-individuals").params}}
    )
    g2 = (table.groupby("individual")["gradient_norm"].first() ** 2).to_numpy()
    for who, g in (("worst", g2.max()), ("median", np.median(g2))):
        part = df[(df.kind == "curve") & (df.mechanism == who)]
        assert np.allclose(part.privacy, 5 * g / (2 * part.setting**2), rtol=1e-9)
    assert df[df.kind == "band_best"].empty  # not competing mechanisms: nothing shaded
    assert (df[df.kind == "curve"].privacy.between(1e-4, 1e4)).all()  # the window of a log axis


def test_a_target_on_an_axis_is_a_line_and_elsewhere_a_note():
    df, v = _table("adept-frontier", {"draws": "100", "target_measure": "epsilon_actual", "target_value": "3"})
    t = df[df.kind == "target"]
    assert len(t) == 1 and t.privacy.iloc[0] == 3.0 and math.isnan(t.utility.iloc[0])
    fig = registry.get("adept-frontier").draw(df, v)
    assert any(tr.name == "target epsilon_actual = 3" for tr in fig.data)
    df, v = _table("adept-frontier", {"draws": "100", "target_measure": "cosine", "target_value": "0.5"})
    assert df[df.kind == "target"].empty
    assert "not an axis here" in registry.get("adept-frontier").draw(df, v).layout.title.text


def test_the_panel_answers_as_the_notebook_does():
    import dpviz
    from dpviz.targets import panel_answer

    spec = registry.get("adept-frontier")
    values, _ = validate(
        spec.params, {"draws": "100", "dim": "16", "target_measure": "epsilon_actual", "target_value": "2"}
    )
    answer = panel_answer("adept", values)
    table = dpviz.calibrate("adept", epsilon_actual=2, dim=16, draws=100)
    assert list(answer.epsilon) == pytest.approx(list(table.epsilon), rel=1e-12)
    assert panel_answer("adept", dict(values, target_measure="none")) is None


@pytest.mark.parametrize(
    "x, side, expected",
    [
        (0.4999999999999999, "epsilon ≤ 0.5", 0.5),  # the solver's last-bit noise is not a setting
        (3.14159265, "epsilon ≤ 3.14159", 3.141),  # down: still at most
        (3.14159265, "epsilon ≥ 3.14159", 3.142),  # up: still at least
        (1234567.0, "sigma ≥ 1.23457e+06", 1235000.0),
        (2.0, "epsilon ≤ 2", 2.0),
    ],
)
def test_a_solved_setting_is_rounded_towards_the_side_that_meets_the_target(x, side, expected):
    from webui.panels.targets import slider_value

    assert slider_value(x, side) == expected


def test_a_curves_points_are_shared_through_the_disk_cache(monkeypatch, tmp_path):
    """A process that starts with an empty memo (a frame worker, another server process) reads the
    curves' points another process computed from the disk cache (one file for every curve of a
    setting): at a new slider value only the new point of each curve is evaluated, and the table is
    the one computed from nothing; a file that does not verify is computed again, and so is every
    point with DPVIZ_SHARED_POINTS=0."""
    import dataclasses

    from dpviz import caches, frontier, tables

    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))  # (no other test's points, on disk or in the memo)
    caches.fresh("frontier.curves")
    raw = {"dim": "9", "draws": "100", "epsilon": "2"}
    first, _ = _table("adept-frontier", raw)
    assert first[first.kind == "current"].mechanism.nunique() > 1
    assert len(list((tmp_path / "tables" / frontier.POINTS_KIND).glob("*.bin"))) == 1  # every curve in one file
    page = frontier.PAGES["adept"]
    calls = []

    def counted(*a):
        calls.append(a[-1])
        return page.evaluate(*a)

    pages = {k: frontier.PAGES[k] for k in frontier.PAGES}
    monkeypatch.setattr(frontier, "PAGES", {**pages, "adept": dataclasses.replace(page, evaluate=counted)})
    caches.fresh("frontier.curves")
    again, _ = _table("adept-frontier", raw)
    assert calls == []  # every point from the disk
    assert again.equals(first)
    caches.fresh("frontier.curves")
    moved, _ = _table("adept-frontier", {**raw, "epsilon": "2.5"})
    mechanisms = moved[moved.kind == "current"].mechanism.nunique()
    assert set(calls) == {2.5} and len(calls) == mechanisms  # one new point per curve
    for path in (tables.cache_dir() / "tables" / frontier.POINTS_KIND).glob("*.bin"):
        path.write_bytes(path.read_bytes()[:-3] + b"]]]")  # bytes that no longer match their check
    caches.fresh("frontier.curves")
    calls.clear()
    fresh, _ = _table("adept-frontier", {**raw, "epsilon": "2.5"})
    assert fresh.equals(moved) and len(calls) > 20 * mechanisms  # every point again
    monkeypatch.setenv("DPVIZ_SHARED_POINTS", "0")  # the operator's switch: points per process only
    caches.fresh("frontier.curves")
    calls.clear()
    assert _table("adept-frontier", {**raw, "epsilon": "2.5"})[0].equals(moved) and len(calls) > 20 * mechanisms


@pytest.mark.parametrize(
    "fid, raw",
    [
        ("hoho-frontier", {"targets": "0.05", "lambda_": "3"}),  # with Page.evaluate_many
        ("metric-frontier", {"words": "3", "samples": "100", "compare": "fasttext-local"}),  # two embeddings
        ("adept-frontier", {"dim": "9", "draws": "100"}),  # point by point
    ],
)
def test_the_frontiers_tables_along_its_slider_are_each_positions_own(monkeypatch, fid, raw):
    """The frontier's frames along its swept slider (``FigureSpec.along``): every position's table is
    the one computed at that position alone, to the last bit, its ring among the points computed
    together first (HoHo: one ``evaluate_many`` call a mechanism for every ring off the curve's
    grid, not one a position)."""
    import dataclasses

    from dpviz import caches, frontier
    from dpviz.frames import slider_grid

    monkeypatch.setenv("DPVIZ_SHARED_POINTS", "0")  # (this process's points alone)
    spec = registry.get(fid)
    values, errors = validate(spec.params, raw)
    assert not errors
    key = fid.split("-")[0]
    slider = frontier.PAGES[key].slider
    grid = slider_grid(spec.param(slider))
    positions = [grid[0], grid[1], grid[len(grid) // 2], values[slider], grid[-1], grid[1]]  # a repeat, the value
    page = frontier.PAGES[key]
    calls = []

    def counted(*a):
        calls.append(list(a[-1]))
        return page.evaluate_many(*a)

    counting = dataclasses.replace(page, evaluate_many=counted) if page.evaluate_many is not None else page
    monkeypatch.setattr(frontier, "PAGES", {**{k: frontier.PAGES[k] for k in frontier.PAGES}, key: counting})
    caches.fresh("frontier.curves")
    together = spec.tables_along(values, slider, positions)
    if page.evaluate_many is not None:
        mechanisms = together[0][together[0].kind == "curve"].mechanism.nunique()
        assert len(calls) == mechanisms  # one call a curve, its grid and every ring together
        assert all(set(map(float, positions)) <= set(xs) for xs in calls)
    for x, table in zip(positions, together):
        caches.fresh("frontier.curves")
        alone = spec.table(dict(values, **{slider: x}))
        assert table.equals(alone), f"{fid} at {slider} = {x}"
        assert (table[table.kind == "current"].setting == x).all()
