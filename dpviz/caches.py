"""Every in-process cache dpviz keeps, declared in one place with its budget.

A server process keeps computed things for every visitor: prepared states of live figures,
loaded embeddings and corpora, finished charts. Each is a :class:`dpviz.memo.ProcessMemo` bounded
by entries and by bytes (:func:`dpviz.memo.nbytes_of`); this module is where those bounds are
set and where memory use is read (:func:`report`). A module gets its memo with
:func:`memo` ``(name)``; a name not declared here is refused, so no cache is kept off the books.

The bounds add up to the most a process holds in these caches (embeddings have their own
budget, ``DPVIZ_EMBEDDINGS_MB``, which also bounds the memory-mapped files' in-memory parts).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable

from dpviz import storage
from dpviz.memo import ProcessMemo

MB = 2**20


@dataclass(frozen=True)
class Budget:
    """A declared cache: its name, what it holds, and its bounds (``max_bytes`` may be a
    callable read when the cache is first used, for a budget the environment sets)."""

    name: str
    holds: str
    maxsize: int
    max_bytes: int | Callable[[], int]
    frozen: bool = False


BUDGETS: tuple[Budget, ...] = (
    Budget("figures.states", "live figures' prepared states (every paper), per fixed setting", 64, 512 * MB),
    Budget("figures.bases", "marked figures' fixed part, drawn once, as Plotly dicts", 64, 64 * MB, frozen=True),
    Budget("embeddings", "loaded embeddings (vocabulary and in-memory vectors)", 16, storage.embeddings_budget),
    Budget("hoho.vectors", "HoHo: a corpus's sentences and their GloVe sentence vectors", 8, 512 * MB),
    Budget("hoho.attacks", "HoHo: the attack's sufficient counts per (corpus, mechanism, share, seed)", 16, 512 * MB),
    Budget("metric.states", "metric DP: each word's draws as envelopes, per setting", 16, 512 * MB),
    Budget("metric.knn", "metric DP: nearest-neighbour distances of sampled words", 8, 256 * MB),
    Budget("metric.try", "metric DP: the try-it box's rewrites (ε-free)", 64, 256 * MB),
    Budget("metric.try_at", "metric DP: the try-it box's answer per ε", 1024, 32 * MB, frozen=True),
    Budget("partial.experiments", "partial sensitivity: trained SGD and DP-SGD runs", 8, 256 * MB),
    Budget(
        "partial.first_losses",
        "partial sensitivity: each individual's unscaled loss, per fixed setting (the frontier's curves)",
        64,
        8 * MB,
        frozen=True,
    ),
    Budget(
        "partial.analyses", "partial sensitivity: symbolic analyses of typed formulas (or their refusal)", 64, 64 * MB
    ),
    Budget("budget.plds", "privacy budget: privacy-loss distributions of k releases, per release and k", 128, 256 * MB),
    Budget("budget.rdp", "privacy budget: one release's Rényi divergence at every order, per release", 256, 8 * MB),
    Budget("budget.curves", "privacy budget: every accountant's ε over the k grid, per release and δ", 64, 16 * MB),
    Budget(
        "budget.coefficients",
        "privacy budget: log binomial coefficients of the optimal composition, per (k, lowest j)",
        32,
        32 * MB,
        frozen=True,
    ),
    Budget(
        "adept.draws",
        "ADePT: the fixes' ε-free draws per (n, C, draws, seed), for its targets",
        16,
        64 * MB,
        frozen=True,
    ),
    Budget(
        "adept.bias",
        "ADePT: the L1 clip's mean squared bias per (n, C, draws, seed), for its frontier's RMS error",
        256,
        1 * MB,
        frozen=True,
    ),
    Budget(
        "adept.blocks",
        "ADePT: the fixes' random coordinates, 16 at a time, and their running sums, per (seed, draws)",
        256,
        64 * MB,
        frozen=True,
    ),
    Budget(
        "adept.fix_rows",
        "ADePT: each row of the fixes' table (one mechanism at one n and ε), per (n, C, draws, seed, δ)",
        4096,
        4 * MB,
        frozen=True,
    ),
    Budget("frontier.curves", "frontiers: each mechanism's (privacy, utility) points, per setting", 128, 32 * MB),
    Budget("web.views", "pages: each chart's table and JSON, shared by every visitor", 256, 256 * MB, frozen=True),
    Budget(
        "web.frames",
        "pages: each live chart's frames along a slider (compressed), shared by every visitor",
        128,
        128 * MB,
        frozen=True,
    ),
    Budget("lessons.parsed", "lessons: each lesson file parsed, per version of the file", 64, 8 * MB),
    Budget("lessons.answers", "lessons: each question's computed answer (a number or a choice)", 1024, 1 * MB),
    Budget("web.panels", "pages: each panel's result (an audit), shared by every visitor", 32, 64 * MB),
    Budget("web.news", "pages: per session, the newest frames files published for it (names)", 2000, 8 * MB),
)
_BY_NAME = {b.name: b for b in BUDGETS}
_MEMOS: dict[str, ProcessMemo] = {}
_LOCK = threading.Lock()


def memo(name: str) -> ProcessMemo:
    """The process's cache ``name`` (created at first use with its declared bounds)."""
    budget = _BY_NAME.get(name)
    if budget is None:
        raise KeyError(f"no cache {name!r} is declared in dpviz/caches.py; the caches are {', '.join(_BY_NAME)}")
    with _LOCK:
        if name not in _MEMOS:
            max_bytes = budget.max_bytes() if callable(budget.max_bytes) else budget.max_bytes
            _MEMOS[name] = ProcessMemo(maxsize=budget.maxsize, max_bytes=max_bytes, frozen=budget.frozen)
        return _MEMOS[name]


def fresh(name: str) -> ProcessMemo:
    """A new, empty cache ``name`` in place of the old one (a module that starts over, such as
    the embeddings' memo when its budget is read again)."""
    memo(name)  # refuses an undeclared name
    with _LOCK:
        _MEMOS.pop(name, None)
    return memo(name)


def report():
    """Every declared cache with what it holds now: entries and bytes, beside its bounds (a table)."""
    import pandas as pd

    rows = []
    for b in BUDGETS:
        m = _MEMOS.get(b.name)
        bound = m.max_bytes if m is not None else (None if callable(b.max_bytes) else b.max_bytes)
        rows.append(
            {
                "cache": b.name,
                "holds": b.holds,
                "entries": len(m.keys()) if m is not None else 0,
                "bytes": m.nbytes() if m is not None else 0,
                "max_entries": b.maxsize,
                "max_bytes": bound,
            }
        )
    return pd.DataFrame(rows)


def empty_all() -> None:
    """Forget every entry of every cache (a benchmark's fresh start; the disk cache is apart)."""
    with _LOCK:
        memos = list(_MEMOS.values())
    for m in memos:
        for key in m.keys():
            m.discard(key)
