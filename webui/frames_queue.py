"""The background worker's queue of frames (:mod:`webui.live_frames`): as many threads per
process as there are sets in flight (:func:`webui.frames_pool.concurrency`: four per frame worker), each
taking one set at a time, the most recently asked for first, and having a worker process compute
it (:mod:`webui.frames_pool`) or, without one, computing it itself at a lower CPU priority than the
visitors' work, after their own runs (:func:`webui.visitor_busy.wait_idle`, between every two positions).
A set a worker process computes does not wait for the visitors' runs: the workers run at the
lowest CPU priority, so the system already puts a visitor's run first, and a set that waited for
the run after a key step to end (about 0.8 s on the HoHo page) came that much later.

Each request names who asks (:func:`webui.live_frames.asker`: the session, the chart, the
slider; None: nobody who moves on, such as the warm-up). An asker's newer request withdraws its
older one, which leaves the queue if nobody else asks for it and, if it is being computed,
stops at its next position (:func:`wanted`): three quick moves of ε compute the other sliders'
frames once, at the last ε. What nobody asked for again in :data:`STALE` seconds is dropped.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from dpviz import caches
from webui import frames_pool
from webui.frames_signals import trace
from webui.frames_worker import Withdrawn
from webui.visitor_busy import wait_idle

_FRAMES = caches.memo("web.frames")  # frames this process holds (webui.frames_store keeps them)
_PENDING: dict[str, tuple[float, Any]] = {}  # key -> (when last asked for, the job)
_AHEAD: dict[str, None] = {}  # keys asked for only ahead of a move (live_frames.ask_ahead), in the order asked
_ASKERS: dict[str, set] = {}  # key -> who asks for it now (session, chart, slider; None: anyone)
_ASKS: dict[tuple, str] = {}  # asker -> the key it asks for now
_LOCK = threading.Condition()
_WORKER: list[threading.Thread] = []
_WORKING: set[str] = set()
STALE = 30.0
"""Seconds after which frames nobody asked for again are not computed (a page that waits for
frames asks again every 2 s; a slider that moved on asks for others)."""
AHEAD_STALE = 300.0
"""The same for sets asked for ahead of a move: a settled page does not ask again, and a page's
sets ahead (16 on the HoHo page) took over 30 s on a loaded machine (CI's clean-clone run 69 lost
the first chart's last one so)."""
log = logging.getLogger("dpviz.frames")


def request(key: str, job, by: tuple | None = None, ahead: bool = False) -> None:
    """Ask the background worker for frames ``key``, made by ``job(progress)``, on behalf of
    ``by`` (:func:`asker`; None: nobody who moves on, such as the warm-up); asking again only
    says they are still wanted. ``by``'s earlier request, for another key, is withdrawn
    (:func:`_withdraw`). The worker takes the most recently asked for first, and drops what
    nobody asked for in :data:`STALE` seconds. ``ahead``: frames a reader's next key step would
    need (:func:`webui.live_frames.ask_ahead`), taken only when no other set waits, one at a time;
    the same key asked for without ``ahead`` is a set like any other."""
    with _LOCK:
        if not ahead:
            _AHEAD.pop(key, None)
        if by is not None and _ASKS.get(by, key) != key:
            _withdraw(by, _ASKS.pop(by))
        if _FRAMES.contains(key):
            return
        if by is not None:
            _ASKS[by] = key
        _ASKERS.setdefault(key, set()).add(by)
        if key in _WORKING:
            return
        if key not in _PENDING:
            trace("asked", key, by)
            if ahead:
                _AHEAD[key] = None
        _PENDING[key] = (time.monotonic(), job)
        _WORKER[:] = [t for t in _WORKER if t.is_alive()]
        if len(_WORKER) < frames_pool.concurrency():
            _WORKER.append(threading.Thread(target=_work, name=f"dpviz-frames-{len(_WORKER)}", daemon=True))
            _WORKER[-1].start()
        _LOCK.notify()


def _withdraw(by: tuple, key: str) -> None:
    """``by`` no longer asks for ``key`` (under the lock): a key nobody asks for any more is
    dropped from the queue, and, if it is being computed, stopped at its next position
    (:func:`wanted`). A key asked for by nobody in particular (the warm-up) stays."""
    askers = _ASKERS.get(key)
    if askers is None:
        return
    askers.discard(by)
    if not askers:
        del _ASKERS[key]
        _PENDING.pop(key, None)
        _AHEAD.pop(key, None)


def _forget(key: str) -> None:
    """``key`` is done or dropped (under the lock): its askers ask for nothing any more."""
    for by in _ASKERS.pop(key, ()):
        if by is not None and _ASKS.get(by) == key:
            del _ASKS[by]


def wanted(key: str) -> bool:
    """Whether the frames ``key`` being computed are still wanted: by an asker, or by a request
    that named none (which nobody withdraws)."""
    with _LOCK:
        return key in _ASKERS


def sessions(key: str) -> set[str]:
    """The asker tokens of the sessions that ask for frames ``key`` now (:func:`webui.live_frames.asker`)."""
    with _LOCK:
        return {by[0] for by in _ASKERS.get(key, ()) if by is not None}


def pending(keys) -> bool:
    """Whether any of ``keys`` is still asked for or being computed."""
    with _LOCK:
        return any(k in _PENDING or k in _WORKING for k in keys)


def _next() -> tuple[str, Any] | None:
    """The most recently asked-for job still wanted (waiting for one); stale ones are dropped.
    None for a thread with nothing to do while more threads are alive than sets may be in flight
    (:func:`webui.frames_pool.concurrency`, which falls to one when the pool breaks too often):
    that thread ends."""
    me = threading.current_thread()
    with _LOCK:
        while True:
            now = time.monotonic()
            # (a settled page does not ask again: its sets ahead wait AHEAD_STALE, not STALE)
            for k in [k for k, (t, _) in _PENDING.items() if now - t > (AHEAD_STALE if k in _AHEAD else STALE)]:
                del _PENDING[k]
                _AHEAD.pop(k, None)
                _forget(k)
            # the sets asked for now first, the latest first; a set ahead of a move only when none
            # waits and no other set ahead is being computed, in the order asked (the page's first
            # chart first: what readers wait for keeps the workers)
            now_wanted = [k for k in _PENDING if k not in _AHEAD]
            key = max(now_wanted, key=lambda k: _PENDING[k][0]) if now_wanted else None
            if key is None and not _WORKING.intersection(_AHEAD):
                key = next((k for k in _AHEAD if k in _PENDING), None)
            if key is not None:
                _, job = _PENDING.pop(key)
                _WORKING.add(key)
                trace("taken", key, sorted(map(str, _ASKERS.get(key, ()))))
                return key, job
            _WORKER[:] = [t for t in _WORKER if t.is_alive()]
            if me in _WORKER and len(_WORKER) > frames_pool.concurrency():
                _WORKER.remove(me)
                return None
            _LOCK.wait(timeout=5.0)


def retire_idle(timeout: float = 10.0) -> int:
    """Wake the idle threads so that those beyond :func:`webui.frames_pool.concurrency` end; wait up
    to ``timeout`` seconds for them; the number of threads alive then."""
    deadline = time.monotonic() + timeout
    while True:
        with _LOCK:
            _LOCK.notify_all()
            alive = [t for t in _WORKER if t.is_alive()]
        if len(alive) <= frames_pool.concurrency() or time.monotonic() > deadline:
            return len(alive)
        time.sleep(0.05)


def _work() -> None:
    """The background worker: one set of frames at a time, at a lower priority than the
    visitors' work (Linux: this thread's nice value), each logged if it fails."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):
        pass
    while True:
        taken = _next()
        if taken is None:
            return
        key, job = taken

        def still_wanted(*_, key=key) -> None:  # dropped work stops
            if not wanted(key):
                raise Withdrawn(key)

        def between(*_) -> None:  # between two positions computed in this thread: visitors first
            wait_idle()
            still_wanted()

        between.still_wanted = still_wanted  # what a worker process's set is checked by (frames_pool.compute)
        try:
            still_wanted() if frames_pool.active() else between()
            job(between)
            trace("done", key)
        except Withdrawn:
            trace("withdrawn", key)
            log.info("frames %s withdrawn: nobody asks for them any more", key)
        except Exception:  # noqa: BLE001 - a chart without frames still works (the server draws it)
            trace("failed", key)
            log.exception("frames %s failed", key)
        finally:
            with _LOCK:
                _WORKING.discard(key)
                _AHEAD.pop(key, None)
                _forget(key)
