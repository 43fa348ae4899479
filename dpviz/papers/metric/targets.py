"""What the metric DP page declares for choosing a setting from a target (:mod:`dpviz.targets`) and
for its privacy-utility frontier (:mod:`dpviz.frontier`): its "mechanisms" are the page's
embeddings (its own and the one it compares with), its measures the means over the page's sampled
words at an ε (``mechanism.stats_at``), each with its standard error."""

from __future__ import annotations

import math
from typing import Any, Mapping

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


def _evaluate(state, v: Mapping[str, Any], embedding: str, epsilon: float) -> dict[str, float]:
    emb, envelopes = state
    df = mdp.stats_at(emb, envelopes, [epsilon], v["eta"])
    words = max(len(df), 1)
    kept = df.n_w / df.samples
    se = lambda col: float(col.std(ddof=1) / math.sqrt(words)) if len(col) > 1 else 0.0  # noqa: E731
    return {
        "n_w": float(df.n_w.mean()),
        "n_w_se": se(df.n_w),
        "s_w": float(df.s_w.mean()),
        "s_w_se": se(df.s_w),
        "share_kept": float(df.n_w.sum() / df.samples.sum()),
        "share_kept_se": se(kept),
        "mean_cosine": float(df.cosine.mean()),
        "mean_cosine_se": se(df.cosine),
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
