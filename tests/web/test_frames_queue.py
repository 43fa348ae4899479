"""The background worker's queue of frames (webui.frames_queue.request): a newer request of one
asker (a session's chart and slider) replaces its older one; work nobody asks for any more is
dropped from the queue, or stopped between two positions if it is being computed."""

from __future__ import annotations

import itertools
import threading
import time

import pytest

from webui import frames_pool, frames_queue

_IDS = itertools.count()


def _keys(n: int) -> list[str]:
    run = next(_IDS)
    return [f"test-queue-{run}-{i}-{time.monotonic_ns()}" for i in range(n)]


class _Jobs:
    """Jobs of five positions each that record which started, which reached each position and
    which finished; the first position of a job waits for ``gate`` (the test moves on meanwhile)."""

    def __init__(self):
        self.started, self.finished, self.positions = [], [], []
        self.gate = threading.Event()
        self.done = threading.Event()

    def job(self, key: str, last: bool = False):
        def run(progress) -> None:
            self.started.append(key)
            for k in range(5):
                progress(k / 5, "")
                self.positions.append(key)
                if k == 0:
                    self.gate.wait(60)
            self.finished.append(key)
            if last:
                self.done.set()

        return run


@pytest.fixture(autouse=True)
def _one_thread(monkeypatch):
    """The queue's order on one thread (a server runs one per frame worker, webui.frames_pool; what
    each thread takes next is the same rule): these tests say which job starts when."""
    monkeypatch.setattr(frames_pool, "concurrency", lambda: 1)
    # a test before may have left several idle threads (four sets in flight per frame worker): the
    # ones beyond one end when woken
    assert frames_queue.retire_idle() <= 1, "another test left several busy queue threads in this process"


def _wait(what, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < deadline, "the frames worker did not get there"
        time.sleep(0.01)


def test_three_quick_moves_compute_the_other_sliders_frames_once_for_the_last():
    jobs, (k1, k2, k3) = _Jobs(), _keys(3)
    by = ("session", "chart", "lambda_")
    frames_queue.request(k1, jobs.job(k1), by)
    _wait(lambda: jobs.positions == [k1])  # the first is being computed when the next moves come
    frames_queue.request(k2, jobs.job(k2), by)
    frames_queue.request(k3, jobs.job(k3, last=True), by)
    assert not frames_queue.pending([k2]), "the middle setting is dropped, not queued"
    jobs.gate.set()
    assert jobs.done.wait(120)
    _wait(lambda: not frames_queue.pending([k1, k2, k3]))
    assert jobs.finished == [k3]
    assert jobs.started == [k1, k3]
    assert jobs.positions.count(k1) == 1, "the first stops at its next position"
    assert not frames_queue.wanted(k1) and not frames_queue.wanted(k3)


def test_frames_another_asker_still_wants_are_kept_and_asking_again_changes_nothing():
    jobs, (k1, k2, k3) = _Jobs(), _keys(3)
    a, b = ("a", "chart", "epsilon"), ("b", "chart", "epsilon")
    jobs.gate.set()
    busy, blocker = threading.Event(), threading.Event()
    frames_queue.request(k1, lambda progress: busy.set() or blocker.wait(60), ("c", "chart", "n"))
    assert busy.wait(120)  # the worker is busy with another chart while the requests come
    frames_queue.request(k2, jobs.job(k2, last=True), a)
    frames_queue.request(k2, jobs.job(k2, last=True), b)
    frames_queue.request(k2, jobs.job(k2, last=True), a)  # the page asks again every 2 s: still one
    frames_queue.request(k3, jobs.job(k3), a)  # a moves on; b still wants k2
    assert frames_queue.pending([k2]) and frames_queue.wanted(k2)
    frames_queue.request(k3, jobs.job(k3), b)  # and now nobody does
    assert not frames_queue.wanted(k2)
    blocker.set()
    _wait(lambda: not frames_queue.pending([k1, k2, k3]))
    assert jobs.finished == [k3]


def test_a_request_that_names_nobody_is_never_withdrawn():
    jobs, (k1, k2) = _Jobs(), _keys(2)
    by = ("session", "chart", "sigma")
    frames_queue.request(k1, jobs.job(k1, last=True))  # the warm-up, say
    frames_queue.request(k1, jobs.job(k1, last=True), by)
    _wait(lambda: jobs.positions == [k1])
    frames_queue.request(k2, jobs.job(k2), by)  # the visitor moves on; the warm-up still wants k1
    jobs.gate.set()
    assert jobs.done.wait(120)
    _wait(lambda: not frames_queue.pending([k1, k2]))
    assert sorted(jobs.finished) == sorted([k1, k2])


def test_idle_threads_beyond_the_sets_in_flight_end(monkeypatch):
    """Three sets in flight, then the limit falls to one (a pool broken too often): the idle
    threads beyond it end, and the queue still computes what is asked next."""
    monkeypatch.setattr(frames_pool, "concurrency", lambda: 3)
    release, started = threading.Event(), []
    keys = _keys(3)

    def job(key):
        def run(between):
            started.append(key)
            release.wait(30)

        return run

    for key in keys:
        frames_queue.request(key, job(key))
    _wait(lambda: len(started) == 3)
    assert len([t for t in frames_queue._WORKER if t.is_alive()]) == 3
    release.set()
    monkeypatch.setattr(frames_pool, "concurrency", lambda: 1)
    assert frames_queue.retire_idle() == 1
    jobs, (last,) = _Jobs(), _keys(1)
    jobs.gate.set()
    frames_queue.request(last, jobs.job(last, last=True))
    assert jobs.done.wait(30) and jobs.finished == [last]


@pytest.mark.parametrize("workers", [True, False], ids=["worker processes", "the server's thread"])
def test_a_set_for_the_workers_does_not_wait_for_a_visitors_run(monkeypatch, workers):
    """While a visitor's run computes (webui.visitor_busy.busy), a set that worker processes compute is
    handed to them at once (they run at the lowest priority: the system puts the run first; after
    a HoHo key step the sets waited 0.8 s for the run), and the queue checks it by its
    ``still_wanted``, which does not wait; a set the server's own thread computes waits for the
    run to end, at its start and between its positions."""
    from webui import visitor_busy

    monkeypatch.setattr(frames_pool, "active", lambda: workers)
    (key,) = _keys(1)
    started, checked, release = threading.Event(), threading.Event(), threading.Event()

    def job(between):
        started.set()
        between.still_wanted()  # what frames_pool.compute calls while the workers compute
        checked.set()

    def visitor():
        with visitor_busy.busy():
            release.wait(60)

    run = threading.Thread(target=visitor, daemon=True)
    run.start()
    _wait(lambda: visitor_busy._BUSY[0] > 0)
    frames_queue.request(key, job, ("session", "chart", "lambda_"))
    try:
        if workers:
            assert started.wait(60) and checked.wait(60), "the set waited for the visitor's run"
        else:
            time.sleep(0.5)  # the queue's thread has had time to start it, were it not waiting
            assert not started.is_set(), "the server's thread computed frames during a visitor's run"
    finally:
        release.set()
        run.join(60)
    assert started.wait(60) and checked.wait(60)
    _wait(lambda: not frames_queue.pending([key]))


def test_the_sessions_asking_for_a_set_are_known_until_it_is_done():
    (key,) = _keys(1)
    asked, gate, seen = threading.Event(), threading.Event(), []

    def job(between):
        asked.wait(60)  # the three requests made
        seen.append(frames_queue.sessions(key))
        gate.wait(60)

    frames_queue.request(key, job, ("s1", "chart", "epsilon"))
    frames_queue.request(key, job, ("s2", "other chart", "epsilon"))
    frames_queue.request(key, job)  # the warm-up: nobody to tell
    asked.set()
    _wait(lambda: seen)
    assert seen == [{"s1", "s2"}]
    gate.set()
    _wait(lambda: not frames_queue.pending([key]))
    assert frames_queue.sessions(key) == set()


def test_sets_asked_for_ahead_wait_for_every_other_set(monkeypatch):
    """A set asked for ahead of a reader's move (webui.live_frames.ask_ahead) is taken only once no
    other set waits, in the order asked (the page's first chart first); the same key asked for
    again by a reader is a set like any other. A settled page does not ask again: a set ahead
    waits longer than STALE (AHEAD_STALE), where a reader's set nobody asks for again is dropped."""
    monkeypatch.setattr(frames_queue, "STALE", 0.3)
    jobs, (k0, a1, a2, a3, r1, r_old, a_old) = _Jobs(), _keys(7)
    frames_queue.request(k0, jobs.job(k0), ("reader", "chart", "x"))
    _wait(lambda: jobs.positions == [k0])  # computed while the others are asked for
    frames_queue.request(a1, jobs.job(a1), ("reader", "chart", "y ahead left"), ahead=True)
    frames_queue.request(a2, jobs.job(a2), ("reader", "chart", "y ahead right"), ahead=True)
    frames_queue.request(r1, jobs.job(r1), ("reader", "chart", "y"))
    frames_queue.request(a3, jobs.job(a3), ("reader", "other", "y ahead right"), ahead=True)
    frames_queue.request(a1, jobs.job(a1), ("another reader", "chart", "y"))  # now someone waits for it
    frames_queue.request(r_old, jobs.job(r_old), ("a reader who left", "chart", "y"))
    frames_queue.request(a_old, jobs.job(a_old), ("a reader who left", "chart", "y ahead left"), ahead=True)
    time.sleep(0.6)  # (past STALE: the first three were asked for then too, and are asked again now)
    for key, by, ahead in (
        (r1, ("reader", "chart", "y"), False),
        (a1, ("another reader", "chart", "y"), False),
        (a2, ("reader", "chart", "y ahead right"), True),
        (a3, ("reader", "other", "y ahead right"), True),
    ):
        frames_queue.request(key, jobs.job(key), by, ahead=ahead)
    jobs.gate.set()
    _wait(lambda: len(jobs.finished) == 6)
    assert jobs.started == [k0, a1, r1, a2, a3, a_old]  # r_old dropped; a_old kept though not asked again


def test_one_set_ahead_at_a_time_beside_the_sets_readers_wait_for(monkeypatch):
    """With two sets in flight, a second set ahead waits for the first to end, while a set a
    reader asks for meanwhile starts at once."""
    monkeypatch.setattr(frames_pool, "concurrency", lambda: 2)
    jobs, (a1, a2, r1) = _Jobs(), _keys(3)
    try:
        frames_queue.request(a1, jobs.job(a1), ("reader", "chart", "y ahead left"), ahead=True)
        _wait(lambda: jobs.positions == [a1])
        frames_queue.request(a2, jobs.job(a2), ("reader", "chart", "y ahead right"), ahead=True)
        frames_queue.request(r1, jobs.job(r1), ("reader", "chart", "y"))
        _wait(lambda: r1 in jobs.started)
        time.sleep(0.3)  # (a second thread is free: a set ahead would have started by now)
        assert jobs.started == [a1, r1]
        jobs.gate.set()
        _wait(lambda: len(jobs.finished) == 3)
        assert jobs.started == [a1, r1, a2]
    finally:
        jobs.gate.set()
        monkeypatch.setattr(frames_pool, "concurrency", lambda: 1)
        frames_queue.retire_idle()
