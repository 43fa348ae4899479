"""webui.frames_schedule: the frame workers' tasks the cheapest first, by the costs measured here
or by the build, never more at once than there are workers, and a pool's errors told."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import pytest

from webui import frames_schedule
from webui.frames_schedule import Scheduler, estimate, note, record_built, run_all


def _blocked(pool, slots=1):
    """A scheduler whose only worker is held until the returned event is set."""
    scheduler, gate = Scheduler(pool, slots), threading.Event()
    held = scheduler.submit(0.0, gate.wait, 30)
    return scheduler, gate, held


def test_the_cheapest_task_first_and_equal_ones_in_their_order():
    ran = []
    with ThreadPoolExecutor(1) as pool:
        scheduler, gate, held = _blocked(pool)
        futures = [
            scheduler.submit(5.0, ran.append, "rest 5 s"),
            scheduler.submit(0.0, ran.append, "unknown a"),
            scheduler.submit(0.5, ran.append, "rest 0.5 s"),
            scheduler.submit(0.0, ran.append, "unknown b"),
            scheduler.submit(2.0, ran.append, "rest 2 s"),
        ]
        time.sleep(0.1)
        assert ran == [] and scheduler.waiting() == 5  # all held behind the busy worker
        gate.set()
        for f in [held, *futures]:
            f.result(timeout=10)
    assert ran == ["unknown a", "unknown b", "rest 0.5 s", "rest 2 s", "rest 5 s"]


def test_never_more_tasks_in_the_pool_than_slots_and_each_timed():
    lock, running, most = threading.Lock(), [0], [0]

    def task(seconds):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(seconds)
        with lock:
            running[0] -= 1
        return seconds

    with ThreadPoolExecutor(6) as pool:  # more threads than slots: the scheduler holds the rest back
        scheduler = Scheduler(pool, 2)
        futures = [scheduler.submit(0.0, task, 0.05) for _ in range(8)]
        assert [f.result(timeout=10) for f in futures] == [0.05] * 8
    assert most[0] == 2
    assert all(f.seconds >= 0.05 for f in futures)


def test_a_task_cancelled_before_its_turn_never_runs():
    ran = []
    with ThreadPoolExecutor(1) as pool:
        scheduler, gate, held = _blocked(pool)
        dropped = scheduler.submit(0.0, ran.append, "dropped")
        kept = scheduler.submit(0.0, ran.append, "kept")
        assert dropped.cancel()
        gate.set()
        kept.result(timeout=10)
    assert ran == ["kept"] and dropped.cancelled()


def test_an_error_is_the_tasks_and_a_pool_shut_down_is_a_broken_one():
    def fails():
        raise ValueError("the computation's own error")

    pool = ThreadPoolExecutor(1)
    scheduler = Scheduler(pool, 1)
    with pytest.raises(ValueError, match="own error"):
        scheduler.submit(0.0, fails).result(timeout=10)
    assert scheduler.submit(0.0, len, "ab").result(timeout=10) == 2  # the next still runs
    pool.shutdown()
    with pytest.raises(BrokenProcessPool, match="shut down"):
        scheduler.submit(0.0, len, "ab").result(timeout=10)


def test_run_all_gives_up_the_turns_not_come_when_the_set_is_withdrawn(monkeypatch):
    monkeypatch.setattr(frames_schedule, "POLL", 0.01)
    ran = []

    class Withdrawn(Exception):
        pass

    def between():
        raise Withdrawn

    with ThreadPoolExecutor(1) as pool:
        scheduler, gate, held = _blocked(pool)
        with pytest.raises(Withdrawn):
            run_all(scheduler, [(0.0, ran.append, "a"), (1.0, ran.append, "b")], between)
        assert scheduler.waiting() == 2  # still queued, but cancelled: skipped when their turn comes
        gate.set()
        held.result(timeout=10)
        after = scheduler.submit(9.0, ran.append, "later")
        after.result(timeout=10)
    assert ran == ["later"]


def test_one_scheduler_per_pool():
    with ThreadPoolExecutor(1) as one, ThreadPoolExecutor(1) as other:
        assert frames_schedule.for_pool(one, 2) is frames_schedule.for_pool(one, 2)
        assert frames_schedule.for_pool(one, 2) is not frames_schedule.for_pool(other, 2)


def test_a_cost_is_the_latest_rate_measured_here_else_the_builds_else_unknown(monkeypatch):
    kept = {}
    monkeypatch.setattr(frames_schedule, "_RATES", {})
    monkeypatch.setattr(frames_schedule, "_BUILT", [])
    monkeypatch.setattr(frames_schedule.tables, "read_shared", lambda kind, key: kept.get((kind, str(key))))
    monkeypatch.setattr(
        frames_schedule.tables, "write_shared", lambda kind, key, data: kept.__setitem__((kind, str(key)), data)
    )
    assert estimate("chart-a", "epsilon", 10) == 0.0  # nothing known: first
    record_built({("chart-a", "epsilon"): 0.05, ("chart-b", "dim"): 0.002})
    record_built({("chart-c", "k"): 0.01})  # a build of another page adds to what was kept
    assert estimate("chart-a", "epsilon", 10) == pytest.approx(0.5)
    assert estimate("chart-b", "dim", 100) == pytest.approx(0.2)
    assert estimate("chart-c", "k", 3) == pytest.approx(0.03)
    note("chart-a", "epsilon", 0.3, 20)  # measured in this process: 15 ms a position
    assert estimate("chart-a", "epsilon", 10) == pytest.approx(0.15)
    assert estimate("chart-a", "lambda_", 10) == 0.0  # another slider of the same chart: unknown
    record_built({})  # no set computed: what was kept stays
    assert estimate("chart-b", "dim", 100) == pytest.approx(0.2)


def test_a_damaged_record_of_the_builds_costs_is_read_as_none(monkeypatch):
    monkeypatch.setattr(frames_schedule, "_RATES", {})
    for damaged in (b"not json", b"[1, 2]", b'{"chart-a|epsilon": "fast"}'):
        monkeypatch.setattr(frames_schedule, "_BUILT", [])
        monkeypatch.setattr(frames_schedule.tables, "read_shared", lambda kind, key, d=damaged: d)
        assert estimate("chart-a", "epsilon", 10) == 0.0


def test_a_task_the_pool_cancels_is_a_broken_pool_for_its_set():
    """A pool shut down with its queued tasks cancelled (frames_pool._broken does so): the
    scheduler's future says the pool is broken, so the set is computed in the server's thread."""
    pool = ThreadPoolExecutor(1)
    scheduler = Scheduler(pool, 2)  # two slots for one thread: the second task waits in the pool
    gate = threading.Event()
    held = scheduler.submit(0.0, gate.wait, 30)
    queued = scheduler.submit(0.0, len, "ab")
    deadline = time.monotonic() + 10
    while scheduler.waiting() and time.monotonic() < deadline:
        time.sleep(0.01)  # both handed to the pool
    pool.shutdown(wait=False, cancel_futures=True)
    gate.set()
    held.result(timeout=10)
    with pytest.raises(BrokenProcessPool, match="cancelled"):
        queued.result(timeout=10)
