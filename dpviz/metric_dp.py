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

from typing import Callable, Sequence

import numpy as np
import pandas as pd

from dpviz.data.embeddings import Embedding
from dpviz.stats import stream

Progress = Callable[[float, str], None]
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
        raise ValueError(f"epsilons must be finite numbers > 0, got {list(np.atleast_1d(eps))[:5]}")
    return eps


def nearest_words(emb: Embedding, word_id: int, u: np.ndarray, g: np.ndarray, epsilons) -> np.ndarray:
    """Exact M(w) for every draw (rows) and epsilon (columns), as vocabulary ids."""
    return nearest_words_from_point(emb, emb.vectors64[word_id], u, g, epsilons, self_id=word_id)


def nearest_words_from_point(emb: Embedding, point: np.ndarray, u: np.ndarray, g: np.ndarray, epsilons, self_id: int | None = None) -> np.ndarray:
    """Exact nearest vocabulary word to point + (G/epsilon) u for every draw and epsilon.
    ``point`` may be any vector (e.g. a fastText subword vector of an unknown word)."""
    eps = _check_epsilons(epsilons)
    x64 = emb.vectors64
    w = np.asarray(point, dtype=np.float64)
    a = np.maximum(emb.sq_norms - 2 * (x64 @ w) + w @ w, 0.0)
    if self_id is not None:
        a[self_id] = 0.0
    # Exact ties in a (duplicate vectors) need no stable order: equal b values are kept as
    # near-records (tol), so both duplicates reach _decide, which prefers the smaller id.
    order = np.argsort(a)
    sorted32 = emb.rows32[order].view(np.float32).reshape(emb.size, emb.dim)
    # float32 dot products can be off by ~d * 2^-24 * |u| |phi(v)|: keep near-records too
    tol = 8 * emb.dim * 2.0**-24 * float(np.sqrt(emb.sq_norms.max()))
    out = np.empty((len(u), len(eps)), dtype=np.int64)
    for s in range(0, len(u), DRAW_BLOCK):
        ub = u[s : s + DRAW_BLOCK]
        cand = _record_candidates(ub.astype(np.float32), sorted32, tol)
        out[s : s + len(ub)] = _decide(x64, w, order, cand, ub, g[s : s + DRAW_BLOCK], eps)
    return out


def _record_candidates(ub: np.ndarray, sorted32: np.ndarray, tol: float) -> list[np.ndarray]:
    """Per draw, sorted positions whose u . phi(v) exceeds (within tol) the maximum over all
    closer words: the records of the running maximum, plus the few words that beat the
    maximum of earlier chunks but not an earlier word of their own chunk (a small superset,
    about 1/k extra per draw in chunk k). The first chunk uses exact running records."""
    m = len(ub)
    first = ub @ sorted32[:CHUNK].T
    run = np.maximum.accumulate(first, axis=1)
    prev = np.concatenate([np.full((m, 1), -np.inf, dtype=first.dtype), run[:, :-1]], axis=1)
    r0, c0 = np.nonzero(first > prev - tol)
    rows, cols = [r0], [c0]
    thr = run[:, -1] - tol  # running maximum so far, minus the tolerance
    buf = np.empty((m, CHUNK), dtype=np.float32)  # reused: no fresh 2 MB allocation per chunk
    for start in range(CHUNK, sorted32.shape[0], CHUNK):
        rows_here = sorted32[start : start + CHUNK]
        block = np.matmul(ub, rows_here.T, out=buf) if len(rows_here) == CHUNK else ub @ rows_here.T  # the matrix multiply
        top = block.max(axis=1)
        hit = np.flatnonzero(top > thr)  # a cheap reduction first: most rows have no candidate
        if hit.size:
            r, c = np.nonzero(block[hit] > thr[hit, None])
            rows.append(hit[r])
            cols.append(c + start)
            np.maximum(thr, top - tol, out=thr)
    r, c = np.concatenate(rows), np.concatenate(cols)
    order = np.argsort(r, kind="stable")
    r, c = r[order], c[order]
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
    d2 = np.einsum("mkd,mkd->mk", vec, vec)[:, :, None] - 2 * np.einsum("mkd,med->mke", vec, points) + np.einsum("med,med->me", points, points)[:, None, :]
    d2 = np.where(valid[:, :, None], d2, np.inf)
    # ties (probability zero) go to the smaller vocabulary id, as a stable scan would
    best = d2.min(axis=1, keepdims=True)
    tied = np.where(d2 <= best, ids[:, :, None], np.iinfo(np.int64).max)
    return tied.min(axis=1)


def nearest_words_bruteforce(emb: Embedding, word_id: int, u: np.ndarray, g: np.ndarray, epsilons, index=None) -> np.ndarray:
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


def mdp_stats(
    emb: Embedding, word_ids: Sequence[int], epsilons, samples: int, eta: float, seed: int,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """For each word and epsilon: N_w, S_w, S_w^eta, the Renyi entropies H_0/H_1/H_2/H_inf of
    the output distribution (nats), and the mean cosine similarity between phi(w) and
    phi(M(w)) (a utility measure). Columns: STAT_COLUMNS."""
    eps = _check_epsilons(epsilons)
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    if not 0 <= eta < 1:
        raise ValueError(f"eta must be in [0, 1), got {eta}")
    if progress:
        progress(0.0, f"{emb.name}: preparing {emb.size:,} word vectors")
    x64 = emb.vectors64
    norms = np.sqrt(emb.sq_norms)
    rows = []
    for k, wid in enumerate(word_ids):
        wid = int(wid)
        if progress:
            progress(k / len(word_ids), f"{emb.name}: word {k + 1} of {len(word_ids)} (“{emb.vocab[wid]}”), "
                                        f"{samples:,} releases, nearest word among {emb.size:,}")
        u, g = sample_directions_and_radii(emb.dim, samples, word_stream(seed, wid))
        out = nearest_words(emb, wid, u, g, eps)
        cos = (x64[out] @ x64[wid]) / np.maximum(norms[out] * norms[wid], np.finfo(float).tiny)
        for j, e in enumerate(eps):
            n_w, s_w, s_eta = output_stats(out[:, j], wid, eta)
            rows.append({"word": emb.vocab[wid], "epsilon": float(e), "n_w": n_w, "s_w": s_w, "s_w_eta": s_eta,
                         **renyi_entropies(out[:, j]), "cosine": float(cos[:, j].mean()), "samples": samples})
        if progress:
            progress((k + 1) / len(word_ids), f"{emb.name}: {k + 1} of {len(word_ids)} words")
    return pd.DataFrame(rows, columns=list(STAT_COLUMNS))


def sample_word_ids(emb: Embedding, words: int, vocab: int, seed: int) -> np.ndarray:
    """``words`` distinct word ids drawn uniformly from the ``vocab`` most frequent (seeded)."""
    vocab = min(vocab, emb.size)
    if words > vocab:
        raise ValueError(f"cannot draw {words} distinct words from the top {vocab}")
    return np.sort(stream(seed, 2021).choice(vocab, size=words, replace=False))


def privatize(emb: Embedding, word_ids: Sequence[int], epsilon: float, copies: int, seed: int) -> np.ndarray:
    """``copies`` independent releases of each word id at one epsilon: shape (copies, len(word_ids))."""
    out = np.empty((copies, len(word_ids)), dtype=np.int64)
    rng = stream(seed, 2022)
    for j, wid in enumerate(word_ids):
        u, g = sample_directions_and_radii(emb.dim, copies, rng)
        out[:, j] = nearest_words(emb, int(wid), u, g, [epsilon])[:, 0]
    return out


def tokenize(sentence: str, max_tokens: int = 40) -> list[str]:
    """Lower-cased word tokens of a sentence (gensim's simple_preprocess), at most max_tokens."""
    from gensim.utils import simple_preprocess

    if len(sentence) > 2000:
        raise ValueError("The sentence is longer than 2,000 characters.")
    toks = simple_preprocess(sentence, min_len=1, max_len=40)
    if not toks:
        raise ValueError("The sentence has no words to privatise.")
    if len(toks) > max_tokens:
        raise ValueError(f"The sentence has {len(toks)} words; at most {max_tokens} are privatised here.")
    return toks


def rewrite(emb: Embedding, tokens: Sequence[str], epsilon: float, copies: int, seed: int) -> tuple[list[list[str]], list[str]]:
    """``copies`` privatised rewrites of a token list at one epsilon, and each token's status:
    'in vocabulary', 'subword vector' (fastText builds a vector for an unknown word) or
    'unknown' (left as it is, marked). Known words use their own vector; the release is the
    nearest vocabulary word to vector + noise."""
    rng = stream(seed, 2023)
    status, outs = [], []
    for tok in tokens:
        u, g = sample_directions_and_radii(emb.dim, copies, rng)
        if tok in emb.index:
            status.append("in vocabulary")
            ids = nearest_words(emb, emb.index[tok], u, g, [epsilon])[:, 0]
        elif emb.oov is not None:
            status.append("subword vector")
            ids = nearest_words_from_point(emb, np.asarray(emb.oov(tok), dtype=np.float64), u, g, [epsilon])[:, 0]
        else:
            status.append("unknown")
            outs.append([tok] * copies)
            continue
        outs.append([emb.vocab[i] for i in ids])
    return [list(r) for r in zip(*outs)], status
