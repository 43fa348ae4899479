"""Disk cache for computed figure tables, keyed by every parameter that changes them.

Tables live under the user cache directory (``platformdirs.user_cache_dir("dpviz")``,
or ``$DPVIZ_CACHE_DIR``), never inside the repository, as Parquet files named by a
SHA-256 of (figure id, canonical parameters, dpviz version).
"""

from __future__ import annotations

import hashlib
import json
import os
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
