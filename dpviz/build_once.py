"""Files and folders that several server processes may build at the same moment: built once,
into a temporary path of their own, and published whole by one atomic rename.

The hosted start command runs one server process per core on one cache directory, and each warms
the same pages on an empty cache: without care both train the local fastText vectors into one
folder, and one reads what the other is still writing. Here every build

1. takes an exclusive lock on ``TARGET.lock`` (``fcntl.flock``: held by an open file, so the
   kernel releases it when the holder dies, even by ``kill -9``);
2. looks again: a build another process finished while this one waited is used as it is;
3. builds into ``.TARGET.<pid>.<random>.tmp`` beside the target (same file system), which no other
   build ever names;
4. publishes it with ``os.rename`` (a folder; any stale one is moved out of the way first) or
   ``os.replace`` (a file): a reader sees the old state or the whole new one, never a part.

A build that fails removes its temporary path and raises; the next caller builds again. A cache
that cannot be locked (a read-only disk) builds without the lock, into a temporary path as ever.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator


@contextmanager
def file_lock(path: Path) -> Iterator[bool]:
    """Hold an exclusive lock on the file ``path`` (created if missing) until the block ends; yields
    whether the lock is held (False where the file cannot be made, e.g. a read-only cache)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield False
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield True
    finally:
        os.close(fd)  # closing the file releases the lock


def temporary_path(target: Path) -> Path:
    """A path beside ``target`` that no other build, in this process or another, will use."""
    return target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def publish(tmp: Path, target: Path) -> None:
    """Move the finished ``tmp`` to ``target`` in one rename (a folder replaces a stale one)."""
    if tmp.is_dir():
        if target.exists():
            stale = temporary_path(target)
            os.rename(target, stale)
            _remove(stale)
        os.rename(tmp, target)
    else:
        os.replace(tmp, target)


def build_once(target: Path, build: Callable[[Path], None], ready: Callable[[Path], bool] | None = None) -> Path:
    """``target``, built by ``build(tmp)`` unless it is ready already; ``build`` writes the whole
    file or folder at ``tmp`` (a folder: ``build`` makes it). ``ready(target)`` says whether a
    published target is usable (default: it exists). Returns ``target``."""
    ready = ready or Path.exists
    if ready(target):
        return target
    with file_lock(target.with_name(target.name + ".lock")):
        if ready(target):  # built by another process while this one waited
            return target
        tmp = temporary_path(target)
        try:
            build(tmp)
            publish(tmp, target)
        finally:
            if tmp.exists():
                _remove(tmp)
    return target
