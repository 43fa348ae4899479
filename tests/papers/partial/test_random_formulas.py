"""The partial-sensitivity analysis at seeded random formulas and ranges, against routes of its own:

- g = ‖∇f‖/N and each ∂g/∂x_j against mpmath's numerical derivatives of f (40 digits), with
  ∂g/∂x_j = Σ_i f_i f_ij / (N‖∇f‖) from its first and second partial derivatives, not sympy's;
- the global sensitivity, where one is reported, against 100,000 random points of the box and an
  L-BFGS-B polish of the best of them: never above the reported maximum (beyond 10⁻⁶ of it).

The formulas are built as a tree of the page's functions (min, max, exp, log, sqrt, sin, cos, tanh,
cosh, sigmoid, powers, quotients) with one to three attributes, each built twice: as the text the
page analyses and as an mpmath function (no text is evaluated). A check of this kind, over some
300 formulas, found finite "global sensitivities" for norms without bound and a kink's maximum
0.03% low (docs/pages.md); about one formula in 60 showed it, so those cases are kept by name in
``test_partial_sensitivity.py`` and these seeds guard the rest.
"""

import mpmath as mp
import numpy as np
import pytest
from scipy import optimize

from dpviz.papers.partial import sensitivity as ps

ONE = [
    ("exp({})", mp.exp),
    ("log({})", mp.log),
    ("sqrt({})", mp.sqrt),
    ("sin({})", mp.sin),
    ("cos({})", mp.cos),
    ("tanh({})", mp.tanh),
    ("cosh({})", mp.cosh),
    ("sigmoid({})", lambda x: 1 / (1 + mp.exp(-x))),
    ("({})**2", lambda x: x**2),
    ("({})**3", lambda x: x**3),
    ("1/({})", lambda x: 1 / x),
]
TWO = [
    ("({}) + ({})", lambda x, y: x + y),
    ("({}) * ({})", lambda x, y: x * y),
    ("({}) - ({})", lambda x, y: x - y),
    ("({}) / ({})", lambda x, y: x / y),
    ("max({}, {})", max),
    ("min({}, {})", min),
]


def _formula(rng, depth: int, names: list[str]):
    """(text, mpmath function of the attributes' values in order) of a random formula."""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.8:
            j = int(rng.integers(len(names)))
            return names[j], lambda *xs: xs[j]
        c = round(float(rng.uniform(0.5, 3)), 3)
        return f"{c}", lambda *xs: mp.mpf(c)
    if rng.random() < 0.5:
        text, fn = ONE[int(rng.integers(len(ONE)))]
        inner, f = _formula(rng, depth - 1, names)
        return text.format(inner), lambda *xs: fn(f(*xs))
    text, fn = TWO[int(rng.integers(len(TWO)))]
    (left, f), (right, g) = _formula(rng, depth - 1, names), _formula(rng, depth - 1, names)
    return text.format(left, right), lambda *xs: fn(f(*xs), g(*xs))


def _setting(seed: int, low: float):
    """The first formula the page accepts among those drawn from ``seed`` (:func:`_drawn`)."""
    for attempt in range(50):
        made = _drawn((seed, attempt), low)
        if made is not None:
            return made
    raise AssertionError(f"the page refused 50 random formulas in a row (seed {seed})")


def _drawn(seed, low: float):
    """A random formula of 1-3 attributes, their ranges (starting in [low, 2], 0.1-3 wide, as
    the page's text writes them) and N; None where the page refuses the formula."""
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 4))
    names = ["a", "b", "c"][:d]
    text, fn = _formula(rng, 3, names)
    parts = []
    for x in names:
        lo = rng.uniform(low, 2)
        parts.append(f"{x}={lo:.3g}:{lo + rng.uniform(0.1, 3):.3g}")
    ranges = ",".join(parts)
    n = int(rng.integers(1, 50))
    try:
        return ps.analyse_here(text, ranges, n), fn, rng, (text, ranges, n)
    except ps.FormulaError:
        return None


def _analysis(found):
    return found if isinstance(found, ps.QueryAnalysis) else ps.QueryAnalysis(**found)


@pytest.mark.parametrize("seed", range(24))
def test_the_norm_and_the_partial_sensitivities_equal_mpmaths_derivatives(seed):
    for attempt in range(20):  # (a formula may be real nowhere the points fall: the next one)
        found, f, rng, setting = _setting(1000 + 100 * seed + attempt, 0.2)
        checked = _compare_derivatives(_analysis(found), f, rng, setting)
        if checked:
            break
    assert checked, "no formula with a point where f is real and its gradient not zero"


def _compare_derivatives(a, f, rng, setting) -> int:
    """At up to three random points of the box where f is real and ∇f ≠ 0 (of 20 drawn): g and
    ∂g/∂x_j against mpmath's; how many points were compared."""
    d = len(a.attributes)
    checked = 0
    with mp.workdps(40):
        for _ in range(20):
            if checked == 3:
                break
            x = [mp.mpf(float(rng.uniform(lo, hi))) for lo, hi in a.ranges]
            try:
                grad = [mp.diff(f, x, tuple(int(i == j) for i in range(d))) for j in range(d)]
                orders = [[tuple(int(i == j) + int(i == k) for i in range(d)) for k in range(d)] for j in range(d)]
                hess = [[mp.diff(f, x, order) for order in row] for row in orders]
            except (ZeroDivisionError, ValueError):
                continue
            if any(isinstance(v, mp.mpc) for v in grad + [h for row in hess for h in row]):
                continue  # (outside the formula's real domain)
            norm = mp.sqrt(sum(v**2 for v in grad))
            if not norm > 0:
                continue
            point = np.array([[float(v) for v in x]])
            g = a.evaluate(a.norm_fn, point)[0]
            assert g == pytest.approx(float(norm / setting[2]), rel=1e-8, abs=1e-12), (setting, point)
            for j, fn in enumerate(a.partial_fns):
                want = float(sum(grad[i] * hess[i][j] for i in range(d)) / (setting[2] * norm))
                assert a.evaluate(fn, point)[0] == pytest.approx(want, rel=1e-6, abs=1e-9), (setting, point, j)
            checked += 1
    return checked


@pytest.mark.parametrize("seed", range(40))
def test_no_point_of_the_box_exceeds_the_reported_global_sensitivity(seed):
    found, _, rng, setting = _setting(2000 + seed, -2.0)
    a = _analysis(found)
    if a.sensitivity is None:
        assert a.sensitivity_error, setting  # refused with a sentence
        return
    lo, hi = np.array([r[0] for r in a.ranges]), np.array([r[1] for r in a.ranges])
    points = lo + (hi - lo) * rng.random((100_000, len(lo)))
    values = a.evaluate(a.norm_fn, points)
    assert np.all(np.isfinite(values)), setting  # finite everywhere, or no maximum is reported
    start = points[int(np.argmax(values))]
    polish = optimize.minimize(
        lambda x: -a.evaluate(a.norm_fn, np.asarray(x)[None, :])[0], start, bounds=list(a.ranges), method="L-BFGS-B"
    )
    best = max(float(values.max()), -float(polish.fun))
    assert best <= a.sensitivity["value"] * (1 + 1e-6) + 1e-12, (setting, polish.x)
