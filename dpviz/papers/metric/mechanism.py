"""Metric DP over word embeddings: the multivariate Laplace mechanism with nearest-word
decoding, and its plausible-deniability statistics (Feyisetan et al. 2020;
docs/formulas.md, section 2).

Mechanism: M(w) = the vocabulary word nearest to phi(w) + z, with noise density
p(z) ~ exp(-epsilon ||z||_2). Sampling: z = r u, u uniform on the unit sphere (a normalised
standard normal vector), r ~ Gamma(shape d, scale 1/epsilon). We draw G ~ Gamma(d, 1) once
per draw and use r = G / epsilon for every epsilon (common random numbers), so one draw
is a ray p(t) = phi(w) + t u with t = G / epsilon.

Exact engine. ||phi(v) - p(t)||^2 = a_v - 2 t b_v + t^2 + const with a_v = ||phi(v) - phi(w)||^2
and b_v = u . (phi(v) - phi(w)) (docs/formulas.md, section 2). For t > 0 the nearest word maximises
2 t b_v - a_v, so it is Pareto-optimal in (small a, large b): no word has both a smaller
(or equal) a and a larger (or equal) b. With the vocabulary sorted by a_v once per word, the
Pareto-optimal words of a draw are the running-maximum records of b along that order: about
ln V of them for V words. So per draw block: one matrix multiply U . phi_sorted^T (the product
any exact method needs), a per-chunk max reduction that skips chunks without a record,
and a float64 evaluation of the few candidates at every epsilon. Results equal brute-force
search on the same draws (ties, which have probability zero, go to the smaller word id).

Statistics per word over N draws: N_w = #{M(w) = w}; S_w = number of distinct outputs;
S_w^eta = size of the smallest set of outputs holding at least 1 - eta of the draws.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from dpviz.data.embeddings import Embedding
from dpviz.errors import InputError
from dpviz.progress import Progress
from dpviz.stats import stream

CHUNK = 2048  # vocabulary columns per block (a block of scores stays in cache)
DRAW_BLOCK = 256


def sample_directions_and_radii(dim: int, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """u: (n, dim) uniform on the unit sphere; G: (n,) ~ Gamma(dim, 1), so r = G/epsilon."""
    u = rng.standard_normal((n, dim))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return u, rng.gamma(shape=dim, scale=1.0, size=n)


def word_stream(seed: int, word_id: int) -> np.random.Generator:
    """Each word's draws come from (seed, word id): independent of which words run with it."""
    return stream(seed, 2020, int(word_id))


def _check_epsilons(epsilons) -> np.ndarray:
    eps = np.asarray(epsilons, dtype=float)
    if eps.ndim != 1 or eps.size == 0 or np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise InputError(f"epsilons must be finite numbers > 0, got {list(np.atleast_1d(eps))[:5]}")
    return eps


def nearest_words(emb: Embedding, word_id: int, u: np.ndarray, g: np.ndarray, epsilons) -> np.ndarray:
    """Exact M(w) for every draw (rows) and epsilon (columns), as vocabulary ids."""
    return draw_envelopes(emb, emb.row64(word_id), u, g, self_id=word_id).outputs(epsilons)


def nearest_words_from_point(
    emb: Embedding, point: np.ndarray, u: np.ndarray, g: np.ndarray, epsilons, self_id: int | None = None
) -> np.ndarray:
    """Exact nearest vocabulary word to point + (G/epsilon) u for every draw and epsilon.
    ``point`` may be any vector (e.g. a fastText subword vector of an unknown word)."""
    return draw_envelopes(emb, point, u, g, self_id=self_id).outputs(epsilons)


@dataclass(frozen=True)
class Envelopes:
    """Each draw's output for every epsilon at once: along the ray point + t u (t = G/epsilon)
    the nearest word changes only at a few breakpoints. Row i: the word ``winners[i, j]`` is
    nearest for t between ``breaks[i, j-1]`` and ``breaks[i, j]`` (from t = 0 for j = 0;
    unused breakpoints are +inf). Evaluating any epsilon is a comparison per breakpoint."""

    g: np.ndarray  # (n,) Gamma(d, 1) radii: t = g / epsilon
    breaks: np.ndarray  # (n, B) ascending, +inf padded
    winners: np.ndarray  # (n, B + 1) vocabulary ids

    def outputs(self, epsilons) -> np.ndarray:
        """M(w) for every draw (rows) and epsilon (columns)."""
        eps = _check_epsilons(epsilons)
        t = self.g[:, None] / eps[None, :]
        idx = (self.breaks[:, None, :] < t[:, :, None]).sum(-1)
        return np.take_along_axis(self.winners, idx, axis=1)


def draw_envelopes(
    emb: Embedding, point: np.ndarray, u: np.ndarray, g: np.ndarray, self_id: int | None = None
) -> Envelopes:
    """The exact output of every draw at every epsilon, as :class:`Envelopes` (the epsilon-free
    state of a word's draws). The candidates are each draw's Pareto-optimal words in (small a,
    large b): for a small matrix the running-maximum records along the vocabulary sorted by a
    (:func:`_record_candidates`), for a large one :func:`_front_candidates`, one pass of blocked
    float32 matrix multiplies over the matrix as stored (memory-mapped, never copied or
    reordered); both keep near-ties within float32 tolerances. Their upper envelope of lines
    2 t b_v - a_v is computed in float64 from a_v = ||phi(v) - point||^2 and b_v = u . (phi(v) - point)."""
    w = np.asarray(point, dtype=np.float64)
    sorted_route = _takes_sorted_route(emb)
    if sorted_route:
        order, tol = _sorted_vocabulary(emb, w, self_id)
        positions = _record_candidates(u.astype(np.float32), emb.rows32, order, emb.dim, tol)
    parts = []
    for s in range(0, len(u), DRAW_BLOCK):
        ub = u[s : s + DRAW_BLOCK]
        if sorted_route:
            cand = [order[c] for c in positions[s : s + DRAW_BLOCK]]
        else:
            cand = _front_candidates(emb, w, ub, self_id)
        parts.append(_envelope_block(emb.vectors, w, cand, ub))
    width = max(p[0].shape[1] for p in parts)
    breaks = np.concatenate([np.pad(b, ((0, 0), (0, width - b.shape[1])), constant_values=np.inf) for b, _ in parts])
    winners = np.concatenate([np.pad(c, ((0, 0), (0, width - c.shape[1] + 1)), constant_values=-1) for _, c in parts])
    return Envelopes(np.asarray(g, dtype=np.float64), breaks, winners)


SORTED_ROUTE_BYTES = 128 * 2**20
"""Matrices up to this size (float32) take the sorted route: per word, the vocabulary ordered by
distance (an argsort of V floats), read in that order chunk by chunk, whose running-maximum
records are cheap to find (GloVe 6B 50d: 80 MB). Larger ones (the papers' 300-d vocabularies of
1-3 million words) stream the matrix as stored (:func:`_front_candidates`), with no sort. Neither
copies the matrix."""


def _takes_sorted_route(emb: Embedding) -> bool:
    return emb.size * emb.dim * 4 <= SORTED_ROUTE_BYTES


PILOT = 4096
"""Words (evenly spaced ids) whose front seeds the thresholds before the pass over the matrix."""
BANDS = 40
"""Distance bands: a word is tested against the best b of the words surely closer than its band."""
NEAR_SHARE = 0.05
"""Words beyond this share of the nearest are first tested against one threshold per draw."""


def _front_candidates(emb: Embedding, w: np.ndarray, ub: np.ndarray, self_id: int | None) -> list[np.ndarray]:
    """Per draw, word ids containing every Pareto-optimal word: no other word has both a smaller
    a = ||phi(v) - w||^2 and a larger b' = u . phi(v) (b' = b + u . w, the same order as b).

    One pass over the vocabulary in stored order, in blocks of CHUNK rows: [U; w] times the block
    (float32; the extra row gives phi(v) . w, hence a) -- the product any exact method needs. A word
    is kept if its b' beats (within tolerances) T[draw, band], the best b' among words known to be
    closer than every word of its distance band; T starts from a pilot sample of PILOT words and
    rises as the pass finds words. Kept words are a small superset of the front (float32 errors are
    bounded by tol_a and tol_b: about 8 d 2^-24 times the norms involved), which the float64
    envelope then decides exactly."""
    x = emb.vectors
    size, d = x.shape
    m = len(ub)
    sq = emb.sq_norms
    ww = float(w @ w)
    scale = float(np.sqrt(sq.max()))
    eps32 = 8 * d * 2.0**-24
    tol_b = eps32 * scale  # |u| = 1
    tol_a = eps32 * 2 * scale * float(np.sqrt(ww)) + 1e-12 * (scale + np.sqrt(ww)) ** 2
    lhs = np.vstack([ub, w[None, :]]).astype(np.float32)  # (m + 1, d)

    def distances(where, prod):
        """a = ||phi(v)||^2 - 2 phi(v) . w + ||w||^2 from the product's last row."""
        return sq[where] - 2 * prod[m].astype(np.float64) + ww

    pilot = np.unique(np.linspace(0, size - 1, min(PILOT, size)).astype(np.int64))
    if self_id is not None:
        pilot = np.union1d(pilot, [self_id])
    prod_p = lhs @ np.asarray(x[pilot], dtype=np.float32).T
    a_p, b_p = distances(pilot, prod_p), prod_p[:m]
    levels = np.unique(np.concatenate([[0.0], np.geomspace(1.0 / len(pilot), 1.0, BANDS - 1)]))
    edges = np.concatenate(
        [[-np.inf], np.quantile(a_p, levels)[1:-1], [np.inf]]
    )  # band j: edges[j] <= a < edges[j + 1]
    best = np.full((m, len(edges)), -np.inf)  # best[r, j]: max b' of known words with a + tol_a < edges[j]

    def learn(r, a, b):
        j = np.searchsorted(edges, a + tol_a, side="right")  # first edge above a + tol_a
        np.maximum.at(best, (r, np.minimum(j, len(edges) - 1)), b)
        np.maximum.accumulate(best, axis=1, out=best)

    learn(np.repeat(np.arange(m), len(pilot)), np.tile(a_p, m), b_p.ravel().astype(np.float64))
    floor = (best - 2 * tol_b).astype(np.float32)  # the thresholds as the test reads them
    near_band = int(np.searchsorted(levels, NEAR_SHARE))  # bands below: the nearest ~NEAR_SHARE of words
    hit_r, hit_i, hit_a, hit_b = [], [], [], []
    buf = np.empty((m + 1, CHUNK), dtype=np.float32)
    for start in range(0, size, CHUNK):
        stop = min(start + CHUNK, size)
        n = stop - start
        block = np.asarray(x[start:stop], dtype=np.float32)
        prod = np.matmul(lhs, block.T, out=buf[:, :n])  # the matrix multiply
        a = distances(slice(start, stop), prod)
        # most words are far: one threshold per draw (the lowest of the far bands) finds a superset of
        # their hits without a per-word lookup; the few near words are tested against their own band
        rows = np.flatnonzero(prod[:m].max(axis=1) > floor[:, near_band])
        r, c = np.nonzero(prod[rows] > floor[rows, near_band, None])
        r = rows[r]
        near = np.flatnonzero(a - tol_a < edges[near_band])
        if near.size:
            rn, cn = np.nonzero(prod[:m, near] > floor[:, _band(edges, a[near], tol_a)])
            r, c = np.concatenate([r, rn]), np.concatenate([c, near[cn]])
        keep = prod[r, c] > floor[r, _band(edges, a[c], tol_a)]
        r, c = r[keep], c[keep]
        if r.size:
            b = prod[r, c].astype(np.float64)
            hit_r.append(r)
            hit_i.append(c + start)
            hit_a.append(a[c])
            hit_b.append(b)
            learn(r, a[c], b)
            floor = (best - 2 * tol_b).astype(np.float32)
    r = np.concatenate(hit_r + [np.arange(m)] * (self_id is not None))
    ids = np.concatenate(hit_i + [np.full(m, self_id)] * (self_id is not None))
    a = np.concatenate(hit_a + [np.zeros(m)] * (self_id is not None))
    b = np.concatenate(hit_b + [ub @ w.astype(np.float32)] * (self_id is not None)).astype(np.float64)
    return _pareto_per_draw(m, r, ids, a, b, tol_a, tol_b)


def _band(edges: np.ndarray, a: np.ndarray, tol_a: float) -> np.ndarray:
    """The band each word surely lies in or beyond: the last edge at most a - tol_a."""
    return np.searchsorted(edges, a - tol_a, side="right") - 1


def _pareto_per_draw(m, r, ids, a, b, tol_a, tol_b) -> list[np.ndarray]:
    """Per draw, the words not surely dominated: no other word is surely closer (a + tol_a smaller
    than this word's a - tol_a) with a surely larger b' (by more than 2 tol_b)."""
    order = np.lexsort((ids, a, r))
    r, ids, a, b = r[order], ids[order], a[order], b[order]
    bounds = np.searchsorted(r, np.arange(m + 1))
    out = []
    for k in range(m):
        ik, ak, bk = ids[bounds[k] : bounds[k + 1]], a[bounds[k] : bounds[k + 1]], b[bounds[k] : bounds[k + 1]]
        ik, first = np.unique(ik, return_index=True)
        ak, bk = ak[first], bk[first]
        srt = np.argsort(ak, kind="stable")
        ik, ak, bk = ik[srt], ak[srt], bk[srt]
        run = np.maximum.accumulate(bk)
        # best b' among words whose a + tol_a is below this word's a - tol_a
        j = np.searchsorted(ak + tol_a, ak - tol_a, side="left") - 1
        beaten = np.where(j >= 0, run[np.maximum(j, 0)], -np.inf)
        out.append(ik[bk > beaten - 2 * tol_b])
    return out


def _sorted_vocabulary(emb: Embedding, w: np.ndarray, self_id: int | None) -> tuple[np.ndarray, float]:
    """The vocabulary ordered by a_v = ||phi(v) - w||^2 in float64 (w itself first when it is a
    word), and the tolerance the candidate search keeps near-records by: float32 dot products can
    be off by ~d * 2^-24 * |u| |phi(v)|. Computed block by block from the float32 matrix (no
    float64 copy of it)."""
    a = np.maximum(emb.sq_norms - 2 * emb.dot64(w) + w @ w, 0.0)
    if self_id is not None:
        a[self_id] = 0.0
    order = np.argsort(a)
    return order, 8 * emb.dim * 2.0**-24 * float(np.sqrt(emb.sq_norms.max()))


def _envelope_block(x, w, cand, ub) -> tuple[np.ndarray, np.ndarray]:
    """Upper envelope over t > 0 of the lines 2 t b_v - a_v of each draw's candidates.

    At t -> 0 the winner has the smallest a (then the largest b, then the smallest id: exact
    ties of duplicate vectors go to the smaller id, as a stable scan would); from the current
    winner c the next one is the line of larger slope that crosses it first, at
    t = (a_v - a_c) / (2 (b_v - b_c)). Vectorised over the draws, one step per breakpoint."""
    m, k = len(cand), max(len(c) for c in cand)
    ids = np.full((m, k), -1, dtype=np.int64)
    for i, c in enumerate(cand):
        ids[i, : len(c)] = c
    valid = ids >= 0
    needed, pos = np.unique(np.where(valid, ids, 0), return_inverse=True)
    vectors = np.asarray(x[needed], dtype=np.float64)  # only the candidates in float64
    diff = vectors[pos.reshape(m, k)] - w[None, None, :]  # (m, k, d)
    a = np.where(valid, np.einsum("mkd,mkd->mk", diff, diff), np.inf)
    b = np.where(valid, np.einsum("mkd,md->mk", diff, ub), -np.inf)
    ids = np.where(valid, ids, np.iinfo(np.int64).max)
    srt = np.lexsort((ids, -b, a))  # per row: a up, b down, id up
    a, b, ids = (np.take_along_axis(arr, srt, axis=1) for arr in (a, b, ids))
    dup = np.zeros_like(valid)
    dup[:, 1:] = (a[:, 1:] == a[:, :-1]) & (b[:, 1:] == b[:, :-1])  # identical lines: keep the smaller id
    a, b = np.where(dup, np.inf, a), np.where(dup, -np.inf, b)
    rows = np.arange(m)
    cur = np.zeros(m, dtype=np.int64)
    t_cur = np.zeros(m)
    breaks = np.full((m, k), np.inf)
    winners = np.full((m, k + 1), -1, dtype=np.int64)
    winners[:, 0] = ids[:, 0]
    for step in range(k):
        ac, bc = a[rows, cur][:, None], b[rows, cur][:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (a - ac) / (2 * (b - bc))
        t = np.where((b > bc) & np.isfinite(a), np.maximum(t, t_cur[:, None]), np.inf)
        t_min = t.min(axis=1)
        active = np.isfinite(t_min)
        if not active.any():
            break
        nxt = np.where(t == t_min[:, None], b, -np.inf).argmax(axis=1)  # simultaneous crossings: the steepest wins
        breaks[active, step] = t_min[active]
        winners[active, step + 1] = ids[rows[active], nxt[active]]
        cur = np.where(active, nxt, cur)
        t_cur = np.where(active, t_min, t_cur)
    used = int(np.isfinite(breaks).sum(axis=1).max())
    return breaks[:, :used], winners[:, : used + 1]


def nearest_words_direct(emb: Embedding, word_id: int, u: np.ndarray, g: np.ndarray, epsilons) -> np.ndarray:
    """The engine before envelopes, kept as a reference route: the same candidates, then for
    every epsilon the float64 distance to each candidate from the noisy point itself."""
    eps = _check_epsilons(epsilons)
    x64 = emb.vectors64
    w = x64[word_id]
    order, tol = _sorted_vocabulary(emb, w, word_id)
    positions = _record_candidates(u.astype(np.float32), emb.rows32, order, emb.dim, tol)
    out = np.empty((len(u), len(eps)), dtype=np.int64)
    for s in range(0, len(u), DRAW_BLOCK):
        ub = u[s : s + DRAW_BLOCK]
        cand = positions[s : s + DRAW_BLOCK]
        out[s : s + len(ub)] = _decide(x64, w, order, cand, ub, g[s : s + DRAW_BLOCK], eps)
    return out


def _record_candidates(
    u32: np.ndarray, rows32: np.ndarray, order: np.ndarray, dim: int, tol: float
) -> list[np.ndarray]:
    """Per draw, sorted positions whose u . phi(v) exceeds (within tol) the maximum over all
    closer words: the records of the running maximum, plus the few words that beat the
    maximum of earlier chunks but not an earlier word of their own chunk (a small superset,
    about 1/k extra per draw in chunk k). The first chunk uses exact running records.

    The vocabulary is read in the order ``order`` one chunk at a time: each chunk's rows are
    gathered (``rows32``: the matrix as whole rows) into a buffer that stays in cache and
    multiplied by every block of draws, so no reordered copy of the matrix is ever made."""
    m, size = len(u32), len(order)
    blocks = [(s, min(m, s + DRAW_BLOCK)) for s in range(0, m, DRAW_BLOCK)]
    rows_buf = np.empty(CHUNK, dtype=rows32.dtype)
    chunk32 = rows_buf.view(np.float32).reshape(CHUNK, dim)
    n0 = min(CHUNK, size)
    np.take(rows32, order[:n0], out=rows_buf[:n0], mode="clip")  # indices are valid: no bounds buffer
    first = u32 @ chunk32[:n0].T
    run = np.maximum.accumulate(first, axis=1)
    prev = np.concatenate([np.full((m, 1), -np.inf, dtype=first.dtype), run[:, :-1]], axis=1)
    r0, c0 = np.nonzero(first > prev - tol)
    rows, cols = [r0], [c0]
    thr = run[:, -1] - tol  # running maximum so far, minus the tolerance
    prod_buf = np.empty((DRAW_BLOCK, CHUNK), dtype=np.float32)  # reused: no fresh allocation per chunk
    for start in range(CHUNK, size, CHUNK):
        n = min(CHUNK, size - start)
        np.take(rows32, order[start : start + n], out=rows_buf[:n], mode="clip")
        x = chunk32[:n]
        for s, e in blocks:
            ub = u32[s:e]
            block = np.matmul(ub, x.T, out=prod_buf[: e - s]) if n == CHUNK else ub @ x.T  # the matrix multiply
            top = block.max(axis=1)
            hit = np.flatnonzero(top > thr[s:e])  # a cheap reduction first: most rows have no candidate
            if hit.size:
                r, c = np.nonzero(block[hit] > thr[s + hit, None])
                rows.append(s + hit[r])
                cols.append(c + start)
                np.maximum(thr[s:e], top - tol, out=thr[s:e])
    r, c = np.concatenate(rows), np.concatenate(cols)
    by_draw = np.argsort(r, kind="stable")
    r, c = r[by_draw], c[by_draw]
    bounds = np.searchsorted(r, np.arange(m + 1))
    return [c[bounds[i] : bounds[i + 1]] for i in range(m)]


def _decide(x64, w, order, cand, ub, g, eps) -> np.ndarray:
    """Exact float64 nearest word among each draw's candidates, at every epsilon."""
    k = max(len(c) for c in cand)
    ids = np.full((len(cand), k), -1, dtype=np.int64)
    for i, c in enumerate(cand):
        ids[i, : len(c)] = order[c]
    valid = ids >= 0
    vec = x64[np.where(valid, ids, 0)]  # (m, k, d)
    t = g[:, None] / eps[None, :]  # (m, E)
    points = w[None, None, :] + t[:, :, None] * ub[:, None, :]  # (m, E, d)
    d2 = (
        np.einsum("mkd,mkd->mk", vec, vec)[:, :, None]
        - 2 * np.einsum("mkd,med->mke", vec, points)
        + np.einsum("med,med->me", points, points)[:, None, :]
    )
    d2 = np.where(valid[:, :, None], d2, np.inf)
    # ties (probability zero) go to the smaller vocabulary id, as a stable scan would
    best = d2.min(axis=1, keepdims=True)
    tied = np.where(d2 <= best, ids[:, :, None], np.iinfo(np.int64).max)
    return tied.min(axis=1)


def nearest_words_bruteforce(
    emb: Embedding, word_id: int, u: np.ndarray, g: np.ndarray, epsilons, index=None
) -> np.ndarray:
    """Reference route: one exact faiss IndexFlatL2 search over the whole vocabulary per epsilon."""
    import faiss

    eps = _check_epsilons(epsilons)
    if index is None:
        index = faiss.IndexFlatL2(emb.dim)
        index.add(np.ascontiguousarray(emb.vectors, dtype=np.float32))
    w = np.asarray(emb.vectors[word_id], dtype=np.float64)
    out = np.empty((len(u), len(eps)), dtype=np.int64)
    for j, e in enumerate(eps):
        q = (w[None, :] + (g / e)[:, None] * u).astype(np.float32)
        out[:, j] = index.search(q, 1)[1][:, 0]
    return out


def nearest_words_numpy(vectors: np.ndarray, word_id: int, u: np.ndarray, g: np.ndarray, epsilons) -> np.ndarray:
    """Reference route in float64 numpy: every distance, every epsilon (small vocabularies)."""
    eps = _check_epsilons(epsilons)
    x = np.asarray(vectors, dtype=np.float64)
    out = np.empty((len(u), len(eps)), dtype=np.int64)
    for j, e in enumerate(eps):
        p = x[word_id][None, :] + (g / e)[:, None] * u
        d2 = ((p[:, None, :] - x[None, :, :]) ** 2).sum(-1)
        out[:, j] = d2.argmin(axis=1)
    return out


def stay_threshold(vectors: np.ndarray, word_id: int, u: np.ndarray) -> np.ndarray:
    """tau* per draw: w stays the output exactly while t <= tau* = min over b_v > 0 of a_v / (2 b_v),
    so N_w(epsilon) = #{draws: G / epsilon <= tau*} (the closed form in docs/formulas.md, section 2)."""
    x = np.asarray(vectors, dtype=np.float64)
    diff = x - x[word_id]
    a = (diff**2).sum(1)
    b = u @ diff.T
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(b > 0, a[None, :] / (2 * b), np.inf)
    ratio[:, word_id] = np.inf
    return ratio.min(axis=1)


def output_stats(outputs: np.ndarray, word_id: int, eta: float) -> tuple[int, int, int]:
    """(N_w, S_w, S_w^eta) of one column of outputs."""
    _, counts = np.unique(outputs, return_counts=True)
    counts = np.sort(counts)[::-1]
    need = (1 - eta) * len(outputs)
    s_eta = int(np.searchsorted(np.cumsum(counts), need - 1e-9) + 1)
    return int((outputs == word_id).sum()), int(len(counts)), min(s_eta, len(counts))


def renyi_entropies(outputs: np.ndarray) -> dict[str, float]:
    """Renyi entropies (nats) of the empirical output distribution: alpha = 0, 1, 2, inf."""
    _, counts = np.unique(outputs, return_counts=True)
    p = counts / counts.sum()
    return {
        "H_0": float(np.log(len(p))),
        "H_1": float(-(p * np.log(p)).sum()),
        "H_2": float(-np.log((p**2).sum())),
        "H_inf": float(-np.log(p.max())),
    }


STAT_COLUMNS = ("word", "epsilon", "n_w", "s_w", "s_w_eta", "H_0", "H_1", "H_2", "H_inf", "cosine", "samples")


def engine_workers() -> int:
    """Threads the engine splits its words over: $DPVIZ_THREADS if set (the server sets 1: its
    parallelism is its visitors), else every core. Each thread runs one BLAS thread."""
    try:
        return max(1, int(os.environ.get("DPVIZ_THREADS", "") or os.cpu_count() or 1))
    except ValueError:
        return 1


def word_envelopes(
    emb: Embedding,
    word_ids: Sequence[int],
    samples: int,
    seed: int,
    progress: Progress | None = None,
    workers: int | None = None,
) -> dict[int, Envelopes]:
    """The epsilon-free state of each word's ``samples`` draws (seeded by (seed, word)).

    Thread use is decided here, wherever the engine is called from: BLAS is limited to one
    thread (threadpoolctl; several BLAS threads spinning on busy cores made the many small
    matrix multiplies several times slower) and the words are split over ``workers`` threads
    (numpy releases the GIL in the matrix multiplies); progress is reported from the caller's
    thread, word by word."""
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits

    if samples < 1:
        raise InputError(f"samples must be >= 1, got {samples}")
    ids = [int(w) for w in word_ids]
    if progress:
        progress(0.0, f"{emb.name}: preparing {emb.size:,} word vectors")
    emb.sq_norms  # noqa: B018 (computed once, before the threads share it)
    if _takes_sorted_route(emb):  # the sorted route's row view, likewise
        emb.rows32  # noqa: B018

    def one(wid: int) -> Envelopes:
        u, g = sample_directions_and_radii(emb.dim, samples, word_stream(seed, wid))
        return draw_envelopes(emb, emb.row64(wid), u, g, self_id=wid)

    out: dict[int, Envelopes] = {}
    workers = min(workers or engine_workers(), max(1, len(ids)))
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(max_workers=workers) as pool:
        for k, (wid, env) in enumerate(zip(ids, pool.map(one, ids))):
            out[wid] = env
            if progress:
                progress(
                    (k + 1) / max(1, len(ids)),
                    f"{emb.name}: word {k + 1} of {len(ids)} (“{emb.vocab[wid]}”), "
                    f"{samples:,} releases, nearest word among {emb.size:,}",
                )
    return out


def _check_stats_args(epsilons, eta: float) -> np.ndarray:
    eps = _check_epsilons(epsilons)
    if not 0 <= eta < 1:
        raise InputError(f"eta must be in [0, 1), got {eta}")
    return eps


def stats_at(emb: Embedding, envelopes: dict[int, Envelopes], epsilons, eta: float) -> pd.DataFrame:
    """For each word and epsilon: N_w, S_w, S_w^eta, the Renyi entropies H_0/H_1/H_2/H_inf of
    the output distribution (nats), and the mean cosine similarity between phi(w) and
    phi(M(w)) (a utility measure), evaluated from prepared envelopes. Columns: STAT_COLUMNS."""
    eps = _check_stats_args(epsilons, eta)
    norms = np.sqrt(emb.sq_norms)
    rows = []
    for wid, env in envelopes.items():
        out = env.outputs(eps)
        cos = (emb.row64(out) @ emb.row64(wid)) / np.maximum(norms[out] * norms[wid], np.finfo(float).tiny)
        for j, e in enumerate(eps):
            n_w, s_w, s_eta = output_stats(out[:, j], wid, eta)
            rows.append(
                {
                    "word": emb.vocab[wid],
                    "epsilon": float(e),
                    "n_w": n_w,
                    "s_w": s_w,
                    "s_w_eta": s_eta,
                    **renyi_entropies(out[:, j]),
                    "cosine": float(cos[:, j].mean()),
                    "samples": len(env.g),
                }
            )
    return pd.DataFrame(rows, columns=list(STAT_COLUMNS))


def mdp_stats(
    emb: Embedding,
    word_ids: Sequence[int],
    epsilons,
    samples: int,
    eta: float,
    seed: int,
    progress: Progress | None = None,
    workers: int | None = None,
) -> pd.DataFrame:
    """:func:`stats_at` of :func:`word_envelopes`: N_w, S_w and the rest for every word and epsilon."""
    _check_stats_args(epsilons, eta)  # before the envelopes are computed
    return stats_at(emb, word_envelopes(emb, word_ids, samples, seed, progress, workers), epsilons, eta)


def sample_word_ids(emb: Embedding, words: int, vocab: int, seed: int) -> np.ndarray:
    """``words`` distinct word ids drawn uniformly from the ``vocab`` most frequent (seeded)."""
    vocab = min(vocab, emb.size)
    if words > vocab:
        raise InputError(f"cannot draw {words} distinct words from the top {vocab}")
    return np.sort(stream(seed, 2021).choice(vocab, size=words, replace=False))


def tokenize(sentence: str, max_tokens: int = 40) -> list[str]:
    """Lower-cased word tokens of a sentence (gensim's simple_preprocess), at most max_tokens."""
    from gensim.utils import simple_preprocess

    if len(sentence) > 2000:
        raise InputError("The sentence is longer than 2,000 characters.")
    toks = simple_preprocess(sentence, min_len=1, max_len=40)
    if not toks:
        raise InputError("The sentence has no words to privatise.")
    if len(toks) > max_tokens:
        raise InputError(f"The sentence has {len(toks)} words; at most {max_tokens} are privatised here.")
    return toks


def rewrite_envelopes(
    emb: Embedding, tokens: Sequence[str], copies: int, seed: int
) -> tuple[list[Envelopes | None], list[str]]:
    """The ε-free state of ``copies`` privatised rewrites of a token list, and each token's
    status: 'in vocabulary', 'subword vector' (fastText builds a vector for an unknown word) or
    'unknown' (left as it is; no envelope). Known words use their own vector; a release is the
    nearest vocabulary word to vector + noise."""
    rng = stream(seed, 2023)
    status: list[str] = []
    envs: list[Envelopes | None] = []
    for tok in tokens:
        u, g = sample_directions_and_radii(emb.dim, copies, rng)
        if tok in emb.index:
            status.append("in vocabulary")
            envs.append(draw_envelopes(emb, emb.row64(emb.index[tok]), u, g, self_id=emb.index[tok]))
        elif emb.oov is not None:
            status.append("subword vector")
            envs.append(draw_envelopes(emb, np.asarray(emb.oov(tok), dtype=np.float64), u, g))
        else:
            status.append("unknown")
            envs.append(None)
    return envs, status


def rewrite_at(
    emb: Embedding, tokens: Sequence[str], envelopes: Sequence[Envelopes | None], epsilon: float, copies: int
) -> list[list[str]]:
    """The rewrites at one ε from :func:`rewrite_envelopes` (unknown tokens stay as they are)."""
    outs = [
        [tok] * copies if env is None else [emb.vocab[i] for i in env.outputs([epsilon])[:, 0]]
        for tok, env in zip(tokens, envelopes)
    ]
    return [list(r) for r in zip(*outs)]


def rewrite(
    emb: Embedding, tokens: Sequence[str], epsilon: float, copies: int, seed: int
) -> tuple[list[list[str]], list[str]]:
    """``copies`` privatised rewrites of a token list at one epsilon, and each token's status
    (see :func:`rewrite_envelopes`)."""
    envs, status = rewrite_envelopes(emb, tokens, copies, seed)
    return rewrite_at(emb, tokens, envs, epsilon, copies), status
