"""Where dpviz keeps files, and how much: the user cache directory (``platformdirs.user_cache_dir("dpviz")``,
or ``$DPVIZ_CACHE_DIR``; never inside the repository) and the size quotas of its folders, least
recently used files deleted first (:func:`enforce_quota`)."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from dpviz import hosted_mode


def cache_dir() -> Path:
    """The cache directory: ``$DPVIZ_CACHE_DIR``, else the user cache directory for dpviz."""
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
        print(
            f"dpviz: ${name}={raw[:40]!r} is not a size in MB (a number >= 0 or inf); using {default_mb} MB.",
            file=sys.stderr,
        )
        return default_mb * 2**20
    return int(mb * 2**20)


def embeddings_budget() -> int:
    """Bytes the loaded embeddings may hold together in memory ($DPVIZ_EMBEDDINGS_MB): 1 GiB on
    a hosted demo, half the machine's memory otherwise (the "embeddings" cache's bound)."""

    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return quota_bytes("DPVIZ_EMBEDDINGS_MB", 1024 if hosted_mode() else max(1024, total // 2**21))


TABLES_QUOTA_MB = 2000  # $DPVIZ_CACHE_QUOTA_MB: computed tables, all figures together
UPLOADS_QUOTA_MB = 1000  # $DPVIZ_UPLOAD_QUOTA_MB: uploaded embeddings and corpora


def _files(folder: Path) -> list[tuple[float, int, str]]:
    """(modification time, size, path) of every regular file under ``folder``, by ``os.scandir``
    (2.5x faster than ``Path.rglob`` and ``Path.stat`` per file). A file or folder deleted
    meanwhile by another process is skipped."""
    found = []
    stack = [str(folder)]
    while stack:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        info = entry.stat(follow_symlinks=False)
                        found.append((info.st_mtime, info.st_size, entry.path))
                except OSError:
                    continue
    return found


def enforce_quota(folder: Path, max_bytes: int, keep: Path | None = None) -> list[Path]:
    """Delete the least recently used files under ``folder`` (oldest modification time
    first; reads touch their file) until the rest fit in ``max_bytes``. ``keep`` (the file just
    written) is never deleted. A hosted demo's visitors can otherwise fill the disk with
    uploads and with tables for ever new settings. Returns the deleted files."""
    return _trim(folder, max_bytes, keep)[0]


def _trim(folder: Path, max_bytes: int, keep: Path | None) -> tuple[list[Path], int]:
    """:func:`enforce_quota`, and the bytes left under ``folder``."""
    files = _files(folder)
    total = sum(size for _, size, _ in files)
    deleted = []
    kept = None if keep is None else os.fspath(keep)
    for _, size, path in sorted(files, key=lambda f: f[0]):
        if total <= max_bytes:
            break
        if path == kept:
            continue
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
        deleted.append(Path(path))
    return deleted, total


QUOTA_WALK_EVERY = 256
"""Writes a process makes to a folder between two walks of it (:func:`keep_within_quota`)."""
QUOTA_WALK_AFTER_S = 60.0
"""Seconds after which a process walks the folder again at its next write, whatever it wrote."""
QUOTA_MARGIN = 0.9
"""A write that takes the estimated size above this share of the quota walks the folder."""
_ACCOUNTS: dict[str, list] = {}  # folder -> [bytes estimated, writes since the walk, when walked]
_ACCOUNTS_LOCK = threading.Lock()


def keep_within_quota(folder: Path, max_bytes: int, written: Path) -> list[Path]:
    """:func:`enforce_quota` after a write of ``written`` under ``folder``, walking the folder only
    when it may be needed. Walking it costs ~3.5 µs a file (7 ms for the 2,000 files ``dpviz build``
    leaves, 70 ms for 20,000; with ``Path.rglob`` and a ``stat`` each, 17 and 180 ms), and it came
    once per table written: 44% of ADePT's privacy-loss chart at 2,000 files, 84% at 20,000
    (``benchmarks/bench_cache_quota.py``). So each process keeps an estimate: the
    bytes the last walk left plus every file written since. It walks (and deletes) when the
    estimate passes ``QUOTA_MARGIN`` of the quota, after ``QUOTA_WALK_EVERY`` writes, or when the
    last walk is ``QUOTA_WALK_AFTER_S`` old: other processes' writes go unseen for at most that
    long. Returns the deleted files."""
    try:
        size = written.stat().st_size
    except OSError:
        size = 0
    key = os.fspath(folder)
    now = time.monotonic()
    with _ACCOUNTS_LOCK:
        account = _ACCOUNTS.get(key)
        if account is not None and account[1] < QUOTA_WALK_EVERY and now - account[2] < QUOTA_WALK_AFTER_S:
            if account[0] + size <= QUOTA_MARGIN * max_bytes:
                account[0] += size
                account[1] += 1
                return []
        deleted, total = _trim(folder, max_bytes, written)
        _ACCOUNTS[key] = [total, 0, now]
        return deleted


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:  # read-only cache: the order is only a preference
        pass
