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

from collections.abc import Mapping
from typing import Any

from dpviz import caches, registry
from dpviz.frontier import Axes
from dpviz.papers.adept import sensitivity as adept
from dpviz.papers.adept.sensitivity import FIX_LABELS, fix_cosine, fix_rms
from dpviz.targets import Lazy, Measure, Page, panel_answer


def _params():
    return registry.get("adept-fixes").params


class _Draws(Mapping):
    """The fixes' ε-free draws at one setting (:func:`adept.fixes_draws`), made when first read
    and kept per setting (the process cache ``adept.draws``: the frontier asks once per mechanism
    and position); the clip's bias alone (``bias_sq``, all the RMS error needs) without them, so the
    frontier's frames along n draw no noise's dot products."""

    def __init__(self, key: tuple):
        self.key = key

    def _all(self):
        return caches.memo("adept.draws").get(self.key, lambda: adept.fixes_draws(*self.key))

    def __getitem__(self, name):
        if name == "bias_sq":
            return caches.memo("adept.bias").get(self.key, lambda: adept.fixes_bias_sq(*self.key))
        return self._all()[name]

    def __iter__(self):
        return iter(self._all())

    def __len__(self):
        return len(self._all())


def _prepare(v: Mapping[str, Any], mechanism: str):
    """The fixes' draws at the page's n (:class:`_Draws`: made when first read)."""
    return _Draws((int(v["dim"]), float(v["clip"]), int(v["draws"]), int(v["seed"])))


def _evaluate(state, v: Mapping[str, Any], mechanism: str, epsilon: float) -> dict[str, float]:
    """:func:`fix_row`'s measures, the cosine's (a mean over the draws) computed only when read:
    the frontier reads the true ε and the RMS error alone (the cosine was a quarter of its frames along n)."""
    clip = v["clip"]
    kind, scale, eps_true, _, rms = fix_rms(state, int(v["dim"]), float(epsilon), clip, v["delta"], mechanism)
    held: list[tuple[float, float]] = []  # (made when first read: a functools.cache a point cost a tenth)

    def cosine() -> tuple[float, float]:
        if not held:
            held.append(fix_cosine(state, kind, scale, clip, mechanism))
        return held[0]

    return Lazy(
        {
            "epsilon_actual": lambda: float(eps_true),
            "rms_error_relative": lambda: float(rms / clip),
            "cosine": lambda: float(cosine()[0]),
            "cosine_se": lambda: float(cosine()[1]),
            "noise_scale": lambda: float(scale),
        }
    )


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
