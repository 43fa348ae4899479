"""The HoHo page's prepared state, apart from its figures: a corpus's sentence vectors (max-pooled
GloVe 6B 50d), the hosted demo's caps on the attack's work, and the exact attack's (ε, λ)-free
counts and its table of AUC and reconstruction for every (mechanism, λ, ε). Every cache is
declared in :mod:`dpviz.caches`; figures.py holds only specs and renders."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from dpviz import caches, hosted_mode, uploads
from dpviz.data import corpora
from dpviz.data.embeddings import get
from dpviz.errors import InputError
from dpviz.papers.hoho import exact as hoho_exact
from dpviz.papers.hoho.params import LINK_PARAMS
from dpviz.params import format_value

_VECTORS = caches.memo("hoho.vectors")
_ATTACKS = caches.memo("hoho.attacks")


def corpus_vectors(name: str = "movie-reviews") -> tuple[np.ndarray, np.ndarray | None, list[str]]:
    """Max-pooled GloVe 6B 50d vectors of a corpus's sentences (cached per process):
    ``movie-reviews`` or ``upload:NAME`` (a file saved by the page under the cache directory)."""

    def load():
        if name == "movie-reviews":
            sents, labels = corpora.movie_reviews()
        elif name.startswith(uploads.UPLOAD_PREFIX):
            try:
                path = uploads.existing_upload(name)
            except ValueError as err:
                raise corpora.CorpusError(str(err)) from None
            sents, labels = corpora.read_path(path)
        else:
            raise corpora.CorpusError(
                f"Unknown corpus {name[:40]!r}: use movie-reviews or upload a .txt/.csv file on the page."
            )
        X = corpora.sentence_vectors(sents, get("glove-6b-50d"))
        if np.abs(X).max() >= 32:
            raise corpora.CorpusError(
                "Some sentence-vector values are 32 or more: OME's 11-bit encoding cannot hold them."
            )
        return X, labels, sents

    return _VECTORS.get(name, load)


HOSTED_MAX_PAIRS = 20_000
"""Hosted cap on (target, sentence) pairs, the unit of the attack's work (default: 20 x 199)."""
HOSTED_MAX_WORK = 200_000
"""Hosted cap on pairs x evaluated (mechanism, λ, ε) settings (default: 3,980 x 25, about 2 s)."""


def check_attack_size(targets: int, sentences: int, settings: int = 1) -> None:
    """On a hosted demo, refuse an attack with more than HOSTED_MAX_PAIRS (target, sentence) pairs
    or more than HOSTED_MAX_WORK pairs x settings, whichever of the corpus size, the targets'
    share and the lists of ε, λ and mechanisms makes it large."""
    if not hosted_mode():
        return
    pairs = targets * (sentences - 1)
    if pairs > HOSTED_MAX_PAIRS:
        raise InputError(
            f"{targets} targets against {sentences:,} sentences is {pairs:,} pairs; the hosted demo "
            f"attacks at most {HOSTED_MAX_PAIRS:,}: lower 'Share of sentences as targets' or use a smaller corpus."
        )
    if pairs * settings > HOSTED_MAX_WORK:
        raise InputError(
            f"{pairs:,} pairs at {settings} (mechanism, λ, ε) settings is {pairs * settings:,} pair evaluations; the "
            "hosted "
            f"demo runs at most {HOSTED_MAX_WORK:,}: list fewer ε or λ values, or lower the share of targets."
        )


def attack_counts(corpus: str, mechanism: str, share: float, seed: int) -> hoho_exact.AttackCounts:
    """The (ε, λ)-free state of the exact attack: class counts of every target against every
    sentence (cached per process)."""

    def compute():
        X, _, _ = corpus_vectors(corpus)
        targets = hoho_exact.choose_targets(len(X), share, seed)
        check_attack_size(len(targets), len(X))
        return hoho_exact.attack_counts(X, mechanism, targets)

    return _ATTACKS.get(("counts", corpus, mechanism, float(share), int(seed)), compute)


def attack_table(v: Mapping[str, Any], progress=None) -> pd.DataFrame:
    """Expected linking AUC (mean and spread over the targets) and expected reconstruction
    accuracy (mean and spread over the sentences) for every (mechanism, λ, ε), computed exactly
    (:mod:`dpviz.papers.hoho.exact`); shared by the linking and the reconstruction figure."""
    key = tuple(format_value(p, v[p.name]) for p in LINK_PARAMS)
    return _ATTACKS.get(key, lambda: _attack_table(v, progress))


def _attack_table(v: Mapping[str, Any], progress=None) -> pd.DataFrame:
    rows = []
    combos = [(m, lam) for m in v["mechanisms"] for lam in (v["lambdas"] if m == "ome" else [np.nan])]
    total, done = len(combos) * len(v["epsilons"]), 0
    n = len(corpus_vectors(v["corpus"])[0])
    check_attack_size(len(hoho_exact.choose_targets(n, v["targets"], v["seed"])), n, total)  # before any work
    for m, lam in combos:
        counts = attack_counts(v["corpus"], m, v["targets"], v["seed"])
        for eps in v["epsilons"]:
            r = hoho_exact.exact_attack(counts, 1.0 if np.isnan(lam) else lam, eps)
            rows.append(
                (m, lam, eps, r["auc"].mean(), r["auc"].std(), r["reconstruction"].mean(), r["reconstruction"].std())
            )
            done += 1
            if progress:
                progress(done / total, (f"OME λ = {lam:g}" if m == "ome" else m.upper()) + f", ε = {eps:g}")
    return pd.DataFrame(
        rows, columns=["mechanism", "lambda", "epsilon", "auc_mean", "auc_std", "accuracy_mean", "accuracy_std"]
    )


def describe_corpus_upload(ref: str) -> str:
    """The check of an uploaded sentence file (declared on the corpus parameter): it is parsed and
    described; CorpusError says why it cannot be used."""
    path = uploads.existing_upload(ref)
    sents, labels = corpora.parse_upload(path.read_bytes(), path.name)
    return f"{len(sents):,} sentences" + (
        " with labels." if labels is not None else " (no labels: the utility chart needs them)."
    )
