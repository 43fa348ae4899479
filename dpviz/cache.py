"""Disk cache for computed figure tables, keyed by every parameter that changes them.

Tables live under the user cache directory (``platformdirs.user_cache_dir("dpviz")``,
or ``$DPVIZ_CACHE_DIR``), never inside the repository, as Parquet files named by a
SHA-256 of (figure id, canonical parameters, dpviz version).
"""

from __future__ import annotations

import hashlib
import json
import os
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
    path = cache_dir() / figure_id / f"{cache_key(figure_id, canonical)}.parquet"
    if path.exists():
        try:
            return pd.read_parquet(path)
        except Exception:  # a half-written or corrupt file: recompute
            pass
    df = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        df.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    except OSError:
        pass
    return df


def is_cached(figure_id: str, canonical: Mapping[str, Any]) -> bool:
    return (cache_dir() / figure_id / f"{cache_key(figure_id, canonical)}.parquet").exists()


class ProcessMemo:
    """Heavy objects shared by every session of a process (trained models, search results):
    at most ``maxsize`` entries, least recently used dropped first. The lock is held while a
    missing entry is computed, so concurrent sessions never compute the same thing twice."""

    def __init__(self, maxsize: int = 8):
        self.maxsize = maxsize
        self._items: "OrderedDict[Any, Any]" = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, compute: Callable[[], Any]):
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            value = compute()
            self._items[key] = value
            while len(self._items) > self.maxsize:
                self._items.popitem(last=False)
            return value


UPLOAD_PREFIX = "upload:"


def save_upload(data: bytes, filename: str) -> str:
    """Keep an uploaded file under the cache directory, named by its content; returns the
    reference ``upload:NAME`` that parameters (and so links) carry."""
    suffix = filename.rsplit(".", 1)[-1].lower() if "." in filename else "bin"
    name = f"{hashlib.sha256(data).hexdigest()[:16]}.{suffix}"
    path = cache_dir() / "uploads" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_bytes(data)
    return UPLOAD_PREFIX + name


def upload_path(ref: str) -> Path:
    """The file behind ``upload:NAME``; a name that could leave the uploads folder is refused."""
    name = ref[len(UPLOAD_PREFIX):] if ref.startswith(UPLOAD_PREFIX) else ref
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ValueError("An upload reference must be a plain file name.")
    return cache_dir() / "uploads" / name
