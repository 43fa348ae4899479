"""Tables on disk that are verified before they are believed.

A parquet file that parses is not necessarily the file that was written: one flipped byte in a
compressed page can change numbers without any parse error, and a resumed sweep must not count
a truncated or swapped partition as done. Every table is written with a sidecar
``NAME.check.json`` holding the SHA-256 of the file's bytes, its row count and what it is for
(``meta``: the figure and parameters, or a sweep partition's index and words). Reading returns
the table only if the bytes hash to the recorded value, the meta is the expected one and the row
count matches; otherwise None, and the caller recomputes. Both files are written to temporary
names and renamed, data first, so a killed writer leaves a table without a valid sidecar, which
does not verify.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from dpviz.build_once import temporary_path


def sidecar(path: Path) -> Path:
    """The check file beside a table: ``NAME.check.json``."""
    return path.with_name(path.name + ".check.json")


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = temporary_path(path)  # of this writer alone, whichever process or thread it is
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_table(df: pd.DataFrame, path: Path, meta: Mapping[str, Any]) -> None:
    """Write ``df`` as parquet to ``path`` and its check (hash, rows, ``meta``) beside it."""
    buffer = io.BytesIO()
    df.to_parquet(buffer, index=False)
    _write_checked(buffer.getvalue(), int(len(df)), path, meta)


def write_blob(data: bytes, path: Path, meta: Mapping[str, Any]) -> None:
    """Write ``data`` to ``path`` and its check (hash, size in ``rows``, ``meta``) beside it."""
    _write_checked(data, len(data), path, meta)


def _write_checked(data: bytes, rows: int, path: Path, meta: Mapping[str, Any]) -> None:
    check = {"sha256": hashlib.sha256(data).hexdigest(), "rows": rows, "meta": dict(meta)}
    path.parent.mkdir(parents=True, exist_ok=True)
    _atomic_write(path, data)
    _atomic_write(sidecar(path), json.dumps(check, sort_keys=True).encode())


def _read_checked(path: Path, meta: Mapping[str, Any] | None) -> tuple[bytes, dict] | None:
    """The bytes at ``path`` and their check, if the bytes hash to it and (given) ``meta`` is its."""
    try:
        check = json.loads(sidecar(path).read_text())
        data = path.read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(check, dict) or hashlib.sha256(data).hexdigest() != check.get("sha256"):
        return None
    if meta is not None and check.get("meta") != json.loads(json.dumps(dict(meta))):
        return None
    return data, check


def read_table(path: Path, meta: Mapping[str, Any] | None = None) -> pd.DataFrame | None:
    """The table at ``path`` if it verifies (hash, row count and, when given, ``meta``), else None."""
    found = _read_checked(path, meta)
    if found is None:
        return None
    try:
        df = pd.read_parquet(io.BytesIO(found[0]))
    except Exception:  # noqa: BLE001 - a file with the right hash that does not parse: not ours
        return None
    return df if len(df) == found[1].get("rows") else None


def read_blob(path: Path, meta: Mapping[str, Any]) -> bytes | None:
    """The bytes at ``path`` if they verify (hash, size and ``meta``), else None."""
    found = _read_checked(path, meta)
    return found[0] if found is not None and len(found[0]) == found[1].get("rows") else None


def read_meta(path: Path) -> dict | None:
    """The meta recorded beside ``path`` (None if there is no readable check)."""
    try:
        check = json.loads(sidecar(path).read_text())
    except (OSError, ValueError):
        return None
    return check.get("meta") if isinstance(check, dict) else None


def remove(path: Path) -> None:
    """Delete a table and its check (whichever exist)."""
    for p in (path, sidecar(path)):
        try:
            p.unlink()
        except OSError:
            pass
