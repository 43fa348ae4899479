"""Disk cache for computed figure tables, keyed by every parameter that changes them.

Tables live under the user cache directory (``platformdirs.user_cache_dir("dpviz")``,
or ``$DPVIZ_CACHE_DIR``) in ``tables/``, never inside the repository, as Parquet files named
by a SHA-256 of (figure id, canonical parameters, dpviz version). Tables and uploads are
each kept under a size quota, least recently used deleted first (:func:`enforce_quota`).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Mapping

import pandas as pd

from dpviz import __version__, integrity


def cache_dir() -> Path:
    root = os.environ.get("DPVIZ_CACHE_DIR")
    if root:
        return Path(root)
    import platformdirs

    return Path(platformdirs.user_cache_dir("dpviz"))


def quota_bytes(name: str, default_mb: int) -> int:
    """A size limit in bytes from ``$name`` (in MB; "inf" for none), else the default. A value
    that is not a non-negative number is ignored with one line on stderr (an operator's typo must
    not become a traceback on every visitor's page)."""
    raw = os.environ.get(name)
    if raw is None:
        return default_mb * 2**20
    try:
        mb = float(raw)
    except ValueError:
        mb = float("nan")
    if mb == float("inf"):
        return sys.maxsize
    if not mb >= 0:
        print(f"dpviz: ${name}={raw[:40]!r} is not a size in MB (a number >= 0 or inf); using {default_mb} MB.", file=sys.stderr)
        return default_mb * 2**20
    return int(mb * 2**20)


TABLES_QUOTA_MB = 2000   # $DPVIZ_CACHE_QUOTA_MB: computed tables, all figures together
UPLOADS_QUOTA_MB = 1000  # $DPVIZ_UPLOAD_QUOTA_MB: uploaded embeddings and corpora


def enforce_quota(folder: Path, max_bytes: int, keep: Path | None = None) -> list[Path]:
    """Delete the least recently used files under ``folder`` (oldest modification time
    first; reads touch their file) until the rest fit in ``max_bytes``. ``keep`` (the file just
    written) is never deleted. A hosted demo's visitors can otherwise fill the disk with
    uploads and with tables for ever new settings. Returns the deleted files."""
    files = []
    for path in folder.rglob("*"):
        try:
            info = path.stat()
        except OSError:  # deleted meanwhile by another session
            continue
        if stat.S_ISREG(info.st_mode):
            files.append((info.st_mtime, info.st_size, path))
    total = sum(size for _, size, _ in files)
    deleted = []
    for _, size, path in sorted(files, key=lambda f: f[0]):
        if total <= max_bytes:
            break
        if keep is not None and path == keep:
            continue
        try:
            path.unlink()
        except OSError:
            continue
        total -= size
        deleted.append(path)
    return deleted


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:  # read-only cache: the order is only a preference
        pass


def cache_key(figure_id: str, canonical: Mapping[str, str]) -> str:
    blob = json.dumps({"id": figure_id, "params": dict(sorted(canonical.items())), "v": __version__})
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def cached_table(
    figure_id: str, canonical: Mapping[str, str], compute: Callable[[], pd.DataFrame]
) -> pd.DataFrame:
    """Return the cached table for this key, computing and storing it on a miss.

    A cached file is believed only if it verifies (:mod:`dpviz.integrity`: its SHA-256, row count
    and the figure and parameters it was computed for); anything else (flipped bytes, truncation,
    a file swapped in from another key, a missing check) is recomputed and rewritten. A cache that
    cannot be written (read-only disk) still returns the result.
    """
    path = table_path(figure_id, canonical)
    meta = {"figure": figure_id, "params": dict(sorted((k, str(v)) for k, v in canonical.items())), "version": __version__}
    df = integrity.read_table(path, meta)
    if df is not None:
        _touch(path)
        return df
    df = compute()
    try:
        integrity.write_table(df, path, meta)
        enforce_quota(cache_dir() / "tables", quota_bytes("DPVIZ_CACHE_QUOTA_MB", TABLES_QUOTA_MB), keep=path)
    except OSError:
        pass
    return df


def table_path(figure_id: str, canonical: Mapping[str, Any]) -> Path:
    return cache_dir() / "tables" / figure_id / f"{cache_key(figure_id, canonical)}.parquet"


def is_cached(figure_id: str, canonical: Mapping[str, Any]) -> bool:
    """Whether a table (and its check) is on disk; whether it verifies is decided on reading."""
    path = table_path(figure_id, canonical)
    return path.exists() and integrity.sidecar(path).exists()


def nbytes_of(value: Any, _depth: int = 0) -> int:
    """The bytes held by numpy arrays and pandas tables inside ``value`` (through dicts, lists,
    tuples and object attributes, four levels deep), plus a small constant per object: the
    size a memory bound counts. Memory-mapped arrays count nothing (the page cache holds them)."""
    import numpy as np

    if isinstance(value, np.memmap):
        return 0
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return int(value.memory_usage(index=True, deep=False).sum()) if isinstance(value, pd.DataFrame) else int(value.memory_usage())
    if isinstance(value, (str, bytes)):
        return len(value)
    if _depth >= 4:
        return 64
    if isinstance(value, dict):
        return 64 + sum(nbytes_of(k, _depth + 1) + nbytes_of(v, _depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        if len(value) > 1000 and all(isinstance(x, str) for x in list(value)[:100]):
            return 64 + 60 * len(value)  # a vocabulary: about 60 bytes per short word
        return 64 + sum(nbytes_of(x, _depth + 1) for x in value)
    attributes = getattr(value, "__dict__", None)
    if attributes:
        return 64 + sum(nbytes_of(v, _depth + 1) for v in attributes.values())
    return 64


class ProcessMemo:
    """Heavy objects shared by every session of a process (trained models, search results):
    at most ``maxsize`` entries and, if ``max_bytes`` is given, at most that many bytes by
    :func:`nbytes_of` (the newest entry is always kept), least recently used dropped first.
    Concurrent requests for the same missing key compute it once (the others wait for it);
    requests for other keys, and hits, never wait for someone else's computation (one lock per
    key being computed)."""

    def __init__(self, maxsize: int = 8, max_bytes: int | None = None):
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self._items: "OrderedDict[Any, Any]" = OrderedDict()
        self._sizes: dict[Any, int] = {}
        self._lock = threading.Lock()
        self._computing: dict[Any, threading.Lock] = {}

    def nbytes(self) -> int:
        with self._lock:
            return sum(self._sizes.values())

    def discard(self, key) -> None:
        with self._lock:
            self._items.pop(key, None)
            self._sizes.pop(key, None)

    def keys(self) -> list:
        """The cached keys, least recently used first."""
        with self._lock:
            return list(self._items)

    def contains(self, key) -> bool:
        with self._lock:
            return key in self._items

    def _hit(self, key) -> tuple[bool, Any]:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return True, self._items[key]
            return False, None

    def get(self, key, compute: Callable[[], Any]):
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
                    if self.max_bytes is not None:  # entries grow (cached properties): measure again
                        self._sizes = {k: nbytes_of(v) for k, v in self._items.items()}
                    while len(self._items) > self.maxsize or (
                        len(self._items) > 1 and self.max_bytes is not None and sum(self._sizes.values()) > self.max_bytes
                    ):
                        old, _ = self._items.popitem(last=False)
                        self._sizes.pop(old, None)
            finally:
                with self._lock:
                    self._computing.pop(key, None)
            return value


UPLOAD_PREFIX = "upload:"


def save_upload(data: bytes, filename: str) -> str:
    """Keep an uploaded file under the cache directory, named by its content; returns the
    reference ``upload:NAME`` that parameters (and so links) carry."""
    suffix = filename.rsplit(".", 1)[-1].lower() if "." in filename else "bin"
    name = f"{hashlib.sha256(data).hexdigest()[:16]}.{suffix}"
    path = cache_dir() / "uploads" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        _touch(path)
    else:
        path.write_bytes(data)
        enforce_quota(path.parent, quota_bytes("DPVIZ_UPLOAD_QUOTA_MB", UPLOADS_QUOTA_MB), keep=path)
    return UPLOAD_PREFIX + name


def existing_upload(ref: str) -> Path:
    """The file behind ``upload:NAME``, which must still be here (the uploads quota deletes old
    ones, and a link may come from another server); ValueError with a sentence otherwise."""
    path = upload_path(ref)
    if not path.is_file():
        raise ValueError(f"The uploaded file {path.name!r} is not on this server any more: upload it again.")
    return path


def upload_path(ref: str) -> Path:
    """The file behind ``upload:NAME``; a name that could leave the uploads folder is refused."""
    name = ref[len(UPLOAD_PREFIX):] if ref.startswith(UPLOAD_PREFIX) else ref
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ValueError("An upload reference must be a plain file name.")
    return cache_dir() / "uploads" / name
