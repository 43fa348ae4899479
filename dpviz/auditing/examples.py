"""Built-in audit examples, one click each on the page: samples of four mechanisms on two
neighbouring inputs, with the claim each makes.

- ``laplace``: a correct Laplace mechanism, x + Laplace(1/ε) on x = 0 and x' = 1 (sensitivity 1),
  claiming ε = 1, which holds: the audit finds no violation.
- ``adept``: ADePT's release of an L2-clipped vector, x + Laplace(2C/ε)^n, at the worst-case pair
  ±(C/√n)(1, ..., 1) with n = 16, C = 1, claiming ε = 1; its true loss is ε√n = 4.
- ``ome``: OME's 550-bit encodings (λ = 2) of two movie-review sentences' 50-d GloVe vectors,
  claiming ε = 1; its true loss is at least r l ln λ = 550 ln 2 (HoHo, Sec. 3.2).
- ``metric``: the multivariate Laplace mechanism with nearest-word decoding (GloVe 6B 50d, the
  20,000 most frequent words) on "good" and "better", claiming ε = 1.5 per unit distance, so
  ε·d(good, better) in all; metric DP holds, so no violation should be found.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from dpviz.errors import InputError
from dpviz.stats import stream


@dataclass(frozen=True)
class Example:
    """Samples on two inputs and the claim: what the page fills in when its button is clicked."""

    key: str
    a: np.ndarray
    b: np.ndarray
    claimed: float
    delta: float
    distance: float
    what: str


TITLES = {
    "laplace": "A correct Laplace mechanism",
    "adept": "ADePT at its worst-case pair (n = 16)",
    "ome": "OME on two sentences",
    "metric": "Metric DP on two words",
}
SAMPLES = {"laplace": 100_000, "adept": 100_000, "ome": 20_000, "metric": 20_000}
METRIC_WORDS, METRIC_VOCAB, METRIC_EPSILON = ("good", "better"), 20_000, 1.5


def _laplace(n: int, seed: int) -> Example:
    rng = stream(seed, 5101)
    return Example(
        "laplace",
        rng.laplace(0.0, 1.0, n),
        1.0 + rng.laplace(0.0, 1.0, n),
        1.0,
        0.0,
        1.0,
        f"x + Laplace(1) on x = 0 and x' = 1 (sensitivity 1), {n:,} outputs each; it claims ε = 1, which holds",
    )


def _adept(n: int, seed: int) -> Example:
    from dpviz.papers.adept import sensitivity as adept

    dim, clip, eps = 16, 1.0, 1.0
    x, xp = adept.worst_case_pair(dim, clip)
    scale = adept.sensitivity_claimed(clip) / eps
    rng = stream(seed, 5102)
    return Example(
        "adept",
        x + rng.laplace(0.0, scale, (n, dim)),
        xp + rng.laplace(0.0, scale, (n, dim)),
        eps,
        0.0,
        1.0,
        f"ADePT's release x + Laplace(2C/ε)^n at the worst-case pair ±(C/√n)(1,…,1), n = {dim}, C = {clip:g}, "
        f"{n:,} outputs each; it claims ε = {eps:g}, its true loss is ε√n = {eps * np.sqrt(dim):g}",
    )


def _ome(n: int, seed: int) -> Example:
    from dpviz.data import corpora
    from dpviz.data.embeddings import get
    from dpviz.papers.hoho import ome

    sents, _ = corpora.movie_reviews()
    pair = [sents[0], sents[1]]
    X = corpora.sentence_vectors(pair, get("glove-6b-50d"))
    lam, eps = 2.0, 1.0
    bits = ome.encode(X)
    rng = stream(seed, 5103)
    a = ome.perturb_ome(np.repeat(bits[:1], n, axis=0), lam, eps, rng).astype(np.float64)
    b = ome.perturb_ome(np.repeat(bits[1:], n, axis=0), lam, eps, rng).astype(np.float64)
    short = [s if len(s) <= 60 else s[:57] + "…" for s in pair]
    return Example(
        "ome",
        a,
        b,
        eps,
        0.0,
        1.0,
        f"OME (λ = {lam:g}) encodings of two movie-review sentences, “{short[0]}” and “{short[1]}”: "
        f"{bits.shape[1]} bits each, {n:,} outputs each; it claims ε = {eps:g}, its true loss is at least "
        f"{bits.shape[1]} ln λ = {bits.shape[1] * np.log(lam):.0f}",
    )


def nearest_in_vocabulary(points: np.ndarray, vectors: np.ndarray, block: int = 2048) -> np.ndarray:
    """Row index of the nearest vector (Euclidean) to each point: argmin ||v||^2 - 2 v.p."""
    norms = (vectors * vectors).sum(1)
    out = np.empty(len(points), dtype=np.int64)
    with threadpool_limits(1):
        for s in range(0, len(points), block):
            out[s : s + block] = np.argmin(norms[None, :] - 2 * points[s : s + block] @ vectors.T, axis=1)
    return out


def _metric(n: int, seed: int) -> Example:
    from dpviz.data.embeddings import get
    from dpviz.papers.metric.mechanism import sample_directions_and_radii

    emb = get("glove-6b-50d")
    vectors = np.vstack([emb.row64(i) for i in range(METRIC_VOCAB)])
    ids = [emb.index[w] for w in METRIC_WORDS]
    d = round(metric_distance(), 4)
    rng = stream(seed, 5104)
    sides = []
    for i in ids:
        u, g = sample_directions_and_radii(emb.dim, n, rng)
        points = emb.row64(i)[None, :] + (g / METRIC_EPSILON)[:, None] * u
        sides.append(np.array([emb.vocab[k] for k in nearest_in_vocabulary(points, vectors)], dtype=str))
    w, wp = METRIC_WORDS
    return Example(
        "metric",
        sides[0],
        sides[1],
        METRIC_EPSILON,
        0.0,
        d,
        f"The multivariate Laplace mechanism with nearest-word decoding (GloVe 6B 50d, the {METRIC_VOCAB:,} most "
        f"frequent words) on “{w}” and “{wp}”, {n:,} released words each; it claims ε = {METRIC_EPSILON:g} per unit "
        f"distance, so ε·d = {METRIC_EPSILON * d:.3g} at d({w}, {wp}) = {d:.4g}, which holds. At an ε this "
        f"small the noise's radius (about {emb.dim / METRIC_EPSILON:.0f} on average) dwarfs the distance between "
        "the words, so most releases are rare tokens far from both, and the two distributions nearly coincide",
    )


_MAKERS = {"laplace": _laplace, "adept": _adept, "ome": _ome, "metric": _metric}


def _check_key(key: str) -> None:
    if key not in _MAKERS:
        raise InputError(f"No built-in example {key[:40]!r}; the examples are {', '.join(TITLES)}.")


def example(key: str, seed: int = 0, samples: int | None = None) -> Example:
    """The built-in example ``key`` (one of :data:`TITLES`) drawn with ``seed``."""
    _check_key(key)
    return _MAKERS[key](samples or SAMPLES[key], seed)


def metric_distance() -> float:
    """d(good, better): the Euclidean distance of the two words' GloVe 6B 50d vectors."""
    from dpviz.data.embeddings import get

    emb = get("glove-6b-50d")
    i, j = (emb.index[w] for w in METRIC_WORDS)
    return float(np.linalg.norm(emb.row64(i) - emb.row64(j)))


def claim_of(key: str) -> tuple[float, float, float]:
    """(claimed ε, δ, distance) of the example ``key``, without drawing its samples."""
    _check_key(key)
    if key == "metric":
        return METRIC_EPSILON, 0.0, round(metric_distance(), 4)
    return 1.0, 0.0, 1.0
