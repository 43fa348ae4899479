"""Run untrusted symbolic work in a separate process with CPU-time, memory and wall-clock limits.

No allow-list of syntax bounds what sympy may do with a short formula: ``exp(exp(exp(20)))`` makes
its numeric conversions run for ever, and the LaTeX of nested functions grows about threefold per
level. So a typed formula is analysed in a child process of a *fork server* (started once, with
sympy already imported, so a child starts in milliseconds):

- ``RLIMIT_CPU`` ends the child after ``cpu_seconds`` of CPU time;
- ``RLIMIT_AS`` caps its address space at its size on start plus ``memory_bytes``;
- the server stops waiting after ``wall_seconds`` and kills it;
- it runs at a lower priority (``nice``), one at a time per server (a visitor queueing many
  formulas waits for a slot rather than taking every core).

Whatever happens in the child, the server process only reads a pickled result or an error message.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from typing import Any, Callable

CPU_SECONDS = 8
WALL_SECONDS = 20.0
MEMORY_BYTES = 1 << 30
PARALLEL = 1

_CONTEXT = None
_CONTEXT_LOCK = threading.Lock()
_SLOTS = threading.BoundedSemaphore(PARALLEL)


class LimitExceeded(ValueError):
    """The work needed more time or memory than a visitor's request may take."""


class WorkerError(ValueError):
    """The work raised an expected error (``kind`` names its class) in the child; ``str`` is its sentence."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _context(module: str):
    """The fork server, started on first use with ``module`` (the work's own) and sympy imported."""
    global _CONTEXT
    with _CONTEXT_LOCK:
        if _CONTEXT is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["dpviz.sandbox", module, "sympy"])
            _CONTEXT = ctx
        return _CONTEXT


def _address_space() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _child(conn, fn, args, cpu_seconds: int, memory_bytes: int, expected: tuple) -> None:
    import resource

    try:
        os.nice(10)
    except OSError:
        pass
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)  # small numerics; the server's cores are for the server
    except ImportError:
        pass
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    try:
        limit = _address_space() + memory_bytes
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (OSError, ValueError):  # no /proc (not Linux): the wall clock and CPU limit remain
        pass
    try:
        result = ("ok", fn(*args))
    except MemoryError:
        result = ("memory", None)
    except RecursionError:
        result = ("memory", None)
    except expected as err:
        result = ("error", (type(err).__name__, str(err)))
    try:
        conn.send(result)
    except MemoryError:
        conn.send(("memory", None))
    conn.close()


def run_limited(fn: Callable, args: tuple, *, what: str = "This request", expected: tuple = (ValueError,),
                cpu_seconds: int | None = None, memory_bytes: int | None = None, wall_seconds: float | None = None) -> Any:
    """``fn(*args)`` in a limited child process (``fn`` must be importable by name).

    Returns its result. An exception of an ``expected`` class raised by ``fn`` becomes
    :class:`WorkerError` with the same message; running out of time or memory becomes
    :class:`LimitExceeded` with a sentence that starts with ``what``; any other exception in the child is a bug and is
    raised here as RuntimeError with the child's exit status. Limits default to the module's
    CPU_SECONDS, MEMORY_BYTES and WALL_SECONDS.
    """
    cpu_seconds = CPU_SECONDS if cpu_seconds is None else cpu_seconds
    memory_bytes = MEMORY_BYTES if memory_bytes is None else memory_bytes
    wall_seconds = WALL_SECONDS if wall_seconds is None else wall_seconds
    if not _SLOTS.acquire(timeout=wall_seconds):
        raise LimitExceeded(f"{what} has to wait: the server is busy with other visitors' requests; try again in a minute.")
    try:
        ctx = _context(fn.__module__)
        receive, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(send, fn, args, int(cpu_seconds), int(memory_bytes), expected), daemon=True)
        proc.start()
        send.close()
        try:
            ready = receive.poll(wall_seconds)
            message = receive.recv() if ready else None
        except EOFError:  # the child died without answering: killed by its CPU or memory limit
            message = None
        finally:
            receive.close()
            if proc.is_alive():
                proc.kill()
            proc.join(5)
    finally:
        _SLOTS.release()
    too_costly = (f"{what} needs more than the {cpu_seconds} CPU-seconds, {wall_seconds:.0f} s or "
                  f"{memory_bytes / 2**30:.0f} GiB of memory that one request may use here.")
    if message is None:
        if proc.exitcode is not None and proc.exitcode < 0 or not ready:
            raise LimitExceeded(too_costly)
        raise RuntimeError(f"the worker process ended with status {proc.exitcode}")
    status, payload = message
    if status == "ok":
        return payload
    if status == "memory":
        raise LimitExceeded(too_costly)
    raise WorkerError(*payload)
