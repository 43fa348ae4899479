"""The papers dpviz turns into pages, one package each: ``dpviz/papers/<key>/``.

A paper's ``__init__.py`` declares it once, as ``PAPER = Paper(...)``: its title, citation, the
claim it proves, the page's text, its figures in page order (grouped in sections) and its
sidebar groups. The home page's cards, the sidebar navigation, the pages, ``python -m dpviz
figures``, the figure registry and the tests' page lists all read these declarations. The key is
the paper's one name: its folder, its page key and the prefix of its figure ids
(``<key>-<name>``). The math lives in the paper's other modules and its figure specs in
``figures.py`` (imported only when a figure is needed, so listing the papers is cheap).

Adding a paper: a folder here with ``__init__.py`` (the declaration) and ``figures.py`` (the
specs), and a page file of a few lines under ``pages/`` calling :func:`webui.paper_page.show`;
for targets and a frontier, ``targets.py`` (``TARGETS``, ``FRONTIER``, ``answer``: see
docs/design.md, "Adding a paper").
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cache
from typing import Mapping

from dpviz.declarations import by_key, declared
from dpviz.panels import resolve


@dataclass(frozen=True)
class Section:
    """A part of a page: an optional heading, the figures it shows (ids, in order), the line
    that introduces its live sliders, and panels (:class:`dpviz.panels.Panel`) drawn after its
    figures (one that takes a live slider's value inside the live part, right after the last
    figure that follows a slider)."""

    figures: tuple[str, ...]
    title: str = ""
    intro: str = ""
    panels: tuple = ()
    lead: object = None
    """A panel drawn above the figures; when its compute refuses the input, the section's figures
    and panels are not drawn (the sentence says why)."""


@dataclass(frozen=True)
class SidebarGroup:
    """A sidebar heading and the parameters under it (names, in order); ``params=()`` takes every
    page parameter no other group names."""

    title: str
    params: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reproduction:
    """A figure of the paper, as ``python -m dpviz figures`` regenerates it: the dpviz figure,
    the file stem it is written as, and its parameters for the full and the quick run."""

    figure: str
    stem: str
    full: Mapping[str, str] = field(default_factory=dict)
    quick: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Paper:
    """One paper's declaration (see the module docstring)."""

    key: str
    order: int
    title: str
    page: str
    citation: str
    claim: str
    headline: str
    summary: str
    sections: tuple[Section, ...]
    sidebar: tuple[SidebarGroup, ...]
    seed_note: str
    notes: str
    reproduces: tuple[Reproduction, ...] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)
    """Figure ids of earlier versions, still accepted (command line, notebooks) -> today's id."""
    compiled: tuple[str, ...] = ()
    """The page's compiled loops (numba), each as ``"module:function"``, the function compiling them
    (or loading them from numba's cache beside the code) by running them once: ``python -m dpviz
    build`` runs every page's, and a frames worker runs a page's before its first set of the page
    (:meth:`compile_kernels`), so that no set waits for them after a reader's move."""
    first_answer: Mapping[str, str] = field(default_factory=dict)
    """Cheaper values of sample sizes (parameter -> value, as in a URL) that give the page a first
    answer within seconds when its charts are not computed yet: the page draws those charts at
    these values first, marked as such, and replaces each in place by its full answer. A value is
    used only where it is smaller than the one asked for."""

    @property
    def panels(self) -> tuple:
        """Every panel of the page, in page order."""
        return tuple(
            panel
            for section in self.sections
            for panel in ((section.lead,) if section.lead is not None else ()) + tuple(section.panels)
        )

    @property
    def figures(self) -> tuple[str, ...]:
        """Every figure of the page, in page order."""
        return tuple(fid for section in self.sections for fid in section.figures)

    def compile_kernels(self) -> None:
        """Run each of :attr:`compiled` (their modules imported here: numba only where a page has them)."""
        for entry in self.compiled:
            resolve(entry)()

    def load_figures(self) -> None:
        """Import the paper's figure specs (which registers them)."""
        importlib.import_module(f"{__name__}.{self.key}.figures")


@cache
def all_papers() -> tuple[Paper, ...]:
    """Every paper package under dpviz/papers/, in page order."""
    return declared(__name__, __path__, "PAPER", "paper")


def get(key: str) -> Paper:
    """The paper with this key; KeyError naming the keys otherwise."""
    return by_key(all_papers(), key, "paper")
