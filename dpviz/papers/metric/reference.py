"""Reference routes for the metric-DP engine (:mod:`dpviz.papers.metric.mechanism`): slower,
independent ways to the same outputs, which the tests and benchmarks check the engine against.

- :func:`nearest_words_numpy`: every float64 distance at every epsilon (small vocabularies);
- :func:`nearest_words_bruteforce`: one exact faiss search over the whole vocabulary per epsilon;
- :func:`nearest_words_direct`: the engine before envelopes -- the vocabulary sorted by distance,
  each draw's running-maximum records of b as candidates, then float64 distances from the noisy
  point at every epsilon (a different candidate search and a different final decision);
- :func:`stay_threshold`: the closed form of N_w (docs/formulas.md, section 2).
"""

from __future__ import annotations

import numpy as np

from dpviz.data.embeddings import Embedding
from dpviz.papers.metric.mechanism import DRAW_BLOCK, _check_epsilons

CHUNK = 2048  # vocabulary rows per chunk of the distance-sorted route, as that engine read them


def _sorted_vocabulary(emb: Embedding, w: np.ndarray, self_id: int | None) -> tuple[np.ndarray, float]:
    """The vocabulary ordered by a_v = ||phi(v) - w||^2 in float64 (w itself first when it is a
    word), and the tolerance the candidate search keeps near-records by: float32 dot products can
    be off by ~d * 2^-24 * |u| |phi(v)|. Computed block by block from the float32 matrix (no
    float64 copy of it)."""
    a = np.maximum(emb.sq_norms - 2 * emb.dot64(w) + w @ w, 0.0)
    if self_id is not None:
        a[self_id] = 0.0
    order = np.argsort(a)
    return order, 8 * emb.dim * 2.0**-24 * emb.max_norm


def nearest_words_direct(emb: Embedding, word_id: int, u: np.ndarray, g: np.ndarray, epsilons) -> np.ndarray:
    """The engine before envelopes, kept as a reference route: its own candidates (the running-
    maximum records of b along the vocabulary sorted by distance, :func:`_record_candidates`),
    then for every epsilon the float64 distance to each candidate from the noisy point itself."""
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
