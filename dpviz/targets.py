"""Choosing the setting from a target: the slider value at which a page's measure reaches a wanted
level, for every mechanism on the page (issue "Choose the setting from what you need").

A target names the column of the page's tables that it bounds, so a name means one thing on the
page, in its CSV, on the command line and here:

======== ====================== ============= ======= ==================================
page     target (column)        bound         slider  how it is solved
======== ====================== ============= ======= ==================================
adept    ``epsilon_actual``     at most       ε       exact (ε√n for ADePT, ε for the fixes)
adept    ``rms_error_relative`` at most       ε       exact (Laplace b√(2n), Gaussian σ√n, L1 bias)
adept    ``cosine``             at least      ε       simulated: a 95% interval from its draws
hoho     ``auc_mean``           at most       ε       exact (binomial convolutions), per λ
hoho     ``reconstruction_mean`` at most      ε       exact, per λ
metric   ``n_w``                at most       ε       simulated: mean over the page's words
metric   ``s_w``                at least      ε       simulated: mean over the page's words
metric   ``share_kept``         at least      ε       simulated: share of draws that keep the word
metric   ``mean_cosine``        at least      ε       simulated: mean cos(φ(w), φ(M(w)))
partial  ``rdp_epsilon``        at most       σ       exact: σ = g_max √(α / (2 t))
partial  ``sigma``              (the setting) σ       the measures at that σ
======== ====================== ============= ======= ==================================

Every measure is a function m(x) of one slider x (the others held at the given settings), the
very computation the page draws (``dpviz.papers.adept.sensitivity.fixes_evaluate``,
``dpviz.papers.hoho.exact.exact_attack``, ``dpviz.papers.metric.mechanism.stats_at``, the
partial-sensitivity table). On the HoHo page OME is solved at the page's λ and at each λ of
:data:`OME_LAMBDAS` (its (ε, λ) curve; SUE and OUE have no λ). On the metric page the
"mechanisms" are the page's embeddings (its embedding and the one it compares with); a statistic
is a mean over the page's sampled words, whose standard error is the words' spread over
√(words). The answer is the x*
where m(x*) = t, found by bracketing on a grid of the slider's range (log-spaced) and Brent's
method inside the bracket to 1e-9 (in log x: 1e-9 relative in x), so the setting is *extreme*: on the allowed side of
x* every setting meets the target, a step past it (2%) does not. A measure that is simulated (the
cosine over the page's draws) is solved three times, for its mean and for the mean ± 1.96 standard
errors, which brackets x* with the simulation's own error; each curve is made monotone first (a
running maximum or minimum along x), so the answer never falls outside the slider's range and the
bracket is ordered. A target that the range cannot reach is an answer too: ``reachable`` is false
and the note gives the measure's range over the slider's range.

    >>> import dpviz
    >>> t = dpviz.calibrate("adept", epsilon_actual=4.0, dim=64)
    >>> [round(x, 9) for x in t.loc[t.mechanism.isin(["adept", "laplace_corrected"]), "epsilon"]]
    [0.5, 4.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from dpviz.errors import InputError

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile (the simulated measures' intervals)."""


@dataclass(frozen=True)
class Measure:
    """A column a target may bound: the bound's sense, whether the page computes it exactly, what
    it is in words (and its unit), whether it is a privacy or a utility measure, and the range its
    values lie in where they have one (a share, an AUC, a cosine): a target outside it is refused."""

    column: str
    sense: str  # "at most" / "at least"
    exact: bool
    label: str
    kind: str  # "privacy" / "utility" / "setting"
    bounds: tuple[float, float] | None = None


@dataclass(frozen=True)
class Page:
    """What can be calibrated on one page: its slider, its mechanisms, its measures, and a function
    ``measures(settings, mechanism, x) -> {column: value}`` (``column_se`` for a simulated one)."""

    name: str
    slider: str
    mechanisms: tuple[str, ...] | Callable[[Mapping[str, Any]], tuple[str, ...]]
    measures: tuple[Measure, ...]
    params: Callable[[], Sequence[Any]]
    prepare: Callable[[Mapping[str, Any], str], Any]
    evaluate: Callable[[Any, Mapping[str, Any], str, float], dict[str, float]]

    def mechanisms_for(self, values: Mapping[str, Any]) -> tuple[str, ...]:
        """The mechanisms compared at these settings (the metric page: its embeddings)."""
        return self.mechanisms(values) if callable(self.mechanisms) else self.mechanisms

    def measure(self, column: str) -> Measure:
        """The measure ``column`` of this page; another name is refused with the page's targets."""
        for m in self.measures:
            if m.column == column:
                return m
        names = ", ".join(m.column for m in self.measures)
        raise InputError(f"{column!r} is not a target on the {self.name} page; the targets are {names}.")


# --- ADePT ---------------------------------------------------------------------------------------


def _adept_params():
    from dpviz import registry

    return registry.get("adept-fixes").params


def _adept_prepare(v: Mapping[str, Any], mechanism: str):
    from dpviz.papers.adept import sensitivity as adept

    return {int(v["dim"]): adept.fixes_draws(int(v["dim"]), v["clip"], v["draws"], v["seed"])}


def _adept_evaluate(state, v: Mapping[str, Any], mechanism: str, epsilon: float) -> dict[str, float]:
    from dpviz.papers.adept import sensitivity as adept

    row = adept.fixes_evaluate(state, [int(v["dim"])], [epsilon], v["clip"], v["delta"], [mechanism]).iloc[0]
    return {
        "epsilon_actual": float(row.epsilon_actual),
        "rms_error_relative": float(row.rms_error_relative),
        "cosine": float(row.cosine),
        "cosine_se": float(row.cosine_se),
        "noise_scale": float(row.noise_scale),
    }


# --- HoHo -----------------------------------------------------------------------------------------


def _hoho_params():
    from dpviz import registry

    return registry.get("hoho-live").params


def _hoho_prepare(v: Mapping[str, Any], mechanism: str):
    from dpviz.papers.hoho.pipeline import attack_counts

    return attack_counts(v["corpus"], mechanism, v["targets"], v["seed"])


class _Lazy(dict):
    """Measures computed when first read (HoHo's AUC costs binomial convolutions; the
    reconstruction, only the flip probabilities)."""

    def __init__(self, makers: Mapping[str, Callable[[], float]]):
        super().__init__()
        self.makers = makers

    def __missing__(self, key):
        if key not in self.makers:
            raise KeyError(key)
        self[key] = value = self.makers[key]()
        return value

    def items(self):
        return [(k, self[k]) for k in self.makers]


def _hoho_evaluate(counts, v: Mapping[str, Any], mechanism: str, epsilon: float) -> dict[str, float]:
    from dpviz.papers.hoho import exact

    lam = float(v["lambda_"]) if mechanism == "ome" else 1.0

    def recon() -> float:  # exact_attack's expected reconstruction, from (p, q) alone
        p, q = exact.flip_probabilities(counts.mechanism, lam, epsilon, counts.r)
        ones = np.asarray(counts.ones, dtype=float)
        return float(np.mean((ones * p + (counts.positions - ones) * (1 - q)) / counts.positions))

    return _Lazy(
        {
            "auc_mean": lambda: float(np.mean(exact.exact_auc(counts, lam, epsilon))),
            "reconstruction_mean": recon,
        }
    )


# --- Metric DP ------------------------------------------------------------------------------------


def _metric_params():
    from dpviz import registry

    return registry.get("metric-live").params


def _metric_embeddings(v: Mapping[str, Any]) -> tuple[str, ...]:
    names = [v["embedding"]]
    if v.get("compare", "none") not in ("none", v["embedding"]):
        names.append(v["compare"])
    return tuple(names)


def _metric_prepare(v: Mapping[str, Any], embedding: str):
    from dpviz.data.embeddings import resolve
    from dpviz.papers.metric.pipeline import word_state

    at = dict(v, embedding=embedding)
    return resolve(embedding), word_state(at, "embedding")


def _metric_evaluate(state, v: Mapping[str, Any], embedding: str, epsilon: float) -> dict[str, float]:
    from dpviz.papers.metric import mechanism as mdp

    emb, envelopes = state
    df = mdp.stats_at(emb, envelopes, [epsilon], v["eta"])
    words = max(len(df), 1)
    kept = df.n_w / df.samples
    se = lambda col: float(col.std(ddof=1) / math.sqrt(words)) if len(col) > 1 else 0.0  # noqa: E731
    return {
        "n_w": float(df.n_w.mean()),
        "n_w_se": se(df.n_w),
        "s_w": float(df.s_w.mean()),
        "s_w_se": se(df.s_w),
        "share_kept": float(df.n_w.sum() / df.samples.sum()),
        "share_kept_se": se(kept),
        "mean_cosine": float(df.cosine.mean()),
        "mean_cosine_se": se(df.cosine),
    }


# --- Partial sensitivity ----------------------------------------------------------------------------


def _partial_params():
    from dpviz import registry

    return (*registry.get("partial-individuals").params, _DELTA)


def _partial_prepare(v: Mapping[str, Any], mechanism: str):
    from dpviz import registry

    spec = registry.get("partial-individuals")
    own = {p.name: v[p.name] for p in spec.params}
    return spec, own


def _partial_evaluate(state, v: Mapping[str, Any], mechanism: str, sigma: float) -> dict[str, float]:
    spec, own = state
    table = spec.table({**own, "sigma": sigma})
    rdp = float(table["rdp_epsilon"].max())  # the guarantee: the worst-off individual
    alpha, delta = float(v["alpha"]), float(v["delta"])
    return {"rdp_epsilon": rdp, "sigma": sigma, "dp_epsilon": rdp + math.log(1 / delta) / (alpha - 1)}


def _delta_param():
    from dpviz.params import Param

    return Param(
        "delta",
        "float",
        1e-5,
        "δ of the (ε, δ) conversion",
        "Rényi DP at order α gives (ε_RDP + log(1/δ)/(α − 1), δ)-DP (Mironov 2017, Prop. 3).",
        min=1e-12,
        max=0.1,
        log=True,
    )


_DELTA = _delta_param()

PAGES: dict[str, Page] = {
    "adept": Page(
        "adept",
        "epsilon",
        ("adept", "l1_clip", "laplace_corrected", "gaussian"),
        (
            Measure("epsilon_actual", "at most", True, "the ε really guaranteed", "privacy"),
            Measure("rms_error_relative", "at most", True, "RMS error / C", "utility"),
            Measure("cosine", "at least", False, "mean cosine to the clipped vector", "utility", (-1.0, 1.0)),
        ),
        _adept_params,
        _adept_prepare,
        _adept_evaluate,
    ),
    "hoho": Page(
        "hoho",
        "epsilon",
        ("ome", "sue", "oue"),
        (
            Measure("auc_mean", "at most", True, "the linking attack's AUC", "privacy", (0.0, 1.0)),
            Measure(
                "reconstruction_mean", "at most", True, "share of bits the attack reads back", "privacy", (0.0, 1.0)
            ),
        ),
        _hoho_params,
        _hoho_prepare,
        _hoho_evaluate,
    ),
    "metric": Page(
        "metric",
        "epsilon",
        _metric_embeddings,
        (
            Measure("n_w", "at most", False, "average N_w: releases that keep the word", "privacy"),
            Measure("s_w", "at least", False, "average S_w: distinct outputs", "privacy"),
            Measure("share_kept", "at least", False, "share of releases that keep the word", "utility", (0.0, 1.0)),
            Measure(
                "mean_cosine",
                "at least",
                False,
                "mean cosine of the released word to the original",
                "utility",
                (-1.0, 1.0),
            ),
        ),
        _metric_params,
        _metric_prepare,
        _metric_evaluate,
    ),
    "partial": Page(
        "partial",
        "sigma",
        ("gaussian",),
        (
            Measure("rdp_epsilon", "at most", True, "Rényi-DP ε at α of the worst-off individual", "privacy"),
            Measure("sigma", "at least", True, "the Gaussian noise σ", "setting"),
        ),
        _partial_params,
        _partial_prepare,
        _partial_evaluate,
    ),
}
"""The pages that can be calibrated, by their paper keys."""


# --- solving ----------------------------------------------------------------------------------------


def _monotone(y: np.ndarray, increasing: bool) -> np.ndarray:
    return np.maximum.accumulate(y) if increasing else np.minimum.accumulate(y)


def _cross(xs: np.ndarray, ys: np.ndarray, target: float, f: Callable[[float], float] | None) -> float | None:
    """The x where the monotone curve (xs, ys) reaches ``target``: Brent's method on ``f`` inside
    the grid's bracket (exact measures), else interpolation in log x between the two grid points."""
    from scipy.optimize import brentq

    d = ys - target
    hit = np.flatnonzero(d == 0)
    if hit.size:
        return float(xs[hit[0]])
    change = np.flatnonzero(np.sign(d[:-1]) * np.sign(d[1:]) < 0)
    if not change.size:
        return None
    i = int(change[0])
    if f is not None:
        g = lambda lx: f(math.exp(lx)) - target  # noqa: E731
        a, b = math.log(xs[i]), math.log(xs[i + 1])
        if g(a) * g(b) < 0:  # (always, for a monotone measure)
            return float(math.exp(brentq(g, a, b, xtol=1e-9, rtol=1e-9)))
    lx = np.log(xs[i]) + (target - ys[i]) * (np.log(xs[i + 1]) - np.log(xs[i])) / (ys[i + 1] - ys[i])
    return float(np.exp(lx))


GRID_POINTS = {True: 8, False: 121}
"""Log-spaced points over the slider's range that bracket a crossing (then Brent's method): few
for an exact measure (monotone: the grid only brackets), more for a simulated one (its running
maximum follows the curve where the draws make it wiggle)."""


def _one(page: Page, v: Mapping[str, Any], mechanism: str, measure: Measure, target: float, lo: float, hi: float):
    state = page.prepare(v, mechanism)
    at = lambda x: page.evaluate(state, v, mechanism, float(x))  # noqa: E731
    xs = np.geomspace(lo, hi, GRID_POINTS[measure.exact])
    ends = [at(xs[0]), at(xs[-1])]
    d0, d1 = ends[0][measure.column] - target, ends[1][measure.column] - target
    if measure.exact and d0 * d1 > 0:
        # an exact measure is monotone in the slider: both ends on one side, no crossing between
        xs, rows = xs[[0, -1]], ends
    else:
        rows = [ends[0], *(at(x) for x in xs[1:-1]), ends[1]]
    ys = np.array([r[measure.column] for r in rows])
    increasing = ys[-1] >= ys[0]
    mono = _monotone(ys, increasing)
    # the allowed side of the crossing: where the measure is on the target's side
    allowed_high = (measure.sense == "at most") != increasing
    out: dict[str, Any] = {"mechanism": mechanism, "target": measure.column, "target_value": target}
    # the measure is a deterministic function of x (a simulated one reuses its draws at every x:
    # common random numbers), so Brent's method applies to both
    x = _cross(xs, mono, target, lambda x: at(x)[measure.column])
    met = (mono <= target) if measure.sense == "at most" else (mono >= target)
    if x is None:
        if met.all():
            x, note = (lo if allowed_high else hi), f"met across the whole range [{lo:g}, {hi:g}]"
            out.update(reachable=True)
        else:
            out.update(
                reachable=False,
                note=f"not reachable in [{lo:g}, {hi:g}]: {measure.column} goes from {ys[0]:.6g} to {ys[-1]:.6g}",
            )
            out.update({page.slider: float("nan"), "low": float("nan"), "high": float("nan"), "side": ""})
            return out
    else:
        note = ""
        out.update(reachable=True)
    out[page.slider] = x
    out["side"] = f"{page.slider} ≥ {x:.6g}" if allowed_high else f"{page.slider} ≤ {x:.6g}"
    low = high = x
    if not measure.exact:  # the simulation's own error: the mean ± 1.96 standard errors
        se = np.array([r.get(f"{measure.column}_se", 0.0) for r in rows])
        ends = []
        for sign in (-1, 1):
            band = _monotone(ys + sign * Z95 * se, increasing)
            f = lambda x, sign=sign: (lambda r: r[measure.column] + sign * Z95 * r[f"{measure.column}_se"])(at(x))  # noqa: E731
            c = _cross(xs, band, target, f)
            if c is None:  # the band stays on one side: its crossing lies beyond that end of the range
                met_all = ((band <= target) if measure.sense == "at most" else (band >= target)).all()
                c = (lo if allowed_high else hi) if met_all else (hi if allowed_high else lo)
            ends.append(c)
        low, high = min(ends), max(ends)
        low, high = min(low, x), max(high, x)
        note = (note + "; " if note else "") + "simulated: a 95% interval from the page's draws"
    out.update(low=low, high=high, note=note)
    for k, value in at(x).items():
        if not k.endswith("_se"):
            out[k] = value
    return out


def calibrate_page(page: str, targets: Mapping[str, Any], settings: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """One row per mechanism (and target) of ``page``: the slider value where each target is
    reached, the side of it that meets the target, the interval (simulated measures), every
    measure there, and ``reachable``. ``settings`` are the page's other parameters (as the page's
    link and ``--set`` take them). Bad input raises :class:`dpviz.errors.InputError` with one
    sentence naming what was wrong and what is allowed."""
    from dpviz.params import validate

    if page not in PAGES:
        raise InputError(f"{page!r} cannot be calibrated; the pages are {', '.join(PAGES)}.")
    p = PAGES[page]
    if not targets:
        names = ", ".join(m.column for m in p.measures)
        raise InputError(f"give a target on the {page} page: one of {names} (e.g. {p.measures[0].column}=1).")
    params = list(p.params())
    values, errors = validate(params, dict(settings or {}))
    if errors:
        raise InputError(" ".join(errors))
    slider = next(q for q in params if q.name == p.slider)
    lo, hi = float(slider.min), float(slider.max)
    parsed = {}
    for name, raw in targets.items():
        measure = p.measure(name)
        try:
            value = float(raw)
        except (TypeError, ValueError):
            raise InputError(f"the target {name}={raw!r} is not a number.") from None
        if not math.isfinite(value):
            raise InputError(f"the target {name}={raw!r} is not a finite number.")
        if measure.bounds is not None and not measure.bounds[0] <= value <= measure.bounds[1]:
            low, high = measure.bounds
            raise InputError(
                f"the target {name}={value:g} is outside what {measure.label} can be: [{low:g}, {high:g}]."
            )
        if measure.kind == "setting":
            if not lo <= value <= hi:
                raise InputError(f"the target {name}={value:g} is outside the slider's range [{lo:g}, {hi:g}].")
        elif value <= 0 and measure.column not in ("cosine", "mean_cosine"):
            raise InputError(f"the target {name}={value:g} must be above 0.")
        parsed[name] = (measure, value)
    if len(parsed) > 1 and page == "partial" and "sigma" in parsed:
        raise InputError("sigma is the setting itself: give it alone, or give rdp_epsilon alone.")
    rows = []
    for name, (measure, value) in parsed.items():
        for mech in p.mechanisms_for(values):
            if measure.kind == "setting":
                state = p.prepare(values, mech)
                row = {"mechanism": mech, "target": name, "target_value": value, "reachable": True}
                row.update(
                    {p.slider: value, "low": value, "high": value, "side": f"{p.slider} = {value:g}", "note": ""}
                )
                row.update(p.evaluate(state, values, mech, value))
                rows.append(row)
            else:
                rows.append(_one(p, values, mech, measure, value, lo, hi))
                if page == "hoho":
                    rows[-1]["lambda_"] = values["lambda_"] if mech == "ome" else float("nan")
        if page == "hoho" and measure.kind != "setting":
            rows.extend(_ome_curve(p, values, measure, value, lo, hi))
    df = pd.DataFrame(rows)
    if len(parsed) > 1:
        _contradictions(df, p)
    return df


OME_LAMBDAS = (1.0, 3.0, 10.0, 100.0, 1000.0)
"""The λ at which the HoHo page's answer also solves OME (its (ε, λ) curve), beside the page's λ."""


def _ome_curve(p: Page, values: Mapping[str, Any], measure: Measure, target: float, lo: float, hi: float) -> list:
    """OME's (ε, λ) curve: the ε that reaches the target at each λ of :data:`OME_LAMBDAS` (the
    page's own λ is the row above); each row carries its ``lambda_``."""
    out = []
    for lam in OME_LAMBDAS:
        if lam == values["lambda_"]:
            continue
        row = _one(p, dict(values, lambda_=lam), "ome", measure, target, lo, hi)
        row["lambda_"] = lam
        out.append(row)
    return out


def _contradictions(df: pd.DataFrame, page: Page) -> None:
    """Two targets on one mechanism whose allowed sides of the slider do not meet: no setting
    meets both; said in one sentence per mechanism, the table kept."""
    notes = []
    for mech, part in df.groupby("mechanism", sort=False):
        lo, hi = -math.inf, math.inf
        for r in part.itertuples():
            x = getattr(r, page.slider)
            if not r.reachable or not isinstance(x, float) or math.isnan(x):
                continue
            if "≥" in r.side:
                lo = max(lo, x)
            else:
                hi = min(hi, x)
        if lo > hi:
            notes.append(f"{mech}: no {page.slider} meets every target ({page.slider} ≥ {lo:.4g} and ≤ {hi:.4g})")
    if notes:
        df["note"] = [
            (n + "; " if n else "") + next((c for c in notes if c.startswith(f"{m}:")), "")
            for n, m in zip(df["note"], df["mechanism"])
        ]
        df.attrs["contradictions"] = notes


# --- the page's panel ("Choose from a target") ---------------------------------------------------


def panel_answer(page: str, values: Mapping[str, Any]) -> pd.DataFrame | None:
    """The panel's answer: None while no target is chosen, else :func:`calibrate_page` for the
    chosen target at the page's other settings (the solved slider's own value plays no part)."""
    target = values.get("target_measure", "none")
    if target in (None, "none"):
        return None
    settings = {k: v for k, v in values.items() if k not in ("target_measure", "target_value")}
    from dpviz.params import format_value

    params = {q.name: q for q in PAGES[page].params()}
    raw = {k: format_value(params[k], v) for k, v in settings.items() if k in params}
    table = calibrate_page(page, {target: values["target_value"]}, raw)
    table.attrs["page"] = page
    return table


def answer_adept(values, progress=None):
    """The ADePT page's panel compute (:func:`panel_answer`)."""
    return panel_answer("adept", values)


def answer_hoho(values, progress=None):
    """The HoHo page's panel compute (:func:`panel_answer`)."""
    return panel_answer("hoho", values)


def answer_metric(values, progress=None):
    """The metric DP page's panel compute (:func:`panel_answer`)."""
    return panel_answer("metric", values)


def answer_partial(values, progress=None):
    """The partial sensitivity page's panel compute (:func:`panel_answer`)."""
    return panel_answer("partial", values)
