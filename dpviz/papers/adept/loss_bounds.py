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
shares them (a slider's 97 positions: 5 ms each where the FFT route took 30-60 ms); the powers
are by repeated squaring, the arrays walked in pieces that stay in the processor's cache. The
FFT route (:func:`bounds_by_fft`: the lattice's masses written out, composed by FFT, the tail
summed; the route before) is kept as the reference: the two agree to 10⁻¹³ (tested).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpviz.papers.adept.sensitivity import _check_dim, _check_positive

PIECE = 4096
"""Frequencies handled at a time (arrays of 64 kB: in the processor's cache)."""


@functools.lru_cache(maxsize=4)
def _frequencies(n: int, max_points: int):
    """What every ε shares at dimension n: M, N, t₀ and, per frequency k = 1 … (N − 1)/2,
    cos θ_k, sin θ_k, 1 − cos θ_k, e^{−iφ_k} and the tail's (e^{iθ_k t₀} − 1)/(1 − e^{iθ_k})."""
    m = int(max(8, min(4096, (max_points - 1) // (2 * n))))
    size = n * 2 * m + 1
    threshold = math.sqrt(n) * m
    # the sum sits on whole lattice points (index - n m): above epsilon means index > sqrt(n) m,
    # and for square n the point sqrt(n) m itself (L = epsilon) does not count
    first = n * m + math.floor(threshold + 1e-9 * max(1.0, threshold)) + 1
    # every angle is turn·j for a whole j mod N: cos and sin of j = 0 … (N − 1)/2 made once (a
    # third of the sines and cosines of one per angle and half angle), the rest by cos(turn·(N − j))
    # = cos(turn·j), sin(turn·(N − j)) = −sin(turn·j); 1 − cos x as sin²x/(1 + cos x) where cos x ≥ 0
    # (no cancellation for small x, as 2 sin²(x/2) had it)
    half = (size - 1) // 2
    turn = 2 * np.pi / size  # (angles from whole numbers reduced mod N: exact to the last bit)
    table = turn * np.arange(half + 1, dtype=np.int64)
    cos_t, sin_t = np.cos(table), np.sin(table)

    def at(j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        back = j > half
        i = np.where(back, size - j, j)
        return cos_t[i], np.where(back, -sin_t[i], sin_t[i])

    def one_minus(c: np.ndarray, s: np.ndarray) -> np.ndarray:
        return np.where(c >= 0, s * s / (1 + c), 1 - c)

    k = np.arange(1, half + 1, dtype=np.int64)
    cos, sin = cos_t[1:], sin_t[1:]
    one_minus_cos = one_minus(cos, sin)
    c_phi, s_phi = at((2 * m * k) % size)
    e_phi = c_phi - 1j * s_phi
    c_psi, s_psi = at((k * first) % size)
    tail = (-one_minus(c_psi, s_psi) + 1j * s_psi) / (one_minus_cos - 1j * sin)
    return m, size, first, cos, sin, one_minus_cos, e_phi, tail


def _power(x: np.ndarray, n: int) -> np.ndarray:
    """xⁿ by repeated squaring (n ≥ 1)."""
    out = None
    while True:
        if n & 1:
            out = x if out is None else out * x
        n >>= 1
        if not n:
            return out
        x = x * x


def exceed_probability_bounds(dim: int, epsilon: float, max_points: int = 2**18) -> tuple[float, float]:
    """Lower and upper bounds on P[L > epsilon] at the worst-case pair (module docstring)."""
    _check_dim(dim)
    _check_positive("epsilon", epsilon)
    n = int(dim)
    a = epsilon / math.sqrt(n)
    m, size, first, cos, sin, one_minus_cos, e_phi, tail = _frequencies(n, int(max_points))
    h = a / (2 * m)
    grow, lift, atom = math.expm1(h), math.exp(h), math.exp(-a)
    sums = [0j, 0j]
    for lo in range(0, cos.size, PIECE):
        part = slice(lo, lo + PIECE)
        c, s, ph = cos[part], sin[part], e_phi[part]
        den = (grow * c - one_minus_cos[part]) - 1j * (lift * s)  # r e^{-i theta} - 1
        geo = (0.5 * grow) * (ph - atom) / den
        atoms = 0.5 * ph + 0.5 * atom
        for j, x in enumerate((geo + atoms, geo * (c - 1j * s) + atoms)):  # rounded down, up
            sums[j] += np.dot(_power(x, n), tail[part])
    low, high = (float(np.clip(((size - first) + 2 * total.real) / size, 0.0, 1.0)) for total in sums)
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
