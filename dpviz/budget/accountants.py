"""The ε that k releases of one mechanism compose to at δ, by five accountants side by side.

- **basic** (Dwork et al. 2006): k releases of (ε₁, δ₁)-DP are (kε₁, kδ₁)-DP. A pure ε₀ release
  gives kε₀ at any δ; a Gaussian or subsampled release is taken at δ₁ = δ/k (its own exact ε₁).
- **advanced**: the optimal homogeneous composition of Kairouz, Oh and Viswanath (2015, Thm. 3.3):
  k (ε₁, δ₁)-DP releases are (ε, 1 − (1 − δ₁)^k·(1 − δ_RR(ε)))-DP, δ_RR the composed randomized
  response's curve (:func:`dpviz.budget.releases.pure_composition_delta`). For a pure release δ₁ = 0;
  for a Gaussian or subsampled one, δ₁ is a share of δ/k (the best of :data:`SPLITS`), or all of δ
  (δ_RR = 0 at ε = kε₁, the theorem's first case, so it is never above basic composition).
- **RDP** (Mironov 2017): Rényi divergences add up over releases; converted to (ε, δ) by Balle et
  al. (2020, Thm. 21) over :data:`ORDERS`. One release's divergence at every order at once: the
  Gaussian's α/(2σ²), Laplace's (Mironov 2017, Prop. 6), the subsampled Gaussian's series
  (:mod:`dpviz.budget.subsampled_rdp`), each equal to Google's ``dp-accounting``'s (tested), and
  randomized response's two-point D_α = log(p^α(1−p)^{1−α} + (1−p)^α p^{1−α})/(α − 1).
- **zCDP** (Bun and Steinke 2016): ρ = k/(2σ²) for the Gaussian (Prop. 1.6), kε₀²/2 for a pure
  release (Prop. 1.4), ε = ρ + 2√(ρ·log(1/δ)) (Prop. 1.3). It does not see subsampling's
  amplification, so it is not offered for the subsampled Gaussian.
- **PLD**: the privacy-loss distribution, composed exactly up to its discretization (the
  pessimistic PLD of Google's ``dp-accounting``, built and read by :mod:`dpviz.budget.pld`, so its
  ε is an upper bound within k times the discretization, :func:`pld_interval`, of the exact one,
  and in practice far closer) for the Laplace and subsampled Gaussian releases; for randomized
  response the binomial loss itself and for the Gaussian μ-GDP's curve, both exact (the Gaussian's
  PLD agrees within its discretization, tested, and took 0.3-2 s a point at k = 10⁵ where the
  closed form takes 1 ms).

An accountant that does not apply to a release, or fails at a setting, answers NaN with a reason
(:func:`epsilons`), so the page draws the others.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz import caches
from dpviz.budget import kernels
from dpviz.budget.names import ACCOUNTANTS
from dpviz.budget.pld import Pld, laplace_pld
from dpviz.budget.releases import (
    Release,
    check_composition,
    gaussian_mu,
    gdp_delta,
    gdp_epsilon,
    gdp_epsilons,
    pure_composition_delta,
    pure_composition_epsilon,
)
from dpviz.budget.subsampled_pld import subsampled_gaussian_pld
from dpviz.budget.subsampled_rdp import subsampled_gaussian_rdp

ORDERS = tuple([1 + x / 10 for x in range(1, 100)] + list(range(11, 64)) + [128, 256, 512])
"""The Rényi orders the RDP accountant minimises over (those of ``dp-accounting``'s tutorials)."""
_ORDERS = np.array(ORDERS, dtype=float)
SPLITS = (0.1, 0.25, 0.5, 0.75, 0.9)
"""Shares of δ/k given to each Gaussian release for the advanced composition (the rest to δ_RR)."""
PLD_INTERVAL = 1e-3
"""One release's PLD discretization of the privacy loss (``value_discretization_interval``), and the
reference grid :func:`pld_interval` sizes a composition's window on."""
WINDOW_LOSSES = 1 << 16
"""About how many losses a composed PLD keeps (:func:`pld_interval`)."""
INTERVALS = (1e-5, 0.02)
"""The finest and the coarsest discretization :func:`pld_interval` chooses."""
FINE_STEP = 1e-4
"""The step a composition need not go below unless one release's losses are too few on it
(:data:`RELEASE_LOSSES`)."""
RELEASE_LOSSES = 128
"""How many losses one release's own distribution should span on the step chosen (where the window
allows it): the composed ε's pessimism grows as one release's losses get fewer, about as the
inverse square of their number (DP-SGD at q = 0.01, k = 10⁴, against ``dp-accounting`` on a step four
times finer: 0.05% above it at 310 losses (σ = 8), 0.34% at 103 (σ = 20), 2.3% at 41 (σ = 50))."""
FINEST_FOR_PURE = PLD_INTERVAL
"""Laplace's finest step: its loss is bounded by ε₀ and its composed ε was already within 10⁻⁵ of
a ten times finer grid's at 10⁻³ (a finer one only cost time)."""


REFINES = 4
"""How many times :func:`pld_interval` may size the window again on the finer step it chose."""


def _ladder(x: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten at least x."""
    power = 10.0 ** math.floor(math.log10(x))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= x * (1 - 1e-12))


def _step_for(span: float, one_span: float) -> float:
    """The step for a composed window spanning ``span`` in loss, of releases whose own losses span
    ``one_span`` (:func:`pld_interval`): the coarser of the window's step and the accuracy's."""
    return max(_ladder(span / WINDOW_LOSSES), min(FINE_STEP, _ladder_down(one_span / RELEASE_LOSSES)))


def _ladder_down(x: float) -> float:
    """The largest of 1, 2, 5 times a power of ten at most x."""
    power = 10.0 ** math.floor(math.log10(x))
    return next(m * power for m in (5, 2, 1) if m * power <= x * (1 + 1e-12))


def pld_interval(release: Release, k: int) -> float:
    """The PLD's discretization for k releases of ``release``: for one, :data:`PLD_INTERVAL`, or
    finer where the release's own losses are fewer than :data:`RELEASE_LOSSES` on it (what basic
    and advanced composition read, each release's ε₁; at σ = 50, q = 0.01 the release's ε at
    10⁻⁵ read 0.00088 on 10⁻³, twice the ε of two releases on a finer step); for more, a step of
    1, 2, 5 times a power of ten (:func:`_step_for`), within :data:`INTERVALS` (Laplace: from
    :data:`FINEST_FOR_PURE`):

    - the window's step: the k-fold composition's window (:meth:`dpviz.budget.pld.Pld.window_losses`,
      its span in loss) over :data:`WINDOW_LOSSES`, rounded up the ladder, so a composition holds
      at most about that many losses;
    - the accuracy's step: :data:`FINE_STEP`, or finer where one release's own losses would be fewer
      than :data:`RELEASE_LOSSES` on it (one release's span over that, rounded down the ladder);
    - the coarser of the two. The span is measured on :data:`PLD_INTERVAL` first, then again on
      the finer step chosen (up to :data:`REFINES` times), since a coarse grid's pessimistic
      rounding widens a narrow distribution's losses.

    The composed PLD's error (how far its pessimistic ε lies above the exact one) grows with the
    step, about as its square, and the step's cost with the window it composes: a fixed step of
    10⁻³ was 1.4% above the exact ε after 10⁵ DP-SGD steps at σ = 4 (a 14,000-loss window), and
    composed 1.7 million losses at σ = 0.3, where ε is 2,000. Sized so, a composition holds at most
    some 65,000 losses: finer where ε is small (σ = 4: 5·10⁻⁴, 0.35% above the ε at a fifth of the
    step), coarser where it is large (σ = 0.3: 0.02); tested on a grid of mechanisms and k (at most
    0.5% above the ε at half the step, and above ``dp-accounting``'s on a step four times finer).

    (Until 2026-12-01 the span was read once, on 10⁻³, where a composition shorter than 65,536 losses
    kept its whole range of losses rather than its Chernoff window, and the finest step was 10⁻⁴:
    DP-SGD at q = 0.01 then read ε 32% too high at σ = 20, k = 5,623 and 113% at σ = 50, k = 9,085,
    from a step ten times coarser than its window needed, and 9% at σ = 100 from the finest step.)"""
    if release.kind not in ("laplace", "subsampled", "gaussian"):
        return PLD_INTERVAL
    finest = FINEST_FOR_PURE if release.kind == "laplace" else INTERVALS[0]
    step = PLD_INTERVAL
    if k <= 1:  # (one release: PLD_INTERVAL, or finer where its losses are fewer than RELEASE_LOSSES on it)
        for _ in range(REFINES):
            one = _release_pld(release, step)
            chosen = max(finest, min(PLD_INTERVAL, _ladder_down(one.losses_spanned() * step / RELEASE_LOSSES)))
            if chosen >= step:
                return step
            step = chosen
        return step
    for _ in range(REFINES):
        one = _release_pld(release, step)
        span = one.window_losses(k) * step
        chosen = min(INTERVALS[1], max(finest, _step_for(span, one.losses_spanned() * step)))
        if chosen >= step:
            return chosen
        step = chosen
    return step


def _one_pld(release: Release, interval: float) -> Pld:
    if release.kind == "gaussian":
        return subsampled_gaussian_pld(release.sigma, 1.0, interval)
    if release.kind == "laplace":
        return laplace_pld(release.epsilon0, interval)
    if release.kind == "subsampled":
        return subsampled_gaussian_pld(release.sigma, release.q, interval)
    raise ValueError(release.kind)


def _release_pld(release: Release, interval: float) -> Pld:
    """One release's PLD on a grid of ``interval``, kept (``budget.plds``): every k composed on the
    same grid starts from it, and it keeps its moment generating function for their windows."""
    return caches.memo("budget.plds").get((release, "one", float(interval)), lambda: _one_pld(release, interval))


def composed_pld(release: Release, k: int):
    """The k-fold composition's privacy-loss distribution (:mod:`dpviz.budget.pld`) on the grid of
    :func:`pld_interval`, kept per release and k in the process's bounded cache ``budget.plds``
    (:mod:`dpviz.caches`: a PLD of 10⁵ releases holds megabytes)."""

    if k <= 1:  # (one release: the PLD kept per grid, not a second entry for the same object; its step
        # kept, since basic and advanced composition ask for it at every k and δ they answer)
        step = caches.memo("budget.plds").get((release, "one release's step"), lambda: pld_interval(release, 1))
        return _release_pld(release, step)
    return caches.memo("budget.plds").get(
        (release, int(k)), lambda: _release_pld(release, pld_interval(release, k)).self_compose(k)
    )


def single_epsilon(release: Release, delta: float) -> float:
    """One release's ε at δ: ε₀ for a pure one, the exact GDP curve's for a Gaussian, the PLD's for
    a subsampled Gaussian."""
    if release.pure_epsilon is not None:
        return release.pure_epsilon
    if release.kind == "gaussian":
        return gdp_epsilon(gaussian_mu(release.sigma), delta)
    return float(composed_pld(release, 1).get_epsilon_for_delta(delta))


def single_epsilons(release: Release, deltas: list[float]) -> list[float]:
    """:func:`single_epsilon` at each of ``deltas`` (a subsampled Gaussian's PLD read at all of them
    at once: :meth:`dpviz.budget.pld.Pld.get_epsilons_for_deltas`, the same numbers)."""
    if release.pure_epsilon is not None:
        return [single_epsilon(release, d) for d in deltas]
    if release.kind == "gaussian":  # (every δ's root found side by side: gdp_epsilons)
        return [float(e) for e in gdp_epsilons(gaussian_mu(release.sigma), deltas)]
    return composed_pld(release, 1).get_epsilons_for_deltas(deltas)


def basic(release: Release, k: int, delta: float) -> float:
    """Basic composition: kε₀ for a pure release, else k·ε₁(δ/k)."""
    if release.pure_epsilon is not None:
        return k * release.pure_epsilon
    return k * single_epsilon(release, delta / k)


def advanced(release: Release, k: int, delta: float) -> float:
    """Kairouz, Oh and Viswanath's optimal composition (module docstring)."""
    if release.pure_epsilon is not None:
        return pure_composition_epsilon(release.pure_epsilon, k, delta)
    return _advanced_over(release, k, [delta])[0]


def rr_rdp(epsilon0: float, orders=ORDERS) -> np.ndarray:
    """Randomized response's Rényi divergence at each order α:
    log(p^α(1−p)^{1−α} + (1−p)^α p^{1−α})/(α − 1), p = e^ε₀/(1 + e^ε₀), in log-space."""
    a = np.asarray(orders, dtype=float)
    lp, lq = -np.log1p(math.exp(-epsilon0)), -np.log1p(math.exp(epsilon0))  # log p, log(1 − p)
    return np.logaddexp(a * lp + (1 - a) * lq, a * lq + (1 - a) * lp) / (a - 1)


def rdp_to_epsilon(rdp_values, delta: float, orders=ORDERS) -> float:
    """The (ε, δ) an RDP curve implies: min over α of ε_α + log((α−1)/α) − log(δ·α)/(α − 1)
    (Balle et al. 2020, Thm. 21), never below 0; 0 where some order's divergence is negative or
    small enough that δ ≥ √(1 − e^{−ε_α}) (the KL bound). The operations of ``dp-accounting``'s
    ``compute_epsilon`` (tested against it) in one compiled pass over the orders
    (:func:`dpviz.budget.kernels.rdp_epsilon`): the library loops over them in Python (0.27 ms an
    answer, the δ chart asks for 2,000 along k), and NumPy's dozen arrays of them took 88 µs."""
    a = _ORDERS if orders is ORDERS else np.ascontiguousarray(orders, dtype=float)
    return float(kernels.rdp_epsilon(a, np.ascontiguousarray(rdp_values, dtype=float), float(delta)))


def gaussian_rdp(sigma: float, orders=ORDERS) -> np.ndarray:
    """One Gaussian release's Rényi divergence at each order α: α/(2σ²) (Mironov 2017, Prop. 7)."""
    return np.asarray(orders, dtype=float) / (2 * sigma**2)


def laplace_rdp(epsilon0: float, orders=ORDERS) -> np.ndarray:
    """One Laplace release's Rényi divergence at each order α ≥ 1.1 (Mironov 2017,
    Prop. 6): ε₀ + log1p((α − 1)·expm1(ε₀(1 − 2α))/(2α − 1))/(α − 1), the formula
    ``dp-accounting`` evaluates one order at a time for α ≥ 1.1 (its Taylor series below 1.1 is
    not needed: :data:`ORDERS` start at 1.1)."""
    a = np.asarray(orders, dtype=float)
    if (a < 1.1).any():
        raise ValueError("laplace_rdp takes orders from 1.1 (Mironov's formula without the series)")
    return epsilon0 + np.log1p((a - 1) * np.expm1(epsilon0 * (1 - 2 * a)) / (2 * a - 1)) / (a - 1)


def release_rdp(release: Release) -> np.ndarray:
    """One release's Rényi divergence at each of :data:`ORDERS` (k releases: k times it, RDP adds
    up), kept per release in the process's cache ``budget.rdp``: randomized response's two-point
    divergence, the Gaussian's α/(2σ²), Laplace's (Mironov 2017, Prop. 6), the subsampled
    Gaussian's series (:mod:`dpviz.budget.subsampled_rdp`). Each equals ``dp-accounting``'s
    (tested); computed over the orders at once, where the library loops over them (25 ms a
    subsampled Gaussian, each σ a target's search tries)."""

    def compute():
        if release.kind == "rr":
            return rr_rdp(release.epsilon0)
        if release.kind == "gaussian":
            return gaussian_rdp(release.sigma)
        if release.kind == "laplace":
            return laplace_rdp(release.epsilon0)
        return subsampled_gaussian_rdp(release.q, release.sigma, ORDERS)

    return caches.memo("budget.rdp").get(release, compute)


def renyi(release: Release, k: int, delta: float) -> float:
    """The RDP accountant's ε: k times one release's divergence (:func:`release_rdp`), converted at
    δ (:func:`rdp_to_epsilon`)."""
    return rdp_to_epsilon(k * release_rdp(release), delta)


def zcdp(release: Release, k: int, delta: float) -> float:
    """zCDP's ε = ρ + 2√(ρ·log(1/δ)); NaN for the subsampled Gaussian (no amplification)."""
    if release.kind == "subsampled":
        return math.nan
    rho = k / (2 * release.sigma**2) if release.kind == "gaussian" else k * release.pure_epsilon**2 / 2
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


def privacy_loss(release: Release, k: int, delta: float) -> float:
    """The PLD accountant's ε: exact where the loss has a closed form (the Gaussian's is μ-GDP's,
    randomized response's the binomial), the discretized PLD otherwise (Laplace, subsampled)."""
    if release.kind == "rr":
        return pure_composition_epsilon(release.epsilon0, k, delta)
    if release.kind == "gaussian":
        return gdp_epsilon(gaussian_mu(release.sigma, k), delta)
    return float(composed_pld(release, k).get_epsilon_for_delta(delta))


_BY_NAME = {"basic": basic, "advanced": advanced, "rdp": renyi, "zcdp": zcdp, "pld": privacy_loss}
NOT_FOR = {("zcdp", "subsampled"): "it does not see subsampling's amplification"}


def epsilon(accountant: str, release: Release, k: int, delta: float) -> float:
    """ε of k releases at δ by one accountant (NaN where it does not apply)."""
    check_composition(k, delta)
    if (accountant, release.kind) in NOT_FOR:
        return math.nan
    return float(_BY_NAME[accountant](release, k, delta))


def epsilons(release: Release, k: int, delta: float) -> dict[str, tuple[float, str]]:
    """Every accountant's ε of k releases at δ, with a reason where it is NaN: one that does not
    apply, or fails at this setting, does not stop the others."""
    check_composition(k, delta)
    return {name: epsilons_of(name, release, k, delta) for name in ACCOUNTANTS}


def _basic_over(release: Release, k: int, deltas: list[float]) -> list[float]:
    if release.pure_epsilon is not None:
        return [basic(release, k, d) for d in deltas]
    return [k * e for e in single_epsilons(release, [d / k for d in deltas])]


def _advanced_over(release: Release, k: int, deltas: list[float]) -> list[float]:
    """:func:`advanced` at each of ``deltas``, one release's PLD read at all their 6·len(deltas) δ₁'s at
    once: per δ, the whole of it to the releases (δ₁ with 1 − (1 − δ₁)^k = δ, ≥ δ/k: Thm. 3.3's i = 0,
    at most basic composition's k·ε₁(δ/k)), or a share δ₁ of δ/k each (:data:`SPLITS`) and the rest to
    the composed randomized response, whichever ε is least."""
    if release.pure_epsilon is not None:
        return [pure_composition_epsilon(release.pure_epsilon, k, d) for d in deltas]
    wholes = [-math.expm1(math.log1p(-d) / k) for d in deltas]
    shares = [[share * d / k for share in SPLITS] for d in deltas]
    read = single_epsilons(release, wholes + [x for each in shares for x in each])
    out = []
    for i, delta in enumerate(deltas):
        best = k * read[i]
        each = read[len(deltas) + i * len(SPLITS) : len(deltas) + (i + 1) * len(SPLITS)]
        for delta1, epsilon1 in zip(shares[i], each):
            # what δ_RR may be, 1 − (1 − δ)/(1 − δ₁)^k, stably: the quotient is 1 − 10⁻¹⁰ or so, and 1
            # minus it in floats lost 7 digits, so δ_RR, and with it the total δ, came out 2·10⁻⁸ of
            # itself above δ
            rest = -math.expm1(math.log1p(-delta) - k * math.log1p(-delta1))
            if rest <= 0:
                continue
            best = min(best, pure_composition_epsilon(epsilon1, k, rest))
        out.append(best)
    return out


def _privacy_loss_over(release: Release, k: int, deltas: list[float]) -> list[float]:
    if release.kind == "gaussian":
        return [float(e) for e in gdp_epsilons(gaussian_mu(release.sigma, k), deltas)]
    if release.kind == "rr":
        return [privacy_loss(release, k, d) for d in deltas]
    return [float(e) for e in composed_pld(release, k).get_epsilons_for_deltas(deltas)]


_OVER = {"basic": _basic_over, "advanced": _advanced_over, "pld": _privacy_loss_over}


def epsilons_over(release: Release, k: int, deltas) -> dict[str, list[tuple[float, str]]]:
    """:func:`epsilons` at each of ``deltas`` (the same numbers and reasons): each accountant answers
    all of them in one call where it can read a PLD at many δ's at once (basic, advanced and PLD
    composition of a subsampled Gaussian or Laplace release: the δ chart reads 23 δ's at every k of
    its frames, where a call per (k, δ) was a third of their time). An accountant that fails on
    the batch is asked again δ by δ, so a failure at one δ leaves the others' answers."""
    deltas = [float(d) for d in deltas]
    for delta in deltas:
        check_composition(k, delta)
    out = {}
    for name in ACCOUNTANTS:
        if (name, release.kind) in NOT_FOR:
            out[name] = [(math.nan, NOT_FOR[(name, release.kind)])] * len(deltas)
            continue
        try:
            values = [float(v) for v in _OVER[name](release, k, deltas)] if name in _OVER else None
        except (ValueError, ArithmeticError, RuntimeError):
            values = None
        if values is None:
            out[name] = [epsilons_of(name, release, k, d) for d in deltas]
        else:
            out[name] = [(v, NOT_FOR.get((name, release.kind), "") if math.isnan(v) else "") for v in values]
    return out


def epsilons_of(name: str, release: Release, k: int, delta: float) -> tuple[float, str]:
    """One accountant's (ε, reason) as :func:`epsilons` gives it."""
    try:
        value = epsilon(name, release, k, delta)
        why = NOT_FOR.get((name, release.kind), "") if math.isnan(value) else ""
    except (ValueError, ArithmeticError, RuntimeError) as err:  # an accountant's own failure
        value, why = math.nan, f"it cannot answer at this setting ({type(err).__name__})"
    return value, why


def composed_delta(release: Release, k: int, epsilon_values) -> np.ndarray:
    """δ(ε) of k releases, as exactly as dpviz has it: the GDP curve (Gaussian), the binomial loss
    (randomized response), the PLD otherwise (Laplace, subsampled Gaussian)."""
    eps = np.asarray(epsilon_values, dtype=float)
    if release.kind == "gaussian":
        return gdp_delta(gaussian_mu(release.sigma, k), eps)
    if release.kind == "rr":
        return pure_composition_delta(release.epsilon0, k, eps)
    return np.asarray(composed_pld(release, k).get_delta_for_epsilon(eps), dtype=float)
