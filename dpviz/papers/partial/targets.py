"""What the partial sensitivity page declares for choosing a setting from a target
(:mod:`dpviz.targets`) and for its privacy-utility frontier (:mod:`dpviz.frontier`): the σ at
which the worst-off individual's Rényi-DP ε at α (the page's own table) reaches a target, the
(ε, δ) conversion beside it, and a frontier whose curves are not mechanisms but whose loss is
counted (the worst-off individual's, the guarantee; the median one's)."""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from dpviz import caches, hosted_mode, registry
from dpviz.frontier import Axes
from dpviz.params import Param
from dpviz.targets import Measure, Page, panel_answer


def _delta_param():
    return Param(
        "delta",
        "float",
        1e-5,
        "δ of the (ε, δ) conversion",
        "Rényi DP at order α gives (ε_RDP + log(1/δ)/(α − 1), δ)-DP (Mironov 2017, Prop. 3).",
        min=1e-12,
        max=0.1,
        log=True,
    )


DELTA = _delta_param()


def _params():
    return (*registry.get("partial-individuals").params, DELTA)


def _prepare(v: Mapping[str, Any], mechanism: str):
    spec = registry.get("partial-individuals")
    own = {p.name: v[p.name] for p in spec.params}
    return spec, own


def _evaluate(state, v: Mapping[str, Any], mechanism: str, sigma: float) -> dict[str, float]:
    spec, own = state
    table = spec.table({**own, "sigma": sigma})
    rdp = float(table["rdp_epsilon"].max())  # the guarantee: the worst-off individual
    alpha, delta = float(v["alpha"]), float(v["delta"])
    return {"rdp_epsilon": rdp, "sigma": sigma, "dp_epsilon": rdp + math.log(1 / delta) / (alpha - 1)}


LABELS = {
    "worst": "worst-off individual (the guarantee)",
    "median": "median individual",
}
"""The frontier's curves: whose Rényi-DP ε is counted."""


def _first_losses(spec, own: Mapping[str, Any]) -> np.ndarray:
    """Each individual's unscaled loss in the page's prepared table (its first row, as
    ``groupby("individual").first()`` reads it), kept per fixed setting (the process cache
    ``partial.first_losses``): the frontier reads it at every σ of every curve and position (2,496
    times along α)."""
    fixed = tuple(sorted((k, v) for k, v in spec.canonical(own).items() if k not in spec.live))
    return caches.memo("partial.first_losses").get(
        (hosted_mode(), fixed), lambda: spec.state(own).groupby("individual")["rdp_epsilon"].first().to_numpy()
    )


def _whose(state, values: Mapping[str, Any], who: str, sigma: float) -> dict[str, float]:
    """The Rényi-DP ε at α of the worst-off or the median individual of the page's table at σ: the
    table's own scaling (``_people_evaluate``: loss · (α/2) / σ², the same operations) of each
    individual's loss, without building the table (2 ms of pandas a point, 1.8 s of the frontier's
    frames along α; the same numbers, tested)."""
    spec, own = state
    losses = _first_losses(spec, own) * (own["alpha"] / 2.0) / sigma**2
    rdp = float(losses.max() if who == "worst" else np.median(losses))
    return {"rdp_epsilon": rdp, "sigma": sigma}


TARGETS = Page(
    "partial",
    "sigma",
    ("gaussian",),
    (
        Measure("rdp_epsilon", "at most", True, "Rényi-DP ε at α of the worst-off individual", "privacy"),
        Measure("sigma", "at least", True, "the Gaussian noise σ", "setting"),
    ),
    _params,
    _prepare,
    _evaluate,
)

FRONTIER = Axes(
    "rdp_epsilon", "Rényi-DP ε at α", "lower", "sigma", "Gaussian noise σ", "lower", "sigma", "σ", shade=False,
    note="The guarantee is the worst-off individual's loss; the median individual's shows what the typical person "
    "would need.",
    default_target=1.0,
    label=lambda who, v: LABELS[who],
    curves=(tuple(LABELS), _whose),
)  # fmt: skip


def answer(values, progress=None):
    """The page's "Choose from a target" panel compute (:func:`dpviz.targets.panel_answer`)."""
    return panel_answer("partial", values)
