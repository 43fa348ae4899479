"""Exact binomial bounds and what they prove about a privacy claim.

Counts k of n outputs that fell in an event S estimate p = Pr[M(D) in S]. The one-sided
Clopper-Pearson bounds at level 1 - beta are the beta quantiles

    lower(k, n) = Beta^{-1}(beta; k, n - k + 1)      (0 when k = 0)
    upper(k, n) = Beta^{-1}(1 - beta; k + 1, n - k)  (1 when k = n)

(Clopper & Pearson 1934), so Pr[p >= lower] >= 1 - beta and Pr[p <= upper] >= 1 - beta whatever
p is. An audit bounds p_a from below and p_b from above, each at beta = alpha / 2 (alpha = 1 -
confidence): by the union bound both hold at once with probability >= confidence.

An (eps, delta)-DP mechanism has p_a <= e^eps p_b + delta for every event, so the samples prove

    eps >= ln((lower_a - delta) / upper_b)         (epsilon_bound; 0 when it proves nothing)
    delta >= lower_a - e^eps_claimed upper_b       (delta_bound at the claimed eps)

For a metric-DP claim eps d(D, D') the eps above is the claim times the distance.
"""

from __future__ import annotations

import math

import numpy as np

# (scipy.special is imported where it is used: every page's sidebar lists the audit tool, whose
# declaration imports this package, and scipy.special took 0.36 s of a fresh server's first page)


def lower(k, n, beta: float) -> np.ndarray:
    """One-sided Clopper-Pearson lower bound on p from k of n, at level 1 - beta (vectorised)."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
    safe = np.maximum(k, 1.0)
    from scipy import special

    out = special.betaincinv(safe, n - safe + 1, beta)
    return np.where(k > 0, out, 0.0)


def upper(k, n, beta: float) -> np.ndarray:
    """One-sided Clopper-Pearson upper bound on p from k of n, at level 1 - beta (vectorised)."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
    safe = np.minimum(k, n - 1.0)
    from scipy import special

    out = special.betaincinv(safe + 1, n - safe, 1 - beta)
    return np.where(k < n, out, 1.0)


def clopper_pearson(k: int, n: int, confidence: float) -> tuple[float, float]:
    """The exact two-sided binomial interval at ``confidence`` (each side at (1 - confidence)/2)."""
    beta = (1 - confidence) / 2
    return float(lower(k, n, beta)), float(upper(k, n, beta))


def epsilon_bound(ka, na, kb, nb, confidence: float, delta: float = 0.0) -> np.ndarray:
    """ln((lower_a - delta) / upper_b) with both bounds at (1 - confidence)/2; -inf where lower_a <= delta."""
    beta = (1 - confidence) / 2
    la, ub = lower(ka, na, beta), upper(kb, nb, beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(la > delta, np.log(np.maximum(la - delta, 1e-300)) - np.log(ub), -np.inf)


def delta_bound(ka, na, kb, nb, confidence: float, epsilon: float) -> np.ndarray:
    """lower_a - e^epsilon upper_b with both bounds at (1 - confidence)/2 (may be negative)."""
    beta = (1 - confidence) / 2
    return lower(ka, na, beta) - math.exp(min(epsilon, 700.0)) * upper(kb, nb, beta)


def fewest_samples(claimed: float, delta: float, confidence: float) -> int:
    """The fewest evaluation samples a side with which any outcome could prove a loss above
    ``claimed``: the perfect event (all of one side's outputs in it, none of the other's)."""

    def proves(n: int) -> bool:
        return float(epsilon_bound(n, n, 0, n, confidence, delta)) > claimed

    hi = 1
    while not proves(hi):
        hi *= 2
        if hi > 2**40:
            return hi
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if proves(mid) else (mid, hi)
    return hi


def samples_for_power(
    claimed: float, true_epsilon: float, delta: float, confidence: float, power: float = 0.8
) -> int | None:
    """About how many evaluation samples a side certify a violation, with probability ``power``,
    when the mechanism's privacy loss is ``true_epsilon`` on an event the audit finds, as for a
    Laplace mechanism: the smallest n for which, over events with p_b on a grid and p_a =
    e^true_epsilon p_b + delta <= 1/2 (a Laplace mechanism's tail events {y <= t}, t <= 0, have
    p_a = e^(eps t)/2 and p_b = e^(-eps) p_a), counts at their ``power`` quantiles (normal
    approximation) give a bound above ``claimed``. None when no n up to 10^10 does (e.g.
    true_epsilon <= claimed)."""
    if true_epsilon <= claimed:
        return None
    from scipy import special

    z = float(special.ndtri(power))  # (the standard normal quantile: scipy.stats.norm.ppf)
    pb = np.logspace(-8, 0, 161)
    pa = np.exp(min(true_epsilon, 700.0)) * pb + delta
    keep = pa <= 0.5
    pb, pa = pb[keep], pa[keep]
    if pb.size == 0:
        return None

    def certified(n: float) -> bool:
        ka = np.floor(n * pa - z * np.sqrt(n * pa * (1 - pa)))
        kb = np.ceil(n * pb + z * np.sqrt(n * pb * (1 - pb)))
        ok = (ka > 0) & (kb < n)
        if not ok.any():
            return False
        return bool(np.max(epsilon_bound(ka[ok], n, kb[ok], n, confidence, delta)) > claimed)

    n = 16.0
    while not certified(n):
        n *= 1.25
        if n > 1e10:
            return None
    lo = n / 1.25
    while n - lo > max(1.0, 0.01 * n):
        mid = (lo + n) / 2
        lo, n = (lo, mid) if certified(mid) else (mid, n)
    return int(math.ceil(n))
