"""What the ADePT page declares for choosing a setting from a target (:mod:`dpviz.targets`) and for
its privacy-utility frontier (:mod:`dpviz.frontier`): its measures, how each is computed at a
claimed ε (``sensitivity.fixes_evaluate``, the page's own computation), and its frontier's axes.

ADePT's true ε is ε√n and the fixes' is ε: at n = 64, a true ε of 4 needs a claimed 0.5 for ADePT
and 4 for the corrected Laplace mechanism.

    >>> import dpviz
    >>> t = dpviz.calibrate("adept", epsilon_actual=4.0, dim=64)
    >>> [round(x, 9) for x in t.loc[t.mechanism.isin(["adept", "laplace_corrected"]), "epsilon"]]
    [0.5, 4.0]
"""

from __future__ import annotations

from typing import Any, Mapping

from dpviz import caches, registry
from dpviz.frontier import Axes
from dpviz.papers.adept import sensitivity as adept
from dpviz.papers.adept.sensitivity import FIX_LABELS, FIXES_COLUMNS, fix_row
from dpviz.targets import Measure, Page, panel_answer


def _params():
    return registry.get("adept-fixes").params


def _prepare(v: Mapping[str, Any], mechanism: str):
    """The fixes' ε-free draws at the page's n: the same for every mechanism, so kept per setting
    (the process cache ``adept.draws``): the frontier asks once per mechanism and position."""
    key = (int(v["dim"]), float(v["clip"]), int(v["draws"]), int(v["seed"]))
    return caches.memo("adept.draws").get(key, lambda: adept.fixes_draws(*key))


def _evaluate(state, v: Mapping[str, Any], mechanism: str, epsilon: float) -> dict[str, float]:
    row = dict(zip(FIXES_COLUMNS, fix_row(state, int(v["dim"]), float(epsilon), v["clip"], v["delta"], mechanism)))
    return {
        "epsilon_actual": float(row["epsilon_actual"]),
        "rms_error_relative": float(row["rms_error_relative"]),
        "cosine": float(row["cosine"]),
        "cosine_se": float(row["cosine_se"]),
        "noise_scale": float(row["noise_scale"]),
    }


def _label(mechanism: str, values: Mapping[str, Any]) -> str:
    return FIX_LABELS[mechanism]


TARGETS = Page(
    "adept",
    "epsilon",
    ("adept", "l1_clip", "laplace_corrected", "gaussian"),
    (
        Measure("epsilon_actual", "at most", True, "the ε really guaranteed", "privacy"),
        Measure("rms_error_relative", "at most", True, "RMS error / C", "utility"),
        Measure("cosine", "at least", False, "mean cosine to the clipped vector", "utility", (-1.0, 1.0)),
    ),
    _params,
    _prepare,
    _evaluate,
)

FRONTIER = Axes(
    "epsilon_actual", "ε really guaranteed", "lower", "rms_error_relative", "RMS error / C", "lower",
    "epsilon", "claimed ε",
    note="ADePT as published lies on Fix 2's curve: the same noise buys the same true ε, only its claim differs "
    "(its ring sits √n to the right of the others').",
    default_target=1.0,
    label=_label,
)  # fmt: skip


def answer(values, progress=None):
    """The page's "Choose from a target" panel compute (:func:`dpviz.targets.panel_answer`)."""
    return panel_answer("adept", values)
