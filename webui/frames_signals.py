"""What the server and its frame workers (:mod:`webui.frames_pool`) tell each other through files:
the stop markers (nobody wants a set any more), the marker of a set handed to the workers, and a
trace of the frames' events for a benchmark (``DPVIZ_FRAMES_TRACE``)."""

from __future__ import annotations

import functools
import os
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


@functools.cache
def markers() -> Path:
    """This server process's folder of markers (one per process, made when first asked for)."""
    return Path(tempfile.mkdtemp(prefix="dpviz-frames-stop-"))


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
