"""What the HoHo page declares for choosing a setting from a target (:mod:`dpviz.targets`) and for
its privacy-utility frontier (:mod:`dpviz.frontier`): the attack's exact AUC and reconstruction at
a claimed ε (``exact``), OME's second setting λ (solved at the page's λ and along
:data:`OME_LAMBDAS`; SUE and OUE have none), and the frontier's axes."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from dpviz import registry
from dpviz.frontier import Axes
from dpviz.papers.hoho import exact
from dpviz.papers.hoho.pipeline import attack_counts
from dpviz.targets import Lazy, Measure, Page, SecondSetting, panel_answer

OME_LAMBDAS = (1.0, 3.0, 10.0, 100.0, 1000.0)
"""The λ at which the HoHo page's answer also solves OME (its (ε, λ) curve), beside the page's λ."""


def _params():
    return registry.get("hoho-live").params


def _prepare(v: Mapping[str, Any], mechanism: str):
    return attack_counts(v["corpus"], mechanism, v["targets"], v["seed"])


def _lam(v: Mapping[str, Any], mechanism: str) -> float:
    return float(v["lambda_"]) if mechanism == "ome" else 1.0


def _reconstruction(counts, p, q) -> np.ndarray:
    """exact_attack's expected reconstruction, mean over sentences, at the flip probabilities
    (p, q) (M, 1) each: one per setting (M,)."""
    ones = np.asarray(counts.ones, dtype=float)
    return np.mean((ones * p + (counts.positions - ones) * (1 - q)) / counts.positions, axis=-1)


def _evaluate(counts, v: Mapping[str, Any], mechanism: str, epsilon: float) -> dict[str, float]:
    lam = _lam(v, mechanism)

    def recon() -> float:  # from (p, q) alone
        p, q = exact.flip_probabilities(counts.mechanism, lam, epsilon, counts.r)
        return float(_reconstruction(counts, np.array([[p]]), np.array([[q]]))[0])

    return Lazy(
        {
            "auc_mean": lambda: float(np.mean(exact.exact_auc(counts, lam, epsilon))),
            "reconstruction_mean": recon,
        }
    )


def _evaluate_many(counts, v: Mapping[str, Any], mechanism: str, epsilons) -> list[dict[str, float]]:
    """:func:`_evaluate` at every ε of ``epsilons`` at once (the frontier's curve at a λ): one
    compiled call for all the AUCs (:func:`exact.aucs_at`), the same numbers to the last bit."""
    p, q = exact.flips_along(counts, _lam(v, mechanism), epsilons)
    auc = exact.aucs_at(counts, p, q)
    recon = _reconstruction(counts, p[:, None], q[:, None])
    return [{"auc_mean": float(np.mean(a)), "reconstruction_mean": float(r)} for a, r in zip(auc, recon)]


TARGETS = Page(
    "hoho",
    "epsilon",
    ("ome", "sue", "oue"),
    (
        Measure("auc_mean", "at most", True, "the linking attack's AUC", "privacy", (0.0, 1.0)),
        Measure("reconstruction_mean", "at most", True, "share of bits the attack reads back", "privacy", (0.0, 1.0)),
    ),
    _params,
    _prepare,
    _evaluate,
    second=SecondSetting("lambda_", "ome", OME_LAMBDAS),
    evaluate_many=_evaluate_many,
)

FRONTIER = Axes(
    "auc_mean", "linking attack AUC", "lower", "reconstruction_mean", "share of bits read back", "higher",
    "epsilon", "claimed ε", privacy_log=False, utility_log=False,
    note="The share of bits read back is both what a receiver of the encoding reads correctly and what the "
    "attack reconstructs. OME's curve moves with λ; SUE and OUE have none.",
    default_target=0.6,
    label=lambda mech, v: {"ome": f"OME, λ = {v['lambda_']:g}", "sue": "SUE", "oue": "OUE"}[mech],
    ignores={"sue": ("lambda_",), "oue": ("lambda_",)},
)  # fmt: skip


def answer(values, progress=None):
    """The page's "Choose from a target" panel compute (:func:`dpviz.targets.panel_answer`)."""
    return panel_answer("hoho", values)
