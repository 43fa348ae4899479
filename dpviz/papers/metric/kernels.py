"""Compiled inner loops of the exact metric-DP engine (:mod:`dpviz.papers.metric.mechanism`).

Each draw of the mechanism is a ray p(t) = w + t u (t = G / epsilon), and the nearest word along
it maximises 2 t b_v - a_v with a_v = ||phi(v) - w||^2 and b_v = u . (phi(v) - w)
(docs/formulas.md, section 2). Only Pareto-optimal words (no other word both closer to w and with
a larger b) can ever be nearest. These loops find them in one pass over the matrix as stored:

- :func:`raise_thresholds` seeds those thresholds from a pilot sample of words.
- :func:`scan_block` reads one block of the product [U; w] . phi(block)^T, which the caller
  computes with BLAS into a buffer that stays in cache, and keeps a word for a draw only if its
  b beats a threshold: the best b among words surely closer than the word's distance band.
  Per word it costs one distance, one table lookup and one vectorised comparison of the draws;
  per kept word it raises the thresholds of the farther bands.
- :func:`pareto_fronts` reduces each draw's kept words to those no kept word surely dominates.
- :func:`upper_envelopes` computes, in float64, each draw's upper envelope of the lines
  2 t b_v - a_v over t > 0: which word is nearest between which breakpoints.

Written with numba because each is a loop with a rare branch: in numpy the same work takes
several passes over the product, more than the matrix multiply itself at d = 50.
"""

from __future__ import annotations

import numba
import numpy as np

_JIT = dict(cache=True, nogil=True)  # compiled once per installation; threads run them in parallel


@numba.njit(**_JIT)
def _first_above(edges, x):
    """Index of the first edge > x (edges ascending)."""
    lo, hi = 0, edges.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if edges[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    return lo


@numba.njit(**_JIT)
def threshold32(best, tol_b):
    """The float32 threshold a word's b must beat: best - 2 tol_b, rounded down (never up) to float32."""
    lim = best - 2.0 * tol_b
    f = np.float32(lim)
    if f > lim:
        f = np.nextafter(f, np.float32(-np.inf))
    return f


@numba.njit(**_JIT)
def fill_thresholds(best, tol_b, floor):
    """floor[j, k] = threshold32(best[j, k], tol_b) for every band j and draw k < best.shape[1]."""
    for j in range(best.shape[0]):
        for k in range(best.shape[1]):
            floor[j, k] = threshold32(best[j, k], tol_b)


@numba.njit(**_JIT)
def scan_block(
    prod, begin, n, start, m, sq, ww, grid_lo, grid_inv, grid_band, edges, tol_a, tol_b, best, floor, out, nout
):
    """Test rows ``begin..n-1`` of ``prod`` (row i is word start + i; columns 0..m-1 hold u_k . phi(v),
    column m holds phi(v) . w) and append every kept (draw, word, a, b) to ``out`` (columns: draw,
    word, a, b as float64) from row ``nout`` on.

    a = sq[v] - 2 phi(v) . w + ww. The word's band is the last edge <= a - tol_a, read from a grid
    (``grid_band[c]``: the last edge <= the start of cell c; never above the exact band, so never a
    higher threshold). It is kept for draw k if its b > floor[band, k], where ``best[j, k]`` is the
    best b of words known to satisfy a + tol_a < edges[j] and ``floor`` its :func:`threshold32`.
    A kept word raises ``best`` and ``floor`` of every band whose edge is above
    its a + tol_a. Returns (rows of ``out`` used, the row reached): below n when ``out`` is full
    (the caller grows it and calls again from that row)."""
    nb = edges.shape[0]
    cells = grid_band.shape[0]
    cap = out.shape[0]
    band = np.empty(n, dtype=np.int64)
    dist = np.empty(n)
    for i in range(begin, n):  # each word's a and band first: independent iterations the CPU overlaps
        a = sq[start + i] - 2.0 * np.float64(prod[i, m]) + ww
        dist[i] = a
        z = a - tol_a - grid_lo
        band[i] = 0 if z < 0.0 else grid_band[int(min(z * grid_inv, cells - 1.0))]  # clamped before int()
    for i in range(begin, n):
        j = band[i]
        hit = False
        for k in range(floor.shape[1]):  # vectorised: no branch inside (padding columns: floor +inf)
            hit |= prod[i, k] > floor[j, k]
        if not hit:
            continue
        if nout + m > cap:
            return nout, i
        a = dist[i]
        first = _first_above(edges, a + tol_a)
        for k in range(m):
            if prod[i, k] > floor[j, k]:
                b = np.float64(prod[i, k])
                out[nout, 0] = k
                out[nout, 1] = start + i
                out[nout, 2] = a
                out[nout, 3] = b
                nout += 1
                f = threshold32(b, tol_b)
                for jj in range(first, nb):
                    if b <= best[jj, k]:
                        break  # best is non-decreasing along the bands: the rest are higher already
                    best[jj, k] = b
                    floor[jj, k] = f
    return nout, n


@numba.njit(**_JIT)
def raise_thresholds(first, prod, best):
    """best[first[i], k] = max(best[first[i], k], prod[i, k]) for every listed word i and draw k
    (k < best.shape[1]; words with first[i] beyond the last band raise nothing)."""
    for i in range(first.shape[0]):
        j = first[i]
        if j < best.shape[0]:
            for k in range(best.shape[1]):
                if prod[i, k] > best[j, k]:
                    best[j, k] = prod[i, k]


@numba.njit(**_JIT)
def pareto_fronts(m, draw, word, a, b, tol_a, tol_b):
    """Per draw, the listed words no other listed word surely dominates: none is surely closer
    (a_q + tol_a < a_v - tol_a) with a b surely at least as large (b_q >= b_v + 2 tol_b); such a q
    beats v at every t > 0, so v is never nearest. Each (draw, word)
    is listed at most once. Returns (offsets, words): draw k's words are
    words[offsets[k]:offsets[k + 1]], in order of a."""
    n_all = draw.shape[0]
    offsets = np.zeros(m + 1, dtype=np.int64)
    for q in range(n_all):
        offsets[draw[q] + 1] += 1
    for k in range(m):
        offsets[k + 1] += offsets[k]
    slot = offsets[:-1].copy()
    key = np.empty(n_all)
    idx = np.empty(n_all, dtype=np.int64)
    for q in range(n_all):  # grouped by draw, in listed order
        key[slot[draw[q]]] = a[q]
        idx[slot[draw[q]]] = q
        slot[draw[q]] += 1
    out = np.empty(n_all, dtype=np.int64)
    out_off = np.zeros(m + 1, dtype=np.int64)
    n_out = 0
    for k in range(m):
        s, e = offsets[k], offsets[k + 1]
        order = idx[s:e][np.argsort(key[s:e], kind="mergesort")]
        run = -np.inf  # best b among words surely closer than the current one
        p = 0
        for i in range(order.shape[0]):
            qi = order[i]
            while p < i and a[order[p]] + tol_a < a[qi] - tol_a:
                run = max(run, b[order[p]])
                p += 1
            if b[qi] > run - 2.0 * tol_b:
                out[n_out] = word[qi]
                n_out += 1
        out_off[k + 1] = n_out
    return out_off, out[:n_out]


@numba.njit(**_JIT)
def upper_envelopes(vec64, pos, words, offsets, w, u):
    """Each draw's upper envelope over t > 0 of the lines 2 t b_v - a_v of its candidates, with
    a_v = ||phi(v) - w||^2 and b_v = u_k . (phi(v) - w) in float64 (``vec64[pos[q]]`` is the
    vector of candidate ``words[q]``; draw k's candidates are offsets[k]..offsets[k + 1]).

    At t -> 0 the winner has the smallest a (then the largest b, then the smallest id, so exact
    ties of duplicate vectors go to the smaller id); from the current winner c the next one is
    the line of larger slope crossing it first, at t = (a_v - a_c) / (2 (b_v - b_c)); lines
    crossing at the same t: the steepest wins. Returns (breaks, winners): the word winners[k, j]
    is nearest for t between breaks[k, j-1] and breaks[k, j] (+inf and -1 pad)."""
    m, d = u.shape
    width = 1
    for k in range(m):
        width = max(width, offsets[k + 1] - offsets[k])
    breaks = np.full((m, width), np.inf)
    winners = np.full((m, width + 1), -1, dtype=np.int64)
    for k in range(m):
        s, n = offsets[k], offsets[k + 1] - offsets[k]
        a = np.empty(n)
        b = np.empty(n)
        ids = words[s : s + n].copy()
        for q in range(n):
            v = vec64[pos[s + q]]
            sa = 0.0
            sb = 0.0
            for c in range(d):
                diff = v[c] - w[c]
                sa += diff * diff
                sb += diff * u[k, c]
            a[q], b[q] = sa, sb
        for i in range(1, n):  # insertion sort: a up, b down, id up (a few dozen candidates)
            ai, bi, ii = a[i], b[i], ids[i]
            j = i - 1
            while j >= 0 and (a[j] > ai or (a[j] == ai and (b[j] < bi or (b[j] == bi and ids[j] > ii)))):
                a[j + 1], b[j + 1], ids[j + 1] = a[j], b[j], ids[j]
                j -= 1
            a[j + 1], b[j + 1], ids[j + 1] = ai, bi, ii
        for i in range(n - 1, 0, -1):  # identical lines: the smaller id (listed first) stays
            if a[i] == a[i - 1] and b[i] == b[i - 1]:
                a[i], b[i] = np.inf, -np.inf
        if n == 0:
            continue
        winners[k, 0] = ids[0]
        cur, t_cur = 0, 0.0
        for step in range(n):
            t_min, nxt = np.inf, -1
            for q in range(n):
                if b[q] > b[cur] and a[q] < np.inf:
                    t = max((a[q] - a[cur]) / (2.0 * (b[q] - b[cur])), t_cur)
                    if t < t_min or (t == t_min and b[q] > b[nxt]):
                        t_min, nxt = t, q
            if nxt < 0:
                break
            breaks[k, step] = t_min
            winners[k, step + 1] = ids[nxt]
            cur, t_cur = nxt, t_min
    return breaks, winners


@numba.njit(**_JIT)
def envelope_stats(g, breaks, local, outputs, epsilons, word_local, held_below):
    """One word's releases at every ε from its envelopes (:class:`dpviz.papers.metric.mechanism.Envelopes`)
    and the statistics of each ε's column: what ``Envelopes.pieces`` and ``column_stats`` give, in
    one pass per column and no sort. ``local`` is the envelope's winners as indices into its
    ``outputs`` distinct winners in ascending order (``word_local``: the word's index, or -1).
    Per draw i and ε_j the piece is the number of the draw's (ascending, +inf padded) breakpoints
    below t = g_i/ε_j and the release ``local[i, piece]``, counted per output; then, the outputs
    read in value order, with c an output's count and p = c/N: N_w (releases of the word), S_w
    (outputs with c > 0), H_0 = log S_w, H_1 = −Σ p log p (summed in value order), H_2 = −log Σ p²,
    H_∞ = −log(max c / N), and S_w^η, the fewest outputs, most frequent first, whose draws reach
    ``held_below`` = (1 − η)N − 1e-9 (the counts taken largest first from a tally of the counts).
    Each column's numbers are its own alone (a single ε and a slider's grid give the same bits).
    Returns the pieces (draws, epsilons) and the statistics (7, epsilons): n_w, s_w, s_w_eta, H_0,
    H_1, H_2, H_inf."""
    n, nb = breaks.shape
    m = epsilons.shape[0]
    size = outputs.shape[0]
    pieces = np.empty((n, m), dtype=np.int64)
    stats = np.zeros((7, m))
    count = np.zeros(size, dtype=np.int64)
    tally = np.zeros(n + 1, dtype=np.int64)  # how many outputs have each count
    for j in range(m):
        eps = epsilons[j]
        for i in range(n):
            t = g[i] / eps
            k = 0
            while k < nb and breaks[i, k] < t:
                k += 1
            pieces[i, j] = k
            count[local[i, k]] += 1
        runs = 0
        top = 0
        h1 = 0.0
        h2 = 0.0
        for r in range(size):
            c = count[r]
            if c > 0:
                p = c / n
                h1 += p * np.log(p)
                h2 += p * p
                top = max(top, c)
                runs += 1
                tally[c] += 1
        kept = count[word_local] if word_local >= 0 else 0
        count[:] = 0
        held = 0
        short = 0
        for c in range(n, 0, -1):
            for _ in range(tally[c]):
                held += c
                if held < held_below:
                    short += 1
            tally[c] = 0
        stats[0, j] = kept
        stats[1, j] = runs
        stats[2, j] = min(short + 1, runs)
        stats[3, j] = np.log(runs)
        stats[4, j] = -h1
        stats[5, j] = -np.log(h2)
        stats[6, j] = -np.log(top / n)
    return pieces, stats
