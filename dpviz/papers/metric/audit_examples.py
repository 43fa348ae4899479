"""Metric DP's built-in audit example (:mod:`dpviz.auditing.examples`): the multivariate Laplace
mechanism with nearest-word decoding (GloVe 6B 50d, the 20,000 most frequent words) on "good"
and "better", claiming ε = 1.5 per unit distance, so ε·d(good, better) in all; metric DP holds,
so no violation should be found."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from dpviz.auditing.examples import BuiltIn, Example
from dpviz.data.embeddings import get
from dpviz.papers.metric.mechanism import sample_directions_and_radii
from dpviz.stats import stream

WORDS, VOCAB, EPSILON = ("good", "better"), 20_000, 1.5


def nearest_in_vocabulary(points: np.ndarray, vectors: np.ndarray, block: int = 2048) -> np.ndarray:
    """Row index of the nearest vector (Euclidean) to each point: argmin ||v||^2 - 2 v.p."""
    norms = (vectors * vectors).sum(1)
    out = np.empty(len(points), dtype=np.int64)
    with threadpool_limits(1):
        for s in range(0, len(points), block):
            out[s : s + block] = np.argmin(norms[None, :] - 2 * points[s : s + block] @ vectors.T, axis=1)
    return out


def distance() -> float:
    """d(good, better): the Euclidean distance of the two words' GloVe 6B 50d vectors."""

    emb = get("glove-6b-50d")
    i, j = (emb.index[w] for w in WORDS)
    return float(np.linalg.norm(emb.row64(i) - emb.row64(j)))


def _metric(n: int, seed: int) -> Example:
    emb = get("glove-6b-50d")
    vectors = np.vstack([emb.row64(i) for i in range(VOCAB)])
    ids = [emb.index[w] for w in WORDS]
    d = round(distance(), 4)
    rng = stream(seed, 5104)
    sides = []
    for i in ids:
        u, g = sample_directions_and_radii(emb.dim, n, rng)
        points = emb.row64(i)[None, :] + (g / EPSILON)[:, None] * u
        sides.append(np.array([emb.vocab[k] for k in nearest_in_vocabulary(points, vectors)], dtype=str))
    w, wp = WORDS
    return Example(
        "metric",
        sides[0],
        sides[1],
        EPSILON,
        0.0,
        d,
        f"The multivariate Laplace mechanism with nearest-word decoding (GloVe 6B 50d, the {VOCAB:,} most "
        f"frequent words) on “{w}” and “{wp}”, {n:,} released words each; it claims ε = {EPSILON:g} per unit "
        f"distance, so ε·d = {EPSILON * d:.3g} at d({w}, {wp}) = {d:.4g}, which holds. At an ε this "
        f"small the noise's radius (about {emb.dim / EPSILON:.0f} on average) dwarfs the distance between "
        "the words, so most releases are rare tokens far from both, and the two distributions nearly coincide",
    )


def _claim() -> tuple[float, float, float]:
    return EPSILON, 0.0, round(distance(), 4)


EXAMPLES = (BuiltIn("metric", "Metric DP on two words", 20_000, _metric, _claim),)
