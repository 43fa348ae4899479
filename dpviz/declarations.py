"""Finding declarations: one sub-package per page under ``dpviz/papers/`` (``PAPER``) and
``dpviz/tools/`` (``TOOL``), each naming itself by its folder's name."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Iterable


def declared(package: str, path: Iterable[str], attribute: str, what: str) -> tuple[Any, ...]:
    """Every sub-package's ``attribute`` under ``package`` (searched on ``path``), in ``order``;
    ValueError when one's ``key`` is not its folder's name."""
    found = []
    for info in pkgutil.iter_modules(list(path)):
        if info.ispkg:
            item = getattr(importlib.import_module(f"{package}.{info.name}"), attribute)
            if item.key != info.name:
                folder = package.replace(".", "/")
                raise ValueError(
                    f"{folder}/{info.name}/ declares the key {item.key!r}: a {what}'s key is its folder's name"
                )
            found.append(item)
    return tuple(sorted(found, key=lambda item: item.order))


def by_key(items: Iterable[Any], key: str, what: str) -> Any:
    """The item with this key; KeyError naming the keys otherwise."""
    items = tuple(items)
    for item in items:
        if item.key == key:
            return item
    raise KeyError(f"no {what} {key!r}; the {what}s are {', '.join(i.key for i in items)}")
