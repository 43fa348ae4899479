"""In-process memory of computed values, bounded by entries and by the bytes they hold."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any, Callable


def nbytes_of(value: Any, _depth: int = 0) -> int:
    """The bytes held by numpy arrays and pandas tables inside ``value`` (through dicts, lists,
    tuples and object attributes, four levels deep), plus a small constant per object: the
    size a memory bound counts. Memory-mapped arrays count nothing (the page cache holds them)."""
    import numpy as np
    import pandas as pd

    if isinstance(value, np.memmap):
        return 0
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, pd.DataFrame):  # (pandas' memory_usage(deep=False), without its Series: 5x)
        return int(value.index.nbytes) + sum(int(column.array.nbytes) for _, column in value.items())
    if isinstance(value, pd.Series):
        return int(value.index.nbytes) + int(value.array.nbytes)
    if isinstance(value, (str, bytes)):
        return len(value)
    if _depth >= 4:
        return 64
    if isinstance(value, dict):  # (plain keys and values read by their exact type, as a list's items)
        total = 64
        for k, v in value.items():
            kind = type(k)
            total += len(k) if kind is str else 64 if kind in _PLAIN else nbytes_of(k, _depth + 1)
            kind = type(v)
            total += len(v) if kind is str else 64 if kind in _PLAIN else nbytes_of(v, _depth + 1)
        return total
    if isinstance(value, (list, tuple, set, frozenset)):
        if len(value) > 1000 and all(isinstance(x, str) for x in list(value)[:100]):
            return 64 + 60 * len(value)  # a vocabulary: about 60 bytes per short word
        total = 64
        for x in value:  # (plain numbers and texts read by their exact type, without the call: _PLAIN)
            kind = type(x)
            total += len(x) if kind is str else 64 if kind in _PLAIN else nbytes_of(x, _depth + 1)
        return total
    attributes = getattr(value, "__dict__", None)
    if attributes:
        return 64 + sum(nbytes_of(v, _depth + 1) for v in attributes.values())
    return 64


_PLAIN = frozenset({float, int, bool, type(None)})
"""The exact types :func:`nbytes_of` counts 64 bytes for in a container without calling itself (as
the call would count them), beside texts (their length): a chart's prepared columns hold
thousands (the privacy-budget page's δ chart: its frames along k measured 110,000 of them, a
tenth of their time), and a dict's keys and values (a figure's, kept per setting while a
marked chart's frames move its base: a twentieth of ADePT's drawing). Subclasses (NumPy's
scalars) take the call."""


def _cannot_grow(value: Any) -> bool:
    """Whether ``value``'s size is fixed once stored: an array, a table, a text or a number (an
    object with attributes or a container may grow after it is stored: a cached property)."""
    import numpy as np
    import pandas as pd

    return isinstance(value, (np.ndarray, pd.DataFrame, pd.Series, str, bytes, int, float))


REMEASURE = 1.0
"""Seconds between two measurements of every entry of a memo whose entries may grow."""


class ProcessMemo:
    """Heavy objects shared by every session of a process (trained models, search results):
    at most ``maxsize`` entries and, if ``max_bytes`` is given, at most that many bytes by
    :func:`nbytes_of` (the newest entry is always kept), least recently used dropped first.
    Concurrent requests for the same missing key compute it once (the others wait for it);
    requests for other keys, and hits, never wait for someone else's computation (one lock per
    key being computed). Each entry is measured when it is stored; entries that may grow after
    they are stored (objects with cached properties) are all measured again at an insertion at
    least :data:`REMEASURE` seconds after the last time they were (all but arrays, tables and texts,
    whose size cannot change; at every insertion, a frames
    loop that stored 208 prepared states spent a quarter of its time measuring the others); a
    memo of values that never change (``frozen=True``: tables, rendered charts) measures each
    once."""

    def __init__(
        self,
        maxsize: int = 8,
        max_bytes: int | None = None,
        frozen: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self.frozen = frozen
        self.clock = clock
        self._measured = -float("inf")  # when every entry was last measured
        self._items: "OrderedDict[Any, Any]" = OrderedDict()
        self._sizes: dict[Any, int] = {}
        self._total = 0  # sum(self._sizes.values()), kept as they change (summed at every insertion,
        # a memo of thousands of small rows spent more time adding up its sizes than computing them)
        self._lock = threading.Lock()
        self._computing: dict[Any, threading.Lock] = {}

    def nbytes(self) -> int:
        """The bytes the memo holds now (as :func:`nbytes_of` counts them)."""
        with self._lock:
            return self._total

    def discard(self, key) -> None:
        """Forget ``key`` (if held)."""
        with self._lock:
            self._items.pop(key, None)
            self._total -= self._sizes.pop(key, 0)

    def keys(self) -> list:
        """The cached keys, least recently used first."""
        with self._lock:
            return list(self._items)

    def contains(self, key) -> bool:
        """Whether ``key`` is held (without computing or reordering anything)."""
        with self._lock:
            return key in self._items

    def peek(self, key) -> Any:
        """The value held for ``key`` (now the most recently used), or None: never computed here."""
        return self._hit(key)[1]

    def _hit(self, key) -> tuple[bool, Any]:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return True, self._items[key]
            return False, None

    def get(self, key, compute: Callable[[], Any]):
        """The value for ``key``: held, or ``compute()``d once (concurrent callers of the same key
        wait for the first) and kept within the memo's bounds, least recently used dropped first."""
        found, value = self._hit(key)
        if found:
            return value
        with self._lock:
            key_lock = self._computing.setdefault(key, threading.Lock())
        with key_lock:
            found, value = self._hit(key)  # computed by the session we waited for
            if found:
                return value
            try:
                value = compute()
                with self._lock:
                    self._items[key] = value
                    if self.max_bytes is not None:
                        if self.frozen or self.clock() - self._measured < REMEASURE:
                            size = nbytes_of(value)
                            self._total += size - self._sizes.get(key, 0)
                            self._sizes[key] = size
                        else:  # entries grow (cached properties): measure them all again, the new one too
                            # (except those whose size is fixed: a frames loop's prepared tables
                            # were a sixth of the privacy-budget page's frames along k)
                            self._sizes = {
                                k: self._sizes[k] if k in self._sizes and _cannot_grow(v) else nbytes_of(v)
                                for k, v in self._items.items()
                            }
                            self._total = sum(self._sizes.values())
                            self._measured = self.clock()
                    while len(self._items) > self.maxsize or (
                        len(self._items) > 1 and self.max_bytes is not None and self._total > self.max_bytes
                    ):
                        old, _ = self._items.popitem(last=False)
                        self._total -= self._sizes.pop(old, 0)
            finally:
                with self._lock:
                    self._computing.pop(key, None)
            return value
