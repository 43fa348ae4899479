"""The compiled inner loop of the HoHo page's exact attack (:mod:`dpviz.papers.hoho.exact`): the
score transforms of the distinct (target, sentence) pairs and their sums per target.

A pair's score is a sum of four independent binomials, one per class of clean-bit pair (11, 01,
10, 00), so its pmf's transform at the K = positions + 1 roots of unity is the product of four
powers f_c(z)^(n_c), read from one table per class (a row per count that occurs in the class:
:func:`dpviz.papers.hoho.exact.class_tables`). For target t the attack needs only the sum of its
pairs' transforms, S_t = sum_j V[which[t, j]]: its linking AUC is (1/(N-1)) sum_k w_k
Re(S_t[k] conj(W_t[k])) (Parseval, W_t the transform of the target's weights), and the ROC's false
positives come from sum_t S_t, the transform of all pairs' mean pmf.

NumPy formed the product of the four gathered tables as four (U, K/2+1) temporaries and then the
AUC of every distinct pair against every target (a (U, T) product, when each target has only its
N - 1 pairs): 6-9 ms a setting at the defaults, which the frontier's frames along λ (65 settings
of λ, 26 of ε each) paid 1,690 times. Here each pair's transform is one pass over its four table
rows, and S_t one pass over the target's pairs. The product is taken in the same order as
NumPy's (class 0 times class 1, times 2, times 3), so the transforms agree to the last bits or
so (tested to 1e-13 against the NumPy route).
"""

from __future__ import annotations

import numba
import numpy as np

_JIT = dict(cache=True, nogil=True)  # compiled once per installation (python -m dpviz build does it)


@numba.njit(**_JIT)
def target_sums(t0, t1, t2, t3, levels, which):
    """S (T, H): per target t, the sum over its pairs j of the transform of pair which[t, j], the
    product t0[levels[u, 0]] * t1[levels[u, 1]] * t2[levels[u, 2]] * t3[levels[u, 3]] of the class
    tables (complex, (L_c, H)) at the distinct pair u's level in each class (levels (U, 4))."""
    n_pairs, half = levels.shape[0], t0.shape[1]
    v = np.empty((n_pairs, half), dtype=np.complex128)
    for u in range(n_pairs):
        a, b, c, d = levels[u, 0], levels[u, 1], levels[u, 2], levels[u, 3]
        for k in range(half):
            v[u, k] = t0[a, k] * t1[b, k] * t2[c, k] * t3[d, k]
    n_targets, per = which.shape
    s = np.zeros((n_targets, half), dtype=np.complex128)
    for t in range(n_targets):
        for j in range(per):
            u = which[t, j]
            for k in range(half):
                s[t, k] += v[u, k]
    return s


def compile_now() -> None:
    """Compile (or load from numba's cache) by running once on a small case."""
    table = np.ones((1, 2), dtype=np.complex128)
    target_sums(table, table, table, table, np.zeros((1, 4), dtype=np.int64), np.zeros((1, 1), dtype=np.int64))
