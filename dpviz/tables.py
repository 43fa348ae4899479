"""Disk cache for computed figure tables, keyed by every parameter that changes them.

Tables live in ``tables/`` under the cache directory (:func:`dpviz.storage.cache_dir`) as Parquet
files named by a SHA-256 of (figure id, canonical parameters, dpviz version, the fingerprint of
dpviz's source), each with a check (:mod:`dpviz.integrity`), under the quota
``$DPVIZ_CACHE_QUOTA_MB``. The source fingerprint keeps a table or a chart's frames made by other
code from being served after an update: the version number alone did not change when a figure
did (a histogram became a strip plot; the page then dragged through old frames)."""

from __future__ import annotations

import functools
import hashlib
import json
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

from dpviz import __version__, integrity
from dpviz.build_once import file_lock
from dpviz.storage import TABLES_QUOTA_MB, _touch, cache_dir, keep_within_quota, quota_bytes

if TYPE_CHECKING:
    import pandas as pd


def source_fingerprint(root: Path) -> str:
    """SHA-256 (16 hex digits) of every ``.py`` file under ``root``, by relative path and bytes."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


@functools.cache
def code_fingerprint() -> str:
    """The fingerprint of the dpviz package this process runs (read once, a few milliseconds)."""
    return source_fingerprint(Path(__file__).resolve().parent)


def cache_key(figure_id: str, canonical: Mapping[str, str]) -> str:
    """The SHA-256 key (32 hex digits) of a figure id, its canonical parameters, dpviz's version
    and its source's fingerprint."""
    blob = json.dumps(
        {"id": figure_id, "params": dict(sorted(canonical.items())), "v": __version__, "code": code_fingerprint()}
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def cached_table(figure_id: str, canonical: Mapping[str, str], compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """Return the cached table for this key, computing and storing it on a miss.

    A cached file is believed only if it verifies (:mod:`dpviz.integrity`: its SHA-256, row count
    and the figure and parameters it was computed for); anything else (flipped bytes, truncation,
    a file swapped in from another key, a missing check) is recomputed and rewritten. A cache that
    cannot be written (read-only disk) still returns the result.
    """
    meta = {
        "figure": figure_id,
        "params": dict(sorted((k, str(v)) for k, v in canonical.items())),
        "version": __version__,
    }
    path = table_path(figure_id, canonical)
    return _cached(
        path, lambda: integrity.read_table(path, meta), compute, lambda df: integrity.write_table(df, path, meta)
    )


def _blob_path_meta(kind: str, canonical: Mapping[str, str]) -> tuple[Path, dict]:
    path = cache_dir() / "tables" / kind / f"{cache_key(kind, canonical)}.bin"
    meta = {"kind": kind, "params": dict(sorted((k, str(v)) for k, v in canonical.items())), "version": __version__}
    return path, meta


def cached_blob(kind: str, canonical: Mapping[str, str], compute: Callable[[], bytes]) -> bytes:
    """Bytes (a figure's encoded frames, :mod:`dpviz.frames`) kept on disk like a table: verified
    on reading, computed once by the processes sharing the cache (the others wait and read it)."""
    path, meta = _blob_path_meta(kind, canonical)
    return _cached(
        path, lambda: integrity.read_blob(path, meta), compute, lambda b: integrity.write_blob(b, path, meta)
    )


def read_shared(kind: str, canonical: Mapping[str, str]) -> bytes | None:
    """Bytes that processes sharing the cache add to over time (:func:`write_shared`), if any verify."""
    path, meta = _blob_path_meta(kind, canonical)
    found = integrity.read_blob(path, meta)
    if found is not None:
        _touch(path)
    return found


def write_shared(kind: str, canonical: Mapping[str, str], data: bytes) -> None:
    """Replace the shared bytes of this key (no lock: each writer writes what it read plus what it
    computed, so a lost write loses only work that is done again; a reader between the data and its
    check sees no file). A cache that cannot be written is left as it is."""
    path, meta = _blob_path_meta(kind, canonical)
    try:
        integrity.write_blob(data, path, meta)
        _within_quota(path)
    except OSError:
        pass


def _within_quota(written: Path) -> None:
    """The tables folder kept under its quota after a write (walked only when it may be needed:
    :func:`dpviz.storage.keep_within_quota`)."""
    keep_within_quota(cache_dir() / "tables", quota_bytes("DPVIZ_CACHE_QUOTA_MB", TABLES_QUOTA_MB), written)


def _cached(path: Path, read: Callable[[], Any], compute: Callable[[], Any], write: Callable[[Any], None]) -> Any:
    """What ``read`` finds at ``path``, else ``compute()``, written by ``write``: once for every
    process sharing the cache (the others wait for it under the file lock, then read it)."""
    found = read()
    if found is not None:
        _touch(path)
        return found
    with _computing(path):  # another process computing the same file: wait for it, then read it
        found = read()
        if found is not None:
            return found
        found = compute()
        try:
            write(found)
            _within_quota(path)
        except OSError:
            pass
    return found


def blob_cached(kind: str, canonical: Mapping[str, str]) -> bool:
    """Whether :func:`cached_blob` would read these bytes from disk (whether they verify is decided on reading)."""
    path, _ = _blob_path_meta(kind, canonical)
    return path.exists() and integrity.sidecar(path).exists()


@contextmanager
def _computing(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path``'s lock file while its table is computed, so server
    processes sharing the cache directory compute each table once: the others block here (in their
    own thread) and then read what the first wrote. A cache that cannot be locked (read-only disk)
    computes without the lock (:func:`dpviz.build_once.file_lock`)."""
    with file_lock(path.with_name(path.name + ".lock")):
        yield


def table_path(figure_id: str, canonical: Mapping[str, Any]) -> Path:
    """Where the cached table of a figure at these parameters lives."""
    return cache_dir() / "tables" / figure_id / f"{cache_key(figure_id, canonical)}.parquet"


def is_cached(figure_id: str, canonical: Mapping[str, Any]) -> bool:
    """Whether a table (and its check) is on disk; whether it verifies is decided on reading."""
    path = table_path(figure_id, canonical)
    return path.exists() and integrity.sidecar(path).exists()
