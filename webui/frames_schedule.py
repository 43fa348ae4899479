"""The order in which the frame workers (:mod:`webui.frames_pool`) take their tasks: the shortest
first, by what each is expected to cost.

A process pool takes its tasks in the order they were submitted. After a key step every chart
that follows the other slider asks for its set of frames at once, and each set is computed in
parts: the positions nearest the slider's value first (so that a press or a short drag near it is
drawn from frames soon), then the rest, asked for once its nearest part is done. In submission
order a cheap set's rest waited behind every other set's nearest part: on the ADePT page, after a
step of n, the ε chart's rest (37 positions, 0.15 s) waited 3 s behind the nearest parts of the
privacy-loss chart (1.1-1.7 s), the fixes and the frontier, and a reader's drag of ε right after
showed 3-4 chart states (the trace of 2026-11-29).

So the pool is fed by a :class:`Scheduler`: it holds the tasks in a priority queue and hands the
pool one per worker, each when a worker is free, the cheapest first (shortest job first: the most
charts whole soonest). A task's cost is its positions times the seconds a position of that chart
along that slider took (:func:`estimate`): as measured in this process (each part a worker computes
is timed, :func:`note`, but a set's first, which also prepares the set's state), else as
``python -m dpviz build`` measured it on the same code (:func:`record_built`, kept in the cache),
else unknown, which goes first (as a set's putting together does). Tasks of equal cost go in the
order they were submitted.
"""

from __future__ import annotations

import heapq
import itertools
import json
import threading
import time
import weakref
from concurrent.futures import Future

from dpviz import tables

_RATES: dict[tuple[str, str], float] = {}  # (chart, slider) -> seconds a position, measured here
_BUILT: list = []  # the build's rates, once read from the cache
_RATES_LOCK = threading.Lock()
BUILT_KIND, BUILT_KEY = "frames-costs", {"what": "seconds a position of each chart's frames along each slider"}


def note(figure: str, slider: str, seconds: float, positions: int) -> None:
    """A part of ``positions`` frames of ``figure`` along ``slider`` took ``seconds``: the rate of
    that chart and slider from now on (the latest measured)."""
    if positions > 0 and seconds >= 0:
        with _RATES_LOCK:
            _RATES[(figure, slider)] = seconds / positions


def estimate(figure: str, slider: str, positions: int) -> float:
    """The seconds ``positions`` frames of ``figure`` along ``slider`` are expected to take; 0.0
    when nothing says (module docstring)."""
    with _RATES_LOCK:
        rate = _RATES.get((figure, slider))
        if rate is None:
            if not _BUILT:
                _BUILT.append(_read_built())
            rate = _BUILT[0].get(f"{figure}|{slider}")
    return 0.0 if rate is None else rate * positions


def record_built(rates: dict[tuple[str, str], float]) -> None:
    """Keep the build's seconds a position ((chart, slider) -> seconds) in the cache, for every
    server that starts on it (its key holds the code's fingerprint: a changed dpviz reads none),
    with those kept before (a build of some pages adds to them); nothing when there are none."""
    if not rates:
        return
    rates = {**{tuple(k.split("|", 1)): v for k, v in _read_built().items()}, **rates}
    data = json.dumps({f"{f}|{s}": r for (f, s), r in sorted(rates.items())}, sort_keys=True).encode()
    tables.write_shared(BUILT_KIND, BUILT_KEY, data)
    with _RATES_LOCK:
        _BUILT.clear()


def _read_built() -> dict[str, float]:
    found = tables.read_shared(BUILT_KIND, BUILT_KEY)
    try:
        rates = json.loads(found) if found else {}
    except json.JSONDecodeError:  # (damaged: as if none were kept)
        return {}
    return {k: float(v) for k, v in rates.items() if isinstance(v, (int, float))} if isinstance(rates, dict) else {}


class Scheduler:
    """Hands ``pool`` (an executor) at most ``slots`` tasks at a time, the first by
    expected cost whenever one ends. :meth:`submit` returns a future of its own, which ends as
    the pool's does and carries ``seconds``: the time from handing the task to the pool to its end
    (about its computing time, since the pool then has a free worker for it). The pool is handed
    its tasks by a thread of the scheduler's own, never from a task's completion (a process pool's
    manager thread, which completes its futures, is not to be made to submit)."""

    def __init__(self, pool, slots: int):
        self.pool, self.slots = pool, max(1, slots)
        self._queue: list = []
        self._order = itertools.count()
        self._running = 0
        self._wake = threading.Condition()
        self._feeder: threading.Thread | None = None

    def submit(self, cost: float, fn, *args) -> Future:
        """``fn(*args)`` in the pool, in the order of its expected ``cost`` (seconds, the cheapest
        first; then as submitted); a future of its result. A future cancelled before its turn is
        never handed to the pool."""
        out: Future = Future()
        with self._wake:
            heapq.heappush(self._queue, (cost, next(self._order), out, fn, args))
            if self._feeder is None or not self._feeder.is_alive():
                self._feeder = threading.Thread(target=self._feed, name="dpviz-frames-feed", daemon=True)
                self._feeder.start()
            self._wake.notify()
        return out

    def waiting(self) -> int:
        """How many tasks wait for a free worker."""
        with self._wake:
            return len(self._queue)

    def _next(self, idle: float = 30.0):
        """The next task to hand over, once a worker is free; None after ``idle`` seconds with
        nothing to do (the feeder ends; the next submit starts another)."""
        with self._wake:
            while True:
                while self._queue and self._running < self.slots:
                    _, _, out, fn, args = heapq.heappop(self._queue)
                    if out.set_running_or_notify_cancel():  # (False: cancelled while it waited)
                        self._running += 1
                        return out, fn, args
                if not self._wake.wait(timeout=idle) and not self._queue:
                    self._feeder = None
                    return None

    def _feed(self) -> None:
        from concurrent.futures.process import BrokenProcessPool

        while (task := self._next()) is not None:
            out, fn, args = task
            started = time.monotonic()
            try:
                real = self.pool.submit(fn, *args)
            except BaseException as err:  # noqa: BLE001 - told to the task's future, as the pool would
                self._finished()
                # (a pool shut down says so by a RuntimeError on submit: a pool that cannot take it)
                out.set_exception(BrokenProcessPool(f"shut down: {err}") if isinstance(err, RuntimeError) else err)
                continue
            real.add_done_callback(lambda f, out=out, started=started: self._done(f, out, started))

    def _finished(self) -> None:
        with self._wake:
            self._running -= 1
            self._wake.notify()

    def _done(self, real: Future, out: Future, started: float) -> None:
        from concurrent.futures.process import BrokenProcessPool

        out.seconds = time.monotonic() - started
        self._finished()
        if real.cancelled():  # (a pool shut down with its tasks: one that cannot take them)
            out.set_exception(BrokenProcessPool("shut down: the pool cancelled the task"))
        elif real.exception() is not None:
            out.set_exception(real.exception())
        else:
            out.set_result(real.result())


AHEAD_COST = 1e6
"""Seconds added to the expected cost of a part of a set asked for ahead of a reader's move
(:func:`webui.live_frames.ask_ahead`): the scheduler hands the workers the cheapest part first,
so every part of a set someone waits for goes before it."""
AHEAD_PART = 8
"""Positions in a part of a set asked for ahead at most: a worker is never held by one for long
(a part once begun is not stopped, and a set someone then asks for waits for it)."""
POLL = 0.25
"""Seconds between two looks, while the workers compute, at whether the frames are still wanted."""
_SCHEDULERS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_SCHEDULERS_LOCK = threading.Lock()


def for_pool(pool, slots: int) -> Scheduler:
    """The one scheduler of ``pool`` (made at its first use), handing it ``slots`` tasks at a time."""
    with _SCHEDULERS_LOCK:
        if pool not in _SCHEDULERS:
            _SCHEDULERS[pool] = Scheduler(pool, slots)
        return _SCHEDULERS[pool]


def run_all(scheduler: Scheduler, calls: list[tuple], between) -> list[Future]:
    """Submit ``calls`` (each an expected cost, a function and its arguments) and wait for all of them,
    calling ``between()`` every :data:`POLL` seconds meanwhile; their futures, done. The first
    error of one is raised (and ``between``'s own, such as a set being withdrawn), the others'
    turns given up if they have not come yet."""
    from concurrent.futures import FIRST_EXCEPTION, wait

    futures = [scheduler.submit(cost, fn, *args) for cost, fn, *args in calls]
    try:
        while True:
            done, waiting = wait(futures, timeout=POLL, return_when=FIRST_EXCEPTION)
            for f in done:
                if f.exception() is not None:
                    raise f.exception()
            if not waiting:
                return futures
            between()
    except BaseException:
        for f in futures:
            f.cancel()  # (one already handed to the pool goes on; its set's stop marker ends it)
        raise


NEAR = 16
"""Positions of a chart's set computed first, the nearest to the slider's value (:func:`nearest`)."""


def nearest(grid: list, value, count: int = NEAR) -> list:
    """The ``count`` positions of ``grid`` (ascending) nearest to ``value`` by their place in it
    (as many on each side as the grid's ends allow), in grid order: where a drag from ``value``
    goes first, one step at a time."""
    import bisect

    if len(grid) <= count:
        return list(grid)
    i = bisect.bisect_left(grid, value)
    if i == len(grid) or (i > 0 and value - grid[i - 1] <= grid[i] - value):
        i -= 1  # the grid's position nearest to the value
    low = min(max(0, i - count // 2), len(grid) - count)
    return list(grid[low : low + count])
