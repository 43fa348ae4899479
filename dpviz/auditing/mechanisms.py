"""Auditing a mechanism one can run: draw its outputs on two inputs, then let the sample auditor
(:func:`dpviz.auditing.lower_bound`) prove what they show.

A mechanism is anything with ``sample(x, n, rng) -> (n, k) array`` of output features (OME's
``OMEFloat`` on the HoHo page, :class:`Laplace` for ADePT's release). :func:`audit` searches
candidate input pairs on small samples and audits the most revealing one on fresh samples, so the
search never touches the samples that make the final bound (DP-Sniper, Bichsel et al., S&P 2021,
Sec. 5, the same rule the auditor applies inside one audit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Sequence

import numpy as np

from dpviz.auditing import lower_bound
from dpviz.stats import stream


class Mechanism(Protocol):
    """What an audit needs of a mechanism: samples of its output features."""

    def sample(self, x: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` outputs of the mechanism on input ``x`` as an (n, k) float array, drawn from ``rng``."""


@dataclass(frozen=True)
class Laplace:
    """x + Laplace(scale) noise on each coordinate: ε-DP for L1 sensitivity ``scale`` ε."""

    scale: float

    def sample(self, x, n, rng):
        """``n`` draws of x + Laplace(scale) noise per coordinate: an (n, len(x)) array."""
        x = np.atleast_1d(np.asarray(x, dtype=np.float64))
        return x[None, :] + rng.laplace(0.0, self.scale, (n, x.size))


@dataclass(frozen=True)
class RandomizedResponse:
    """Report a bit truthfully with probability e^ε / (1 + e^ε): exactly ε-DP."""

    epsilon: float

    def sample(self, x, n, rng):
        """``n`` reports of the bit ``x``: an (n, 1) array."""
        keep = rng.random(n) < np.exp(self.epsilon) / (1 + np.exp(self.epsilon))
        return np.where(keep, int(x), 1 - int(x)).astype(np.float64)[:, None]


def audit_pair(mech: Mechanism, a, b, n: int, seed: int, *key: int, confidence: float = 0.9) -> dict:
    """The loss ``n`` outputs a side of M(a) and M(b) prove (seeded by ``(seed, *key)``):
    :func:`dpviz.auditing.lower_bound`'s answer with the pair added."""
    rng = stream(seed, *key)
    out = lower_bound(mech.sample(a, n, rng), mech.sample(b, n, rng), confidence=confidence, seed=seed)
    return {"a": a, "b": b, **out}


def audit(
    mech: Mechanism,
    pairs: Sequence[tuple],
    n: int,
    seed: int,
    *key: int,
    confidence: float = 0.9,
    search_samples: int = 5000,
) -> dict:
    """Audit each candidate pair on ``search_samples`` a side (the auditor orients the event
    itself), then the most revealing pair again on ``n`` fresh samples a side."""
    if not pairs:
        raise ValueError("audit needs at least one candidate pair")
    found = [
        audit_pair(mech, a, b, min(search_samples, n), seed, *key, 0, k, confidence=confidence)
        for k, (a, b) in enumerate(pairs)
    ]
    best = max(range(len(found)), key=lambda k: (found[k]["epsilon_lower_bound"], -k))
    a, b = pairs[best]
    return audit_pair(mech, a, b, n, seed, *key, 1, confidence=confidence)
