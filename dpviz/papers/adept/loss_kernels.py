"""The compiled walks behind :mod:`dpviz.papers.adept.privacy_loss`: each release's ascending
exponentials read against an ascending list of a = ε/√n, and the losses binned.

Written with numba because each release stops where its own exponentials pass the largest a, and
NumPy's route made every row of every release several times over (draw, divide, two running
sums, the counts at each a, a gather): 35-50 ns a draw where this walk takes a few.
"""

from __future__ import annotations

import numba
import numpy as np

_JIT = dict(cache=True, nogil=True)  # compiled once per installation (python -m dpviz build does it)


@numba.njit(**_JIT)
def walk(x, row0, m, last, total, taken, nxt, a, out_k, out_s):
    """Read rows ``row0`` … of the exponentials ``x`` (rows × releases) for each release not yet
    done: the r-th ascending exponential is E_r = E_{r−1} + x_r/(m − r); while E_r lies above the
    next a still open (``nxt``: its index), that a's K is r and S the sum so far (``out_k``,
    ``out_s``: a × releases); once no a is open the release is done. ``last``, ``total``, ``taken``:
    E_{r−1}, the sum of the exponentials read, how many (each release's state between chunks).
    Returns how many releases are not yet done."""
    rows, size = x.shape
    count = a.size
    open_ = 0
    for j in range(size):
        g = nxt[j]
        if g >= count:
            continue
        r = taken[j]
        mj = m[j]
        e_prev = last[j]
        s = total[j]
        i = r - row0
        while g < count:
            if r >= mj:  # every exponential read: K = m at every a still open
                while g < count:
                    out_k[g, j] = r
                    out_s[g, j] = s
                    g += 1
                break
            if i >= rows:
                break
            e = e_prev + x[i, j] / (mj - r)
            while g < count and e > a[g]:
                out_k[g, j] = r
                out_s[g, j] = s
                g += 1
            if g >= count:
                break
            s += e
            e_prev = e
            r += 1
            i += 1
        nxt[j], taken[j], last[j], total[j] = g, r, e_prev, s
        if g < count:
            open_ += 1
    return open_


@numba.njit(**_JIT)
def bin_counts(plus, m, out_k, out_s, a, root, dim, edges, sizes, below, counts):
    """Add each release's bin at each a to ``counts`` (a × bins): the loss a·(d + middle) with
    d = P − m + K and middle = K − 2S/a, binned right-closed on that a's ``edges`` (its first
    ``sizes`` entries) as ``searchsorted(edges, loss, 'left') − 1``, clipped; whether it lies above
    the claim decided exactly (K = 0: the integers d > 0 and d² > n; else d + middle > √n), which
    overrides the bin at the edge ε (``below``: the bins under it)."""
    count, size = out_k.shape
    for g in range(count):
        n_edges = sizes[g]
        for j in range(size):
            k = out_k[g, j]
            d = plus[j] - m[j] + k
            middle = k - 2.0 * out_s[g, j] / a[g]
            loss = a[g] * (d + middle)
            if k == 0:
                above = d > 0 and d * d > dim
            else:
                above = d + middle > root
            lo, hi = 0, n_edges  # first edge >= loss
            while lo < hi:
                mid = (lo + hi) >> 1
                if edges[g, mid] < loss:
                    lo = mid + 1
                else:
                    hi = mid
            which = min(max(lo - 1, 0), n_edges - 2)
            if above:
                which = max(which, below[g])
            else:
                which = min(which, below[g] - 1)
            counts[g, which] += 1


def compile_now() -> None:
    """Compile (or load from numba's cache) by running once on a small case."""
    x = np.ones((2, 1))
    m, zi, zf = np.array([1]), np.zeros(1, dtype=np.int64), np.zeros(1)
    k, s = np.zeros((1, 1), dtype=np.int64), np.zeros((1, 1))
    walk(x, 0, m, zf.copy(), zf.copy(), zi.copy(), zi.copy(), np.array([1.0]), k, s)
    edges = np.array([[-1.0, 0.0, 1.0]])
    bin_counts(
        np.array([1]),
        m,
        k,
        s,
        np.array([1.0]),
        1.0,
        1,
        edges,
        np.array([3]),
        np.array([1]),
        np.zeros((1, 2), dtype=np.int64),
    )
