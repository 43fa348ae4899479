"""Small statistical helpers shared by the analyses."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

from dpviz.errors import InputError


def wilson_interval(successes, trials, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion (Wilson 1927).

    centre = (k + z^2/2) / (n + z^2),
    half   = z * sqrt(k (n - k) / n + z^2 / 4) / (n + z^2),  z = Phi^-1(1 - (1 - confidence)/2).
    Works elementwise on arrays; returns ``(low, high)`` clipped to [0, 1].

    >>> low, high = wilson_interval(0, 10)   # no successes: the interval still reaches 0.28
    >>> float(low), round(float(high), 4)
    (0.0, 0.2775)
    """
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be in (0, 1), got {confidence}")
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    if np.any(n <= 0) or np.any(k < 0) or np.any(k > n):
        raise InputError("need 0 <= successes <= trials and trials > 0")
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)  # the standard library's: no scipy import for this
    centre = (k + z * z / 2) / (n + z * z)
    half = z * np.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def stream(seed: int, *key: int) -> np.random.Generator:
    """An independent random stream for ``(seed, key...)``: the same key always gives the
    same draws, whatever else is computed in the same run."""
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=tuple(int(k) for k in key)))
