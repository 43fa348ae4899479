"""Where dpviz keeps files, and how much: the user cache directory (``platformdirs.user_cache_dir("dpviz")``,
or ``$DPVIZ_CACHE_DIR``; never inside the repository) and the size quotas of its folders, least
recently used files deleted first (:func:`enforce_quota`)."""

from __future__ import annotations

import os
import stat
import sys
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
