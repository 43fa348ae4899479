"""dpviz.processes.spawn_context: a process it starts does not run the parent's main module (in a
Streamlit server, the page script being run), where multiprocessing's own spawn context does."""

from __future__ import annotations

import multiprocessing
import os
import sys
import types
from concurrent.futures import ProcessPoolExecutor

import pytest

from dpviz.processes import spawn_context


@pytest.fixture
def page_as_main(tmp_path):
    """``__main__`` as Streamlit sets it while a page runs: a module whose file, run again, leaves a
    line in ``ran.txt`` (as a page script would compute the whole page)."""
    marker = tmp_path / "ran.txt"
    script = tmp_path / "3_Some_page.py"
    script.write_text(f"open({str(marker)!r}, 'a').write('the page ran\\n')\n")
    page = types.ModuleType("__main__")
    page.__file__ = str(script)
    saved = sys.modules["__main__"]
    sys.modules["__main__"] = page
    try:
        yield page, marker
    finally:
        sys.modules["__main__"] = saved


def _pids(context, n: int = 2) -> set[int]:
    """The process ids of a pool of ``n`` workers of ``context`` that each ran one task."""
    with ProcessPoolExecutor(n, context) as pool:
        return {f.result() for f in [pool.submit(os.getpid) for _ in range(n)]}


def test_multiprocessings_spawn_runs_the_page_again_in_each_worker(page_as_main):
    _, marker = page_as_main
    _pids(multiprocessing.get_context("spawn"))
    assert marker.exists() and "the page ran" in marker.read_text()  # the fault spawn_context avoids


def test_a_spawn_context_worker_starts_without_running_the_page(page_as_main):
    page, marker = page_as_main
    pids = _pids(spawn_context())
    assert pids and os.getpid() not in pids  # the work ran, in other processes
    assert not marker.exists()
    assert sys.modules["__main__"] is page  # the page's module is back as it was


def test_workers_started_from_a_thread_that_ends_live_on_with_exit_with_parent_process():
    """A server's pool starts its workers from whichever thread first hands it work (a visitor's
    script run, which soon ends). Linux's parent-death signal follows that thread: the workers
    died with it and the pool broke. With exit_with_parent_process they work on."""
    import threading

    from dpviz.processes import exit_with_parent_process

    pool = ProcessPoolExecutor(2, spawn_context(), exit_with_parent_process)
    try:
        first = []
        starter = threading.Thread(target=lambda: first.extend(f.result() for f in [pool.submit(os.getpid)]))
        starter.start()
        starter.join()  # the thread that started the workers has ended
        later = {f.result(timeout=120) for f in [pool.submit(os.getpid) for _ in range(4)]}
        assert first and later and os.getpid() not in later
    finally:
        pool.shutdown(wait=True)


def test_a_worker_ends_when_its_parent_process_ends(tmp_path):
    """A parent that starts a worker and exits at once (no clean shutdown): the worker, whose own
    work would take a minute, ends within seconds of it (it polls its parent once a second)."""
    import subprocess
    import time

    pid_file = tmp_path / "worker.pid"
    script = f"""
import os, time
from concurrent.futures import ProcessPoolExecutor
from dpviz.processes import exit_with_parent_process, spawn_context
pool = ProcessPoolExecutor(1, spawn_context(), exit_with_parent_process)
pool.submit(os.getpid).result()
pool.submit(time.sleep, 60)
pid = next(iter(pool._processes))
open({str(pid_file)!r}, "w").write(str(pid))
os._exit(0)
"""
    subprocess.run([sys.executable, "-c", script], check=True, cwd=os.getcwd(), timeout=120)
    worker = int(pid_file.read_text())
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _alive(worker):
        time.sleep(0.2)
    assert not _alive(worker)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def test_a_context_with_a_niceness_starts_its_processes_at_it():
    """spawn_context(nice=19): each worker is at niceness 19 when it runs its first task (set from
    the parent as it starts, before its imports), the parent unchanged."""
    before = os.nice(0)
    with ProcessPoolExecutor(2, spawn_context(nice=19)) as pool:
        assert {f.result() for f in [pool.submit(os.nice, 0) for _ in range(2)]} == {19}
    with ProcessPoolExecutor(1, spawn_context()) as pool:
        assert pool.submit(os.nice, 0).result() == before
    assert os.nice(0) == before


_FAULTS = r"""
import resource, sys
import numpy as np
if sys.argv[1] == "worker":  # a frame worker's setting, as its pool starts it
    from webui import frames_worker
    frames_worker.start()
elif sys.argv[1] == "build":  # a build's pool worker
    from webui import warmup
    warmup._worker_start()

def once():
    held = [np.ones(1 << 19) for _ in range(8)]  # eight arrays of 4 MB written, then dropped
    del held

once()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    once()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _page_faults(setting: str) -> int:
    """A fresh process's minor page faults over ten rounds of making and dropping 32 MB of arrays,
    after ``setting`` (none, a frame worker's start, a build worker's start)."""
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", _FAULTS, setting], capture_output=True, text=True, check=True, timeout=120
    )
    return int(out.stdout.strip())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_workers_keep_freed_memory_and_take_no_pages_again():
    """By default glibc gives the heap's top back once it is freed, and every round takes its pages
    again (thousands of faults a round); a frame worker and a build worker keep it
    (``keep_freed_memory``) and take none."""
    plain = _page_faults("plain")
    assert plain > 10 * 1000  # (the default: the pages taken again, round after round)
    for setting in ("worker", "build"):
        assert _page_faults(setting) < plain / 20, setting
