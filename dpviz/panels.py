"""Panels: the parts of a page that are not figures, declared like figures.

A :class:`Panel` names its parameters (:class:`dpviz.params.Param`, so widgets, the URL and the
validator serve them as they serve figures), a compute in ``dpviz/`` and a view in ``webui/``::

 widgets / URL ─> values (validated) ─> compute(values, progress) -> result ─> view(result, values)
                                         (pure, no Streamlit; cached)          (Streamlit)

Compute and view are named as ``"package.module:function"`` and imported when the panel is drawn,
so declaring a panel imports neither Streamlit nor the math. A compute returns ``None`` when its
parameters do not ask for anything yet (no file uploaded); it raises
:class:`dpviz.errors.InputError` for input it refuses, which the page shows as a sentence.
``inputs`` optionally names a view drawn before the parameters' widgets (buttons that fill them,
such as built-in examples); ``hidden`` parameters have no widget of their own (such buttons set
them) but are validated and carried by the URL like the others.

Papers declare panels beside their figures; a page that is not a paper (an audit, a lesson, a
report) is a :class:`dpviz.tools.Tool`: a title, a text and its panels.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from dpviz.params import Param


def resolve(target: str) -> Callable[..., Any]:
    """The function named ``"package.module:function"``."""
    module, _, name = target.partition(":")
    if not module or not name:
        raise ValueError(f"{target!r} is not of the form 'package.module:function'")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Panel:
    """One panel's declaration (see the module docstring)."""

    id: str
    title: str
    params: tuple[Param, ...]
    compute: str
    view: str
    intro: str = ""
    inputs: str = ""
    hidden: tuple[str, ...] = ()
    cached: bool = True
    """Whether the page keeps each result for every visitor (False: the compute keeps its own)."""
    on_refusal: str = ""
    """Said after the sentence of input the compute refuses (e.g. what on the page still works)."""
    refusal: str = ""
    """Optionally ``"package.module:function"`` (error, values) drawn instead of that sentence (a
    refusal that offers a way out, such as a download button)."""
    working: str = ""
    """The progress bar's first line while the compute runs (default: the title)."""
    html: str = ""
    """Optionally ``"package.module:function"`` (result, values) -> HTML: the panel drawn as one piece
    of HTML, which in a live section follows its sliders while they move (the page computes it at
    every position of each slider's grid: ``webui/live_frames.py``)."""

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"panel {self.id!r} declares a parameter twice: {names}")
        if not set(self.hidden) <= set(names):
            raise ValueError(
                f"panel {self.id!r} hides parameters it does not declare: {sorted(set(self.hidden) - set(names))}"
            )
        for target in (self.compute, self.view) + tuple(t for t in (self.inputs, self.refusal, self.html) if t):
            if ":" not in target:
                raise ValueError(f"panel {self.id!r}: {target!r} is not of the form 'package.module:function'")

    @property
    def widget_params(self) -> tuple[Param, ...]:
        """The parameters drawn as widgets (all but the hidden ones)."""
        return tuple(p for p in self.params if p.name not in self.hidden)

    def run(self, values: dict[str, Any], progress=None) -> Any:
        """The compute's result for validated ``values`` (its own parameters are taken from them)."""
        own = {p.name: values[p.name] for p in self.params}
        return resolve(self.compute)(own, progress)
