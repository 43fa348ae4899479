"""HoHo's built-in audit example (:mod:`dpviz.auditing.examples`): OME's 550-bit encodings
(λ = 2) of two movie-review sentences' 50-d GloVe vectors, claiming ε = 1; its true loss is at
least r l ln λ = 550 ln 2 (HoHo, Sec. 3.2), so the audit should find a violation."""

from __future__ import annotations

import numpy as np

from dpviz.auditing.examples import BuiltIn, Example
from dpviz.data import corpora
from dpviz.data.embeddings import get
from dpviz.papers.hoho import ome
from dpviz.stats import stream


def _ome(n: int, seed: int) -> Example:
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


EXAMPLES = (BuiltIn("ome", "OME on two sentences", 20_000, _ome, violated=True),)
