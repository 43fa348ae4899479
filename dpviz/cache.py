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
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Mapping

import pandas as pd

from dpviz import __version__


def cache_dir() -> Path:
    root = os.environ.get("DPVIZ_CACHE_DIR")
    if root:
        return Path(root)
    import platformdirs

    return Path(platformdirs.user_cache_dir("dpviz"))


def quota_bytes(name: str, default_mb: int) -> int:
    """A size limit in bytes from ``$name`` (in MB), else the default."""
    try:
        return int(float(os.environ.get(name, default_mb)) * 2**20)
    except ValueError:
        return default_mb * 2**20


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

    A corrupt or unreadable cache file is recomputed; a cache that cannot be written
    (read-only disk) still returns the result.
    """
    path = table_path(figure_id, canonical)
    if path.exists():
        try:
            df = pd.read_parquet(path)
        except Exception:  # a half-written or corrupt file: recompute
            pass
        else:
            _touch(path)
            return df
    df = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        df.to_parquet(tmp, index=False)
        os.replace(tmp, path)
        enforce_quota(cache_dir() / "tables", quota_bytes("DPVIZ_CACHE_QUOTA_MB", TABLES_QUOTA_MB), keep=path)
    except OSError:
        pass
    return df


def table_path(figure_id: str, canonical: Mapping[str, Any]) -> Path:
    return cache_dir() / "tables" / figure_id / f"{cache_key(figure_id, canonical)}.parquet"


def is_cached(figure_id: str, canonical: Mapping[str, Any]) -> bool:
    return table_path(figure_id, canonical).exists()


class ProcessMemo:
    """Heavy objects shared by every session of a process (trained models, search results):
    at most ``maxsize`` entries, least recently used dropped first. Concurrent requests for the
    same missing key compute it once (the others wait for it); requests for other keys, and
    hits, never wait for someone else's computation (one lock per key being computed)."""

    def __init__(self, maxsize: int = 8):
        self.maxsize = maxsize
        self._items: "OrderedDict[Any, Any]" = OrderedDict()
        self._lock = threading.Lock()
        self._computing: dict[Any, threading.Lock] = {}

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
                    while len(self._items) > self.maxsize:
                        self._items.popitem(last=False)
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
