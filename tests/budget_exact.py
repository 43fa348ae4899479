"""Exact privacy curves in 50-digit arithmetic (mpmath), the independent routes the budget tests
hold dpviz's accountants to."""

from __future__ import annotations

from mpmath import binomial, erfc, exp, mp, mpf, sqrt


def gaussian_delta(mu: float, eps: float):
    """μ-GDP's δ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2) in 50 digits (Φ(−x) as erfc(x/√2)/2, exact in
    the far tail where 1 − Φ would cancel)."""
    mp.dps = 50
    mu, eps = mpf(mu), mpf(eps)
    return erfc((eps / mu - mu / 2) / sqrt(2)) / 2 - exp(eps) * erfc((eps / mu + mu / 2) / sqrt(2)) / 2


def rr_delta(epsilon0: float, k: int, eps: float):
    """δ(ε) of k randomized responses at ε₀, the binomial sum itself: E[(1 − e^{ε − L})₊] over
    L = ε₀(2J − k), J ~ Binomial(k, p), p = e^ε₀/(1 + e^ε₀), in 50 digits."""
    mp.dps = 50
    e0, eps = mpf(epsilon0), mpf(eps)
    p = exp(e0) / (1 + exp(e0))
    return sum(
        binomial(k, j) * p**j * (1 - p) ** (k - j) * (1 - exp(eps - e0 * (2 * j - k)))
        for j in range(k + 1)
        if e0 * (2 * j - k) > eps
    )
