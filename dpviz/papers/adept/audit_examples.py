"""ADePT's built-in audit example (:mod:`dpviz.auditing.examples`): its release of an L2-clipped
vector, x + Laplace(2C/ε)^n, at the worst-case pair ±(C/√n)(1, ..., 1) with n = 16, C = 1,
claiming ε = 1; its true loss is ε√n = 4 (Habernal 2021, Theorem 5.1), so the audit should find
a violation."""

from __future__ import annotations

import numpy as np

from dpviz.auditing.examples import BuiltIn, Example
from dpviz.papers.adept import sensitivity as adept
from dpviz.stats import stream


def _adept(n: int, seed: int) -> Example:
    dim, clip, eps = 16, 1.0, 1.0
    x, xp = adept.worst_case_pair(dim, clip)
    scale = adept.sensitivity_claimed(clip) / eps
    rng = stream(seed, 5102)
    return Example(
        "adept",
        x + rng.laplace(0.0, scale, (n, dim)),
        xp + rng.laplace(0.0, scale, (n, dim)),
        eps,
        0.0,
        1.0,
        f"ADePT's release x + Laplace(2C/ε)^n at the worst-case pair ±(C/√n)(1,…,1), n = {dim}, C = {clip:g}, "
        f"{n:,} outputs each; it claims ε = {eps:g}, its true loss is ε√n = {eps * np.sqrt(dim):g}",
    )


EXAMPLES = (BuiltIn("adept", "ADePT at its worst-case pair (n = 16)", 100_000, _adept, violated=True),)
