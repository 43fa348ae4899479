"""The processes that compute frames for a server (:mod:`webui.frames_queue` hands them the work):
one per core by default, so that frames use every core the machine has and never hold the
server's own interpreter (its lock) while a visitor's run waits for it.

- **How many**: ``DPVIZ_FRAME_WORKERS`` (default: the machine's cores; ``0``: none, the frames are
  computed in the server's own background thread as before). Started on the first request, by
  ``spawn`` (a clean interpreter: the server's threads are not copied into it), each at the
  lowest CPU priority (nice 19: a visitor's run on the same core comes first), one BLAS thread
  each, and ended with the server (Linux: the parent's death signal).
- **What they do**: compute one set of frames (:func:`webui.live_frames.build`, or a panel's HTML
  frames) and write it into the disk cache, as ``python -m dpviz build`` does; the server then
  reads it from there. A worker reads the page's prepared state from the disk cache too.
- **Stopping**: frames nobody wants any more (:func:`webui.frames_queue.wanted`) are stopped at
  the worker's next position: the server leaves a marker file the worker looks for between two
  positions (:func:`compute`).
- **Failing**: a pool that breaks (a worker killed, a worker that cannot start) is logged; the
  frames it was computing, and any asked for later, are computed in the server's thread as
  before, the page unchanged (:func:`compute` returns False). After :data:`MAX_BREAKS` breaks the
  pool is not started again in this process.
"""

from __future__ import annotations

import functools
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger("dpviz.frames")
MAX_BREAKS = 3
POLL = 0.25
"""Seconds between two looks, while a worker computes, at whether its frames are still wanted."""

_LOCK = threading.Lock()
_POOL: list = []  # the executor, once started
_BREAKS = [0]


def size() -> int:
    """How many worker processes compute frames (0: none, the server's thread does)."""
    raw = os.environ.get("DPVIZ_FRAME_WORKERS", "").strip()
    if raw:
        try:
            return max(0, int(raw))
        except ValueError:
            log.warning("DPVIZ_FRAME_WORKERS=%r is not a whole number; using one worker per core", raw)
    return os.cpu_count() or 1


def concurrency() -> int:
    """How many sets of frames are computed at once: one per worker, or one in the server's thread."""
    return max(1, size()) if _BREAKS[0] < MAX_BREAKS else 1


def _pool():
    """The executor (started now if need be), or None: no workers wanted, or too many breaks."""
    with _LOCK:
        if _POOL:
            return _POOL[0]
        if size() == 0 or _BREAKS[0] >= MAX_BREAKS:
            return None
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        _POOL.append(ProcessPoolExecutor(size(), multiprocessing.get_context("spawn"), _worker_start))
        _at_exit(_end_workers)
        return _POOL[0]


def _at_exit(func) -> None:
    """Run ``func`` when the server's interpreter ends, before concurrent.futures waits there for
    its running tasks (its own hook; the later registered runs first): a server being stopped
    would otherwise wait for a worker to finish its set (a minute for HoHo's frontier)."""
    import atexit

    register = getattr(threading, "_register_atexit", None)
    try:
        register(func) if register is not None else atexit.register(func)
    except RuntimeError:  # the interpreter is already ending
        pass


def _end_workers() -> None:
    """Kill the workers at once (what they compute is not wanted by a server that ends)."""
    with _LOCK:
        pool = _POOL.pop() if _POOL else None
    if pool is None:
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.kill()
    pool.shutdown(wait=False, cancel_futures=True)


_WARMED: set = set()  # pages whose prepared state the workers were asked to load


def prestart(page: str, values: dict[str, Any]) -> None:
    """Start the workers now, if they are wanted and not running, and have each load ``page``'s
    prepared state at ``values`` (once per page): a visitor's first key step then finds them
    ready. Started cold at that step, a set waited for a worker's interpreter, its imports and
    the page's state (HoHo's first step took 77 s against 60 s in the server's thread)."""
    with _LOCK:
        if page in _WARMED or (not _POOL and (size() == 0 or _BREAKS[0] >= MAX_BREAKS)):
            return
        _WARMED.add(page)
    pool = _pool()
    if pool is None:
        return
    try:
        for _ in range(size()):
            pool.submit(_warm, page, dict(values))
    except RuntimeError:  # shut down meanwhile
        pass


def _broken(pool, why: str) -> None:
    """Forget a pool that broke (the next request starts another, up to :data:`MAX_BREAKS`)."""
    with _LOCK:
        if _POOL and _POOL[0] is pool:
            _POOL.clear()
            _WARMED.clear()
            _BREAKS[0] += 1
    log.warning("the frames' process pool broke (%s): these frames are computed in the server's thread", why)
    pool.shutdown(wait=False, cancel_futures=True)


def shutdown() -> None:
    """End the workers (a test's cleanup; a server's end ends them too)."""
    with _LOCK:
        pool = _POOL.pop() if _POOL else None
        _WARMED.clear()
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


@functools.cache
def _markers() -> Path:
    return Path(tempfile.mkdtemp(prefix="dpviz-frames-stop-"))


def compute(task: tuple, key: str, between) -> bool:
    """Frames ``task`` (:func:`figure_task` or :func:`panel_task`) computed by a worker into the disk
    cache: True once they are there; False when there are no workers or the pool broke (the caller
    computes them itself). ``between()`` is called while the worker computes and raises
    :class:`webui.frames_queue.Withdrawn` when nobody wants them any more: the worker is then told
    to stop at its next position, and the exception goes on. An error of the computation itself
    is raised here, as it would be in the server's thread."""
    from concurrent.futures import TimeoutError as Waiting
    from concurrent.futures.process import BrokenProcessPool

    from webui.frames_queue import Withdrawn

    pool = _pool()
    if pool is None:
        return False
    stop = _markers() / key
    stop.unlink(missing_ok=True)
    try:
        future = pool.submit(_in_worker, task, str(stop))
        while True:
            try:
                future.result(timeout=POLL)
                return True
            except Waiting:
                between()
    except Withdrawn:
        stop.touch()
        raise
    except (BrokenProcessPool, RuntimeError) as err:  # RuntimeError: submitted to a pool shut down meanwhile
        _broken(pool, type(err).__name__)
        return False


def figure_task(spec, values: dict[str, Any], slider: str) -> tuple:
    """What a worker needs to compute a chart's frames (picklable: ids, not objects)."""
    return ("figure", spec.id, {p.name: values[p.name] for p in spec.params}, slider)


def panel_task(panel, values: dict[str, Any], slider: str) -> tuple:
    """What a worker needs to compute a panel's HTML frames (a panel drawn as HTML, found by its id)."""
    return ("panel", panel.id, {p.name: values[p.name] for p in panel.params}, slider)


# in the worker -----------------------------------------------------------------------------------


def _worker_start() -> None:
    """A worker's setting: nice 19, one BLAS thread, and ended with its server (Linux)."""
    try:
        os.nice(19 - os.nice(0))
    except OSError:
        pass
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)


def _warm(page: str, values: dict[str, Any]) -> None:
    """In a worker: the imports a set of frames needs and ``page``'s prepared state at ``values``
    (what is missing is the worker's first set's to compute; nothing here fails a set)."""
    from dpviz import registry, theme
    from webui import live_frames  # noqa: F401 - Streamlit, the chart JSON

    theme.go.Figure  # noqa: B018 - loads Plotly
    for spec in registry.paper_figures(page):
        if spec.on_demand:
            continue
        try:
            spec.state({p.name: values.get(p.name, p.default) for p in spec.params})
        except Exception:  # noqa: BLE001, S112 - a state the first set computes instead
            continue


def _in_worker(task: tuple, stop: str) -> None:
    """Compute frames ``task`` into the disk cache, stopping at the first position after ``stop``
    exists (:class:`webui.frames_queue.Withdrawn`)."""
    from dpviz import registry
    from webui import live_frames
    from webui.frames_queue import Withdrawn

    def between(*_) -> None:
        if os.path.exists(stop):
            raise Withdrawn(stop)

    kind, ident, values, slider = task
    if kind == "figure":
        spec = registry.get(ident)
        live_frames.build(spec, values, slider, between)
        return
    from dpviz import papers

    page, panel = next((p.key, x) for p in papers.all_papers() for x in p.panels if x.html and x.id == ident)
    param = next(p for p in registry.page_params(page) if p.name == slider)  # the page's slider, as live_html
    live_frames.text_frames_for(panel, values, param, now=True, progress=between)
