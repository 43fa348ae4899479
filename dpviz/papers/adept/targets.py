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
from dpviz.targets import Measure, Page, panel_answer


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


MEASURES = ("epsilon_actual", "rms_error_relative", "cosine", "cosine_se", "noise_scale")


class _Measures(Mapping):
    """:func:`fix_row`'s measures at one ε (:data:`MEASURES`): the closed forms from
    :func:`fix_rms`, the cosine (a mean over the draws) and its standard error computed when first
    read. The frontier reads the true ε and the RMS error alone, for 25 ε a curve at every frame
    along n (the cosine was a quarter of those frames, a Lazy of five closures a point a tenth)."""

    __slots__ = ("state", "clip", "mechanism", "kind", "scale", "eps_true", "rms", "cos")

    def __init__(self, state, clip, mechanism, kind, scale, eps_true, rms):
        self.state, self.clip, self.mechanism = state, clip, mechanism
        self.kind, self.scale, self.eps_true, self.rms = kind, scale, eps_true, rms
        self.cos = None

    def __getitem__(self, name: str) -> float:
        if name == "epsilon_actual":
            return float(self.eps_true)
        if name == "rms_error_relative":
            return float(self.rms / self.clip)
        if name == "noise_scale":
            return float(self.scale)
        if name in ("cosine", "cosine_se"):
            if self.cos is None:
                self.cos = fix_cosine(self.state, self.kind, self.scale, self.clip, self.mechanism)
            return float(self.cos[0 if name == "cosine" else 1])
        raise KeyError(name)

    def __iter__(self):
        return iter(MEASURES)

    def __len__(self) -> int:
        return len(MEASURES)


def _evaluate(state, v: Mapping[str, Any], mechanism: str, epsilon: float) -> Mapping[str, float]:
    """:func:`fix_row`'s measures (:class:`_Measures`: the cosine's computed only when read)."""
    clip = v["clip"]
    kind, scale, eps_true, _, rms = fix_rms(state, int(v["dim"]), float(epsilon), clip, v["delta"], mechanism)
    return _Measures(state, clip, mechanism, kind, scale, eps_true, rms)


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
