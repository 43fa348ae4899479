"""Modules imported on first use, so that ``python -m dpviz figure --list`` and a figure written
as CSV never import Plotly (or another heavy library) they do not need."""

from __future__ import annotations

import contextlib
import importlib
import threading
from types import ModuleType
from typing import Any, Callable


class LazyModule:
    """Stands for the module ``name`` and imports it at the first attribute read; ``on_load(module)``
    runs once then (e.g. to register a template).

    >>> json = LazyModule("json")
    >>> json.dumps([1])
    '[1]'
    """

    def __init__(self, name: str, on_load: Callable[[ModuleType], None] | None = None):
        self._name = name
        self._on_load = on_load
        self._module: ModuleType | None = None
        self._local = threading.local()

    @contextlib.contextmanager
    def overridden(self, stand_in: Any):
        """In this thread, attribute reads go to ``stand_in`` (dpviz.fast_figure's drawing)."""
        previous = getattr(self._local, "stand_in", None)
        self._local.stand_in = stand_in
        try:
            yield
        finally:
            self._local.stand_in = previous

    def _load(self) -> ModuleType:
        if self._module is None:
            module = importlib.import_module(self._name)
            if self._on_load is not None:
                self._on_load(module)
            self._module = module
        return self._module

    def __getattr__(self, attr: str) -> Any:
        stand_in = getattr(self._local, "stand_in", None)
        if stand_in is not None:
            return getattr(stand_in, attr)
        return getattr(self._load(), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}{' (loaded)' if self._module is not None else ''}>"
