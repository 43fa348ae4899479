"""Calibrating ε to a plausible-deniability target (Feyisetan et al. 2020, Sec. 4): the average
statistics across words per ε, and the ε where an average curve crosses a target."""

from __future__ import annotations

import numpy as np
import pandas as pd


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Mean and interquartile range across words, per embedding, epsilon and statistic."""
    long = df.melt(id_vars=["embedding", "word", "epsilon"], value_vars=["n_w", "s_w", "s_w_eta"], var_name="statistic")
    g = long.groupby(["embedding", "epsilon", "statistic"])["value"]
    out = pd.concat(
        [g.mean().rename("mean"), g.quantile(0.25).rename("q25"), g.quantile(0.75).rename("q75")], axis=1
    ).reset_index()
    return out


def crossing(eps: np.ndarray, values: np.ndarray, target: float) -> float:
    """The smallest ε where a monotone average curve reaches ``target``: a listed ε whose value
    equals it, or else the crossing between two neighbouring listed ε, interpolated linearly in
    log ε; nan when the curve never reaches the target (or no ε is given).

    >>> round(crossing(np.array([1.0, 100.0]), np.array([0.0, 2.0]), 1.0), 9)  # halfway in log ε: sqrt(1 * 100)
    10.0
    >>> crossing(np.array([4.0, 2.0, 8.0]), np.array([5.0, 5.0, 3.0]), 5.0)  # flat at the target: its first ε
    2.0
    >>> crossing(np.array([10.0, 1.0]), np.array([5.0, 3.0]), 9.0)
    nan
    """
    order = np.argsort(eps, kind="stable")
    e, y = np.asarray(eps, dtype=float)[order], np.asarray(values, dtype=float)[order]
    x = np.log(e)
    for i in range(len(x)):
        if y[i] == target:
            return float(e[i])
        if i + 1 < len(x) and (y[i] - target) * (y[i + 1] - target) < 0:
            return float(np.exp(x[i] + (target - y[i]) * (x[i + 1] - x[i]) / (y[i + 1] - y[i])))
    return float("nan")
