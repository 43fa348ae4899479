"""Choosing the setting from a target: the slider value at which a page's measure reaches a wanted
level, for every mechanism on the page (issue "Choose the setting from what you need").

A target names the column of the page's tables that it bounds, so a name means one thing on the
page, in its CSV, on the command line and here. Each paper declares what can be calibrated on its
page in its own folder (``dpviz/papers/<key>/targets.py``: ``TARGETS``, a :class:`Page`): its
slider, its mechanisms, its measures (:class:`Measure`: the column, at most or at least, exact or
simulated) and a ``prepare``/``evaluate`` pair that is the page's own computation; this module
holds no paper's name. The measures of each page are listed in docs/design.md ("Targets").

Every measure is a function m(x) of one slider x (the others held at the given settings), the
very computation the page draws. A mechanism with a second setting (:class:`SecondSetting`: a
parameter of its own) is also solved along that setting's values. A simulated measure is a mean
whose standard error the page's ``evaluate`` gives (``<column>_se``). The answer is the x*
where m(x*) = t, found by bracketing on a grid of the slider's range (log-spaced) and Brent's
method inside the bracket to 1e-9 (in log x: 1e-9 relative in x), so the setting is *extreme*: on the allowed side of
x* every setting meets the target, a step past it (2%) does not. A measure that is simulated (the
cosine over the page's draws) is solved three times, for its mean and for the mean ± 1.96 standard
errors, which brackets x* with the simulation's own error; each curve is made monotone first (a
running maximum or minimum along x), so the answer never falls outside the slider's range and the
bracket is ordered. A target that the range cannot reach is an answer too: ``reachable`` is false
and the note gives the measure's range over the slider's range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from dpviz.declarations import PerPaper
from dpviz.errors import InputError
from dpviz.params import format_value, validate

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
class SecondSetting:
    """A mechanism's second setting besides the slider (e.g. OME's λ): the answer for that
    mechanism is also solved at each of ``values`` (its curve of settings), every row of the answer
    carrying the setting (NaN for the mechanisms without it)."""

    param: str
    mechanism: str
    values: tuple[float, ...]


@dataclass(frozen=True)
class OtherSetting:
    """A setting the page can also be solved for, the others (the slider among them) held: e.g.
    the privacy-budget page's noise multiplier σ at k releases ("the smallest σ whose ε after k
    steps is within the target", Opacus's question). ``applies(settings)`` is "" where the
    setting plays a part, else the sentence that says why it does not (σ of a Laplace release)."""

    param: str
    applies: Callable[[Mapping[str, Any]], str]


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
    second: SecondSetting | None = None
    others: tuple[OtherSetting, ...] = ()
    evaluate_many: Callable[[Any, Mapping[str, Any], str, Sequence[float]], list[Mapping[str, float]]] | None = None
    """``evaluate`` at many x at once, the same numbers to the last bit (a frontier's missing points
    of a curve: HoHo's 26 ε at each λ in one compiled call), where the page has one."""

    def solvable(self) -> tuple[str, ...]:
        """The settings a target can be solved for: the slider, then the :class:`OtherSetting` ones."""
        return (self.slider,) + tuple(o.param for o in self.others)

    def mechanisms_for(self, values: Mapping[str, Any]) -> tuple[str, ...]:
        """The mechanisms compared at these settings (a callable: mechanisms that depend on them, e.g. embeddings)."""
        return self.mechanisms(values) if callable(self.mechanisms) else self.mechanisms

    def measure(self, column: str) -> Measure:
        """The measure ``column`` of this page; another name is refused with the page's targets."""
        for m in self.measures:
            if m.column == column:
                return m
        names = ", ".join(m.column for m in self.measures)
        raise InputError(f"{column!r} is not a target on the {self.name} page; the targets are {names}.")


class Lazy(dict):
    """Measures computed when first read (an ``evaluate`` whose measures differ in cost: HoHo's
    AUC costs binomial convolutions, its reconstruction only the flip probabilities)."""

    def __init__(self, makers: Mapping[str, Callable[[], float]]):
        super().__init__()
        self.makers = makers

    def __missing__(self, key):
        if key not in self.makers:
            raise KeyError(key)
        self[key] = value = self.makers[key]()
        return value

    def items(self):  # noqa: D102 - every measure, computed
        return [(k, self[k]) for k in self.makers]


PAGES: Mapping[str, Page] = PerPaper("targets", "TARGETS")
"""The pages that can be calibrated, by their paper keys: each paper's ``TARGETS``, declared in
its own folder (``dpviz/papers/<key>/targets.py``)."""


# --- solving ----------------------------------------------------------------------------------------


def _monotone(y: np.ndarray, increasing: bool) -> np.ndarray:
    return np.maximum.accumulate(y) if increasing else np.minimum.accumulate(y)


def _cross(
    xs: np.ndarray, ys: np.ndarray, target: float, f: Callable[[float], float] | None, raw: np.ndarray | None = None
) -> float | None:  # fmt: skip
    """The x where the monotone curve (xs, ys) reaches ``target``: Brent's method on ``f`` inside
    the grid's bracket (exact measures), else interpolation in log x between the two grid points.
    ``raw`` are f's own values at xs (``ys`` may be their running maximum): the bracket's ends are
    read from them rather than computed again (each reading of a budget target composes a
    privacy-loss distribution)."""
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
        a, b = math.log(xs[i]), math.log(xs[i + 1])
        known = {} if raw is None else {a: float(raw[i]) - target, b: float(raw[i + 1]) - target}
        g = lambda lx: known[lx] if lx in known else f(math.exp(lx)) - target  # noqa: E731
        if g(a) * g(b) < 0:  # (always, for a monotone measure)
            return float(math.exp(brentq(g, a, b, xtol=1e-9, rtol=1e-9)))
    lx = np.log(xs[i]) + (target - ys[i]) * (np.log(xs[i + 1]) - np.log(xs[i])) / (ys[i + 1] - ys[i])
    return float(np.exp(lx))


GRID_POINTS = {True: 8, False: 121}
"""Log-spaced points over the slider's range that bracket a crossing (then Brent's method): few
for an exact measure (monotone: the grid only brackets), more for a simulated one (its running
maximum follows the curve where the draws make it wiggle)."""


def control_of(param) -> str:
    """What the page shows for its solved setting ``param`` (a :class:`dpviz.params.Param`):
    "slider", or "box" for a number box (the privacy-budget page's k)."""
    return "slider" if param.slider else "box"


def _meets(value, measure: Measure, target: float):
    """Whether ``value`` (a number, or an array of them elementwise) meets the target."""
    return value <= target if measure.sense == "at most" else value >= target


def _whole(x: float, allowed_high: bool, meets: Callable[[float], bool], lo: float, hi: float) -> float:
    """A whole-number slider's answer (k releases): the crossing ``x`` found in between moved to
    the whole number at the edge of the allowed side, checked on both sides of it (the measure is
    read at ⌊x⌋, so Brent's method stops within its tolerance of a jump, on either side)."""
    k = float(math.ceil(x - 0.5)) if allowed_high else float(math.floor(x + 0.5))
    k = min(max(k, math.ceil(lo)), math.floor(hi))
    step = 1.0 if allowed_high else -1.0
    while not meets(k) and lo <= k + step <= hi:  # into the allowed side until it meets
        k += step
    while lo <= k - step <= hi and meets(k - step):  # out to the edge while the next one still meets
        k -= step
    return k


def _one(
    page: Page, v: Mapping[str, Any], mechanism: str, measure: Measure, target: float, lo: float, hi: float,
    setting: str | None = None,
):  # fmt: skip
    """One row of the answer: ``setting`` (the slider unless another is named) where ``measure``
    reaches ``target`` for ``mechanism``, every other setting held at ``v``."""
    setting = setting or page.slider
    whole = next((q.kind == "int" for q in page.params() if q.name == setting), False)
    if setting == page.slider:
        state = page.prepare(v, mechanism)
        read = lambda x: page.evaluate(state, v, mechanism, x)  # noqa: E731
    else:  # another setting: prepared again at each of its values, read at the slider's value

        def read(x):
            w = {**v, setting: x}
            return page.evaluate(page.prepare(w, mechanism), w, mechanism, float(w[page.slider]))

    readings: dict[float, dict] = {}

    def at(x):  # each x read once (Brent's last point is the answer's row)
        x = float(x)
        if x not in readings:
            readings[x] = read(x)
        return readings[x]

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
    x = _cross(xs, mono, target, lambda x: at(x)[measure.column], raw=ys)
    met = _meets(mono, measure, target)
    if x is None:
        if met.all():
            x, note = (lo if allowed_high else hi), f"met across the whole range [{lo:g}, {hi:g}]"
            out.update(reachable=True)
        else:
            out.update(
                reachable=False,
                note=f"not reachable in [{lo:g}, {hi:g}]: {measure.column} goes from {ys[0]:.6g} to {ys[-1]:.6g}",
            )
            out.update({setting: float("nan"), "low": float("nan"), "high": float("nan"), "side": ""})
            return out
    else:
        note = ""
        out.update(reachable=True)
    if whole:
        x = _whole(x, allowed_high, lambda k: _meets(at(k)[measure.column], measure, target), lo, hi)
    out[setting] = x
    out["side"] = f"{setting} ≥ {x:.6g}" if allowed_high else f"{setting} ≤ {x:.6g}"
    low = high = x
    if not measure.exact:  # the simulation's own error: the mean ± 1.96 standard errors
        se = np.array([r.get(f"{measure.column}_se", 0.0) for r in rows])
        ends = []
        for sign in (-1, 1):
            band = _monotone(ys + sign * Z95 * se, increasing)
            f = lambda x, sign=sign: (lambda r: r[measure.column] + sign * Z95 * r[f"{measure.column}_se"])(at(x))  # noqa: E731
            c = _cross(xs, band, target, f, raw=ys + sign * Z95 * se)
            if c is None:  # the band stays on one side: its crossing lies beyond that end of the range
                met_all = _meets(band, measure, target).all()
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


def calibrate_page(
    page: str, targets: Mapping[str, Any], settings: Mapping[str, Any] | None = None, solve: str | None = None
) -> pd.DataFrame:
    """One row per mechanism (and target) of ``page``: the slider value where each target is
    reached, the side of it that meets the target, the interval (simulated measures), every
    measure there, and ``reachable``. ``settings`` are the page's other parameters (as the page's
    link and ``--set`` take them). ``solve`` names the setting solved for: the page's slider
    (the default) or one of its :class:`OtherSetting` ones; the table's ``attrs["solved"]`` names
    it. Bad input raises :class:`dpviz.errors.InputError` with one sentence naming what was wrong
    and what is allowed."""

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
    solve = solve or p.slider
    if solve not in p.solvable():
        raise InputError(
            f"{solve!r} cannot be solved for on the {page} page; it solves for {' or '.join(p.solvable())}."
        )
    other = next((o for o in p.others if o.param == solve), None)
    why = other.applies(values) if other is not None else ""
    if why:
        raise InputError(why)
    slider = next(q for q in params if q.name == solve)
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
            if solve != p.slider:
                raise InputError(
                    f"{name} is a setting, not a measure, when solving for {solve}: give {name} as a setting "
                    f"(--set {name}=…), or solve for {p.slider}."
                )
            if not lo <= value <= hi:
                raise InputError(
                    f"the target {name}={value:g} is outside the {control_of(slider)}'s range [{lo:g}, {hi:g}] "
                    f"of {p.slider}."
                )
        elif value <= 0 and measure.column not in ("cosine", "mean_cosine"):
            raise InputError(f"the target {name}={value:g} must be above 0.")
        parsed[name] = (measure, value)
    setting = next((name for name, (m, _) in parsed.items() if m.kind == "setting"), None)
    if len(parsed) > 1 and setting is not None:
        others = " or ".join(m.column for m in p.measures if m.kind != "setting")
        raise InputError(f"{setting} is the setting itself: give it alone, or give {others} alone.")
    rows = []
    for name, (measure, value) in parsed.items():
        for mech in p.mechanisms_for(values):
            if measure.kind == "setting":
                state = p.prepare(values, mech)
                row = {"mechanism": mech, "target": name, "target_value": value, "reachable": True}
                row.update(
                    {p.slider: value, "low": value, "high": value, "side": f"{p.slider} = {value:g}", "note": ""}
                )
                row.update(p.evaluate(state, values, mech, value).items())  # (every measure, a Lazy one's too)
                rows.append(row)
            else:
                rows.append(_one(p, values, mech, measure, value, lo, hi, solve))
                if p.second is not None and solve == p.slider:
                    second = p.second
                    rows[-1][second.param] = values[second.param] if mech == second.mechanism else float("nan")
        if p.second is not None and measure.kind != "setting" and solve == p.slider:
            rows.extend(_second_curve(p, values, measure, value, lo, hi))
    df = pd.DataFrame(rows)
    if len(parsed) > 1:
        _contradictions(df, p, solve)
    df.attrs["solved"] = solve
    return df


def _second_curve(p: Page, values: Mapping[str, Any], measure: Measure, target: float, lo: float, hi: float) -> list:
    """The second setting's curve (:class:`SecondSetting`): the slider's value that reaches the
    target at each of its values (the page's own value is the row above); each row carries it."""
    second, out = p.second, []
    for at in second.values:
        if at == values[second.param]:
            continue
        row = _one(p, dict(values, **{second.param: at}), second.mechanism, measure, target, lo, hi)
        row[second.param] = at
        out.append(row)
    return out


def _contradictions(df: pd.DataFrame, page: Page, solved: str) -> None:
    """Two targets on one mechanism whose allowed sides of the slider do not meet: no setting
    meets both; said in one sentence per mechanism, the table kept."""
    notes = []
    for mech, part in df.groupby("mechanism", sort=False):
        lo, hi = -math.inf, math.inf
        for r in part.itertuples():
            x = getattr(r, solved)
            if not r.reachable or not isinstance(x, float) or math.isnan(x):
                continue
            if "≥" in r.side:
                lo = max(lo, x)
            else:
                hi = min(hi, x)
        if lo > hi:
            notes.append(f"{mech}: no {solved} meets every target ({solved} ≥ {lo:.4g} and ≤ {hi:.4g})")
    if notes:
        df["note"] = [
            (n + "; " if n else "") + next((c for c in notes if c.startswith(f"{m}:")), "")
            for n, m in zip(df["note"], df["mechanism"])
        ]
        df.attrs["contradictions"] = notes


# --- the page's panel ("Choose from a target") ---------------------------------------------------


def panel_answer(page: str, values: Mapping[str, Any]) -> pd.DataFrame | None:
    """The panel's answer: None while no target is chosen, else :func:`calibrate_page` for the
    chosen target at the page's other settings (the solved setting's own value plays no part),
    solved for the page's slider or, where the page has others, the one ``target_solve`` names."""
    target = values.get("target_measure", "none")
    if target in (None, "none"):
        return None
    settings = {k: v for k, v in values.items() if k not in ("target_measure", "target_value", "target_solve")}

    params = {q.name: q for q in PAGES[page].params()}
    raw = {k: format_value(params[k], v) for k, v in settings.items() if k in params}
    table = calibrate_page(page, {target: values["target_value"]}, raw, values.get("target_solve"))
    table.attrs["page"] = page
    return table
