"""What the metric DP page declares for choosing a setting from a target (:mod:`dpviz.targets`) and
for its privacy-utility frontier (:mod:`dpviz.frontier`): its "mechanisms" are the page's
embeddings (its own and the one it compares with), its measures the means over the page's sampled
words at an ε (``mechanism.stats_at``), each with its standard error."""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from dpviz import registry
from dpviz.data.embeddings import resolve
from dpviz.frontier import Axes
from dpviz.papers.metric import mechanism as mdp
from dpviz.papers.metric.pipeline import word_state
from dpviz.targets import Measure, Page, panel_answer


def _params():
    return registry.get("metric-live").params


def _embeddings(v: Mapping[str, Any]) -> tuple[str, ...]:
    names = [v["embedding"]]
    if v.get("compare", "none") not in ("none", v["embedding"]):
        names.append(v["compare"])
    return tuple(names)


def _prepare(v: Mapping[str, Any], embedding: str):
    at = dict(v, embedding=embedding)
    return resolve(embedding), word_state(at, "embedding")


MEASURED = ("n_w", "s_w", "samples", "cosine")
"""The columns of ``stats_at`` the measures read."""


def _evaluate(state, v: Mapping[str, Any], embedding: str, epsilon: float) -> dict[str, float]:
    emb, envelopes = state
    df = mdp.stats_at(emb, envelopes, [epsilon], v["eta"])
    return _measures(*(df[name].to_numpy(dtype=float) for name in MEASURED))


def _evaluate_many(state, v: Mapping[str, Any], embedding: str, epsilons) -> list[dict[str, float]]:
    """:func:`_evaluate` at every ε of ``epsilons`` from one ``stats_at`` call (the frontier's curve):
    each ε's rows are those of a call with it alone (``stats_at``'s rows are word by word, the ε in
    order), read as a contiguous array, so the means are the same numbers to the last bit."""
    emb, envelopes = state
    df = mdp.stats_at(emb, envelopes, epsilons, v["eta"])
    n = len(epsilons)
    # (ε, words): row j is ε j's column over the words, contiguous as a call with it alone gives it
    by_eps = [np.ascontiguousarray(df[name].to_numpy(dtype=float).reshape(-1, n).T) for name in MEASURED]
    return [_measures(*(a[j] for a in by_eps)) for j in range(n)]


def _measures(n_w: np.ndarray, s_w: np.ndarray, samples: np.ndarray, cosine: np.ndarray) -> dict[str, float]:
    """The page's measures over one ε's words (``stats_at``'s columns as float arrays): means over
    words, each with its standard error (the sample standard deviation over √words; 0 for one word)."""
    words = max(len(n_w), 1)

    def se(col: np.ndarray) -> float:
        return float(col.std(ddof=1) / math.sqrt(words)) if len(col) > 1 else 0.0

    return {
        "n_w": float(n_w.mean()),
        "n_w_se": se(n_w),
        "s_w": float(s_w.mean()),
        "s_w_se": se(s_w),
        "share_kept": float(n_w.sum() / samples.sum()),
        "share_kept_se": se(n_w / samples),
        "mean_cosine": float(cosine.mean()),
        "mean_cosine_se": se(cosine),
    }


TARGETS = Page(
    "metric",
    "epsilon",
    _embeddings,
    (
        Measure("n_w", "at most", False, "average N_w: releases that keep the word", "privacy"),
        Measure("s_w", "at least", False, "average S_w: distinct outputs", "privacy"),
        Measure("share_kept", "at least", False, "share of releases that keep the word", "utility", (0.0, 1.0)),
        Measure(
            "mean_cosine", "at least", False, "mean cosine of the released word to the original", "utility", (-1.0, 1.0)
        ),
    ),
    _params,
    _prepare,
    _evaluate,
    evaluate_many=_evaluate_many,
)

FRONTIER = Axes(
    "s_w", "average S_w (distinct outputs)", "higher", "mean_cosine", "mean cosine to the original", "higher",
    "epsilon", "ε", utility_log=False,
    note="S_w counts the distinct words among a word's draws: more is more deniability. Each curve is one "
    "embedding (the page's, and the one it compares with).",
    default_target=0.8,
)  # fmt: skip


def answer(values, progress=None):
    """The page's "Choose from a target" panel compute (:func:`dpviz.targets.panel_answer`)."""
    return panel_answer("metric", values)
