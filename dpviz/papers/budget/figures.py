"""Figure specs of the privacy-budget page: the ε of k releases by five accountants (against k,
and against δ), what the composed mechanism lets the best attacker do (its trade-off curve,
drawn as the attacker's ROC), and what the attacker's 'used' call makes it believe from a prior.
The math is :mod:`dpviz.budget`."""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pandas as pd

from dpviz import caches
from dpviz.budget.names import ACCOUNTANT_LABELS, ACCOUNTANTS, KINDS, LABELS
from dpviz.frontier import frontier_spec
from dpviz.params import Param
from dpviz.registry import FigureSpec, register
from dpviz.theme import DASHES, OKABE_ITO, go, log_axis, mark_x, ref_line, style, two_line_title

PAGE = "budget"
MECHANISM = Param(
    "mechanism",
    "choice",
    "gaussian",
    "Mechanism released k times",
    "Gaussian noise σ·Δ; Laplace noise Δ/ε₀ (as ADePT claims it); randomized response at ε₀ (as OME's bits); "
    "DP-SGD's subsampled Gaussian step (sampling rate q, noise σ).",
    choices=KINDS,
    choice_labels=LABELS,
)
EPSILON0 = Param(
    "epsilon0", "float", 0.5, "ε₀ of one release", "Laplace and randomized response: each release is ε₀-DP.",
    min=0.01, max=10.0, log=True, slider=True, steps=(1, 2, 3, 5),
    applies=("mechanism", ("laplace", "rr"), "Laplace and randomized response"),
)  # fmt: skip
SIGMA = Param(
    "sigma", "float", 4.0, "Noise multiplier σ", "Gaussian and DP-SGD: the noise's standard deviation over the "
    "sensitivity (the clipping norm).", min=0.3, max=100.0, log=True, slider=True,
    steps=(1, 1.5, 2, 3, 4, 5, 6, 8), applies=("mechanism", ("gaussian", "subsampled"), "the Gaussian and DP-SGD"),
)  # fmt: skip
Q = Param(
    "q", "float", 0.01, "Sampling rate q", "DP-SGD: each record joins a step's batch with probability q.",
    min=1e-4, max=1.0, log=True, slider=True, steps=(1, 2, 5),
    applies=("mechanism", ("subsampled",), "DP-SGD's subsampled Gaussian"),
)  # fmt: skip
K = Param(
    "k", "int", 100, "Releases k", "How many times the mechanism is run on the same data (DP-SGD: steps).",
    min=1, max=100_000, hosted_max=100_000, slider=True,
)  # fmt: skip
DELTA = Param(
    "delta", "float", 1e-5, "δ", "The failure probability every accountant is read at (at most 1/n is usual).",
    min=1e-12, max=0.1, log=True, slider=True, steps=(1, 2, 5),
)  # fmt: skip
RELEASE_PARAMS = (MECHANISM, EPSILON0, SIGMA, Q)
K_TICKS = (1, 10, 100, 1000, 10_000, 100_000)
K_TICK_TEXT = ("1", "10", "100", "10³", "10⁴", "10⁵")
K_GRID = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000)
DELTA_GRID = tuple(float(f"{d:.3g}") for d in np.geomspace(1e-12, 0.1, 23))
COLORS = dict(zip(ACCOUNTANTS, OKABE_ITO))
FPRS = (0.001, 0.01, 0.1)


BUDGET_PAGE = "Privacy_budget"
"""This page's path beside the other pages' (Streamlit's multipage URL): where the HoHo and Audit
pages' links to it go."""


def why_no_promise(epsilon: float) -> str:
    """Why this page cannot draw the ε-DP promise of one release at ``epsilon`` (its ε₀ range), or
    "" when it can: the HoHo and Audit pages' links say it instead of linking."""
    if EPSILON0.min <= epsilon <= EPSILON0.max:
        return ""
    return f"the privacy-budget page draws the promise of an ε from {EPSILON0.min:g} to {EPSILON0.max:g}"


def release_of(v: Mapping[str, Any]):
    """The release the page's settings describe (:class:`dpviz.budget.releases.Release`)."""
    from dpviz.budget.releases import Release  # (lazy: SciPy, which `figure --list` does without)

    return Release(v["mechanism"], epsilon0=v["epsilon0"], sigma=v["sigma"], q=v["q"])


ACCOUNTANT_COLUMNS = ("accountant", "k", "delta", "epsilon", "note")


def _epsilon_columns(release, ks, deltas) -> dict[str, list]:
    """Every accountant's ε at each k and δ, as the columns of :data:`ACCOUNTANT_COLUMNS` (lists)."""
    from dpviz.budget import accountants as acc  # (lazy: dp-accounting and SciPy, as above)

    cols: dict[str, list] = {name: [] for name in ACCOUNTANT_COLUMNS}
    for k in ks:
        answers = acc.epsilons_over(release, int(k), deltas)  # (every δ of one k at once)
        for i, delta in enumerate(deltas):
            for name, column in answers.items():
                eps, why = column[i]
                for name_of, value in zip(ACCOUNTANT_COLUMNS, (name, int(k), float(delta), eps, why)):
                    cols[name_of].append(value)
    return cols


def _with_here(curve: dict[str, list], here: dict[str, list]) -> pd.DataFrame:
    """One table of a chart's rows (``here`` False) and the marked setting's (True), made once from
    the columns: a frame is drawn at every position of a slider, and pandas' tables of row dicts,
    their copies and their concatenation were most of the δ chart's table along k beside its ε's."""
    table = {name: curve[name] + here[name] for name in ACCOUNTANT_COLUMNS}
    table["here"] = [False] * len(curve["k"]) + [True] * len(here["k"])
    return pd.DataFrame(table)


# 1. ε against k -----------------------------------------------------------------------------


def _composition_prepare(v, progress=None):
    """The release; a δ or k asks only for its ε's (the composed PLDs they need are kept per release
    and k by :func:`dpviz.budget.accountants.composed_pld`)."""
    return release_of(v)


def _composition_curve(release, delta: float) -> dict[str, list]:
    """Every accountant's ε over :data:`K_GRID` at δ (:func:`_epsilon_columns`), kept per release and δ
    in the process's memo ``budget.curves``: a move of the k slider (its frames too) computes only
    the marked k."""
    return caches.memo("budget.curves").get((release, float(delta)), lambda: _epsilon_columns(release, K_GRID, [delta]))


def _composition_evaluate(release, v) -> pd.DataFrame:
    return _with_here(_composition_curve(release, v["delta"]), _epsilon_columns(release, [v["k"]], [v["delta"]]))


def _columns(df: pd.DataFrame, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The columns ``names`` of ``df`` as NumPy arrays (text as Python strings), read once: a frame
    is drawn at every position of a slider, and pandas' filtering and column access cost a budget
    chart's frame as much as the rest of its drawing (the rows are picked by :func:`_where`)."""
    series = [df[n] for n in names]
    return {n: c.to_numpy() if c.dtype.kind in "biuf" else c.to_numpy(dtype=object) for n, c in zip(names, series)}


def _where(cols: dict[str, np.ndarray], mask: np.ndarray) -> dict[str, np.ndarray]:
    """The rows of ``cols`` (:func:`_columns`) where ``mask`` holds."""
    return {n: c[mask] for n, c in cols.items()}


def _gap_sentence(here: dict) -> str:
    """The loosest and the tightest accountant's ε at the marked setting (``here``: its columns, by
    :func:`_columns`), how far apart, and the accountants that do not answer there with their reason."""
    rows = list(zip(here["accountant"].tolist(), here["epsilon"].tolist(), here["note"].tolist()))
    missing = "; ".join(f"{ACCOUNTANT_LABELS[name]} not drawn: {note}" for name, _, note in rows if note)
    found = [(name, eps) for name, eps, _ in rows if eps == eps]  # not NaN
    if not found:
        return "no accountant answers here" + (f" ({missing})" if missing else "")
    loose = max(found, key=lambda r: r[1])  # the first of equals, as idxmax
    tight = min(found, key=lambda r: r[1])
    ratio = loose[1] / tight[1] if tight[1] > 0 else math.inf
    said = (
        f"{ACCOUNTANT_LABELS[loose[0]]}: ε = {loose[1]:.3g}, "
        f"{ACCOUNTANT_LABELS[tight[0]]}: ε = {tight[1]:.3g} ({ratio:.3g}× apart)"
    )
    return f"{said}; {missing}" if missing else said


def _accountant_curves(curve: dict, x: str, mode: str, x_hover: str) -> go.Figure:
    """A figure with each accountant's ε against column ``x`` of ``curve`` (its columns, by
    :func:`_columns`; one accountant that answers nowhere is left out: the title says why)."""
    fig = go.Figure()
    names, xs, ys = curve["accountant"], curve[x], curve["epsilon"]
    for i, name in enumerate(ACCOUNTANTS):
        mine = names == name
        if np.isnan(ys[mine]).all():
            continue
        fig.add_trace(
            go.Scatter(
                x=xs[mine], y=ys[mine], mode=mode, name=ACCOUNTANT_LABELS[name],
                line=dict(color=COLORS[name], dash=DASHES[i % len(DASHES)]),
                hovertemplate=f"{x_hover}<br>ε = %{{y:.4g}}<extra>{ACCOUNTANT_LABELS[name]}</extra>",
            )
        )  # fmt: skip
    return fig


def _composition_render(df: pd.DataFrame, v) -> go.Figure:
    cols = _columns(df, (*ACCOUNTANT_COLUMNS, "here"))
    curve, here = _where(cols, ~cols["here"]), _where(cols, cols["here"])
    fig = _accountant_curves(curve, "k", "lines+markers", "k = %{x}")
    eps = curve["epsilon"]
    top = float(np.nanmax(eps)) if (~np.isnan(eps)).any() else 1.0
    bottom = float(np.nanmin(eps[eps > 0])) if (eps > 0).any() else 1e-3
    log_axis(fig, "y", title=f"ε at δ = {v['delta']:g}")
    mark_x(fig, v["k"], bottom, top, f"k = {v['k']}")
    # short labels, one per decade: plain "10,000" beside "1,000" ran into each other at the page's width
    fig.update_xaxes(type="log", title="releases k", tickmode="array", tickvals=K_TICKS, ticktext=K_TICK_TEXT)
    release = release_of(v)
    title = two_line_title(
        f"ε after k releases, by five accountants (δ = {v['delta']:g})",
        f"{release.label}; at k = {v['k']}: {_gap_sentence(here)}",
    )
    return style(fig, title)


register(
    FigureSpec(
        id="budget-composition",
        title="ε after k releases, accountant by accountant",
        page=PAGE,
        params=(*RELEASE_PARAMS, K, DELTA),
        prepare=_composition_prepare,
        evaluate=_composition_evaluate,
        live=("k", "delta"),
        render=_composition_render,
        caption=(
            "Each curve is one accountant's ε for k releases at δ. Basic composition adds the ε's up (kε); "
            "Kairouz et al.'s optimal composition grows like √k for small ε₀; Rényi DP and zCDP add divergences, "
            "and the privacy-loss distribution (PLD) composes the loss itself, the tightest of them. A missing "
            "curve does not apply to this mechanism (zCDP does not see subsampling's amplification). The title "
            "says how far apart the loosest and the tightest are at the slider's k."
        ),
        columns=("accountant", "k", "delta", "epsilon", "note", "here"),
        quick={"k": "10"},
    )
)


# 2. ε against δ ---------------------------------------------------------------------------


def _delta_prepare(v, progress=None) -> dict[str, list]:
    return _epsilon_columns(release_of(v), [v["k"]], DELTA_GRID)


def _delta_evaluate(state: dict[str, list], v) -> pd.DataFrame:
    return _with_here(state, _epsilon_columns(release_of(v), [v["k"]], [v["delta"]]))


def _delta_render(df: pd.DataFrame, v) -> go.Figure:
    cols = _columns(df, (*ACCOUNTANT_COLUMNS, "here"))
    curve, here = _where(cols, ~cols["here"]), _where(cols, cols["here"])
    fig = _accountant_curves(curve, "delta", "lines", "δ = %{x:.2g}")
    log_axis(fig, "x", title="δ")
    log_axis(fig, "y", title="ε")
    shown = curve["epsilon"][curve["epsilon"] > 0]
    top, bottom = (float(shown.max()), float(shown.min())) if len(shown) else (1.0, 0.1)
    mark_x(fig, v["delta"], bottom, top, f"δ = {v['delta']:g}")
    release = release_of(v)
    title = two_line_title(
        f"ε against δ after k = {v['k']} releases", f"{release.label}; at δ = {v['delta']:g}: {_gap_sentence(here)}"
    )
    return style(fig, title)


register(
    FigureSpec(
        id="budget-delta",
        title="ε against δ at k releases",
        page=PAGE,
        params=(*RELEASE_PARAMS, K, DELTA),
        prepare=_delta_prepare,
        evaluate=_delta_evaluate,
        live=("delta",),
        render=_delta_render,
        caption=(
            "The same k releases read at every δ: each accountant's privacy curve ε(δ). A smaller δ costs a "
            "larger ε; for a pure mechanism (Laplace, randomized response) basic composition's kε₀ holds at any δ. "
            "A curve that stops has reached ε = 0: at that δ the releases need no ε at all."
        ),
        columns=("accountant", "k", "delta", "epsilon", "note", "here"),
        quick={"k": "10"},
    )
)


# 3. the attacker's view ----------------------------------------------------------------------

ALPHAS = np.unique(np.concatenate([np.geomspace(1e-6, 1e-2, 40), np.linspace(0.0, 1.0, 101), FPRS]))


HOHO_EPSILON = Param(
    "hoho_epsilon", "float", 0.0, "HoHo's attack on OME: its claimed ε",
    "Draw the HoHo page's linking attack on OME, exactly, over the best attacker's curve: OME at this "
    "claimed ε (0: not drawn). The HoHo page's link sets it with λ, and this page at randomized response, "
    "ε₀ = the same ε and k = 1: the ε-DP promise OME makes.", min=0.0, max=1000.0,
)  # fmt: skip
HOHO_LAMBDA = Param(
    "hoho_lambda", "float", 10.0, "HoHo's attack on OME: its λ",
    "OME's λ for the drawn attack (the HoHo page's λ slider).", min=1.0, max=10_000.0, log=True,
)  # fmt: skip
HOHO_CURVE = "hoho"
AUDIT_TPR = Param(
    "audit_tpr", "float", 0.0, "An audit's attack: its true-positive rate (at least)",
    "Draw an audit's certified attack (the Audit page's link sets it): with the audit's confidence, its "
    "test says 'used' of at least this share of the outputs on D (0: not drawn).", min=0.0, max=1.0,
)  # fmt: skip
AUDIT_FPR = Param(
    "audit_fpr", "float", 1.0, "An audit's attack: its false-positive rate (at most)",
    "... and of at most this share of the outputs on D′ (the Audit page's link sets both).", min=0.0, max=1.0,
)  # fmt: skip
AUDIT_CURVE = "audit"


def hoho_roc(epsilon: float, lam: float) -> pd.DataFrame:
    """The HoHo page's exact ROC of the linking attack on OME at claimed ε and λ, its other settings
    at their defaults: the very table of its live chart (``hoho-live``), one row per score threshold."""
    from dpviz import registry  # (lazy: the registry imports the pages, this one among them)

    spec = registry.get("hoho-live")
    at = {**spec.defaults(), "mechanism": "ome", "epsilon": float(epsilon), "lambda_": float(lam)}
    return spec.table(at)


def promise_excess(promise: pd.DataFrame, attack: pd.DataFrame) -> tuple[float, float, float]:
    """How far the attack's ROC rises above the promised curve: (the largest TPR minus the curve's
    TPR at the same FPR, that FPR, the attack's TPR there); the curve is read between its points
    (it is concave, so a straight line between two of its points lies under it: the excess is
    never overstated)."""
    curve = promise.sort_values("fpr")
    allowed = np.interp(attack["fpr"], curve["fpr"], curve["tpr"])
    gap = attack["tpr"].to_numpy() - allowed
    i = int(np.argmax(gap))
    return float(gap[i]), float(attack["fpr"].iloc[i]), float(attack["tpr"].iloc[i])


def _largest_epsilon(release, k: int) -> float:
    """Where the ε grid of the trade-off curve ends (at least 1): the PLD's ε at δ = 10⁻¹², past
    which the curve no longer moves; for randomized response, or where that ε is infinite (the
    pessimistic PLD's mass at infinity passes 10⁻¹²: Laplace at ε₀ = 0.5 from 18,000 releases on,
    where the chart failed), kε₀ for a pure release (no loss is larger) and RDP's ε otherwise."""
    from dpviz.budget import accountants as acc  # (lazy: as above)

    if release.kind == "rr":
        return max(1.0, k * release.epsilon0)
    top = acc.epsilon("pld", release, k, 1e-12)
    if not math.isfinite(top):
        top = k * release.epsilon0 if release.pure_epsilon is not None else acc.epsilon("rdp", release, k, 1e-12)
    return max(1.0, top)


def _promised_tpr(release, k: int) -> np.ndarray:
    """The best attacker's true-positive rate at each of :data:`ALPHAS` after k releases: one minus
    the trade-off curve of the composed mechanism's whole privacy curve δ(ε)."""
    from dpviz.budget import accountants as acc  # (lazy: as above)
    from dpviz.budget.releases import tradeoff_from_deltas

    top = _largest_epsilon(release, k)
    eps = np.unique(np.concatenate([np.linspace(0.0, top, 4001), np.geomspace(1e-4, top, 400)]))  # ascending
    return 1.0 - tradeoff_from_deltas(eps, acc.composed_delta(release, k, eps), ALPHAS)


def _attacker_compute(v, progress=None) -> pd.DataFrame:
    from dpviz.budget.releases import gaussian_mu, gdp_tradeoff  # (lazy: as above)

    release, k = release_of(v), int(v["k"])
    df = pd.DataFrame({"fpr": ALPHAS, "tpr": _promised_tpr(release, k), "curve": "composed"})
    if release.kind == "gaussian":
        mu = gaussian_mu(release.sigma, k)
        df = pd.concat([df, pd.DataFrame({"fpr": ALPHAS, "tpr": 1 - gdp_tradeoff(mu, ALPHAS), "curve": "gdp"})])
    if v["audit_tpr"] > 0:
        df = pd.concat([df, pd.DataFrame({"fpr": [v["audit_fpr"]], "tpr": [v["audit_tpr"]], "curve": AUDIT_CURVE})])
    if v["hoho_epsilon"] > 0:
        if progress:
            progress(0.5, "HoHo's linking attack on OME, exactly")
        roc = hoho_roc(v["hoho_epsilon"], v["hoho_lambda"]).sort_values("threshold", ascending=False, kind="stable")
        df = pd.concat([df, pd.DataFrame({"fpr": roc["fpr"], "tpr": roc["tpr"], "curve": HOHO_CURVE})])
    return df.reset_index(drop=True)


def _attacker_render(df: pd.DataFrame, v) -> go.Figure:
    release = release_of(v)
    fig = go.Figure()
    cols = _columns(df, ("fpr", "tpr", "curve"))
    composed = _where(cols, cols["curve"] == "composed")
    fig.add_trace(
        go.Scatter(
            x=composed["fpr"], y=composed["tpr"], mode="lines", name="best attacker (from the privacy curve)",
            line=dict(color=OKABE_ITO[4], width=3),
            hovertemplate="false positives %{x:.3g}<br>true positives %{y:.4g}<extra></extra>",
        )
    )  # fmt: skip
    gdp = _where(cols, cols["curve"] == "gdp")
    if len(gdp["fpr"]):
        from dpviz.budget.releases import gaussian_mu  # (lazy: as above)

        mu = gaussian_mu(release.sigma, int(v["k"]))
        fig.add_trace(
            go.Scatter(
                x=gdp["fpr"], y=gdp["tpr"], mode="lines", name=f"Gaussian DP, μ = {mu:.3g} (exact)",
                line=dict(color=OKABE_ITO[0], dash="dash"),
            )
        )  # fmt: skip
    ref_line(fig, [0, 1], [0, 1], "guessing", color="#777", dash="dot", width=1.5)
    attack = _where(cols, cols["curve"] == HOHO_CURVE)
    broken = ""
    if len(attack["fpr"]):
        gap, fpr, tpr = promise_excess(df[df["curve"] == "composed"], df[df["curve"] == HOHO_CURVE])
        fig.add_trace(
            go.Scatter(
                x=attack["fpr"], y=attack["tpr"], mode="lines",
                name=f"HoHo's attack on OME (ε = {v['hoho_epsilon']:g}, λ = {v['hoho_lambda']:g}), exact",
                line=dict(color=OKABE_ITO[3], width=3),  # reddish purple: apart from the curve's orange
                hovertemplate="HoHo's attack: false positives %{x:.3g}<br>true positives %{y:.4g}<extra></extra>",
            )
        )  # fmt: skip
        if gap > 1e-9:
            broken = (
                f"; HoHo's attack: TPR {tpr:.3g} at FPR {fpr:.2g}, where the thick curve allows at most"
                f" {tpr - gap:.3g}: the promise does not hold"
            )
        else:
            broken = "; HoHo's attack stays under the curve"
    audit = _where(cols, cols["curve"] == AUDIT_CURVE)
    if len(audit["fpr"]):
        fpr, tpr = float(audit["fpr"][0]), float(audit["tpr"][0])
        allowed = float(np.interp(fpr, composed["fpr"], composed["tpr"]))
        fig.add_trace(
            go.Scatter(
                x=[fpr], y=[tpr], mode="markers",
                name=f"an audit's certified attack (TPR ≥ {tpr:.3g}, FPR ≤ {fpr:.3g})",
                marker=dict(color=OKABE_ITO[2], size=13, symbol="triangle-up-open", line=dict(width=2.5)),
                hovertemplate="the audit's attack: true positives at least %{y:.4g},<br>false positives at most "
                "%{x:.4g}<extra></extra>",
            )
        )  # fmt: skip
        broken += (
            f"; the audit's attack: TPR ≥ {tpr:.3g} at FPR ≤ {fpr:.3g}, where the thick curve allows at most "
            f"{allowed:.3g}: " + ("the promise does not hold" if tpr > allowed + 1e-12 else "within the promise")
        )
    at = {a: float(np.interp(a, composed["fpr"], composed["tpr"])) for a in FPRS}
    fig.add_trace(
        go.Scatter(
            x=list(at), y=list(at.values()), mode="markers", name="TPR at FPR 0.1%, 1%, 10%",
            marker=dict(color="#000", size=8, symbol="diamond"),
        )
    )  # fmt: skip
    if len(audit["fpr"]):
        # an audit's event is a rare one (ADePT's worst pair: TPR ≥ 0.004 at FPR ≤ 0.0005): on linear axes
        # it sits on the origin, so both axes are logarithmic, as low-FPR attacks are usually drawn
        log_axis(fig, "x", title="false-positive rate (log scale)")
        log_axis(fig, "y", title="true-positive rate (log scale)")
    else:
        # a little beyond [0, 1]: a curve along an edge (an attack with TPR 1 at FPR near 0) stays visible
        fig.update_xaxes(title="false-positive rate", range=[-0.015, 1.015])
        fig.update_yaxes(title="true-positive rate", range=[-0.015, 1.015])
    # the legend under the plot: its entries name the attacks with their numbers, and beside the plot
    # they left it a sliver of a 600-px column (the page at 1280 by 800)
    fig.update_layout(legend=dict(orientation="h", y=-0.25, yanchor="top", x=0))
    said = ", ".join(f"{a:.1%}: {t:.3g}" for a, t in at.items())
    title = two_line_title(
        f"What the best attacker can do after k = {v['k']} releases", f"{release.label}; TPR at FPR {said}{broken}"
    )
    return style(fig, title, height=560)


register(
    FigureSpec(
        id="budget-attacker",
        title="The attacker's trade-off: true against false positives",
        page=PAGE,
        params=(*RELEASE_PARAMS, K, HOHO_EPSILON, HOHO_LAMBDA, AUDIT_TPR, AUDIT_FPR),
        compute=_attacker_compute,
        render=_attacker_render,
        caption=(
            "Differential privacy as a test (Dong, Roth and Su 2019): no attacker deciding whether one person's "
            "record was used can reach a point above the thick curve (a false positive: the attacker says "
            "'member' of someone who was not). It is drawn from the composed mechanism's "
            "whole privacy curve δ(ε), so it is tighter than any single (ε, δ). The diamonds give the best true-"
            "positive rate at a false-positive rate of 0.1%, 1% and 10%; for the Gaussian the exact Gaussian-DP "
            "curve lies on top of it. With HoHo's attack set (the HoHo page's link, or the two boxes), the reddish-"
            "purple curve is that page's exact linking attack on OME: at randomized response, ε₀ = OME's claimed ε and "
            "k = 1, the thick curve is the ε-DP promise, and an attack above it shows the claim does not hold. "
            "An audit's certified attack (the Audit page's link) is the green triangle, on log-scaled axes (an "
            "audit's event is rare): with the audit's confidence the real test lies up and to the left of it, so a "
            "triangle above the curve breaks the promise."
        ),
        columns=("fpr", "tpr", "curve"),
        quick={"k": "10"},
    )
)


# 4. what the attacker believes ------------------------------------------------------------------

PRIOR = Param(
    "prior", "float", 0.01, "Attacker's prior belief π", "How likely the attacker thinks it is, before any "
    "release, that the person's record was used (1% = one in a hundred).", min=1e-6, max=0.99, log=True,
    slider=True,
)  # fmt: skip
PRIORS = tuple(float(f"{p:.4g}") for p in np.geomspace(1e-4, 0.99, 61))


def posterior(prior, tpr, fpr):
    """The attacker's belief that the record was used once its test says "used", by Bayes' rule:
    π·TPR / (π·TPR + (1 − π)·FPR), for a test with true- and false-positive rates TPR and FPR and a
    prior π (arrays broadcast). At the trade-off curve's point this is the most a test at that FPR can
    make the attacker believe; for one ε-DP release it is at most e^ε·π / (e^ε·π + 1 − π), the
    posterior-odds bound of Kasiviswanathan and Smith (2014), reached by randomized response."""
    prior, tpr, fpr = np.asarray(prior, float), np.asarray(tpr, float), np.asarray(fpr, float)
    said = prior * tpr
    return np.where(said > 0, said / np.maximum(said + (1.0 - prior) * fpr, 1e-300), 0.0)


def _posterior_prepare(v, progress=None) -> dict[float, float]:
    """The best attacker's true-positive rate at each of :data:`FPRS` (the promised curve's own
    points: :data:`ALPHAS` holds them, nothing is interpolated); the prior only reads them."""
    tpr = _promised_tpr(release_of(v), int(v["k"]))
    return {a: float(tpr[np.flatnonzero(ALPHAS == a)[0]]) for a in FPRS}


def _posterior_evaluate(tprs: dict[float, float], v) -> pd.DataFrame:
    """Bayes' rule at every prior of the grid and the slider's, for each false-positive rate: one
    table made from its columns (a table per rate, concatenated, was most of a frame's table)."""
    priors = np.unique(np.r_[PRIORS, float(v["prior"])])
    n = priors.size
    return pd.DataFrame(
        {
            "fpr": np.repeat(np.array(list(tprs), dtype=float), n),
            "tpr": np.repeat(np.array(list(tprs.values()), dtype=float), n),
            "prior": np.tile(priors, len(tprs)),
            "posterior": np.concatenate([posterior(priors, t, a) for a, t in tprs.items()]),
            "here": np.tile(priors == float(v["prior"]), len(tprs)),
        }
    )


def _posterior_render(df: pd.DataFrame, v) -> go.Figure:
    release = release_of(v)
    fig = go.Figure()
    cols = _columns(df, ("fpr", "tpr", "prior", "posterior", "here"))
    for k, a in enumerate(np.unique(cols["fpr"])):
        part = _where(cols, cols["fpr"] == a)
        fig.add_trace(
            go.Scatter(
                x=part["prior"], y=part["posterior"], mode="lines", name=f"a 'used' call at FPR {a * 100:g}%",
                line=dict(color=OKABE_ITO[k], width=3, dash=DASHES[k % len(DASHES)]),
                customdata=part["tpr"],
                hovertemplate=f"FPR {a * 100:g}%, TPR %{{customdata:.3g}}<br>prior %{{x:.3g}}<br>posterior %{{y:.3g}}"
                "<extra></extra>",
            )
        )  # fmt: skip
    # the diagonal through every prior of the grid (two points would draw a straight segment on the log axis)
    ref_line(fig, list(PRIORS), list(PRIORS), "no release: belief = prior", color="#777", dash="dot", width=1.5)
    prior = float(v["prior"])
    mark_x(fig, prior, 0.0, 1.0, f"prior π = {prior:g}")
    log_axis(fig, "x", title="the attacker's prior belief π (log scale)")
    fig.update_yaxes(title="belief after a 'used' call", range=[0, 1.02])
    here = cols["posterior"][cols["here"] & (cols["fpr"] == 0.01)]
    said = f"{float(here[0]):.3g}" if len(here) else "n/a"
    title = two_line_title(
        f"What the attacker believes after k = {v['k']} releases",
        f"{release.label}; from a prior of {prior:g}, a 'used' call at FPR 1% is right with probability {said}",
    )
    return style(fig, title)


register(
    FigureSpec(
        id="budget-posterior",
        title="The attacker's belief: posterior against prior",
        page=PAGE,
        params=(*RELEASE_PARAMS, K, PRIOR),
        prepare=_posterior_prepare,
        evaluate=_posterior_evaluate,
        live=("prior",),
        render=_posterior_render,
        caption=(
            "The odds reading of differential privacy: an attacker who believed with probability π that a "
            "person's record was used, and whose best test (the chart above) says 'used', now believes it with "
            "the probability on the curve, by Bayes' rule π·TPR / (π·TPR + (1 − π)·FPR). A curve per false-"
            "positive rate the attacker allows; the dotted diagonal is no release at all. A small prior stays "
            "small unless the releases let the test be both sure and sensitive."
        ),
        columns=("fpr", "tpr", "prior", "posterior", "here"),
        quick={"k": "10"},
    )
)


FRONTIER_PARAMS = (*RELEASE_PARAMS, K, DELTA)
register(frontier_spec("budget", FRONTIER_PARAMS, quick={"k": "10"}))
