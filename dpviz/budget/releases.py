"""One release of a mechanism, as the privacy-budget page composes it, and its exact privacy
curves where they have a closed form.

A release is one of:

- ``gaussian``: Gaussian noise of standard deviation σ·Δ on a query of L2 sensitivity Δ (σ is
  the noise multiplier). A k-fold composition is exactly μ-GDP with μ = √k/σ (Dong, Roth and Su
  2019, Cor. 3.3), whose privacy curve is Balle and Wang's (2018, Thm. 8; Dong et al., Cor. 2.13)

      δ(ε) = Φ(−ε/μ + μ/2) − e^ε · Φ(−ε/μ − μ/2)

  and whose trade-off curve (false negatives against false positives of the best test) is
  G_μ(α) = Φ(Φ⁻¹(1 − α) − μ).
- ``laplace``: Laplace noise of scale Δ/ε₀, ε₀-DP (Dwork et al. 2006).
- ``rr``: binary randomized response at ε₀, the truth with probability p = e^ε₀/(1 + e^ε₀).
  Its k-fold composition has the privacy loss L = ε₀·(2J − k), J ~ Binomial(k, p) under the
  first input, so exactly δ(ε) = E[(1 − e^{ε − L})₊] (the sum of Kairouz, Oh and Viswanath 2015,
  Thm. 3.3, at any ε); it is also the worst case of any k ε₀-DP releases, which is what makes it
  the optimal composition bound.
- ``subsampled``: DP-SGD's step: each record joins a batch with probability q (Poisson), the
  batch's clipped gradient sum gets Gaussian noise σ·C.

These are the closed forms the accountants (:mod:`dpviz.budget.accountants`) are tested against.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from dpviz import caches
from dpviz.budget.names import KINDS, LABELS
from dpviz.errors import InputError


@dataclass(frozen=True)
class Release:
    """One release: its kind (:data:`KINDS`), ε₀ (Laplace, randomized response), the noise
    multiplier σ (Gaussian, subsampled Gaussian) and the sampling rate q (subsampled)."""

    kind: str
    epsilon0: float = 1.0
    sigma: float = 1.0
    q: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InputError(
                f"The mechanism {self.kind!r} is not one dpviz composes; choose one of {', '.join(KINDS)}."
            )
        if self.kind in ("laplace", "rr") and not (0 < self.epsilon0 <= 50 and math.isfinite(self.epsilon0)):
            raise InputError(f"ε₀ = {self.epsilon0:g} is not allowed: a release's ε₀ is > 0 and at most 50.")
        if self.kind in ("gaussian", "subsampled") and not (0 < self.sigma <= 1e4 and math.isfinite(self.sigma)):
            raise InputError(f"σ = {self.sigma:g} is not allowed: the noise multiplier is > 0 and at most 10,000.")
        if self.kind == "subsampled" and not (0 < self.q <= 1):
            raise InputError(f"q = {self.q:g} is not allowed: the sampling rate is in (0, 1].")

    @property
    def pure_epsilon(self) -> float | None:
        """ε₀ of a release that is ε₀-DP with δ = 0 (Laplace, randomized response), else None."""
        return self.epsilon0 if self.kind in ("laplace", "rr") else None

    @property
    def label(self) -> str:
        """The release in words, with its parameters."""
        if self.kind == "gaussian":
            return f"Gaussian, σ = {self.sigma:g}"
        if self.kind == "subsampled":
            return f"Subsampled Gaussian, q = {self.q:g}, σ = {self.sigma:g}"
        return f"{LABELS[self.kind]}, ε₀ = {self.epsilon0:g}"


def check_composition(k: int, delta: float | None = None) -> None:
    """Refuse a number of releases or a δ no accountant takes (InputError, one sentence)."""
    if not (isinstance(k, (int, np.integer)) and 1 <= k <= 10**6):
        raise InputError(
            f"k = {k} releases is not allowed: the number of releases is a whole number from 1 to 1,000,000."
        )
    if delta is not None and not (0 < delta < 1):
        raise InputError(f"δ = {delta:g} is not allowed: δ is a probability strictly between 0 and 1.")


# --- Gaussian: μ-GDP --------------------------------------------------------------------------


def gaussian_mu(sigma: float, k: int = 1) -> float:
    """μ of k Gaussian releases of noise multiplier σ: √k/σ (Dong, Roth and Su 2019, Cor. 3.3)."""
    return math.sqrt(k) / sigma


def gdp_delta(mu: float, epsilon) -> np.ndarray:
    """δ(ε) of μ-GDP: Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2) (Balle and Wang 2018, Thm. 8), computed
    with log-CDFs so that it stays exact where e^ε is huge and the Φ tiny."""
    return _gdp_terms(mu, epsilon)[3]


def _gdp_terms(mu: float, epsilon) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """At each ε: a = log Φ(−ε/μ + μ/2), b = ε + log Φ(−ε/μ − μ/2), e^{min(b−a, 0)} − 1 (the tail)
    and δ(ε) = e^a·(1 − e^{b−a}) clipped to [0, 1]: :func:`gdp_delta` and the root finder's
    readings (:func:`_gdp_log_deltas`) from one formula."""
    eps = np.asarray(epsilon, dtype=float)
    a = special.log_ndtr(-eps / mu + mu / 2)
    b = eps + special.log_ndtr(-eps / mu - mu / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = np.expm1(np.minimum(b - a, 0.0))
        delta = np.clip(np.exp(a) * -tail, 0.0, 1.0)
    return a, b, tail, delta


def _gdp_parts(mu: float, eps: float) -> tuple[float, float, float, float]:
    """:func:`_gdp_terms` at one ε, the same operations: NumPy's functions on one number each (the
    bits they give it in an array), their results as Python floats (the arithmetic between them is
    IEEE's either way), with no array set-up (the root finder reads δ several times an answer)."""
    a = float(special.log_ndtr(-eps / mu + mu / 2))
    b = eps + float(special.log_ndtr(-eps / mu - mu / 2))
    tail = float(np.expm1(min(b - a, 0.0)))
    return a, b, tail, min(max(float(np.exp(a)) * -tail, 0.0), 1.0)


def _gdp_delta_one(mu: float, eps: float) -> float:
    """:func:`gdp_delta` at one ε (:func:`_gdp_parts`)."""
    return _gdp_parts(mu, eps)[3]


def gdp_epsilon(mu: float, delta: float) -> float:
    """The smallest ε ≥ 0 with δ(ε) ≤ ``delta`` for μ-GDP, to 10⁻¹³ of it: :func:`gdp_epsilons` at
    one δ, step for step the same operations on NumPy scalars (NumPy's exp, log and expm1 give a
    scalar the bits they give it in an array; Python's math module's need not), so one δ and many
    give the same answer to the last bit (tested). 19 µs an answer, an array of one 250 µs."""
    if _gdp_delta_one(mu, 0.0) <= delta:
        return 0.0
    d = float(delta)
    low, high = 0.0, mu * mu / 2 + mu * float(np.sqrt(2 * float(np.log(1 / d))))  # zCDP's bound, above the answer
    value, log_value, slope = _gdp_log_delta_one(mu, high)
    while value > d:
        low, high = high, 2 * high
        value, log_value, slope = _gdp_log_delta_one(mu, high)
    target, eps = float(np.log(d)), high
    for _ in range(200):
        met = value <= d
        if met:
            high = eps
        else:
            low = eps
        gap = log_value - target
        step = eps - gap / slope if slope < 0 and math.isfinite(gap) else math.nan
        tol = 1e-13 * max(eps, 1e-3)
        if high - low <= tol or (met and abs(step - eps) <= tol):
            break
        if not met and eps + tol > step:
            step = eps + tol
        if not low < step < high:
            step = 0.5 * (low + high)
        eps = step
        value, log_value, slope = _gdp_log_delta_one(mu, eps)
    return float(high)


def _gdp_log_delta_one(mu: float, eps: float) -> tuple[float, float, float]:
    """:func:`_gdp_log_deltas` at one ε, from :func:`_gdp_parts` (the same bits)."""
    a, b, tail, delta = _gdp_parts(mu, eps)
    if b >= a:
        return delta, -math.inf, math.nan
    log_delta = a + float(np.log(-tail))
    return delta, log_delta, -float(np.exp(b - log_delta))


SCALAR_ROOTS = 8
"""Up to this many δ's, :func:`gdp_epsilons` finds them one by one (:func:`gdp_epsilon`, the same
bits): an array's set-up costs more than it saves (an array of one: 250 µs, one alone: 19 µs)."""


def gdp_epsilons(mu: float, deltas) -> np.ndarray:
    """:func:`gdp_epsilon` at each of ``deltas``: Newton's method on log δ(ε) − log δ from zCDP's
    bound above the answer, kept inside the bracket (bisection where a step leaves it). δ falls with
    ε and log δ is concave there, so the steps come down to the answer from above; d log δ/dε =
    −e^ε·Φ(−ε/μ − μ/2)/δ(ε) needs nothing but what δ(ε) reads (:func:`_gdp_log_deltas`, as
    :func:`gdp_delta` reads δ). Each answer takes 4-7 readings of δ, where Brent's method took
    15-17 (tested against it).

    Every δ runs its own steps, side by side: each step is element-wise arithmetic on the δ's still
    searching, and a δ stops when its own bracket or step is within 10⁻¹³ of its ε, so an answer
    does not depend on which other δ's are asked with it (the budget charts ask a slider's many δ's
    at once; each must be what the chart at one δ reads)."""
    delta = np.array(deltas, dtype=float).reshape(-1)
    if len(delta) <= SCALAR_ROOTS:
        return np.array([gdp_epsilon(mu, float(d)) for d in delta], dtype=float)
    out = np.zeros(delta.shape)
    at_zero = gdp_delta(mu, np.zeros(1))[0]
    todo = np.flatnonzero(~(at_zero <= delta))
    if not len(todo):
        return out
    d = delta[todo]
    low = np.zeros(len(todo))
    high = mu * mu / 2 + mu * np.sqrt(2 * np.log(1 / d))  # zCDP's bound, above the answer
    value, log_value, slope = _gdp_log_deltas(mu, high)
    above = value > d
    while above.any():  # (doubled until it meets δ: the bound is above the answer, so not in practice)
        low, high = np.where(above, high, low), np.where(above, 2 * high, high)
        again = _gdp_log_deltas(mu, high[above])
        for part, new in zip((value, log_value, slope), again):
            part[above] = new
        above = value > d
    target, eps = np.log(d), high.copy()
    searching = np.arange(len(todo))  # the δ's still stepping (positions in d)
    for _ in range(200):
        s = searching
        met = value[s] <= d[s]  # the side by δ as read everywhere else, the step by its log
        high[s] = np.where(met, eps[s], high[s])
        low[s] = np.where(met, low[s], eps[s])
        gap = log_value[s] - target[s]
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where((slope[s] < 0) & np.isfinite(gap), eps[s] - gap / slope[s], np.nan)
        tol = 1e-13 * np.maximum(eps[s], 1e-3)
        done = (high[s] - low[s] <= tol) | (met & (np.abs(step - eps[s]) <= tol))
        # from below: on to a reading that meets δ (Python's max: the step unless eps + tol is larger)
        step = np.where(~met & (eps[s] + tol > step), eps[s] + tol, step)
        inside = (low[s] < step) & (step < high[s])
        step = np.where(inside, step, 0.5 * (low[s] + high[s]))
        searching = s[~done]
        if not len(searching):
            break
        eps[searching] = step[~done]
        again = _gdp_log_deltas(mu, eps[searching])
        for part, new in zip((value, log_value, slope), again):
            part[searching] = new
    out[todo] = high  # the smallest ε read to meet δ
    return out


def _gdp_log_deltas(mu: float, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """δ(ε) of μ-GDP at each ε as :func:`gdp_delta` reads it, its log and the log's derivative in
    ε (−inf and NaN where δ reads as 0)."""
    a, b, tail, delta = _gdp_terms(mu, eps)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        zero = b >= a
        log_delta = np.where(zero, -np.inf, a + np.log(np.where(zero, 1.0, -tail)))
        slope = np.where(zero, np.nan, -np.exp(b - log_delta))
    return delta, log_delta, slope


def gdp_tradeoff(mu: float, alpha) -> np.ndarray:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ): the fewest false negatives a test can make at false-positive
    rate α against μ-GDP (Dong, Roth and Su 2019, Def. 2.7)."""
    a = np.asarray(alpha, dtype=float)
    return stats.norm.sf(stats.norm.isf(1 - a) + mu)  # Φ(x − μ) = 1 − Φ(μ − x), with x = Φ⁻¹(1 − α)


# --- pure ε₀ releases: the binomial privacy loss ----------------------------------------------


def _rr_loss(epsilon0: float, k: int, low: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The privacy loss of k randomized responses at ε₀ under the first input: its values
    ε₀·(2j − k), ascending, and their log-probabilities log Binomial(k, p)(j), p = e^ε₀/(1 + e^ε₀),
    for j from ``low`` to k."""
    j = np.arange(low, k + 1)
    p = 1.0 / (1.0 + math.exp(-epsilon0))
    jf = j.astype(float)
    # SciPy's binom.logpmf, term for term (the same numbers to the bit: tested), its log binomial
    # coefficients kept per (k, low): they do not depend on ε₀, and each ε the accountants read
    # at many k (the δ chart: 23 δ's, five splits each) summed them again
    logp = _log_binomial_coefficients(k, low) + special.xlogy(jf, p) + special.xlog1py(k - jf, -p)
    return epsilon0 * (2 * j - k), logp


def _log_binomial_coefficients(k: int, low: int) -> np.ndarray:
    """log C(k, j) for j from ``low`` to k, as SciPy's binomial computes it (read-only), kept in
    the process's bounded cache ``budget.coefficients`` (:mod:`dpviz.caches`)."""

    def compute() -> np.ndarray:
        j = np.arange(low, k + 1, dtype=float)
        out = special.gammaln(k + 1.0) - (special.gammaln(j + 1) + special.gammaln(k - j + 1))
        out.flags.writeable = False
        return out

    return caches.memo("budget.coefficients").get((int(k), int(low)), compute)


def _tails(epsilon0: float, k: int, low: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The losses L_j and, for each m, A_m = P(L ≥ L_m) and log B_m = log E[e^{−L}; L ≥ L_m], so
    that δ(ε) = A_m − e^ε·B_m for every ε in [L_{m−1}, L_m) (sums from the top tail down, in
    log-space where e^{−L} would overflow). From j = ``low`` up: the sums run from the top, so
    each is, to the bit, the one over every j (the ε of a δ needs only ε ≥ 0, the upper half)."""
    loss, logp = _rr_loss(epsilon0, k, low)
    tail = np.cumsum(np.exp(logp)[::-1])[::-1]
    log_b = np.logaddexp.accumulate((logp - loss)[::-1])[::-1]
    return loss, np.minimum(tail, 1.0), log_b


def _delta_on(tails: tuple[np.ndarray, np.ndarray, np.ndarray], eps: np.ndarray) -> np.ndarray:
    """δ(ε) at each of ``eps`` from the tails of :func:`_tails`: A_m − e^ε·B_m, m the first loss above ε."""
    loss, tail, log_b = tails
    m = np.searchsorted(loss, eps, side="right")
    out = np.zeros_like(eps)
    inside = m < len(loss)
    mi = m[inside]
    out[inside] = tail[mi] - np.exp(eps[inside] + log_b[mi])
    return np.clip(out, 0.0, 1.0)


def pure_composition_delta(epsilon0: float, k: int, epsilon) -> np.ndarray:
    """The optimal δ(ε) of k ε₀-DP releases (Kairouz, Oh and Viswanath 2015, Thm. 3.3): that of k
    randomized responses, E[(1 − e^{ε − L})₊] over the binomial privacy loss L (exact for
    randomized response, the tightest bound that holds for every ε₀-DP release)."""
    out = _delta_on(_tails(epsilon0, k), np.atleast_1d(np.asarray(epsilon, dtype=float)))
    return out if np.ndim(epsilon) else out[0]


def pure_composition_epsilon(epsilon0: float, k: int, delta: float) -> float:
    """The smallest ε ≥ 0 with the optimal composition's δ(ε) ≤ ``delta``, exactly: δ(ε) is
    A_m − e^ε·B_m between two loss values, so on the segment where it crosses ``delta``,
    ε = log(A_m − δ) − log B_m (the tails summed once for both steps). Only the losses from the
    last negative one up are needed (ε ≥ 0: every m where δ is met has L_m > 0, and L_{m−1} < 0
    reads as 0), so the tails are summed over that upper half of j alone: half the work at 10⁵
    releases, the same numbers to the bit.

    Of that half, only the j near the crossing matter (:func:`_mass_window`): above the window
    the terms are below 10⁻³⁰·δ/(k + 1) each (and 10⁻³⁰⁰/(k + 1) at most), and below it δ is met
    nowhere (checked: δ at the window's first loss is above ``delta``, else every j is summed).
    The sums over the window differ from those over the half by less than 10⁻³⁰ of δ, and the
    answer's A_m − δ is at least (1 − r)·e^{−2ε₀}·δ, r < 1 the ratio of two terms of the tail:
    the same numbers (tested on a grid). At 10⁵ releases the window is 500-2,000 of the 50,000 j.

    The pass itself is compiled (:func:`dpviz.budget.kernels.crossing`): from the window's top
    down, it stops at the crossing, and reads no term below it."""
    from dpviz.budget import kernels  # (lazy: numba, which `figure --list` does without)

    low = max(0, (k - 1) // 2)  # L_j = ε₀(2j − k) < 0 for j < k/2
    coefficients = _log_binomial_coefficients(k, low)
    if k >= WINDOW_FROM:
        start, top = _mass_window(epsilon0, k, low, delta, coefficients)
        if start > low or top < k:
            found = kernels.crossing(epsilon0, k, delta, coefficients, low, start, top, start > low)
            if not math.isnan(found):
                return float(found)
    return float(kernels.crossing(epsilon0, k, delta, coefficients, low, low, k, False))


WINDOW_FROM = 1000
"""From this many releases on, the tails are summed over a window of j alone (below, the whole
upper half costs less than finding the window)."""
MASS_CUT = 690.8
"""−log of 10⁻³⁰⁰: a term of the binomial below 10⁻³⁰⁰/(k + 1) is always left out of the window."""
DELTA_CUT = 69.1
"""−log of 10⁻³⁰: a term below 10⁻³⁰·δ/(k + 1) is left out too."""
BELOW_MODE = 5.0
"""The window begins this many standard deviations of the binomial below its mode (or at the
upper half's start): the crossing of any δ under about 1 − 10⁻⁶ lies above (checked at each answer)."""


def _mass_window(epsilon0: float, k: int, low: int, delta: float = 0.0, coefficients=None) -> tuple[int, int]:
    """The j from ``low`` to k that :func:`pure_composition_epsilon` sums at ``delta``: from
    :data:`BELOW_MODE` standard deviations below the binomial's mode up to where its log-pmf falls
    below the cut (10⁻³⁰·δ/(k + 1), at least 10⁻³⁰⁰/(k + 1); a normal approximation's width,
    widened until the log-pmf there is below the cut: it falls away from the mode, so every term
    beyond is too). Compiled (:func:`dpviz.budget.kernels.mass_window`); ``coefficients``: log C(k, j)
    from j = ``low``, if at hand."""
    from dpviz.budget import kernels  # (lazy: numba, as above)

    if coefficients is None:
        coefficients = _log_binomial_coefficients(k, low)
    start, top = kernels.mass_window(
        float(epsilon0), int(k), int(low), float(delta), coefficients, BELOW_MODE, DELTA_CUT, MASS_CUT
    )
    return int(start), int(top)


def rr_tradeoff(epsilon0: float, alpha) -> np.ndarray:
    """One randomized response's trade-off curve, its exact two-point form:
    f(α) = max(0, 1 − e^ε₀·α, e^{−ε₀}·(1 − α)) (Dong, Roth and Su 2019, Prop. 2.5, δ = 0)."""
    a = np.asarray(alpha, dtype=float)
    return np.maximum.reduce([np.zeros_like(a), 1 - math.exp(epsilon0) * a, math.exp(-epsilon0) * (1 - a)])


def tradeoff_from_deltas(epsilons: np.ndarray, deltas: np.ndarray, alpha) -> np.ndarray:
    """The trade-off curve a privacy curve implies: f(α) = sup over ε of
    max(0, 1 − δ(ε) − e^ε·α, e^{−ε}·(1 − δ(ε) − α)) (Dong, Roth and Su 2019, Prop. 2.12), the
    supremum taken over the given ε ≥ 0 (a finer grid can only raise it towards the exact curve).

    Each of the two families is a set of lines in α, c − s·α, with c = 1 − δ(ε) and slope s = e^ε
    (rising with ε) or e^{−ε}·(1, 1) (falling): the ε that maximises a family moves one way as α
    grows (for lines of rising slope, a line that beats a flatter one at α beats it at every
    smaller α), so each α's maximum is sought only between its neighbours' maximisers
    (:func:`_monotone_max`): some 30,000 lines read instead of the 620,000 of every (α, ε), the
    same maxima (tested against the full search)."""
    a = np.asarray(alpha, dtype=float)
    e, d = np.asarray(epsilons, dtype=float), np.asarray(deltas, dtype=float)
    if np.any(np.diff(e) < 0):
        rank = np.argsort(e, kind="stable")
        e, d = e[rank], d[rank]
    with np.errstate(over="ignore", invalid="ignore"):
        c = np.where(np.isnan(d), -np.inf, 1 - d)
        grow, fall = np.exp(e), np.exp(-e)
        fall_c = fall * c  # (0·−∞ where δ is NaN and e^{−ε} vanishes: NaN, which is never a maximum)
    order = np.argsort(a, kind="stable")
    best = np.maximum(
        _monotone_max(c, grow, a[order], rising=True), _monotone_max(fall_c, fall, a[order], rising=False)
    )
    out = np.empty_like(best)
    out[order] = best
    return np.clip(out, 0.0, 1.0)


def _monotone_max(intercept: np.ndarray, slope: np.ndarray, alpha: np.ndarray, rising: bool) -> np.ndarray:
    """max over i of intercept_i − slope_i·α at each α of ``alpha`` (ascending), where the slopes
    rise with i (``rising``: the maximiser falls as α grows) or fall (it rises): the compiled
    search (:func:`dpviz.budget.kernels.monotone_max`)."""
    from dpviz.budget import kernels  # (lazy: numba, for the charts that draw a trade-off curve)

    return kernels.monotone_max(
        np.ascontiguousarray(intercept, dtype=float), np.ascontiguousarray(slope, dtype=float),
        np.ascontiguousarray(alpha, dtype=float), bool(rising),
    )  # fmt: skip


def _monotone_max_numpy(intercept: np.ndarray, slope: np.ndarray, alpha: np.ndarray, rising: bool) -> np.ndarray:
    """:func:`_monotone_max` by NumPy, the reference the compiled search is tested against: divide
    and conquer on α, each α's maximiser sought between those of its neighbours."""
    out = np.full(len(alpha), -np.inf)
    todo = [(0, len(alpha) - 1, 0, len(intercept) - 1)]
    with np.errstate(over="ignore", invalid="ignore"):
        while todo:
            lo, hi, first, last = todo.pop()
            if lo > hi:
                continue
            mid = (lo + hi) // 2
            values = intercept[first : last + 1] - slope[first : last + 1] * alpha[mid]
            values = np.where(np.isnan(values), -np.inf, values)
            top = values.max()
            out[mid] = top
            where = np.flatnonzero(values == top)
            low_i, high_i = (first + int(where[0]), first + int(where[-1])) if len(where) else (first, last)
            if rising:  # a smaller α: a maximiser at or above this one's
                todo += [(lo, mid - 1, low_i, last), (mid + 1, hi, first, high_i)]
            else:
                todo += [(lo, mid - 1, first, high_i), (mid + 1, hi, low_i, last)]
    return out
