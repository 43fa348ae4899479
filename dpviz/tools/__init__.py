"""Pages that are not one paper's figures (an audit of one's own mechanism, lessons, a report),
one package each: ``dpviz/tools/<key>/``.

A tool's ``__init__.py`` declares it once, as ``TOOL = Tool(...)``: its title, the page's text
and its panels (:class:`dpviz.panels.Panel`). The home page's cards, the sidebar navigation and
the page (``webui.tool_page.show("<key>")``) read the declaration, as they read a paper's.

Adding a tool: a folder here with ``__init__.py`` (the declaration; the panel's compute beside
it), its view in ``webui/``, and a page file of a few lines under ``pages/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from dpviz.declarations import by_key, declared
from dpviz.panels import Panel


@dataclass(frozen=True)
class Tool:
    """One tool page's declaration (see the module docstring)."""

    key: str
    order: int
    title: str
    page: str
    claim: str
    headline: str
    summary: str
    panels: tuple[Panel, ...]
    notes: str = ""

    @property
    def params(self) -> tuple:
        """Every panel's parameters, in page order (a name shared by two panels once)."""
        seen: dict = {}
        for panel in self.panels:
            for p in panel.params:
                seen.setdefault(p.name, p)
        return tuple(seen.values())


@cache
def all_tools() -> tuple[Tool, ...]:
    """Every tool package under dpviz/tools/, in page order."""
    return declared(__name__, __path__, "TOOL", "tool")


def get(key: str) -> Tool:
    """The tool with this key; KeyError naming the keys otherwise."""
    return by_key(all_tools(), key, "tool")
