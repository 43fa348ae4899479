"""Built-in audit examples, one click each on the page: samples of a mechanism on two
neighbouring inputs, with the claim it makes.

The one example that belongs to no paper lives here: ``laplace``, a correct Laplace mechanism,
x + Laplace(1/ε) on x = 0 and x' = 1 (sensitivity 1), claiming ε = 1, which holds, so the audit
finds no violation. Every other example is declared by its paper, in
``dpviz/papers/<key>/audit_examples.py`` as ``EXAMPLES`` (a tuple of :class:`BuiltIn`), and found
here by the folder (:class:`dpviz.declarations.PerPaper`), so this module names no paper.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable

import numpy as np

from dpviz.declarations import PerPaper
from dpviz.errors import InputError
from dpviz.stats import stream


@dataclass(frozen=True)
class Example:
    """Samples on two inputs and the claim: what the page fills in when its button is clicked."""

    key: str
    a: np.ndarray
    b: np.ndarray
    claimed: float
    delta: float
    distance: float
    what: str


def _unit_claim() -> tuple[float, float, float]:
    return 1.0, 0.0, 1.0


@dataclass(frozen=True)
class BuiltIn:
    """One built-in example as a paper declares it: its key (the page's ``example`` value), its
    button's title, how many outputs it draws per input, ``make(samples, seed) -> Example``,
    ``claim() -> (claimed ε, δ, distance)`` without drawing, and whether the claim is broken (what
    the paper proves, and what the audit should find)."""

    key: str
    title: str
    samples: int
    make: Callable[[int, int], Example]
    claim: Callable[[], tuple[float, float, float]] = _unit_claim
    violated: bool = False


def _laplace(n: int, seed: int) -> Example:
    rng = stream(seed, 5101)
    return Example(
        "laplace",
        rng.laplace(0.0, 1.0, n),
        1.0 + rng.laplace(0.0, 1.0, n),
        1.0,
        0.0,
        1.0,
        f"x + Laplace(1) on x = 0 and x' = 1 (sensitivity 1), {n:,} outputs each; it claims ε = 1, which holds",
    )


LAPLACE = BuiltIn("laplace", "A correct Laplace mechanism", 100_000, _laplace)
_PAPERS = PerPaper("audit_examples", "EXAMPLES")


def built_ins() -> dict[str, BuiltIn]:
    """Every built-in example by key: the correct Laplace mechanism, then each paper's, in
    folder order."""
    found = {LAPLACE.key: LAPLACE}
    for examples in _PAPERS.values():
        for ex in examples:
            if ex.key in found:
                raise ValueError(f"two built-in audit examples are called {ex.key!r}")
            found[ex.key] = ex
    return found


class _Titles(Mapping):
    """Example key -> its button's title, read from the declarations when first asked for."""

    def __getitem__(self, key: str) -> str:
        return built_ins()[key].title

    def __iter__(self):
        return iter(built_ins())

    def __len__(self) -> int:
        return len(built_ins())


TITLES: Mapping[str, str] = _Titles()


def _get(key: str) -> BuiltIn:
    found = built_ins()
    if key not in found:
        raise InputError(f"No built-in example {key[:40]!r}; the examples are {', '.join(found)}.")
    return found[key]


def example(key: str, seed: int = 0, samples: int | None = None) -> Example:
    """The built-in example ``key`` (one of :data:`TITLES`) drawn with ``seed``."""
    ex = _get(key)
    return ex.make(samples or ex.samples, seed)


def claim_of(key: str) -> tuple[float, float, float]:
    """(claimed ε, δ, distance) of the example ``key``, without drawing its samples."""
    return _get(key).claim()
