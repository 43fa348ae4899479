"""Finding declarations: one sub-package per page under ``dpviz/papers/`` (``PAPER``) and
``dpviz/tools/`` (``TOOL``), each naming itself by its folder's name."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from typing import Any, Iterable


def package_names(path: Iterable[str]) -> list[str]:
    """The sub-packages' names under ``path`` (a package's ``__path__``, or its folder), sorted."""
    return sorted(info.name for info in pkgutil.iter_modules([str(p) for p in path]) if info.ispkg)


def declared(package: str, path: Iterable[str], attribute: str, what: str) -> tuple[Any, ...]:
    """Every sub-package's ``attribute`` under ``package`` (searched on ``path``), in ``order``;
    ValueError when one's ``key`` is not its folder's name."""
    found = []
    for name in package_names(path):
        item = getattr(importlib.import_module(f"{package}.{name}"), attribute)
        if item.key != name:
            folder = package.replace(".", "/")
            raise ValueError(f"{folder}/{name}/ declares the key {item.key!r}: a {what}'s key is its folder's name")
        found.append(item)
    return tuple(sorted(found, key=lambda item: item.order))


def by_key(items: Iterable[Any], key: str, what: str) -> Any:
    """The item with this key; KeyError naming the keys otherwise."""
    items = tuple(items)
    for item in items:
        if item.key == key:
            return item
    raise KeyError(f"no {what} {key!r}; the {what}s are {', '.join(i.key for i in items)}")


class PerPaper(Mapping):
    """A paper key -> its ``attribute`` in ``dpviz/papers/<key>/<module>.py``, for the papers
    that have that module (read when first asked for, so that listing the papers stays cheap and
    the module holding this mapping need not import any paper): how :data:`dpviz.targets.PAGES`
    and :data:`dpviz.frontier.AXES` find each paper's own declarations."""

    def __init__(self, module: str, attribute: str):
        self.module, self.attribute = module, attribute
        self._found: dict[str, Any] | None = None

    def _all(self) -> dict[str, Any]:
        if self._found is None:
            from importlib.util import find_spec
            from pathlib import Path

            found = {}
            for key in package_names([Path(__file__).parent / "papers"]):  # (read without importing the papers)
                name = f"dpviz.papers.{key}.{self.module}"
                if find_spec(name) is not None:
                    found[key] = getattr(importlib.import_module(name), self.attribute)
            self._found = found
        return self._found

    def __getitem__(self, key: str) -> Any:
        return self._all()[key]

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())
