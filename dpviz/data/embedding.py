"""One embedding as every part of dpviz holds it (:class:`Embedding`: a vocabulary, a float32
matrix, where it came from), the error an unusable one raises, and the memory check made before
loading one. Its own module so that the loaders (:mod:`dpviz.data.fasttext_local`,
:mod:`dpviz.data.gensim_models`) and :mod:`dpviz.data.embeddings`, which chooses among them, all
import it and none of them the other way round."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from dpviz.errors import InputError


class EmbeddingError(InputError):
    """An embedding that cannot be used; ``str(err)`` says why and what is allowed."""


@dataclass(eq=False)
class Embedding:
    """A vocabulary and its vectors (a float32 matrix, possibly memory-mapped), with where it came
    from; ``oov(word)`` gives a vector for an unknown word when the model can (fastText subwords)."""

    name: str
    source: str
    vocab: list[str]
    vectors: np.ndarray  # (V, d) float32, possibly a read-only memmap
    oov: Any = None  # callable word -> vector for subword models (fastText), else None
    note: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def dim(self) -> int:
        """The vectors' dimension d."""
        return int(self.vectors.shape[1])

    @property
    def size(self) -> int:
        """The number of words V."""
        return int(self.vectors.shape[0])

    @cached_property
    def index(self) -> dict[str, int]:
        """Word -> row id."""
        return {w: i for i, w in enumerate(self.vocab)}

    def row64(self, ids) -> np.ndarray:
        """Rows of the matrix in float64 (an id or an array of ids), without a float64 copy of the rest."""
        return np.asarray(self.vectors[ids], dtype=np.float64)

    @cached_property
    def vectors64(self) -> np.ndarray:
        """A float64 copy of the whole matrix: only the reference routes use it (small vocabularies)."""
        return np.asarray(self.vectors, dtype=np.float64)

    @cached_property
    def rows32(self) -> np.ndarray:
        """The float32 matrix as a 1-D array of whole rows (numpy void items): gathering rows in
        a new order is then one memcpy per row, about 20x faster than fancy-indexing a 2-D array."""
        x = np.ascontiguousarray(self.vectors, dtype=np.float32)
        return x.view(np.dtype((np.void, x.shape[1] * 4))).ravel()

    def _per_row64(self, per_block) -> np.ndarray:
        """One float64 value per word, ``per_block(rows)`` over the matrix in float64 blocks of 16,384
        rows (no float64 copy of the whole matrix)."""
        out = np.empty(self.size)
        for s in range(0, self.size, 16384):
            out[s : s + 16384] = per_block(np.asarray(self.vectors[s : s + 16384], dtype=np.float64))
        return out

    def dot64(self, w: np.ndarray) -> np.ndarray:
        """phi(v) . w for every word, in float64."""
        w = np.asarray(w, dtype=np.float64)
        return self._per_row64(lambda rows: rows @ w)

    @cached_property
    def sq_norms(self) -> np.ndarray:
        """||phi(v)||^2 in float64."""
        return self._per_row64(lambda rows: np.einsum("ij,ij->i", rows, rows))

    @cached_property
    def max_norm(self) -> float:
        """The largest ||phi(v)||: it bounds the float32 rounding errors of dot products."""
        return float(np.sqrt(self.sq_norms.max()))

    def word_id(self, word: str) -> int:
        """The row of ``word``; EmbeddingError naming the word when the vocabulary lacks it."""
        try:
            return self.index[word]
        except KeyError:
            raise EmbeddingError(f"{word[:40]!r} is not in the {self.name} vocabulary ({self.size:,} words).") from None


def available_memory() -> int:
    """Bytes this machine can still give (MemAvailable; the physical memory where it is unknown)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


LOAD_OVERHEAD = 2.5
"""Peak memory of loading through gensim, in units of the float32 matrix (its own arrays while
parsing, then the matrix dpviz keeps), measured on word2vec text and binary files."""


def check_memory(count: int, dim: int, what: str) -> None:
    """Refuse, before loading, a file whose matrix would not fit in the memory available now."""
    need = int(count * dim * 4 * LOAD_OVERHEAD)
    have = available_memory()
    if need > have:
        raise EmbeddingError(
            f"{what[:80]} holds {count:,} words × {dim} dimensions: loading it needs about {need / 2**30:,.1f} GiB, "
            f"and this machine has {have / 2**30:,.1f} GiB available. Free memory or use a machine with more."
        )
