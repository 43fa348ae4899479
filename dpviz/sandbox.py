"""Run untrusted symbolic work in a separate process with CPU-time, memory and wall-clock limits.

No allow-list of syntax bounds what sympy may do with a short formula: ``exp(exp(exp(20)))`` makes
its numeric conversions run for ever, and the LaTeX of nested functions grows about threefold per
level. So a typed formula is analysed in a child process of a small *fork server*: a clean Python
process (``python -m dpviz.sandbox``, started once, with the work's module and sympy imported)
that forks one child per request, so a child starts in milliseconds:

- ``RLIMIT_CPU`` ends the child after ``cpu_seconds`` of CPU time;
- ``RLIMIT_AS`` caps its address space at its size on start plus ``memory_bytes``;
- the fork server kills it after ``wall_seconds``;
- it runs at a lower priority (``nice``), one at a time per server (a visitor queueing many
  formulas waits for a slot rather than taking every core).

The fork server is a plain subprocess rather than :mod:`multiprocessing`'s: under Streamlit,
``sys.modules["__main__"]`` is the page being run, and multiprocessing would re-run that page in
every child. Requests and answers are length-prefixed pickles over the fork server's pipes; the
server process only ever reads a pickled result or an error message.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
from typing import Any, Callable

from dpviz.errors import InputError

CPU_ENV = "DPVIZ_FORMULA_CPU_SECONDS"
CPU_DEFAULT, CPU_RANGE = 8, (1, 60)


def cpu_seconds_from(raw: str | None) -> int:
    """A formula's CPU-seconds (the kernel's limit on its worker): ``$DPVIZ_FORMULA_CPU_SECONDS``
    when it is a whole number in 1-60 (a hosted demo's operator sets what one visitor's formula may
    burn), else 8; a value that is not one is said on stderr and the 8 kept, the server starts."""
    if raw is None or not raw.strip():
        return CPU_DEFAULT
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not CPU_RANGE[0] <= value <= CPU_RANGE[1]:
        print(
            f"dpviz: {CPU_ENV}={raw!r} is not a whole number of seconds in {CPU_RANGE[0]}-{CPU_RANGE[1]}; "
            f"a formula gets {CPU_DEFAULT} CPU-seconds.",
            file=sys.stderr,
        )
        return CPU_DEFAULT
    return value


CPU_SECONDS = cpu_seconds_from(os.environ.get(CPU_ENV))
WALL_SECONDS = 20.0
MEMORY_BYTES = 1 << 30
PARALLEL = 1
BUSY_SHARE = 0.5
"""A child killed by the wall clock having used less than this share of its CPU-seconds was starved
of CPU by a busy machine (:class:`Busy`), not too costly."""

_SLOTS = threading.BoundedSemaphore(PARALLEL)
_HELPER: subprocess.Popen | None = None
_HELPER_LOCK = threading.Lock()


class LimitExceeded(InputError):
    """The work needed more time or memory than a visitor's request may take."""


class Busy(LimitExceeded):
    """The wall clock ran out while the work had used little of its CPU time: the machine was busy
    (other visitors, other processes), not the work too costly. A caller that remembers refusals
    does not remember this one: the same request may well finish the next time."""


class WorkerError(InputError):
    """The work raised an expected error (``kind`` names its class) in the child; ``str`` is its sentence."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


# the wire: an 8-byte length, then a pickle --------------------------------------------------------


def _send(fd: int, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _read_exactly(fd: int, n: int, deadline: float | None) -> bytes | None:
    """``n`` bytes from ``fd``, or None at end of file or when ``deadline`` (monotonic) passes."""
    import time

    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _receive(fd: int, deadline: float | None = None) -> Any:
    head = _read_exactly(fd, 8, deadline)
    if head is None:
        return None
    body = _read_exactly(fd, struct.unpack("<Q", head)[0], deadline)
    return None if body is None else pickle.loads(body)


# the fork server (runs as ``python -m dpviz.sandbox``) --------------------------------------------


def _address_space() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _child(write_fd: int, request: dict) -> None:
    """In the forked child: apply the limits, run the work, send ("ok", result) or an error."""
    import importlib
    import resource
    import traceback

    try:
        os.nice(10)
    except OSError:
        pass
    cpu = int(request["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    try:
        limit = _address_space() + int(request["memory_bytes"])
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (OSError, ValueError):  # no /proc (not Linux): the wall clock and CPU limit remain
        pass
    try:
        fn = importlib.import_module(request["module"])
        for part in request["name"].split("."):
            fn = getattr(fn, part)
        result = ("ok", fn(*request["args"]))
    except (MemoryError, RecursionError):
        result = ("memory", None)
    except Exception as err:  # noqa: BLE001 - sorted into expected errors and bugs right here
        if any(c.__name__ in request["expected"] for c in type(err).__mro__):
            result = ("error", (type(err).__name__, str(err)))
        else:
            traceback.print_exc()
            os._exit(1)
    try:
        _send(write_fd, result)
    except MemoryError:
        _send(write_fd, ("memory", None))
    os._exit(0)


def _serve_one(request: dict) -> tuple:
    """Fork a child for one request, wait for its answer at most ``wall_seconds``, reap it."""
    import time

    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            _child(write_fd, request)
        finally:
            os._exit(1)
    os.close(write_fd)
    answer = _receive(read_fd, time.monotonic() + float(request["wall_seconds"]))
    os.close(read_fd)
    if answer is None:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _, status, usage = os.wait4(pid, 0)
    if answer is not None:
        return answer
    if answer is None and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        used = usage.ru_utime + usage.ru_stime
        if used < BUSY_SHARE * float(request["cpu_seconds"]):  # killed by the wall clock, starved of CPU
            return ("busy", used)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL, signal.SIGSEGV):
        return ("limit", None)
    return ("died", os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status))


def _serve(preload: list[str]) -> None:
    import importlib

    for module in preload:
        importlib.import_module(module)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)  # small numerics; the server's cores are for the server
    except ImportError:
        pass
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    sys.stdout = sys.stderr  # stray prints must not corrupt the answers' stream
    while True:
        request = _receive(stdin)
        if request is None:
            return
        _send(stdout, _serve_one(request))


# the client (in the server process) ---------------------------------------------------------------


def _helper(module: str) -> subprocess.Popen:
    """The running fork server, started (again) if needed with ``module`` and sympy preloaded."""
    global _HELPER
    with _HELPER_LOCK:
        if _HELPER is None or _HELPER.poll() is not None:
            # a fixed hash seed: sympy's path through a formula (set iteration order) is then the same on
            # every run and every server, so a formula that works once always works
            env = dict(
                os.environ,
                PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
                OMP_NUM_THREADS="1",
                OPENBLAS_NUM_THREADS="1",
                MKL_NUM_THREADS="1",
                PYTHONHASHSEED="0",
            )
            _HELPER = subprocess.Popen(
                [sys.executable, "-m", "dpviz.sandbox", module, "sympy"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                close_fds=True,
            )
        return _HELPER


def start_soon(module: str) -> None:
    """Start the fork server for ``module`` in the background (its imports take seconds), so that
    the first formula a visitor types does not wait for them. Does nothing if it is running."""
    if _HELPER is not None and _HELPER.poll() is None:
        return
    threading.Thread(target=_helper, args=(module,), name="dpviz-sandbox-start", daemon=True).start()


def _stop_helper(helper: subprocess.Popen) -> None:
    global _HELPER
    with _HELPER_LOCK:
        helper.kill()
        helper.wait()
        if _HELPER is helper:
            _HELPER = None


def run_limited(
    fn: Callable,
    args: tuple,
    *,
    what: str = "This request",
    expected: tuple = (ValueError,),
    cpu_seconds: int | None = None,
    memory_bytes: int | None = None,
    wall_seconds: float | None = None,
) -> Any:
    """``fn(*args)`` in a limited child process (``fn`` must be importable by module and name).

    Returns its result. An exception of an ``expected`` class raised by ``fn`` becomes
    :class:`WorkerError` with the same message; running out of time or memory becomes
    :class:`LimitExceeded` with a sentence that starts with ``what``; any other exception in the
    child is a bug: its traceback goes to stderr and RuntimeError is raised here. Limits default
    to the module's CPU_SECONDS, MEMORY_BYTES and WALL_SECONDS.
    """
    import time

    cpu_seconds = CPU_SECONDS if cpu_seconds is None else cpu_seconds
    memory_bytes = MEMORY_BYTES if memory_bytes is None else memory_bytes
    wall_seconds = WALL_SECONDS if wall_seconds is None else wall_seconds
    too_costly = (
        f"{what} needs more than the {cpu_seconds} CPU-seconds, {wall_seconds:.0f} s or "
        f"{memory_bytes / 2**30:.0f} GiB of memory that one request may use here."
    )
    if not _SLOTS.acquire(timeout=wall_seconds):
        raise LimitExceeded(
            f"{what} has to wait: the server is busy with other visitors' requests; try again in a minute."
        )
    try:
        helper = _helper(fn.__module__)
        request = {
            "module": fn.__module__,
            "name": fn.__qualname__,
            "args": tuple(args),
            "expected": [c.__name__ for c in expected],
            "cpu_seconds": cpu_seconds,
            "memory_bytes": memory_bytes,
            "wall_seconds": wall_seconds,
        }
        try:
            _send(helper.stdin.fileno(), request)
            # the fork server answers within wall_seconds; more slack for its own start (imports)
            answer = _receive(helper.stdout.fileno(), time.monotonic() + wall_seconds + 60)
        except OSError:
            answer = None
        if answer is None:  # the fork server itself is stuck or gone: start a fresh one next time
            _stop_helper(helper)
            raise RuntimeError("the formula worker stopped answering")
    finally:
        _SLOTS.release()
    status, payload = answer
    if status == "ok":
        return payload
    if status in ("memory", "limit"):
        raise LimitExceeded(too_costly)
    if status == "busy":
        raise Busy(
            f"{what} could not finish in {wall_seconds:.0f} s: the server is busy (it had {payload:.1f} of its "
            f"{cpu_seconds} CPU-seconds); try again in a minute."
        )
    if status == "error":
        raise WorkerError(*payload)
    raise RuntimeError(f"the worker process ended with status {payload}")


if __name__ == "__main__":
    _serve(sys.argv[1:])
