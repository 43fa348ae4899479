"""What the privacy-budget page declares for choosing a setting from a target (:mod:`dpviz.targets`)
and for its frontier (:mod:`dpviz.frontier`): the largest number of releases k whose ε at δ stays
within a target, or whose best attacker's true-positive rate at 1% false positives does, one row
per accountant (the page's "mechanisms" are its accountants: how many releases each one allows).
The same targets can be solved for the release's own setting at the page's k: the smallest noise
multiplier σ (Gaussian, DP-SGD: Opacus's "noise for a target ε after k steps at q") or the largest
ε₀ of one release (Laplace, randomized response).

k is a whole number: each measure is read at ⌊k⌋, so it is a step function of the solver's x and
the answer is the largest whole k that meets the target (the solver rounds towards the side that
meets it, :func:`dpviz.targets.calibrate_page`).

The attacker's bound from (ε, δ)-DP at false-positive rate α is the region's edge
TPR ≤ min(1, e^ε·α + δ, 1 − e^{−ε}·(1 − δ − α)) (Kairouz, Oh and Viswanath 2015, Thm. 2.1)."""

from __future__ import annotations

import math
from typing import Any, Mapping

from dpviz import registry
from dpviz.budget.names import ACCOUNTANT_LABELS, ACCOUNTANTS, LABELS
from dpviz.frontier import Axes
from dpviz.papers.budget.figures import release_of
from dpviz.params import applies
from dpviz.targets import Measure, OtherSetting, Page, panel_answer

FPR = 0.01
"""The false-positive rate at which the attacker's target is read."""


def tpr_bound(epsilon: float, delta: float, alpha: float = FPR) -> float:
    """The best true-positive rate at false-positive rate α that (ε, δ)-DP allows (module docstring)."""
    if math.isnan(epsilon):
        return math.nan
    if epsilon > 700:  # e^ε overflows; the bound is 1 long before
        return 1.0
    return min(1.0, math.exp(epsilon) * alpha + delta, 1 - math.exp(-epsilon) * (1 - delta - alpha))


def _setting_applies(param: str):
    """:class:`OtherSetting`'s ``applies`` for a release parameter, from the mechanisms its own
    declaration names (``Param.applies``: where its slider is live, too)."""

    def refusal(v: Mapping[str, Any]) -> str:
        declared = next(p for p in _params() if p.name == param)
        if applies(declared, v):
            return ""
        which = " and ".join(LABELS[k] for k in declared.applies[1])
        return (
            f"{param} plays no part in a {LABELS[v['mechanism']]} release: solve for it with the mechanism "
            f"{which}, or solve for k."
        )

    return refusal


def _params():
    return registry.get("budget-frontier").params


def _mechanisms(v: Mapping[str, Any]) -> tuple[str, ...]:
    from dpviz.budget.accountants import NOT_FOR  # (lazy: dp-accounting and SciPy, for `figure --list`)

    return tuple(a for a in ACCOUNTANTS if (a, v["mechanism"]) not in NOT_FOR)


def _prepare(v: Mapping[str, Any], accountant: str):
    return release_of(v)


def _evaluate(release, v: Mapping[str, Any], accountant: str, k: float) -> dict[str, float]:
    from dpviz.budget.accountants import epsilon  # (lazy: as above)

    whole = max(1, int(math.floor(k + 1e-9)))
    eps = epsilon(accountant, release, whole, float(v["delta"]))
    return {"epsilon": eps, "tpr_at_1pct": tpr_bound(eps, float(v["delta"])), "k": float(whole)}


TARGETS = Page(
    "budget",
    "k",
    _mechanisms,
    (
        Measure("epsilon", "at most", True, "ε after k releases at δ", "privacy"),
        Measure("tpr_at_1pct", "at most", True, "an attacker's true-positive rate at 1% false positives", "privacy",
                bounds=(0.0, 1.0)),
        Measure("k", "at least", True, "the number of releases", "setting"),
    ),
    _params,
    _prepare,
    _evaluate,
    others=(
        OtherSetting("sigma", _setting_applies("sigma")),
        OtherSetting("epsilon0", _setting_applies("epsilon0")),
    ),
)  # fmt: skip
FRONTIER = Axes(
    "epsilon",
    "ε after k releases",
    "lower",
    "k",
    "releases k",
    "higher",
    "k",
    "releases k",
    shade=False,
    default_target=1.0,
    title="Releases against ε: how many each accountant allows",
    label=lambda accountant, v: ACCOUNTANT_LABELS[accountant],
    note="Each curve is one accountant: how many releases it allows within each ε. A tighter accountant "
    "allows more releases for the same guarantee; the mechanism is the same.",
)


def answer(values, progress=None):
    """The budget page's "Choose from a target" panel."""
    return panel_answer("budget", values)
