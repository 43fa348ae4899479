"""Distinguishing events, learned from the training part of the samples only.

An event is a set S of outputs and an orientation: which side's probability is the numerator of
the privacy loss ln(Pr[M(D) in S] / Pr[M(D') in S]). The search tries many candidate events on
the training part and keeps the one whose bound (:mod:`dpviz.auditing.bounds`, computed on the
training counts) is largest; the audit then counts that one event on the evaluation part. The
evaluation part never enters the search, so the final bound is as sound as if the event had been
fixed in advance (DP-Sniper, Bichsel et al., S&P 2021, Sec. 5).

Numeric outputs (rows of k numbers): an event is {y : score(y) > t} or {y : score(y) <= t} for
a score from a small family, each fitted on the training part: every column by itself (k <= 8),
a logistic regression on the columns (linear, k > 1), one on the columns and their squares
(which reaches two-sided events |y - c| > t), and the sum of per-column log density ratios
estimated on binned training columns (k > 1: exact for noise added coordinate by coordinate).
Thresholds are searched over the training scores' quantiles and extremes.

Categorical outputs (strings): an event is a set of outputs seen in training. With at most 12
distinct outputs every non-empty subset is tried; otherwise the prefixes of the outputs sorted by
their training ratio (c_a + 1/2) / (c_b + 1/2) (the Neyman-Pearson order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable

import numpy as np
from threadpoolctl import threadpool_limits

from dpviz.auditing import bounds

ENUMERATE_UP_TO = 12
COLUMN_SCORES_UP_TO = 8
QUADRATIC_UP_TO = 64
NAIVE_BAYES_UP_TO = 1024
FIT_ROWS = 100_000
"""At most this many training rows a side fit a logistic score (the threshold search uses all)."""


@dataclass(frozen=True)
class Criterion:
    """What the search maximises: the ε bound (mode 'epsilon') or the δ bound at ``epsilon`` (mode 'delta')."""

    mode: str
    confidence: float
    delta: float = 0.0
    epsilon: float = 0.0

    def __call__(self, k_num, n_num, k_den, n_den) -> np.ndarray:
        """The criterion at counts k_num of n_num (numerator side) and k_den of n_den."""
        if self.mode == "epsilon":
            return bounds.epsilon_bound(k_num, n_num, k_den, n_den, self.confidence, self.delta)
        return bounds.delta_bound(k_num, n_num, k_den, n_den, self.confidence, self.epsilon)


@dataclass(frozen=True)
class Event:
    """A set of outputs and the side in the numerator ('a' for D, 'b' for D'): numeric outputs
    whose ``score`` is above (or at most) ``threshold``, or the categorical outputs ``members``."""

    numerator: str
    description: str
    score_name: str = ""
    score: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False, compare=False)
    threshold: float | None = None
    above: bool = True
    members: tuple[str, ...] = ()
    train_value: float = -np.inf

    def selects(self, scores: np.ndarray) -> np.ndarray:
        """Which outputs with these scores are in the event (a numeric event)."""
        return scores > self.threshold if self.above else scores <= self.threshold

    def contains(self, outputs: np.ndarray) -> np.ndarray:
        """Which outputs are in the event."""
        if self.score is not None:
            return self.selects(self.score(outputs))
        return np.isin(outputs, np.array(self.members, dtype=object))


def output_counts(ya: np.ndarray, yb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct categorical outputs of both sides (sorted) and how often each side gave each."""
    values, inverse = np.unique(np.concatenate([ya, yb]), return_inverse=True)
    ca = np.bincount(inverse[: len(ya)], minlength=len(values))
    cb = np.bincount(inverse[len(ya) :], minlength=len(values))
    return values, ca, cb


# --- numeric ---------------------------------------------------------------------------------


def _logistic(xa: np.ndarray, xb: np.ndarray, rng: np.random.Generator) -> Callable[[np.ndarray], np.ndarray]:
    from sklearn.linear_model import LogisticRegression

    xa = xa[rng.permutation(len(xa))[:FIT_ROWS]]
    xb = xb[rng.permutation(len(xb))[:FIT_ROWS]]
    X = np.vstack([xa, xb])
    mean, scale = X.mean(0), X.std(0)
    scale[scale == 0] = 1.0
    y = np.r_[np.ones(len(xa)), np.zeros(len(xb))]
    with threadpool_limits(1):
        clf = LogisticRegression(C=1.0, max_iter=300).fit((X - mean) / scale, y)
    w, b = clf.coef_[0] / scale, clf.intercept_[0] - float(clf.coef_[0] / scale @ mean)
    return lambda Z: Z @ w + b


def _naive_bayes(ya: np.ndarray, yb: np.ndarray, bins: int = 32) -> Callable[[np.ndarray], np.ndarray]:
    """Sum over columns of each column's log density ratio, estimated on quantile bins of the
    training rows (counts + 1/2): the exact log-likelihood ratio when the columns are independent
    given the input (noise added per coordinate, bits flipped one by one), up to the binning."""
    pooled = np.vstack([ya, yb])
    tables = []
    for j in range(ya.shape[1]):
        edges = np.unique(np.quantile(pooled[:, j], np.linspace(0, 1, bins + 1)[1:-1]))
        ca = np.bincount(np.searchsorted(edges, ya[:, j], side="right"), minlength=len(edges) + 1) + 0.5
        cb = np.bincount(np.searchsorted(edges, yb[:, j], side="right"), minlength=len(edges) + 1) + 0.5
        tables.append((edges, np.log(ca / ca.sum()) - np.log(cb / cb.sum())))

    def score(Y: np.ndarray) -> np.ndarray:
        total = np.zeros(len(Y))
        for j, (edges, ratio) in enumerate(tables):
            total += ratio[np.searchsorted(edges, Y[:, j], side="right")]
        return total

    return score


def _squares(y: np.ndarray) -> np.ndarray:
    return np.hstack([y, y * y])


def numeric_scores(ya: np.ndarray, yb: np.ndarray, rng: np.random.Generator) -> list[tuple[str, Callable]]:
    """The candidate scores, fitted on training rows ``ya``, ``yb`` ((n, k) arrays)."""
    k = ya.shape[1]
    found: list[tuple[str, Callable]] = []
    if k <= COLUMN_SCORES_UP_TO:
        for j in range(k):
            found.append((f"column {j + 1}" if k > 1 else "value", lambda Y, j=j: Y[:, j]))
    if k > 1:
        lin = _logistic(ya, yb, rng)
        found.append((f"logistic score (linear in the {k} columns)", lin))
        if k <= NAIVE_BAYES_UP_TO:
            found.append((f"summed per-column log ratio (the {k} columns binned)", _naive_bayes(ya, yb)))
    if k <= QUADRATIC_UP_TO:
        quad = _logistic(_squares(ya), _squares(yb), rng)
        found.append(
            (
                "logistic score (in the value and its square)"
                if k == 1
                else f"logistic score (in the {k} columns and their squares)",
                lambda Y, quad=quad: quad(_squares(Y)),
            )
        )
    return found


def _candidate_thresholds(sa: np.ndarray, sb: np.ndarray, grid: int = 2000, tails: int = 300) -> np.ndarray:
    pool = np.sort(np.concatenate([sa, sb]))
    q = pool[np.unique(np.linspace(0, len(pool) - 1, grid).round().astype(int))]
    return np.unique(np.concatenate([q, pool[:tails], pool[-tails:]]))


def best_threshold(sa: np.ndarray, sb: np.ndarray, criterion: Criterion) -> tuple[float, float, bool, str]:
    """(training value, t, above, numerator) of the best event {s > t} (above) or {s <= t}."""
    sa, sb = np.sort(sa), np.sort(sb)
    na, nb = len(sa), len(sb)
    t = _candidate_thresholds(sa, sb)
    a_le = np.searchsorted(sa, t, side="right")
    b_le = np.searchsorted(sb, t, side="right")
    best = (-np.inf, float(t[0]), True, "a")
    for above, ka, kb in ((True, na - a_le, nb - b_le), (False, a_le, b_le)):
        for numerator, kn, nn, kd, nd in (("a", ka, na, kb, nb), ("b", kb, nb, ka, na)):
            values = criterion(kn, nn, kd, nd)
            i = int(np.argmax(values))
            if values[i] > best[0]:
                best = (float(values[i]), float(t[i]), above, numerator)
    return best


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def numeric_event(ya: np.ndarray, yb: np.ndarray, criterion: Criterion, rng: np.random.Generator) -> Event:
    """The best threshold event over the candidate scores, on training rows only."""
    best: Event | None = None
    for name, score in numeric_scores(ya, yb, rng):
        value, t, above, numerator = best_threshold(score(ya), score(yb), criterion)
        if best is None or value > best.train_value:
            best = Event(
                numerator=numerator,
                description=f"outputs whose {name} is {'above' if above else 'at most'} {_fmt(t)}",
                score_name=name,
                score=score,
                threshold=t,
                above=above,
                train_value=value,
            )
    return best


# --- categorical -----------------------------------------------------------------------------


def _describe_set(members: tuple[str, ...], shown: int = 6) -> str:
    head = ", ".join(repr(m) for m in members[:shown])
    more = f" and {len(members) - shown:,} more" if len(members) > shown else ""
    return f"the output{'s' if len(members) > 1 else ''} {{{head}{more}}}"


def _subset_masks(m: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Every non-empty subset of m outputs, and a 0/1 row per subset marking its members."""
    subsets = [s for r in range(1, m + 1) for s in combinations(range(m), r)]
    mask = np.zeros((len(subsets), m))
    for i, s in enumerate(subsets):
        mask[i, list(s)] = 1
    return subsets, mask


def categorical_event(ya: np.ndarray, yb: np.ndarray, criterion: Criterion) -> Event:
    """The best set of outputs seen in training (all subsets of at most 12 distinct outputs,
    else the prefixes in likelihood-ratio order), on training outputs only."""
    values, ca, cb = output_counts(ya, yb)
    ca, cb = ca.astype(np.float64), cb.astype(np.float64)
    na, nb = len(ya), len(yb)
    subsets, mask = _subset_masks(len(values)) if len(values) <= ENUMERATE_UP_TO else (None, None)
    best: Event | None = None
    for numerator, cn, nn, cd, nd in (("a", ca, na, cb, nb), ("b", cb, nb, ca, na)):
        if subsets is not None:
            scores = criterion(mask @ cn, nn, mask @ cd, nd)
            i = int(np.argmax(scores))
            members, value = tuple(str(values[j]) for j in subsets[i]), float(scores[i])
        else:
            order = np.argsort(-((cn + 0.5) / nn) / ((cd + 0.5) / nd), kind="stable")
            scores = criterion(np.cumsum(cn[order]), nn, np.cumsum(cd[order]), nd)
            i = int(np.argmax(scores))
            members, value = tuple(str(values[j]) for j in order[: i + 1]), float(scores[i])
        if best is None or value > best.train_value:
            best = Event(numerator, _describe_set(members), members=members, train_value=value)
    return best
