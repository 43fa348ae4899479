"""What the server and its frame workers (:mod:`webui.frames_pool`) tell each other through files:
the stop markers (nobody wants a set any more), the marker of a set handed to the workers, and a
trace of the frames' events for a benchmark (``DPVIZ_FRAMES_TRACE``)."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

ASKED = "asked"
"""The marker touched each time a set is handed to the workers: a worker loading a page's prepared
state ahead of its first set (:func:`webui.frames_pool.prestart`) stops when it is newer than its
start, so that a visitor's first step waits for no state but its own charts' (on a fresh server a
HoHo step waited 7 s for the workers to load states none of its sets needed)."""

MARKER_AGE = 600.0
"""Seconds after which a stop marker is deleted (its worker has long stopped at its next position)."""


PREFIX = "dpviz-frames-stop-"
"""The markers' folders' names in the temporary folder: this prefix, the server process's id, a dash."""


@functools.cache
def markers() -> Path:
    """This server process's folder of markers (one per process, made when first asked for, removed
    when the process ends). The folders of server processes that are gone (killed, so that their own
    removal never ran) are removed first: every server a test suite, a benchmark or a restarted
    hosted demo started left one behind (85 in one machine's temporary folder)."""
    sweep_orphans()
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def sweep_orphans() -> None:
    """Remove the markers' folders of server processes no longer running on this machine (by the
    process id in the folder's name; a folder named otherwise is left alone)."""
    for entry in Path(tempfile.gettempdir()).glob(f"{PREFIX}*-*"):
        pid = entry.name[len(PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _running(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


def _running(pid: int) -> bool:
    """Whether a process with this id runs (one of another user's counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def sweep_markers() -> None:
    """Delete the stop markers older than :data:`MARKER_AGE` (a hosted server lives for weeks, and
    every withdrawn set leaves one)."""
    old = time.time() - MARKER_AGE
    for entry in os.scandir(markers()):
        try:
            if entry.stat().st_mtime < old:
                os.unlink(entry.path)
        except OSError:  # another thread's sweep took it
            pass


def newer(path: str, than: float) -> bool:
    """Whether the marker ``path`` exists and was touched at or after the time ``than``."""
    try:
        return os.stat(path).st_mtime >= than
    except OSError:
        return False


TRACE = os.environ.get("DPVIZ_FRAMES_TRACE", "").strip()
"""A file the frames' events are appended to (asked, taken, near, done, withdrawn, failed in the
server; ready, warm, part in a worker): a set's key or what is computed, the process and the time,
so that a benchmark can say where a set's seconds went (``benchmarks/bench_after_step.py`` adds the
reader's presses). Unset: nothing is written."""


def trace(event: str, key: str, who: Any = "") -> None:
    """One line of :data:`TRACE` (nothing when it is unset)."""
    if TRACE:
        with open(TRACE, "a") as out:
            out.write(f"{time.time():.3f} {os.getpid()} {event} {key} {who}\n")
