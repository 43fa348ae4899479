"""The compiled inner loop of the HoHo page's exact attack (:mod:`dpviz.papers.hoho.exact`): the
score transforms of every (target, sentence) pair, summed per target, and of each target's own
encodings.

A pair's score is a sum of four independent binomials, one per class c of clean-bit pair (11, 01,
10, 00), so its pmf's transform at the K = positions + 1 roots of unity z is the product of four
powers f_c(z)^(n_c), f_c(z) = 1 − a_c + a_c·z (a_c the class's probability of agreeing). For
target t the attack needs only the sum of its pairs' transforms, S_t = Σ_j Π_c f_c^(n_tjc): its
linking AUC is (1/(N−1)) Σ_k w_k Re(S_t[k] conj(W_t[k])) (Parseval, W_t the transform of the
target's weights), and the ROC's false positives come from Σ_t S_t, the transform of all pairs'
mean pmf. A target's own score has two classes, (11) and (00): X_t = f_0^(ones) · f_3^(P − ones).

How :func:`attack_transforms` gets there, with no complex exponential (the counts' part, which is
the same at every (ε, λ), is :class:`dpviz.papers.hoho.exact.SumPlan`):

1. **Powers by multiplication.** Per class, the counts that occur (a few dozen of 0 … P) are
   reached from f_c^0 = 1 up the sorted counts, times f_c from one count to the next, or times
   the gap's power by squaring (SUE's and OUE's class 00 starts at 700 of 800). NumPy took
   exp(n·log f_c) as a real exp, a cos and a sin for each count and frequency (1.1 ms of a
   setting's 2.7 at the defaults; this is 0.13 ms). The rounding grows with the count as the
   exponential's does with n·log f_c (tested against NumPy's route).
2. **Halves of a pair.** A pair's product is (f_0^a f_1^b)·(f_2^c f_3^d). Its two halves take
   few values (on the default corpus 356 and 382, where the pairs' count vectors take 2,484 and
   the (target, sentence) pairs number 3,980), so each half is formed once and every pair costs
   one complex product, added at once into its target's sum: no per-pair array is stored.
3. **Runs of one first half.** A target's pairs of halves are kept once each with their number
   of sentences, sorted by their first half, so the second halves of a run are summed and
   multiplied by the first half once: on the default corpus 489 products for the 3,980 pairs
   (OME); SUE's and OUE's 3,980 pairs are 353 distinct pairs of halves.

A setting's AUC at the defaults took 2.3-2.6 ms by NumPy's exponentials and a compiled product of
four rows per pair (2026-11-29), 0.7-1.3 ms this way (``benchmarks/bench_hoho_exact.py``).
"""

from __future__ import annotations

import numba
import numpy as np

_JIT = dict(cache=True, nogil=True)  # compiled once per installation (python -m dpviz build does it)


@numba.njit(**_JIT)
def _class_powers(a, z, counts, lo, hi, re, im):
    """Rows lo … hi of :func:`_powers`: one class's powers f(z)^n, f = 1 − a + a·z, for the sorted
    counts n = counts[lo:hi], written into ``re`` and ``im``."""
    for k in range(z.shape[0]):
        fr = 1.0 - a + a * z[k].real
        fi = a * z[k].imag
        pr, pi = 1.0, 0.0
        n = 0
        for row in range(lo, hi):
            gap = counts[row] - n
            if gap == 1:
                pr, pi = pr * fr - pi * fi, pr * fi + pi * fr
            elif gap > 1:
                gr, gi, br, bi = 1.0, 0.0, fr, fi  # f^gap by squaring
                while gap > 0:
                    if gap & 1:
                        gr, gi = gr * br - gi * bi, gr * bi + gi * br
                    br, bi = br * br - bi * bi, 2.0 * br * bi
                    gap >>= 1
                pr, pi = pr * gr - pi * gi, pr * gi + pi * gr
            n = counts[row]
            re[row, k] = pr
            im[row, k] = pi


@numba.njit(**_JIT)
def _powers(agree, z, counts, starts):
    """Real and imaginary parts (L, H) of f_c(z)^n for each count n of ``counts`` (the sorted
    counts of class c at counts[starts[c]:starts[c + 1]]): from one count to the next, the power
    of the gap, by one product where the gap is 1 and by squaring where it is more."""
    re = np.empty((counts.shape[0], z.shape[0]))
    im = np.empty((counts.shape[0], z.shape[0]))
    for c in range(starts.shape[0] - 1):
        _class_powers(agree[c], z, counts, starts[c], starts[c + 1], re, im)
    return re, im


@numba.njit(**_JIT)
def _products(re, im, rows):
    """The products of two power rows, rows[i, 0] times rows[i, 1], for each i (I, H)."""
    n, half = rows.shape[0], re.shape[1]
    out_re = np.empty((n, half))
    out_im = np.empty((n, half))
    for i in range(n):
        x, y = rows[i, 0], rows[i, 1]
        for k in range(half):
            out_re[i, k] = re[x, k] * re[y, k] - im[x, k] * im[y, k]
            out_im[i, k] = re[x, k] * im[y, k] + im[x, k] * re[y, k]
    return out_re, out_im


@numba.njit(**_JIT)
def _sums(re, im, first, second, halves, weight, bounds, own, s, x):
    """Fill S (T, H) and X (T, H) from one setting's power rows (:func:`attack_transforms`)."""
    a_re, a_im = _products(re, im, first)
    b_re, b_im = _products(re, im, second)
    x_re, x_im = _products(re, im, own)
    n_targets, half = own.shape[0], re.shape[1]
    run_re, run_im = np.empty(half), np.empty(half)
    for t in range(n_targets):
        for k in range(half):
            s[t, k] = 0.0
        i, end = bounds[t], bounds[t + 1]
        while i < end:
            p = halves[i, 0]
            j = i
            while j < end and halves[j, 0] == p:
                j += 1
            run_re[:] = 0.0
            run_im[:] = 0.0
            # the run's second halves added four at a time in registers, in the same order as one by one
            # (so to the same bits): the run's row is read and written once per four, not per pair
            while i + 4 <= j:
                q0, q1, q2, q3 = halves[i, 1], halves[i + 1, 1], halves[i + 2, 1], halves[i + 3, 1]
                w0, w1, w2, w3 = weight[i], weight[i + 1], weight[i + 2], weight[i + 3]
                for k in range(half):
                    re_k = ((run_re[k] + w0 * b_re[q0, k]) + w1 * b_re[q1, k]) + w2 * b_re[q2, k]
                    im_k = ((run_im[k] + w0 * b_im[q0, k]) + w1 * b_im[q1, k]) + w2 * b_im[q2, k]
                    run_re[k] = re_k + w3 * b_re[q3, k]
                    run_im[k] = im_k + w3 * b_im[q3, k]
                i += 4
            while i < j:
                q, w = halves[i, 1], weight[i]
                for k in range(half):
                    run_re[k] += w * b_re[q, k]
                    run_im[k] += w * b_im[q, k]
                i += 1
            for k in range(half):
                s[t, k] += complex(a_re[p, k] * run_re[k] - a_im[p, k] * run_im[k],
                                   a_re[p, k] * run_im[k] + a_im[p, k] * run_re[k])  # fmt: skip
    for t in range(n_targets):
        for k in range(half):
            x[t, k] = complex(x_re[t, k], x_im[t, k])


@numba.njit(**_JIT)
def attack_transforms(agree, z, counts, starts, first, second, halves, weight, bounds, own):
    """(S, X), complex (T, H): per target t, S_t = Σ_i weight[i]·first[p_i]·second[q_i] over its
    pairs of halves (p_i, q_i) = halves[i], i in bounds[t] … bounds[t + 1] (each half a product of
    two power rows: ``first`` (A, 2) and ``second`` (B, 2) of row indices), and X_t the product
    of its own two power rows own[t]. A target's pairs come sorted by their first half, so each
    run of one first half sums its second halves and multiplies once."""
    re, im = _powers(agree, z, counts, starts)
    s = np.empty((own.shape[0], z.shape[0]), dtype=np.complex128)
    x = np.empty((own.shape[0], z.shape[0]), dtype=np.complex128)
    _sums(re, im, first, second, halves, weight, bounds, own, s, x)
    return s, x


@numba.njit(**_JIT)
def _aucs_into(s, x, z, inv, dot, p, q, target_ones, positions, pairs, out):
    """Each target's AUC from its S and X at one setting (p, q) into ``out`` (T,): the weights'
    transform W (W_0 = 1/2 + E[X], W_k = (1 − z_k X_k)·inv_k − X_k/2, inv_k = 1/(1 − z_k):
    docs/formulas.md, section 3) and Σ_k dot_k Re(S_k conj(W_k)) / ``pairs`` (N − 1), clipped to
    [0, 1] (``dot``: Parseval's weights over the half spectrum, divided by K)."""
    for t in range(s.shape[0]):
        ones = target_ones[t]
        per = dot[0] * s[t, 0].real * (0.5 + (ones * p + (positions - ones) * (1 - q)))
        for k in range(1, s.shape[1]):
            w = (1 - z[k] * x[t, k]) * inv[k] - 0.5 * x[t, k]
            per += dot[k] * (s[t, k].real * w.real + s[t, k].imag * w.imag)
        out[t] = min(max(per / pairs, 0.0), 1.0)


@numba.njit(**_JIT)
def _inverse_gaps(z):
    """1/(1 − z_k) for k ≥ 1, once a call (a division per target and frequency was a fifth of a setting)."""
    inv = np.empty(z.shape[0], dtype=np.complex128)
    inv[0] = 0.0
    for k in range(1, z.shape[0]):
        inv[k] = 1.0 / (1.0 - z[k])
    return inv


@numba.njit(**_JIT)
def transform_aucs(s, x, z, p, q, target_ones, positions, pairs, dot):
    """Each target's AUC (T,) from the transforms S and X of :func:`attack_transforms` at (p, q)
    (:func:`_aucs_into`): the exact attack's, by the same loop as :func:`attack_aucs`."""
    out = np.empty(s.shape[0])
    _aucs_into(s, x, z, _inverse_gaps(z), dot, p, q, target_ones, positions, pairs, out)
    return out


@numba.njit(**_JIT)
def attack_aucs(
    agrees, z, counts, starts, first, second, halves, weight, bounds, own, target_ones, positions, pairs, dot
):
    """The expected linking AUC per target (M, T) at M settings, ``agrees`` (M, 4): each setting's
    S and X as :func:`attack_transforms` (the same operations), then :func:`_aucs_into`. The powers
    of a class whose probability is the previous setting's are kept (OME's p along ε)."""
    n_set, n_targets, half = agrees.shape[0], own.shape[0], z.shape[0]
    re = np.empty((counts.shape[0], half))
    im = np.empty((counts.shape[0], half))
    s = np.empty((n_targets, half), dtype=np.complex128)
    x = np.empty((n_targets, half), dtype=np.complex128)
    out = np.empty((n_set, n_targets))
    inv = _inverse_gaps(z)
    for m in range(n_set):
        for c in range(starts.shape[0] - 1):
            if m == 0 or agrees[m, c] != agrees[m - 1, c]:
                _class_powers(agrees[m, c], z, counts, starts[c], starts[c + 1], re, im)
        _sums(re, im, first, second, halves, weight, bounds, own, s, x)
        _aucs_into(s, x, z, inv, dot, agrees[m, 0], agrees[m, 1], target_ones, positions, pairs, out[m])
    return out


def compile_now() -> None:
    """Compile (or load from numba's cache) by running once on a small case."""
    one = np.zeros((1, 2), dtype=np.int64)
    plan = (
        np.array([1.0, -1.0], dtype=np.complex128), np.zeros(1, dtype=np.int64),
        np.array([0, 1, 1, 1, 1], dtype=np.int64), one, one, one, np.ones(1), np.array([0, 1], dtype=np.int64), one,
    )  # fmt: skip
    attack_transforms(np.full(4, 0.5), *plan)
    attack_aucs(np.full((1, 4), 0.5), *plan, np.zeros(1, dtype=np.int64), 1, 1.0, np.ones(2))
    ones = np.ones((1, 2), dtype=np.complex128)
    transform_aucs(ones, ones, plan[0], 0.5, 0.5, np.zeros(1, dtype=np.int64), 1, 1.0, np.ones(2))
