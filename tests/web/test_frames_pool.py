"""The frame workers (webui.frames_pool): frames computed in a worker process are the frames the
server's own thread computes; frames nobody wants any more stop in the worker; a pool that breaks
is logged and the frames are computed in the server's thread, as before the pool."""

from __future__ import annotations

import json
import logging
import os
import signal
import tempfile
import threading
import time
import zlib
from pathlib import Path

import pytest

from dpviz import registry, tables
from dpviz.frames import decode, difference
from webui import frames_pool, frames_queue, frames_schedule, frames_signals, frames_store, frames_worker, live_frames

pytestmark = pytest.mark.slow  # worker processes started and killed: the full run, not the quick tier
FIGURE = "adept-sensitivity"  # 53 positions along n, a fraction of a second a set


@pytest.fixture
def pool(monkeypatch):
    """Two workers, writing into the session's disk cache (each test asks for a setting of its own)."""
    monkeypatch.setenv("DPVIZ_FRAME_WORKERS", "2")
    monkeypatch.setattr(frames_pool, "_BREAKS", [0])
    frames_pool.shutdown()
    yield frames_pool
    frames_pool.shutdown()


def _values(figure: str, **changed) -> dict:
    spec = registry.get(figure)
    values = {p.name: p.default for p in spec.params}
    values.update(changed)
    return values


def _on_disk(spec, values, slider) -> bool:
    return tables.blob_cached(f"{spec.id}.frames", frames_store.canonical(spec, values, slider))


def _wanted(*_) -> None:
    """``between`` of a request somebody still wants."""


@pytest.mark.parametrize("workers, clip", [("2", 3.0), ("1", 3.5)], ids=["in parts", "whole"])
def test_frames_from_a_worker_equal_the_servers_own(pool, monkeypatch, workers, clip):
    """Two workers: the set in two parts put together by one of them; one worker: the set whole."""
    monkeypatch.setenv("DPVIZ_FRAME_WORKERS", workers)
    spec = registry.get(FIGURE)
    values = _values(FIGURE, clip=clip)
    parts = frames_pool._split(frames_pool._grid_in_parts(frames_pool.figure_task(spec, values, "dim")))
    assert len(parts) == int(workers)  # one worker: one part, which it computes whole (no ``near``)
    if len(parts) == 2:  # every position in exactly one part, each part across the whole grid
        grid = frames_store.grid(spec, "dim")
        assert sorted(parts[0] + parts[1]) == sorted(grid) and len(set(parts[0]) & set(parts[1])) == 0
        assert {grid[0], grid[-1]} & set(parts[0]) and max(parts[1]) > grid[len(grid) // 2]
    task = frames_pool.figure_task(spec, values, "dim")
    assert not _on_disk(spec, values, "dim")
    assert frames_pool.compute(task, "test-pool-equal", _wanted) is True
    assert _on_disk(spec, values, "dim"), "the worker writes its frames into the disk cache"
    from_worker = decode(frames_store.build(spec, values, "dim").blob)
    here = decode(frames_store.compute_bytes(spec, values, "dim"))
    assert from_worker["grid"] == here["grid"] and len(from_worker["frames"]) == len(here["grid"]) > 10
    for a, b in zip(from_worker["frames"], here["frames"]):
        assert difference(a, b) is None


@pytest.mark.parametrize("workers, clip", [("2", 4.5), ("1", 4.75)], ids=["two workers", "one worker (hosted)"])
def test_a_set_is_computed_nearest_first_and_the_near_frames_are_the_sets_own(pool, monkeypatch, workers, clip):
    """With ``near``, the workers first compute the positions nearest to the slider's value and
    say so before the set reaches the disk; those frames are the finished set's at the same
    positions (exactly), and the set holds every position once. So does a single worker (a hosted
    server process's share of the cores)."""
    monkeypatch.setenv("DPVIZ_FRAME_WORKERS", workers)
    spec = registry.get(FIGURE)
    values = _values(FIGURE, clip=clip, dim=210)  # off the grid (…, 200, 250, …): nearest to it is 200
    grid = frames_store.grid(spec, "dim")
    told = []

    def near(positions, figures):
        told.append((list(positions), figures, _on_disk(spec, values, "dim")))

    assert frames_pool.compute(frames_pool.figure_task(spec, values, "dim"), "test-pool-near", _wanted, near)
    assert len(told) == 1
    positions, figures, on_disk = told[0]
    assert not on_disk, "the near frames came before the set was finished"
    i = grid.index(200)
    assert positions == grid[i - 8 : i + 8] and 210 not in grid  # around the nearest position, in grid order
    whole = decode(frames_store.build(spec, values, "dim").blob)
    assert whole["grid"] == grid
    for v, fig in zip(positions, figures):
        assert difference(fig, whole["frames"][grid.index(v)]) is None


@pytest.mark.parametrize(
    "hosted, visitor, here",
    [(False, False, True), (False, True, False), (True, False, False)],
    ids=["local and idle: here", "a visitor's run: a worker", "hosted: a worker"],
)
def test_a_set_is_put_together_here_when_the_server_is_local_and_idle(pool, monkeypatch, hosted, visitor, here):
    """The parts' frames are in the server already: a local server with no visitor's run puts them
    together in the queue's thread (a worker may be busy with another set's part for up to a
    second); while a visitor's run computes, or on a hosted server, a worker does. Either way the
    set is on disk and equals the server's own."""
    from webui import visitor_busy

    monkeypatch.setenv("DPVIZ_HOSTED", "1" if hosted else "0")
    spec = registry.get(FIGURE)
    values = _values(FIGURE, clip=5.25 + 0.25 * (2 * hosted + visitor))
    threads = []
    real = frames_store.build

    def recorded(*args, **kwargs):
        if kwargs.get("figures") is not None:  # a set put together from its parts' frames
            threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(frames_store, "build", recorded)  # (in this process: a worker runs its own)
    monkeypatch.setattr(visitor_busy, "_BUSY", [1 if visitor else 0, 0.0])
    task = frames_pool.figure_task(spec, values, "dim")
    assert frames_pool.compute(task, f"test-pool-together-{hosted}-{visitor}", _wanted, lambda *_: None)
    assert len(threads) == (1 if here else 0)
    assert _on_disk(spec, values, "dim")
    here_bytes = decode(frames_store.compute_bytes(spec, values, "dim"))
    kept = decode(frames_store.build(spec, values, "dim").blob)
    assert kept["grid"] == here_bytes["grid"]
    assert all(difference(a, b) is None for a, b in zip(kept["frames"], here_bytes["frames"]))


@pytest.mark.parametrize("loading", [True, False], ids=["workers loading: here", "workers ready: the workers"])
def test_a_sets_nearest_part_is_computed_here_while_the_workers_load(pool, monkeypatch, loading):
    """A local, idle server whose workers are still loading (a fresh server's first key step)
    computes a set's nearest positions in the queue's own thread, and the rest in the workers; once
    a worker has loaded, the workers compute both. The near frames are the finished set's."""
    from concurrent.futures import Future

    from webui import visitor_busy

    monkeypatch.setenv("DPVIZ_HOSTED", "0")
    monkeypatch.setattr(visitor_busy, "_BUSY", [0, 0.0])
    spec = registry.get(FIGURE)
    values = _values(FIGURE, clip=6.5 + 0.25 * loading, dim=100)
    frames_pool.start_soon()
    if loading:
        frames_pool._READYING[:] = [Future()]  # (a loading that has not ended)
    else:
        for f in frames_pool._READYING:
            f.result(timeout=120)
    assert frames_pool.workers_ready() is (not loading)
    here, told = [], []
    real = frames_store.figures_at

    def recorded(spec_, values_, slider, positions, progress=None):
        here.append(list(positions))
        return real(spec_, values_, slider, positions, progress)

    monkeypatch.setattr(frames_store, "figures_at", recorded)  # (in this process: a worker runs its own)
    task = frames_pool.figure_task(spec, values, "dim")
    assert frames_pool.compute(task, f"test-pool-here-{loading}", _wanted, lambda p, f: told.append((p, f)))
    first = frames_pool.nearest(frames_store.grid(spec, "dim"), 100)
    assert here == ([first] if loading else [])
    whole = decode(frames_store.build(spec, values, "dim").blob)
    (positions, figures), grid = told[0], whole["grid"]
    assert positions == first and all(
        difference(f, whole["frames"][grid.index(v)]) is None for v, f in zip(first, figures)
    )


def test_a_set_in_the_workers_is_checked_by_the_queues_still_wanted(pool, monkeypatch):
    """The queue's ``between`` waits for the visitors' runs to end (what a set computed in the
    server's own thread must do); while the workers compute, the pool checks its
    ``still_wanted`` instead, which does not wait (webui/frames_queue.py)."""
    spec = registry.get(FIGURE)
    values = _values(FIGURE, clip=5.25)
    monkeypatch.setattr(frames_schedule, "POLL", 0.002)  # checked many times while the workers compute
    checks = []

    def between(*_):
        raise AssertionError("the pool waited on the visitors' runs")

    between.still_wanted = lambda *_: checks.append(1)
    assert frames_pool.compute(frames_pool.figure_task(spec, values, "dim"), "test-pool-checked", between, _wanted)
    assert checks and _on_disk(spec, values, "dim")


def test_the_nearest_positions_keep_their_count_at_the_grids_ends():
    grid = list(range(1, 31))
    assert frames_pool.nearest(grid, 1, 6) == [1, 2, 3, 4, 5, 6]
    assert frames_pool.nearest(grid, 30, 6) == [25, 26, 27, 28, 29, 30]
    assert frames_pool.nearest(grid, 15, 6) == [12, 13, 14, 15, 16, 17]
    assert frames_pool.nearest(grid, 15.4, 5) == [13, 14, 15, 16, 17]  # nearest: 15
    assert frames_pool.nearest(grid, 15.6, 5) == [14, 15, 16, 17, 18]  # nearest: 16
    assert frames_pool.nearest(grid, 99, 4) == [27, 28, 29, 30]  # beyond the top
    assert frames_pool.nearest([0.5, 1.0], 0.7, 16) == [0.5, 1.0]  # a grid shorter than the count: all of it


def test_a_panels_html_frames_from_a_worker_equal_the_servers_own(pool):
    from dpviz import papers

    panel = next(x for x in papers.get("metric").panels if x.html)
    slider = next(p for p in registry.page_params("metric") if p.slider and p.name in {q.name for q in panel.params})
    values = {p.name: p.default for p in registry.page_params("metric")}
    assert frames_pool.compute(frames_pool.panel_task(panel, values, slider.name), "test-pool-panel", _wanted)
    key, held = live_frames.text_frames_for(panel, values, slider)
    assert held is not None, "read from the disk the worker wrote"
    doc = json.loads(zlib.decompress(held.blob))
    assert doc["panel"] == panel.id and len(doc["html"]) == len(doc["grid"]) > 10
    from dpviz.panels import resolve

    for k in (0, len(doc["grid"]) // 2, len(doc["grid"]) - 1):  # the server's own HTML at three positions
        at = dict({p.name: values[p.name] for p in panel.params}, **{slider.name: doc["grid"][k]})
        assert doc["html"][k] == resolve(panel.html)(panel.run(at), at)


def test_frames_nobody_wants_stop_in_the_worker(pool):
    """The worker is told to stop: it stops at its next position and its frames never reach the
    disk (had the marker been missed, the set would have been finished and written)."""
    spec = registry.get("hoho-frontier")  # 65 positions, most of a second each
    values = _values("hoho-frontier", target_value=0.61)
    asked = []

    def nobody(*_):
        asked.append(time.monotonic())
        if len(asked) >= 2:  # the worker has started when the visitor moves on
            raise frames_worker.Withdrawn("test")

    with pytest.raises(frames_worker.Withdrawn):
        frames_pool.compute(frames_pool.figure_task(spec, values, "lambda_"), "test-pool-stop", nobody)
    frames_pool.shutdown()  # waits for the workers' tasks: a missed marker would finish the set
    assert not _on_disk(spec, values, "lambda_"), "the withdrawn set was finished anyway"


def test_a_killed_worker_is_logged_and_the_frames_are_computed_here(pool, caplog):
    spec = registry.get("hoho-frontier")
    values = _values("hoho-frontier", target_value=0.62)
    started = threading.Event()

    def kill_the_workers(*_):
        if not started.is_set():
            started.set()
            for pid in list(frames_pool._POOL[0]._processes):
                os.kill(pid, signal.SIGKILL)

    with caplog.at_level(logging.WARNING, logger="dpviz.frames"):
        done = frames_pool.compute(frames_pool.figure_task(spec, values, "lambda_"), "test-pool-kill", kill_the_workers)
    assert done is False, "a broken pool leaves the frames to the caller"
    assert any("process pool broke" in r.getMessage() for r in caplog.records)
    assert not frames_pool._POOL, "the broken pool is forgotten"
    # the page's route: the queue's job computes them in the server's thread instead
    small, vals = registry.get(FIGURE), _values(FIGURE, clip=5.0)
    frames_pool._BREAKS[0] = frames_pool.MAX_BREAKS  # as after repeated breaks: no pool again
    assert frames_pool.compute(frames_pool.figure_task(small, vals, "dim"), "x", _wanted) is False
    key, held = live_frames.frames_for(small, vals, "dim")
    assert held is None  # asked for: the queue's thread computes them
    deadline = time.monotonic() + 120
    while frames_queue.pending([key]):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert _on_disk(small, vals, "dim")


EXITING = """
import sys, threading, time
sys.path.insert(0, {root!r})
from dpviz import registry
from webui import frames_pool
spec = registry.get("hoho-frontier")
# every sentence a target: a set of some 15 s of one core, far longer than the wait below
values = dict({{p.name: p.default for p in spec.params}}, target_value=0.64, targets=1.0)
task = frames_pool.figure_task(spec, values, "lambda_")
threading.Thread(target=frames_pool.compute, args=(task, "exit", lambda *_: None), daemon=True).start()
while not frames_pool._POOL or not frames_pool._POOL[0]._processes:
    time.sleep(0.05)
time.sleep(3)  # the worker is in its set
print(" ".join(str(p) for p in frames_pool._POOL[0]._processes), flush=True)
"""


def test_a_server_that_ends_does_not_wait_for_its_workers_set(pool):
    """The interpreter ends with the workers killed, not after the set they were computing (which
    concurrent.futures waits for at exit): the set never reaches the disk and no worker is left."""
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    out = subprocess.run(
        [sys.executable, "-c", EXITING.format(root=root)], capture_output=True, text=True, timeout=600, check=True
    )
    pids = [int(p) for p in out.stdout.split()]
    assert pids, out.stderr
    for pid in pids:
        assert not os.path.exists(f"/proc/{pid}") or "zombie" in open(f"/proc/{pid}/status").read().lower()
    spec = registry.get("hoho-frontier")
    values = _values("hoho-frontier", target_value=0.64, targets=1.0)
    assert not _on_disk(spec, values, "lambda_"), "the interpreter waited for the worker's whole set"


def test_a_page_starts_its_workers_with_its_state_loaded(pool):
    """The first chart with frames a page draws starts the workers, each asked to load that page's
    prepared state (once per page)."""
    values = {p.name: p.default for p in registry.page_params("partial")}
    assert not frames_pool._POOL
    frames_pool.prestart("partial", values)
    assert frames_pool._POOL and "partial" in frames_pool._WARMED
    frames_pool.prestart("partial", values)  # asked again: nothing more
    assert frames_pool.compute(
        frames_pool.figure_task(registry.get(FIGURE), _values(FIGURE, clip=6.0), "dim"), "w", _wanted
    )
    frames_worker.warm("partial", values)  # what each worker ran, here: no error of its own


def test_the_first_page_starts_the_workers_ready_and_they_outlive_the_run_that_started_them(pool):
    """start_soon (the first page anyone opens) starts the pool once, from the visitor's script run,
    a thread that ends at once; the workers live on and compute a set afterwards."""
    frames_pool._READIED[0] = False
    started = threading.Thread(target=frames_pool.start_soon)
    started.start()
    started.join()
    assert frames_pool._POOL
    pids = set(frames_pool._POOL[0]._processes)
    frames_pool.start_soon()  # asked again: nothing more
    assert frames_pool.compute(
        frames_pool.figure_task(registry.get(FIGURE), _values(FIGURE, clip=7.0), "dim"), "r", _wanted
    )
    assert pids and pids <= set(frames_pool._POOL[0]._processes)  # the same workers did it
    frames_worker.ready()  # what each worker ran first, here: no error of its own


def test_a_workers_loading_of_a_page_stops_once_a_set_is_handed_over(tmp_path, monkeypatch):
    """warm loads every chart's state, but stops between two charts once the ASKED marker is newer
    than its start (a set is waiting, and computes the state it needs itself)."""
    loaded = []
    monkeypatch.setattr(registry.FigureSpec, "state", lambda spec, values, progress=None: loaded.append(spec.id))
    values = {p.name: p.default for p in registry.page_params("partial")}
    marker = tmp_path / "asked"
    frames_worker.warm("partial", values, str(marker))  # no set handed over: every chart's state
    every = [s.id for s in registry.paper_figures("partial") if not s.on_demand]
    assert loaded == every
    loaded.clear()
    marker.touch()
    os.utime(marker, (time.time() + 60, time.time() + 60))  # touched after the loading began
    frames_worker.warm("partial", values, str(marker))
    assert loaded == []


def test_after_a_step_every_sets_nearest_part_comes_before_any_set_is_finished(pool):
    """Four sets asked for at once (a key step: the charts that follow the other slider): the
    queue has them all in flight and the pool takes its tasks in order, so every set's nearest
    part is told before any set is finished. (With a set per worker in flight, two sets waited
    for the first two to finish, nearest part and all.)"""
    spec = registry.get("adept-privacy-loss")  # 53 positions along n, some 75 ms each
    events, done = [], threading.Event()
    keys = [f"test-pool-order-{k}" for k in range(4)]

    def job(k):
        task = frames_pool.figure_task(spec, _values("adept-privacy-loss", clip=8.0 + k / 4), "dim")

        def run(between):
            frames_pool.compute(task, keys[k], between, lambda *_: events.append(("near", k)))
            events.append(("done", k))
            if sum(e == "done" for e, _ in events) == 4:
                done.set()

        return run

    assert frames_pool.concurrency() == frames_pool.SETS_PER_WORKER * 2
    for k in range(4):
        frames_queue.request(keys[k], job(k))
    assert done.wait(timeout=300), events
    first_done = next(i for i, (e, _) in enumerate(events) if e == "done")
    assert sorted(k for e, k in events[:first_done] if e == "near") == [0, 1, 2, 3], events


def test_a_cheap_set_is_whole_before_costly_sets_asked_for_before_it(pool, monkeypatch):
    """After a key step: two costly sets (ADePT's fixes chart along n at 8,000 draws a point, some
    30 ms a position)
    asked for, then a cheap one (the ε chart, some 4 ms), the costs known (as the build leaves
    them). The workers take the cheapest task first (webui/frames_schedule.py), so the cheap set
    is whole first; taken in the order asked for, it came last (its rest behind both costly
    sets' nearest parts and rests: the ADePT ε chart's drag after a step of n, 3-4 states). On a
    hosted server, where the workers compute every part (a local one computes nearest parts itself
    while its workers load)."""
    monkeypatch.setenv("DPVIZ_HOSTED", "1")
    monkeypatch.setattr(frames_schedule, "_RATES", {})
    frames_schedule.note("adept-fixes", "dim", 0.036, 1)
    frames_schedule.note("adept-epsilon", "dim", 0.004, 1)
    events, done, costs = [], threading.Event(), []
    submit = frames_schedule.Scheduler.submit

    def noted(self, cost, fn, *args):  # what each task was placed by
        costs.append((fn.__name__, args[1] if fn.__name__ == "part" else None, args[0][1], cost))
        return submit(self, cost, fn, *args)

    monkeypatch.setattr(frames_schedule.Scheduler, "submit", noted)

    def job(figure, clip, name, **more):
        task = frames_pool.figure_task(registry.get(figure), _values(figure, clip=clip, **more), "dim")

        def run(between):
            frames_pool.compute(task, f"test-pool-cheap-{name}", between, lambda *_: events.append(("near", name)))
            events.append(("done", name))
            if sum(e == "done" for e, _ in events) == 3:
                done.set()

        return run

    # (8,000 draws a point: the fixes' frames along n got 8x cheaper on 2026-12-05, 4 ms a position
    # at the default 1,000, and a busy machine then finished a costly set before the cheap one)
    for figure, clip, name in [("adept-fixes", 6.25, "costly 1"), ("adept-fixes", 6.5, "costly 2")]:
        frames_queue.request(f"test-pool-cheap-{name}", job(figure, clip, name, draws=8000))
    time.sleep(0.05)
    frames_queue.request("test-pool-cheap-cheap", job("adept-epsilon", 6.25, "cheap"))
    assert done.wait(timeout=300), events
    finished = [name for e, name in events if e == "done"]
    assert finished[0] == "cheap", events
    parts = [(figure, positions, cost) for name, positions, figure, cost in costs if name == "part"]
    assert len(parts) == 3 * 4  # each set: its nearest part and its rest, one part per worker each
    per_position = {
        figure: [cost / len(positions) for f, positions, cost in parts if f == figure] for figure, _, _ in parts
    }
    # each part placed by its chart's rate (as known when it was asked for) times its positions
    assert min(per_position["adept-fixes"]) > max(per_position["adept-epsilon"]) > 0
    assert all(cost == 0.0 for name, _, _, cost in costs if name == "put_together")


@pytest.mark.parametrize(
    "raw, expected", [("0", 0), ("3", 3), (" 1 ", 1), ("", None), ("two", None), ("-1", None), ("²", None)]
)
def test_the_number_of_workers_is_a_whole_number_or_one_per_core(monkeypatch, caplog, raw, expected):
    monkeypatch.setenv("DPVIZ_FRAME_WORKERS", raw)
    with caplog.at_level(logging.WARNING, logger="dpviz.frames"):
        got = frames_pool.size()
    assert got == (os.cpu_count() or 1 if expected is None else expected)
    assert bool(caplog.records) == (expected is None and raw != "")


def test_old_stop_markers_are_swept_and_new_ones_kept(pool):
    """Each withdrawn set leaves a marker file; those older than MARKER_AGE go at the next request."""
    folder = frames_signals.markers()
    old, new = folder / "test-old-marker", folder / "test-new-marker"
    old.touch()
    new.touch()
    aged = time.time() - frames_signals.MARKER_AGE - 60
    os.utime(old, (aged, aged))
    frames_signals.sweep_markers()
    assert not old.exists() and new.exists()
    new.unlink()


def test_the_markers_folders_of_servers_gone_are_removed_and_a_running_servers_kept(monkeypatch, tmp_path):
    """A server's markers' folder is named by its process id and removed when it ends; the folders of
    processes that are gone (killed before their removal ran) are removed by the next server's first
    marker; a running process's folder, and a folder named otherwise, stay."""
    import subprocess
    import sys

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone = tmp_path / f"{frames_signals.PREFIX}{int(done.stdout)}-abc"
    running = tmp_path / f"{frames_signals.PREFIX}{os.getppid()}-def"
    other = tmp_path / f"{frames_signals.PREFIX}q7x9"  # (a folder of the naming before: left alone)
    for folder in (gone, running, other):
        folder.mkdir()
        (folder / "asked").touch()
    frames_signals.markers.cache_clear()
    try:
        mine = frames_signals.markers()
        assert mine.parent == tmp_path and mine.name.startswith(f"{frames_signals.PREFIX}{os.getpid()}-")
        assert not gone.exists() and running.exists() and other.exists() and mine.exists()
    finally:
        frames_signals.markers.cache_clear()  # (the next test's markers in the real temporary folder)


def test_a_server_process_removes_its_markers_folder_when_it_ends(tmp_path):
    """The folder a process made for its markers is gone once the process has ended."""
    import subprocess
    import sys

    code = "from webui import frames_signals; print(frames_signals.markers())"
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        check=True,
    )
    made = Path(out.stdout.strip())
    assert made.parent == tmp_path and made.name.startswith(frames_signals.PREFIX)
    assert not made.exists()


def test_an_error_of_the_computation_is_raised_and_is_no_break_of_the_pool(pool, monkeypatch):
    """A set whose computation fails (here a RuntimeError, the kind a pool shut down also raises on
    submit) fails as it would in the server's thread, and the pool is not counted as broken."""
    from concurrent.futures import ThreadPoolExecutor

    def fails(task, stop):
        raise RuntimeError("the computation's own error")

    executor = ThreadPoolExecutor(1)  # the pool's protocol, in this process
    monkeypatch.setattr(frames_pool, "_POOL", [executor])
    monkeypatch.setattr(frames_worker, "whole_set", fails)
    task = ("panel", "try-it", {}, "epsilon")  # computed whole
    with pytest.raises(RuntimeError, match="own error"):
        frames_pool.compute(task, "test-pool-error", _wanted)
    assert frames_pool._BREAKS[0] == 0, "an error of the set is not a break of the pool"
    executor.shutdown()
    assert frames_pool.compute(task, "test-pool-error", _wanted) is False, "a pool shut down is one"
    assert frames_pool._BREAKS[0] == 1


def _thread_counts() -> list[tuple[str, int]]:
    """In a worker: every numeric library's threads once NumPy and SciPy's linear algebra are
    loaded (this module's imports, loaded in the worker after its setting, load NumPy)."""
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_info

    return [(i["filepath"], i["num_threads"]) for i in threadpool_info()]


@pytest.mark.parametrize("setting", ["frames_worker.start", "warmup._worker_start"])
def test_a_fresh_worker_runs_one_thread_in_the_numeric_libraries_it_loads_later(setting):
    """A pool worker's setting (the frame workers', the build's) holds for libraries loaded after
    it (dpviz.processes.one_thread_everywhere): threadpoolctl's limit alone left SciPy's OpenBLAS,
    loaded by a set, at the machine's core count."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from webui import warmup

    start = frames_worker.start if setting == "frames_worker.start" else warmup._worker_start
    with ProcessPoolExecutor(1, multiprocessing.get_context("spawn"), start) as pool:
        counts = pool.submit(_thread_counts).result(timeout=120)
    assert counts and all(n == 1 for _, n in counts), counts


def _collector_state() -> tuple[int, int]:
    """In a worker: how many objects are frozen (out of the collector's full passes) and how many
    the oldest generation still holds."""
    import gc

    return gc.get_freeze_count(), len(gc.get_objects(generation=2))


def test_a_ready_worker_keeps_what_it_loaded_out_of_the_collectors_full_passes():
    """A frame worker, once ready (every figure registered, Plotly's validators loaded), has frozen
    what it loaded (dpviz.processes.freeze_loaded): a full pass of the cyclic collector walks what
    it made since, not the 200,000 objects of its modules (0.1-0.2 s a pass in a chart's frames)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, multiprocessing.get_context("spawn"), frames_worker.start) as pool:
        before = pool.submit(_collector_state).result(timeout=120)
        pool.submit(frames_worker.ready).result(timeout=300)
        frozen, oldest = pool.submit(_collector_state).result(timeout=120)
    assert before[0] == 0
    assert frozen > 50_000 and oldest < frozen / 20, (frozen, oldest)
