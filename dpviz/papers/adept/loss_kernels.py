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
# (the binning's two helpers are inlined into the walk by numba itself, ``inline="always"``: left to
# LLVM, they were called, and the privacy loss's frames along n took a tenth longer)


@numba.njit(inline="always", **_JIT)
def first_at_least(edges, n_edges, below, loss):
    """``searchsorted(edges[:n_edges], loss, 'left')``: the index of the first edge >= ``loss``, for
    edges made as :func:`dpviz.papers.adept.privacy_loss._bins` makes them, two even spacings that
    meet at ``edges[below]``. The even spacing gives a guess, and the guess is moved to the exact
    place by comparing with the edges themselves, so the answer is the binary search's whatever
    the rounding of the guess (tested against NumPy's, on the edges and a unit in the last place
    either side of each). A binary search over some 60 edges took 6 unpredictable branches a
    loss: half of the privacy loss's binning."""
    if not loss == loss:  # NaN: where the binary search ends (every comparison false)
        return 0
    first, middle, last = edges[0], edges[below], edges[n_edges - 1]
    if loss <= middle:
        x = (loss - first) / ((middle - first) / below)
        lo = int(np.ceil(x)) if x > 0.0 else 0
    elif n_edges - 1 > below and last > middle:
        x = (loss - middle) / ((last - middle) / (n_edges - 1 - below))
        lo = below + (int(np.ceil(x)) if x < n_edges else n_edges)
    else:
        lo = n_edges
    if lo > n_edges:
        lo = n_edges
    while lo > 0 and edges[lo - 1] >= loss:
        lo -= 1
    while lo < n_edges and edges[lo] < loss:
        lo += 1
    return lo


@numba.njit(inline="always", **_JIT)
def _bin_of(base, k, s, g, a, root, dim, edges, sizes, below):
    """One release's bin at ``a[g]`` (a row of ``counts``, a × bins): the loss a·(d + middle) with
    d = P − m + K (``base`` = P − m, K = ``k``) and middle = K − 2S/a (S = ``s``), binned
    right-closed on that a's ``edges`` (its first ``sizes`` entries) as
    ``searchsorted(edges, loss, 'left') − 1`` (:func:`first_at_least`), clipped; whether it lies
    above the claim decided exactly (K = 0: the integers d > 0 and d² > n; else d + middle > √n),
    which overrides the bin at the edge ε (``below``: the bins under it)."""
    n_edges = sizes[g]
    under = below[g]
    ag = a[g]
    d = base + k
    middle = k - 2.0 * s / ag
    loss = ag * (d + middle)
    if k == 0:
        above = d > 0 and d * d > dim
    else:
        above = d + middle > root
    which = min(max(first_at_least(edges[g], n_edges, under, loss) - 1, 0), n_edges - 2)
    if above:
        which = max(which, under)
    else:
        which = min(which, under - 1)
    return which


@numba.njit(inline="always", **_JIT)
def _add_to_bin(base, k, s, g, a, root, dim, edges, sizes, below, counts):
    """Add one release's bin at ``a[g]`` (:func:`_bin_of`) to ``counts``."""
    counts[g, _bin_of(base, k, s, g, a, root, dim, edges, sizes, below)] += 1


@numba.njit(inline="always", **_JIT)
def _none_below(runs, g0, g1, base, dim):
    """A release with K = 0 (no exponential at or below a) at every a of ``g0`` … ``g1`` − 1: its
    loss there is a·d, d = P − m = ``base``, the same bin for every release of that d, so the run
    is noted in ``runs`` (a + 1 × 2n + 1: +1 where it starts, −1 where it ends, by d + n) and
    binned once per (a, d) by :func:`bin_runs`."""
    runs[g0, base + dim] += 1
    runs[g1, base + dim] -= 1


@numba.njit(**_JIT)
def bin_runs(runs, a, root, dim, edges, sizes, below, counts):
    """Add the runs of :func:`_none_below` to ``counts``: at each a, how many releases of each d
    have K = 0 there (the runs' starts and ends summed over the a's so far), binned once per d as
    :func:`_bin_of` bins one (K = 0, S = 0): the same counts as a release at a time."""
    width = runs.shape[1]
    running = np.zeros(width, dtype=np.int64)
    for g in range(a.size):
        for i in range(width):
            running[i] += runs[g, i]
            if running[i]:
                counts[g, _bin_of(i - dim, 0, 0.0, g, a, root, dim, edges, sizes, below)] += running[i]


@numba.njit(**_JIT)
def bin_kept(kept, plus, m, a, root, dim, edges, sizes, below, counts):
    """Bin each release's loss at the one a (``kept``: its K and S, rows 0 and 1) into ``counts``,
    as :func:`_bin_of` bins it, in a pass of its own with no branch the data decide but a rare
    one: the bin's guess from the two even spacings (by multiplication, a guess only), moved one
    edge down or up by comparing with the edges themselves, then (seldom) further; whether it lies
    above the claim chosen, not branched on. The same bins as :func:`_bin_of` (tested), where
    binning in the walk, one release's guess and corrections at a time, mispredicted a branch or
    two a release: half of the walk's time along n."""
    n_edges = sizes[0]
    under = below[0]
    ag = a[0]
    e = edges[0]
    first, middle, last = e[0], e[under], e[n_edges - 1]
    lo_scale = under / (middle - first)
    upper = n_edges - 1 > under and last > middle
    hi_scale = (n_edges - 1 - under) / (last - middle) if upper else 0.0
    top = float(n_edges)
    lanes = np.zeros((4, n_edges), dtype=np.int64)  # (four tallies: a bin's count is not waited for by the next)
    for j in range(plus.size):
        k = int(kept[0, j])
        d = plus[j] - m[j] + k
        mid = k - 2.0 * kept[1, j] / ag
        loss = ag * (d + mid)
        above = ((d > 0) & (d * d > dim)) if k == 0 else (d + mid > root)
        x = (loss - first) * lo_scale if loss <= middle else (under + (loss - middle) * hi_scale if upper else top)
        x = min(max(x, 0.0), top)
        lo = int(np.ceil(x)) if loss == loss else 0
        lo -= (lo > 0) & (e[max(lo - 1, 0)] >= loss)
        lo += (lo < n_edges) & (e[min(lo, n_edges - 1)] < loss)
        while lo > 0 and e[lo - 1] >= loss:
            lo -= 1
        while lo < n_edges and e[lo] < loss:
            lo += 1
        which = min(max(lo - 1, 0), n_edges - 2)
        which = max(which, under) if above else min(which, under - 1)
        lanes[j & 3, which] += 1
    for i in range(n_edges - 1):
        counts[0, i] += lanes[0, i] + lanes[1, i] + lanes[2, i] + lanes[3, i]


@numba.njit(**_JIT)
def walk_binned(x, row0, plus, m, last, total, taken, nxt, a, root, dim, edges, sizes, below, counts, runs, kept):
    """Read rows ``row0`` … of the exponentials ``x`` (rows × releases) for each release not yet
    done: the r-th ascending exponential is E_r = E_{r−1} + x_r/(m − r); while E_r lies above the
    next a still open (``nxt``: its index), that a's K is r and S the sum so far, and the
    release's loss there is binned at once (:func:`_add_to_bin`, with ``plus`` = P, ``root`` = √n,
    ``dim`` = n), or, where K = 0 (before the first exponential), noted as a run of a's in
    ``runs`` for :func:`bin_runs` (along ε a third of the bins, the same bin for every release
    of the same P − m); with one a (``count`` 1: the frames along n, and any one histogram), its K
    and S are kept in ``kept`` instead and binned after the walk by :func:`bin_kept`. Once no a is
    open the release is done. ``last``, ``total``, ``taken``: E_{r−1},
    the sum of the exponentials read, how many (each release's state between chunks). Returns
    how many releases are not yet done.

    Until 2026-12-05 the walk wrote K and S to a releases × a table and a second pass read it
    back to bin them: along ε (97 a's) 12 MB a block, written and read once each; the one pass
    takes a sixth less time there, with the same arithmetic and so the same counts (the kept K
    and S of :func:`dpviz.papers.adept.privacy_loss._walked`, the sampler's, are binned the same
    way in the tests)."""
    rows, size = x.shape
    count = a.size
    single = count == 1  # (one a: K and S kept in ``kept`` for bin_kept; many: K = 0 noted in ``runs``)
    open_ = 0
    for j in range(size):
        g = nxt[j]
        if g >= count:
            continue
        base = plus[j] - m[j]
        r = taken[j]
        mj = m[j]
        e_prev = last[j]
        s = total[j]
        i = r - row0
        if not single and r == 0:  # K = 0 at the a's below the smallest exponential (all, if none): a run
            g1 = count
            if mj > 0:
                e = e_prev + x[i, j] / mj  # (E_0 as the walk below makes it)
                g1 = g
                while g1 < count and e > a[g1]:
                    g1 += 1
            if g1 > g:
                _none_below(runs, g, g1, base, dim)
                g = g1
        while g < count:
            if r >= mj:  # every exponential read: K = m at every a still open
                if single:
                    kept[0, j], kept[1, j] = r, s
                    g = count
                while g < count:
                    _add_to_bin(base, r, s, g, a, root, dim, edges, sizes, below, counts)
                    g += 1
                break
            if i >= rows:
                break
            e = e_prev + x[i, j] / (mj - r)
            if single:
                if e > a[0]:
                    kept[0, j], kept[1, j] = r, s
                    g = count
                    break
            else:
                while g < count and e > a[g]:
                    _add_to_bin(base, r, s, g, a, root, dim, edges, sizes, below, counts)
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
def _one_minus(c, s):
    """1 − cos x from cos x and sin x: sin²x/(1 + cos x) where cos x ≥ 0 (no cancellation for small x)."""
    return s * s / (1.0 + c) if c >= 0.0 else 1.0 - c


@numba.njit(inline="always", **_JIT)
def _cos_sin(j, cc, sc, cf, sf):
    """cos and sin of 2π·j/N by angle addition, from the coarse angles 2π·512·J/N (``cc``, ``sc``)
    and the fine 2π·i/N, i < 512 (``cf``, ``sf``)."""
    big, i = j >> 9, j & 511
    return cc[big] * cf[i] - sc[big] * sf[i], sc[big] * cf[i] + cc[big] * sf[i]


@numba.njit(**_JIT)
def frequency_table(size, twice_m, first):
    """What every ε shares at one n (:func:`dpviz.papers.adept.loss_bounds._frequencies`), per
    frequency k = 1 … (N − 1)/2 of N = ``size`` points, θ_k = 2πk/N: cos θ_k, sin θ_k, 1 − cos θ_k,
    e^{−iφ_k} (φ_k = 2M·θ_k, ``twice_m`` = 2M) and the tail's factor (e^{iθ_k t₀} − 1)/(1 − e^{iθ_k})
    (t₀ = ``first``), the complex ones as real and imaginary parts. Every angle is 2π·j/N for a
    whole j reduced mod N (φ_k's and the tail's too, so no angle grows with k); cos and sin of
    j = 0 … (N − 1)/2 by the angle-addition formulas from two tables of 512 angles each way
    (2π·512·J/N and 2π·i/N, i < 512: within 2 units in the last place, where a sine and a cosine
    per angle were most of the time), and of j past (N − 1)/2 by cos(2π(N − j)/N), −sin(…). Each
    angle is made where it is read (:func:`_cos_sin`), and φ_k's and the tail's j are stepped by
    addition from k to k + 1 (a table of every angle read out of order, and two integer divisions
    a frequency, were a fifth of the table's time; the numbers are the same to the last bit)."""
    half = (size - 1) // 2
    turn = 2.0 * np.pi / size
    step = 512
    coarse = half // step + 1
    cf, sf = np.empty(step), np.empty(step)
    for i in range(step):
        cf[i], sf[i] = np.cos(turn * i), np.sin(turn * i)
    cc, sc = np.empty(coarse), np.empty(coarse)
    for big in range(coarse):
        cc[big], sc[big] = np.cos(turn * (big * step)), np.sin(turn * (big * step))
    n_k = half
    cos_t, sin_t = np.empty(n_k), np.empty(n_k)
    omc = np.empty(n_k)
    ph_re, ph_im, tail_re, tail_im = np.empty(n_k), np.empty(n_k), np.empty(n_k), np.empty(n_k)
    jp, jt = 0, 0
    step_p, step_t = twice_m % size, first % size
    for k in range(1, half + 1):
        c, s = _cos_sin(k, cc, sc, cf, sf)
        jp += step_p
        if jp >= size:
            jp -= size
        jt += step_t
        if jt >= size:
            jt -= size
        o = _one_minus(c, s)
        if jp > half:
            cp, sp = _cos_sin(size - jp, cc, sc, cf, sf)
            sp = -sp
        else:
            cp, sp = _cos_sin(jp, cc, sc, cf, sf)
        if jt > half:
            cq, sq = _cos_sin(size - jt, cc, sc, cf, sf)
            sq = -sq
        else:
            cq, sq = _cos_sin(jt, cc, sc, cf, sf)
        nr, ni = -_one_minus(cq, sq), sq
        d2 = o * o + s * s
        i = k - 1
        cos_t[i], sin_t[i] = c, s
        omc[i] = o
        ph_re[i], ph_im[i] = cp, -sp
        tail_re[i] = (nr * o - ni * s) / d2
        tail_im[i] = (ni * o + nr * s) / d2
    return cos_t, sin_t, omc, ph_re, ph_im, tail_re, tail_im


@numba.njit(**_JIT, error_model="numpy")
def bound_sums(n, grow, lift, atom, cos, sin, omc, ph_re, ph_im, tail_re, tail_im):
    """Re Σ_k X_kⁿ·tail_k for the lattice rounded down and rounded up (the two bounds' sums,
    :func:`dpviz.papers.adept.loss_bounds.exceed_probability_bounds`): per frequency the geometric
    run's transform g = ½(r − 1)(e^{−iφ} − e^{−a})/(r e^{−iθ} − 1) (r − 1 = ``grow``, r = ``lift``,
    e^{−a} = ``atom``) plus the atoms' ½e^{−iφ} + ½e^{−a}, and rounded up g·e^{−iθ} instead of g;
    the n-th powers by repeated squaring, 256 frequencies at a time so that each squaring is one
    pass the processor does several frequencies of at once."""
    block = 256
    total = cos.shape[0]
    xr, xi, yr, yi = np.empty(block), np.empty(block), np.empty(block), np.empty(block)
    pr, pi, qr, qi = np.empty(block), np.empty(block), np.empty(block), np.empty(block)
    down, up = 0.0, 0.0
    half_grow = 0.5 * grow
    for k0 in range(0, total, block):
        kb = min(block, total - k0)
        for j in range(kb):
            k = k0 + j
            c, s = cos[k], sin[k]
            den_r, den_i = grow * c - omc[k], -(lift * s)  # r e^{−iθ} − 1
            num_r, num_i = half_grow * (ph_re[k] - atom), half_grow * ph_im[k]
            d2 = den_r * den_r + den_i * den_i
            g_r = (num_r * den_r + num_i * den_i) / d2
            g_i = (num_i * den_r - num_r * den_i) / d2
            a_r, a_i = 0.5 * ph_re[k] + 0.5 * atom, 0.5 * ph_im[k]
            xr[j], xi[j] = g_r + a_r, g_i + a_i
            yr[j], yi[j] = g_r * c + g_i * s + a_r, g_i * c - g_r * s + a_i
            pr[j], pi[j], qr[j], qi[j] = 1.0, 0.0, 1.0, 0.0
        m = n
        while True:
            if m & 1:
                for j in range(kb):
                    pr[j], pi[j] = pr[j] * xr[j] - pi[j] * xi[j], pr[j] * xi[j] + pi[j] * xr[j]
                    qr[j], qi[j] = qr[j] * yr[j] - qi[j] * yi[j], qr[j] * yi[j] + qi[j] * yr[j]
            m >>= 1
            if m == 0:
                break
            for j in range(kb):
                xr[j], xi[j] = xr[j] * xr[j] - xi[j] * xi[j], 2.0 * xr[j] * xi[j]
                yr[j], yi[j] = yr[j] * yr[j] - yi[j] * yi[j], 2.0 * yr[j] * yi[j]
        for j in range(kb):
            k = k0 + j
            down += pr[j] * tail_re[k] - pi[j] * tail_im[k]
            up += qr[j] * tail_re[k] - qi[j] * tail_im[k]
    return down, up


def compile_now() -> None:
    """Compile (or load from numba's cache) by running once on a small case."""
    zi, zf = np.zeros(1, dtype=np.int64), np.zeros(1)
    one, a = np.array([1]), np.array([1.0])
    edges, sizes, below = np.array([[-1.0, 0.0, 1.0]]), np.array([3]), np.array([1])
    counts, runs, kept = np.zeros((1, 2), dtype=np.int64), np.zeros((2, 3), dtype=np.int64), np.zeros((2, 1))
    state = (zf.copy(), zf.copy(), zi.copy(), zi.copy())
    walk_binned(np.ones((2, 1)), 0, one, one, *state, a, 1.0, 1, edges, sizes, below, counts, runs, kept)
    bin_kept(kept, one, one, a, 1.0, 1, edges, sizes, below, counts)
    bin_runs(runs, a, 1.0, 1, edges, sizes, below, counts)
    table = frequency_table(17, 4, 5)
    bound_sums(2, 0.1, 1.1, 0.5, *table)
