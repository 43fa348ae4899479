"""Helpers for the processes dpviz starts (frame workers, server processes under supervision)."""

from __future__ import annotations

import functools
import multiprocessing.context
import sys
import threading
import types
from contextlib import contextmanager

PR_SET_PDEATHSIG = 1
"""``prctl(2)``'s option: the signal a process gets when its parent ends."""


def die_with_parent(signum: int | None = None) -> bool:
    """Ask Linux to send this process ``signum`` (SIGTERM) when its parent ends (``prctl(2)``'s
    ``PR_SET_PDEATHSIG``; kept across ``exec``, so a child's ``preexec_fn`` may call it). False
    where there is no such call (not Linux), and the process then just outlives its parent."""
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signum or signal.SIGTERM), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def exit_with_parent_process(poll: float = 1.0) -> threading.Thread:
    """End this process (``os._exit``) within ``poll`` seconds of its parent process ending: a
    daemon thread that compares ``os.getppid()`` with the parent's at the start.

    A pool worker's way, where :func:`die_with_parent` does not do: Linux sends the parent-death
    signal when the parent's *thread* that started the process ends, and a server's pool starts its
    workers from whichever thread first hands it work, often a visitor's script run, which ends a
    second later and took the workers with it (the pool then broke, and its frames fell back to the
    server's own thread)."""
    import os
    import time

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(poll)
            if os.getppid() != parent:
                os._exit(0)

    thread = threading.Thread(target=watch, name="dpviz-parent-watch", daemon=True)
    thread.start()
    return thread


def one_thread_everywhere() -> None:
    """One BLAS/OpenMP thread in every numeric library this process has loaded and will load: a
    pool worker's setting (N workers on N cores). threadpoolctl limits the libraries already loaded;
    the environment variables those loaded later (SciPy's own OpenBLAS: with ``threadpool_limits``
    alone, each of two frame workers ran 2 threads on the 2-core machine)."""
    import os

    from threadpoolctl import threadpool_limits

    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    threadpool_limits(1)


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
"""glibc's ``mallopt(3)`` options (``malloc.h``)."""
MAPPED_FROM_MB = 32
"""Blocks this large or larger get pages of their own from the system (glibc's largest default)."""
FREED_KEPT_MB = 64
"""Free memory at the heap's top that a process keeps rather than gives back to the system."""


def keep_freed_memory(mapped_from_mb: int = MAPPED_FROM_MB, kept_mb: int = FREED_KEPT_MB) -> bool:
    """Tell glibc's allocator to keep memory this process frees for its next allocations
    (``mallopt(3)``: ``M_MMAP_THRESHOLD`` ``mapped_from_mb``, ``M_TRIM_THRESHOLD`` ``kept_mb``): a
    frame worker's setting. By default glibc hands the heap's top back to the system once more than
    twice its (adapting) mapping threshold is free there, and a set of frames that makes and drops
    arrays of a few megabytes at every position (a block of simulated releases, a frequency table)
    then takes every page again from the system, a fault each: a tenth of ADePT's frames went to
    those faults (``benchmarks/bench_frames_vs.py``). A worker keeps at most ``kept_mb`` of free
    memory more. False where there is no such call (not glibc), and nothing changes."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    mapped = mallopt(M_MMAP_THRESHOLD, int(mapped_from_mb) << 20)
    kept = mallopt(M_TRIM_THRESHOLD, int(kept_mb) << 20)
    return bool(mapped) and bool(kept)


def freeze_loaded() -> int:
    """Move every object this process holds now (its modules, Plotly's validators, a page's
    state) out of the cyclic garbage collector's reach (``gc.freeze``), and say how many: a pool
    worker's, once it has loaded. Its full passes otherwise walked those 200,000-250,000 objects
    again and again, 0.1-0.2 s each, landing in whichever chart's frames allocated past the
    collector's threshold (HoHo's frames lost 0.37 s a pass over the page to them, 0.02 s frozen).
    What is frozen is still freed when nothing refers to it; only a cycle among frozen objects
    that becomes garbage later stays, so it is called on what a worker keeps: its loaded code and
    state."""
    import gc

    gc.freeze()
    return gc.get_freeze_count()


@functools.lru_cache(maxsize=1)
def _numpy_blas():
    import numpy  # noqa: F401  (its BLAS loaded before the controller looks for libraries)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(user_api="blas")


def one_numpy_blas_thread():
    """A context in which numpy's BLAS runs one thread, for code that multiplies with numpy alone
    (the HoHo page's exact attack): the libraries found once per process, not at every call as
    ``threadpool_limits`` looks for them (1.7 ms a call, 6% of the HoHo frontier's frames)."""
    return _numpy_blas().limit(limits=1)


_MAIN_LOCK = threading.Lock()


@contextmanager
def _plain_main():
    """``__main__`` as a plain module of that name meanwhile (restored unless a script run replaced
    it meanwhile): what a spawned process is told to run first is then nothing."""
    with _MAIN_LOCK:
        saved = sys.modules.get("__main__")
        stub = types.ModuleType("__main__")
        sys.modules["__main__"] = stub
        try:
            yield
        finally:
            if sys.modules.get("__main__") is stub:
                sys.modules["__main__"] = saved


class PlainMainProcess(multiprocessing.context.SpawnProcess):
    """A spawned process started while ``__main__`` is plain (:func:`spawn_context`), at the
    niceness ``nice`` from its first instruction on."""

    nice = 0

    def start(self) -> None:
        """Start the process as the spawn context does, ``__main__`` plain meanwhile; then set its
        niceness from here, before its imports (a pool's initializer runs only after them)."""
        import os

        with _plain_main():
            super().start()
        if self.nice and self.pid:
            try:
                os.setpriority(os.PRIO_PROCESS, self.pid, self.nice)
            except OSError:  # gone already, or not allowed: it keeps the parent's
                pass


class PlainMainContext(multiprocessing.context.SpawnContext):
    """multiprocessing's ``spawn`` context with :class:`PlainMainProcess` (:func:`spawn_context`)."""

    def __init__(self, nice: int = 0):
        super().__init__()
        self.nice = nice

    def Process(self, *args, **kwargs) -> PlainMainProcess:  # noqa: N802 - the context's own name
        """A process of this context (what a pool asks its context for)."""
        process = PlainMainProcess(*args, **kwargs)
        process.nice = self.nice
        return process


def spawn_context(nice: int = 0) -> PlainMainContext:
    """multiprocessing's ``spawn`` context, whose processes start without the parent's main module.

    A spawned process runs the parent's ``__main__`` again (as ``__mp_main__``) before its work,
    so that functions defined there can be unpickled. In a Streamlit server ``__main__`` is the page
    script being run (Streamlit runs each page as a module of that name), so every frame worker
    started from the HoHo page ran the whole HoHo page again, in Streamlit's bare mode, before its
    first set: seconds of a core per worker on a fresh server, each starting a pool of its own. The
    processes of this context start while ``__main__`` is a plain module of that name (a few
    milliseconds, under a lock): nothing of dpviz lives in a page script, so a worker needs nothing
    from it (tests/core/test_processes.py). ``nice``: the processes' niceness, set as each starts
    (a frame worker's imports, 1-2 s of a core, then come after a visitor's first view, not beside
    it)."""
    return PlainMainContext(nice)
