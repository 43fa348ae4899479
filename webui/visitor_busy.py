"""Whether a visitor's computation runs in this server process: counted while it runs
(:func:`busy`), so that background work (frames) yields to what a visitor waits for
(:func:`wait_idle`, :func:`idle_now`). Without Streamlit: the frame pool asks it too, and
``python -m dpviz build`` imports the pool without the web server."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Iterator

_BUSY = [0, 0.0]  # computations running now, when the last one ended (monotonic seconds)
_BUSY_LOCK = threading.Lock()
GRACE = 1.0
"""Seconds without a visitor's computation before background work goes on: a page computes its
charts one after another, and the gaps between them are not idle time."""


@contextmanager
def busy() -> Iterator[None]:
    """Count a visitor's computation while it runs (background work waits for none: :func:`wait_idle`)."""
    with _BUSY_LOCK:
        _BUSY[0] += 1
    try:
        yield
    finally:
        with _BUSY_LOCK:
            _BUSY[0] -= 1
            _BUSY[1] = time.monotonic()


def idle_now() -> bool:
    """No visitor's chart computes in this process, nor has for :data:`GRACE` seconds."""
    return _BUSY[0] == 0 and time.monotonic() - _BUSY[1] >= GRACE


def wait_idle(limit: float = 60.0) -> None:
    """Wait (at most ``limit`` seconds) until :func:`idle_now`."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and not idle_now():
        time.sleep(0.05)
