"""A black-box privacy auditor in the spirit of DP-Sniper (Bichsel et al., S&P 2021).

For a mechanism M and two inputs a, a': train a classifier (logistic regression on the output
features) to tell M(a) from M(a'); build the threshold attack S = {y : score(y) > t}, plus the
outputs with score exactly t with probability gamma, where t and gamma are set on fresh samples so
that Pr[M(a') in S] ~ c; estimate p = Pr[M(a) in S] and p' = Pr[M(a') in S] on fresh samples;
report epsilon_hat = ln p - ln p' and the lower bound ln(p_low) - ln(p'_high) from Clopper-Pearson
intervals at confidence 1 - alpha/2 each (alpha = 1 - confidence, so both hold jointly with
probability >= confidence). With c = 0.01, p <= 1 caps epsilon_hat near ln(1/c) = 4.6: smaller c
sees further and needs more samples. A search over candidate input pairs runs on separate
samples; the final estimate for the chosen pair uses fresh ones.

A mechanism is anything with ``sample(x, n, rng) -> (n, k) array`` of output features.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

import numpy as np
from scipy import stats


class Mechanism(Protocol):
    """What the auditor needs of a mechanism: samples of its output features."""

    def sample(self, x: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` outputs of the mechanism on input ``x`` as an (n, k) float array, drawn from ``rng``."""


@dataclass(frozen=True)
class Laplace:
    """x + Laplace(scale)^d, x a vector (or a number)."""

    scale: float

    def sample(self, x, n, rng):
        """``n`` draws of x + Laplace(scale) noise per coordinate: an (n, len(x)) array."""
        x = np.atleast_1d(np.asarray(x, dtype=np.float64))
        return x[None, :] + rng.laplace(0.0, self.scale, (n, x.size))


@dataclass(frozen=True)
class RandomizedResponse:
    """Report a bit truthfully with probability e^eps / (1 + e^eps)."""

    epsilon: float

    def sample(self, x, n, rng):
        """``n`` reports of the bit ``x`` (kept with probability e^ε / (1 + e^ε)): an (n, 1) array."""
        keep = rng.random(n) < np.exp(self.epsilon) / (1 + np.exp(self.epsilon))
        return np.where(keep, int(x), 1 - int(x)).astype(np.float64)[:, None]


def clopper_pearson(k: int, n: int, confidence: float) -> tuple[float, float]:
    """Exact two-sided binomial interval at ``confidence``."""
    a = 1 - confidence
    low = stats.beta.ppf(a / 2, k, n - k + 1) if k > 0 else 0.0
    high = stats.beta.ppf(1 - a / 2, k + 1, n - k) if k < n else 1.0
    return float(low), float(high)


def _classifier(ya: np.ndarray, yb: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    from sklearn.linear_model import LogisticRegression

    X = np.vstack([ya, yb])
    y = np.r_[np.ones(len(ya)), np.zeros(len(yb))]
    clf = LogisticRegression(C=10.0, max_iter=500).fit(X, y)
    return lambda z: clf.decision_function(z)


def _threshold(scores_b: np.ndarray, c: float) -> tuple[float, float]:
    """t and gamma with Pr[score > t] + gamma Pr[score = t] = c on M(a') scores."""
    s = np.sort(scores_b)[::-1]
    k = int(np.floor(c * len(s)))
    t = s[min(k, len(s) - 1)]
    above, at = (s > t).sum(), (s == t).sum()
    gamma = (c * len(s) - above) / at if at else 0.0
    return float(t), float(np.clip(gamma, 0.0, 1.0))


def _in_attack(scores, t, gamma, rng) -> np.ndarray:
    return (scores > t) | ((scores == t) & (rng.random(len(scores)) < gamma))


def audit_pair(
    mech: Mechanism,
    a,
    b,
    n: int,
    rng: np.random.Generator,
    c: float = 0.01,
    confidence: float = 0.9,
    n_train: int | None = None,
) -> dict:
    """epsilon_hat and its lower bound for one ordered pair (a, b)."""
    n_train = n_train or max(2000, n // 10)
    score = _classifier(mech.sample(a, n_train, rng), mech.sample(b, n_train, rng))
    t, gamma = _threshold(score(mech.sample(b, n_train, rng)), c)
    ka = int(_in_attack(score(mech.sample(a, n, rng)), t, gamma, rng).sum())
    kb = int(_in_attack(score(mech.sample(b, n, rng)), t, gamma, rng).sum())
    # both intervals hold jointly with probability >= confidence (alpha split between them)
    joint = 1 - (1 - confidence) / 2
    pa_low, _ = clopper_pearson(ka, n, 2 * joint - 1)
    _, pb_high = clopper_pearson(kb, n, 2 * joint - 1)
    eps_hat = np.log(max(ka, 1) / n) - np.log(max(kb, 1) / n)
    eps_lb = np.log(pa_low) - np.log(pb_high) if pa_low > 0 else 0.0
    return {
        "a": a,
        "b": b,
        "p_a": ka / n,
        "p_b": kb / n,
        "epsilon_hat": float(eps_hat),
        "epsilon_lower_bound": max(0.0, float(eps_lb)),
        "samples": n,
    }


def audit(
    mech: Mechanism,
    pairs: Sequence[tuple],
    n: int,
    rng: np.random.Generator,
    c: float = 0.01,
    confidence: float = 0.9,
    search_samples: int = 5000,
) -> dict:
    """Search the candidate pairs (both orders) on small samples, then audit the best with n fresh samples."""
    best, best_eps = None, -np.inf
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            r = audit_pair(mech, x, y, search_samples, rng, c, confidence)
            if r["epsilon_hat"] > best_eps:
                best, best_eps = (x, y), r["epsilon_hat"]
    return audit_pair(mech, best[0], best[1], n, rng, c, confidence)
