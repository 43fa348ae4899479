"""What OME's encodings keep for a downstream task (Salem & Zanella-Béguelin 2021, Sec. 4): the
5-fold cross-validated accuracy of a sentiment classifier (logistic regression, C = 0.05) trained
on the clear encodings and on the perturbed ones, for OME and the unary baselines SUE and OUE."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pandas as pd

from dpviz.papers.hoho import ome
from dpviz.stats import stream

COLUMNS = ("mechanism", "lambda", "epsilon", "accuracy_mean", "accuracy_std")


def classifier_accuracy(
    X: np.ndarray,
    y: np.ndarray,
    mechanisms: Sequence[str],
    lambdas: Sequence[float],
    epsilons: Sequence[float],
    seed: int,
    progress: Callable[[float, str], None] | None = None,
) -> pd.DataFrame:
    """Accuracy (mean and std over the 5 folds) on the unperturbed encodings (mechanism "none")
    and on each mechanism's perturbed encodings at every ε (and, for OME, every λ; λ is nan for
    SUE and OUE). ``X``: sentence vectors (values below 32 in magnitude), ``y``: 0/1 labels.
    The perturbation of (mechanism i, ε j) draws from ``stream(seed, 3400 + i, j)``."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    def accuracy(features: np.ndarray) -> np.ndarray:
        return cross_val_score(LogisticRegression(C=0.05, max_iter=2000), features, y, cv=5)

    combos = [(m, lam) for m in mechanisms for lam in (lambdas if m == "ome" else [np.nan])]
    clean = accuracy(ome.encode(X))
    rows = [("none", np.nan, np.nan, clean.mean(), clean.std())]
    for i, (m, lam) in enumerate(combos):
        for j, eps in enumerate(epsilons):
            rng = stream(seed, 3400 + i, j)
            if m == "ome":
                Z = ome.perturb_ome(ome.encode(X), lam, eps, rng)
            else:
                p, q = ome.unary_probabilities(m, eps, X.shape[1])
                Z = ome.perturb_unary(
                    ome.unary_encode(X, ome.UNARY_BINS, float(X.min()), float(X.max()) + 1e-9), p, q, rng
                )
            acc = accuracy(Z)
            rows.append((m, lam, eps, acc.mean(), acc.std()))
        if progress:
            progress((i + 1) / len(combos), f"classifier on {m.upper()} encodings")
    return pd.DataFrame(rows, columns=list(COLUMNS))
