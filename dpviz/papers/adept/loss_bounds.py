"""Rigorous bounds on P[L > ε] at ADePT's worst-case pair, in milliseconds for any n: the title of
the privacy-loss chart (:mod:`dpviz.papers.adept.privacy_loss`; its exact sum,
``exceed_probability_exact``, is the reference for small n).

Each coordinate's loss term is put on the lattice of step h = a/M (a = ε/√n): the atoms +a and −a
lie on it exactly; the middle term a(2W − 1), W on [0, 1) with density (a/2)e^{−a}e^{aW}, is
rounded up to the next lattice point for the upper bound and down for the lower bound. Rounding
every coordinate up can only raise the sum, so P[sum_up > ε] ≥ P[L > ε] ≥ P[sum_down > ε]. M is as
large as ``max_points`` lattice points of the n-fold sum allow (the bounds tighten like 1/M); the
atom L = ε of square n is excluded from both, as it must be ("> ε").

**In closed form, without an FFT.** On the lattice index i = 0 … 2M (value (i − M)·h) one
coordinate's masses are a geometric run, the middle cells c·rⁱ with r = e^{a/(2M)} and
c = ½e^{−a}(r − 1) at i = 0 … 2M − 1 (rounded down; at 1 … 2M rounded up), plus ½ at 2M and
½e^{−a} at 0. Their discrete Fourier transform over the sum's N = 2Mn + 1 points is a geometric
series at each frequency θ_k = 2πk/N:

    X_k = ½(r − 1)(e^{−iφ_k} − e^{−a}) / (r·e^{−iθ_k} − 1) [· e^{−iθ_k} rounded up] + ½e^{−iφ_k} + ½e^{−a},

φ_k = 2M·θ_k, and the n-fold sum's is X_kⁿ (no wrap-around: N holds every sum). The tail from
index t₀ (the first above ε) to N − 1 is, by the inverse transform summed in closed form,

    P = (1/N)·[(N − t₀) + 2·Re Σ_{k=1}^{(N−1)/2} X_kⁿ·(e^{iθ_k t₀} − 1)/(1 − e^{iθ_k})].

The frequencies' sines and cosines depend on n only, so they are made once per n and every ε
shares them (a slider's 97 positions: 5 ms each where the FFT route took 30-60 ms). Both parts are
compiled loops (:mod:`dpviz.papers.adept.loss_kernels`): the table in one pass per n, its cosines
and sines by angle addition from two short tables; the powers by repeated squaring, a block of
frequencies at a time (NumPy's passes over the arrays took 8 ms per n and 4 ms per ε). The
FFT route (:func:`bounds_by_fft`: the lattice's masses written out, composed by FFT, the tail
summed; the route before) is kept as the reference: the two agree to 10⁻¹³ (tested).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpviz.papers.adept.sensitivity import _check_dim, _check_positive


@functools.lru_cache(maxsize=4)
def _frequencies(n: int, max_points: int):
    """What every ε shares at dimension n: M, N, t₀ and the frequencies' table
    (:func:`dpviz.papers.adept.loss_kernels.frequency_table`: per k = 1 … (N − 1)/2, cos θ_k,
    sin θ_k, 1 − cos θ_k, e^{−iφ_k} and the tail's (e^{iθ_k t₀} − 1)/(1 − e^{iθ_k}))."""
    from dpviz.papers.adept import loss_kernels  # (lazy: numba, for this chart alone)

    m = int(max(8, min(4096, (max_points - 1) // (2 * n))))
    size = n * 2 * m + 1
    threshold = math.sqrt(n) * m
    # the sum sits on whole lattice points (index - n m): above epsilon means index > sqrt(n) m,
    # and for square n the point sqrt(n) m itself (L = epsilon) does not count
    first = n * m + math.floor(threshold + 1e-9 * max(1.0, threshold)) + 1
    table = loss_kernels.frequency_table(size, 2 * m, first)
    for column in table:
        column.setflags(write=False)
    return m, size, first, table


def exceed_probability_bounds(dim: int, epsilon: float, max_points: int = 2**18) -> tuple[float, float]:
    """Lower and upper bounds on P[L > epsilon] at the worst-case pair (module docstring)."""
    from dpviz.papers.adept import loss_kernels  # (lazy: numba, for this chart alone)

    _check_dim(dim)
    _check_positive("epsilon", epsilon)
    n = int(dim)
    a = epsilon / math.sqrt(n)
    m, size, first, table = _frequencies(n, int(max_points))
    h = a / (2 * m)
    sums = loss_kernels.bound_sums(n, math.expm1(h), math.exp(h), math.exp(-a), *table)  # rounded down, up
    low, high = (float(np.clip(((size - first) + 2 * total) / size, 0.0, 1.0)) for total in sums)
    return low, high


def bounds_by_fft(dim: int, epsilon: float, max_points: int = 2**18) -> tuple[float, float]:
    """The same bounds by the route before: the lattice's masses written out cell by cell
    (½e^{−a}(e^{a·w₁} − e^{a·w₀}) over each cell [w₀, w₁) of W), composed n times by FFT, and the
    tail above ε summed directly. 30-80 ms; the reference of the tests and the benchmark."""
    n = int(dim)
    a = epsilon / np.sqrt(n)
    m = int(max(8, min(4096, (max_points - 1) // (2 * n))))
    j = np.arange(-m, m + 1)
    cell = 0.5 * np.exp(-a) * (np.exp(a * (j[1:] / m + 1) / 2) - np.exp(a * (j[:-1] / m + 1) / 2))
    up, down = np.zeros(2 * m + 1), np.zeros(2 * m + 1)
    up[1:] += cell
    down[:-1] += cell
    for pmf in (up, down):
        pmf[-1] += 0.5
        pmf[0] += 0.5 * np.exp(-a)
    length = n * 2 * m + 1
    size = 1 << int(np.ceil(np.log2(length)))
    threshold = np.sqrt(n) * m
    above = np.arange(length) - n * m > threshold + 1e-9 * max(1.0, threshold)
    low, high = (
        float(np.clip(np.fft.irfft(np.fft.rfft(p, size) ** n, size)[:length][above].sum(), 0, 1)) for p in (down, up)
    )
    return low, high
