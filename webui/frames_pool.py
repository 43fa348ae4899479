"""The processes that compute frames for a server (:mod:`webui.frames_queue` hands them the work):
one per core by default, so that frames use every core the machine has and never hold the
server's own interpreter (its lock) while a visitor's run waits for it.

- **How many**: ``DPVIZ_FRAME_WORKERS`` (default: the machine's cores; ``0``: none, the frames are
  computed in the server's own background thread as before). Started as the first page anyone
  opens begins (:func:`start_soon`), by ``spawn`` (a clean interpreter: the server's threads are
  not copied into it) without the page script Streamlit has made ``__main__``
  (:func:`dpviz.processes.spawn_context`: each worker ran the whole page again at its start), each
  at the lowest CPU priority (nice 19: a visitor's run on the same core comes first), one BLAS
  thread each, and ended within a second of the server process
  (:func:`dpviz.processes.exit_with_parent_process`: Linux's parent-death signal followed the
  visitor's script run that started them, and ended them with it).
- **What they do** (:mod:`webui.frames_worker`): a chart's set is split among the workers, each part
  spread over the whole grid (a set costs its slowest part: HoHo's frontier along λ, 53 CPU-s, is
  shared), then put together and written into the disk cache as ``python -m dpviz build`` does (by
  the server's queue thread when it is local and idle, else by one of them); the server then reads
  it from there. A panel's HTML frames are computed whole. The parts are handed to the pool one per
  worker, the cheapest first (:mod:`webui.frames_schedule`).
  A page's run asks each worker to load its prepared state (:func:`prestart`), so that a first key
  step does not wait for it; a worker stops loading when a set is handed over
  (:data:`webui.frames_signals.ASKED`).
- **Stopping**: frames nobody wants any more (:func:`webui.frames_queue.wanted`) are stopped at
  the worker's next position: the server leaves a marker file the worker looks for between two
  positions (:func:`compute`).
- **Failing**: a pool that breaks (a worker killed, a worker that cannot start) is logged; the
  frames it was computing, and any asked for later, are computed in the server's thread as
  before, the page unchanged (:func:`compute` returns False). After :data:`MAX_BREAKS` breaks the
  pool is not started again in this process.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from dpviz import hosted_mode, registry
from dpviz.processes import spawn_context
from webui import frames_signals, frames_store, frames_worker, visitor_busy
from webui.frames_schedule import AHEAD_COST, AHEAD_PART, estimate, for_pool, nearest, note, run_all

log = logging.getLogger("dpviz.frames")
MAX_BREAKS = 3

_LOCK = threading.Lock()
_POOL: list = []  # the executor, once started
_BREAKS = [0]


def size() -> int:
    """How many worker processes compute frames (0: none, the server's thread does)."""
    raw = os.environ.get("DPVIZ_FRAME_WORKERS", "").strip()
    if raw.isascii() and raw.isdigit():
        return int(raw)
    if raw:
        log.warning("DPVIZ_FRAME_WORKERS=%r is not a whole number >= 0; using one worker per core", raw)
    return os.cpu_count() or 1


SETS_PER_WORKER = 4
"""Sets of frames in flight per worker: the queue's thread of a set mostly waits for the workers,
and with several sets in flight every set's nearest part is in the pool's queue before any set's
rest (the pool takes its tasks in order; :func:`compute` asks for a set's rest once its nearest
part is done), so after a key step every chart soon follows a drag near the slider's value."""


def active() -> bool:
    """Whether sets are handed to worker processes (wanted, and the pool not broken too often)."""
    return size() > 0 and _BREAKS[0] < MAX_BREAKS


def concurrency() -> int:
    """How many sets of frames are computed at once: :data:`SETS_PER_WORKER` per worker, or one in
    the server's thread (no workers, or a pool broken too often)."""
    return SETS_PER_WORKER * size() if active() else 1


def _pool():
    """The executor (started now if need be), or None: no workers wanted, or too many breaks."""
    with _LOCK:
        if _POOL:
            return _POOL[0]
        if not active():
            return None
        from concurrent.futures import ProcessPoolExecutor

        _POOL.append(ProcessPoolExecutor(size(), spawn_context(nice=19), frames_worker.start))
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
_READIED = [False]  # whether the workers were started with the first page anyone opened
_READYING: list = []  # the futures of their loading (start_soon)


def start_soon() -> None:
    """Start the workers now, if they are wanted and not started yet, each loading what every set
    of frames needs (:func:`webui.frames_worker.ready`): called as the first page anyone opens
    begins, so that the workers' interpreters and imports (4-10 s on a fresh two-core server, at
    their low priority beside the page's first run) are done while the visitor reads, not after
    their first key step (on a fresh server a set asked for 3 s after the first step of HoHo's ε
    waited 6 s for its workers, then took 0.6 s)."""
    with _LOCK:
        if _READIED[0] or _POOL or not active():
            return
        _READIED[0] = True
    frames_signals.trace("start-soon", "")
    _READYING[:] = _to_each_worker(frames_worker.ready)


def workers_ready() -> bool:
    """Whether a worker has done its loading (:func:`start_soon`), or the pool was started otherwise."""
    return not _READYING or any(f.done() for f in _READYING)


def _to_each_worker(call, *args) -> list:
    """Hand ``call(*args)`` to the pool once per worker (started now if need be): their futures."""
    pool = _pool()
    if pool is None:
        return []
    futures = []
    try:
        for _ in range(size()):
            futures.append(pool.submit(call, *args))
    except RuntimeError:  # shut down meanwhile
        pass
    return futures


def prestart(page: str, values: dict[str, Any]) -> None:
    """Start the workers now, if they are wanted and not running, and have each load ``page``'s
    prepared state at ``values`` (once per page): a visitor's first key step then finds them
    ready. Started cold at that step, a set waited for a worker's interpreter, its imports and
    the page's state (HoHo's first step took 77 s against 60 s in the server's thread)."""
    with _LOCK:
        if page in _WARMED or (not _POOL and not active()):
            return
        _WARMED.add(page)
    frames_signals.trace("prestart", page)
    _to_each_worker(frames_worker.warm, page, dict(values), str(frames_signals.markers() / frames_signals.ASKED))


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
        _READIED[0] = False
        _READYING.clear()
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def compute(task: tuple, key: str, between, near=None, ahead: bool = False) -> bool:
    """Frames ``task`` (:func:`figure_task` or :func:`panel_task`) computed by a worker into the disk
    cache: True once they are there; False when there are no workers or the pool broke (the caller
    computes them itself). ``between()`` is called while the worker computes and raises
    :class:`webui.frames_queue.Withdrawn` when nobody wants them any more: the worker is then told
    to stop at its next position, and the exception goes on. A ``between`` with a
    ``still_wanted`` attribute (the queue's, which also waits for the visitors' runs) is checked
    by that instead: the workers' low priority already puts a visitor first. An error of the
    computation itself is raised here, as it would be in the server's thread.

    With ``near``, the workers (the queue's thread while they load: :func:`_here_first`) first
    compute the positions nearest to the slider's value (:func:`webui.frames_schedule.nearest`),
    told to ``near(positions, frames)`` (the page follows a drag near the value), then the rest.
    ``ahead`` (:func:`webui.live_frames.ask_ahead`): parts after every other set's
    (:data:`webui.frames_schedule.AHEAD_COST`). One worker: a set without ``near`` comes whole."""
    from concurrent.futures.process import BrokenProcessPool

    pool = _pool()
    if pool is None:
        return False
    between = getattr(between, "still_wanted", between)
    (frames_signals.markers() / frames_signals.ASKED).touch()  # a worker loading a page's state stops for this set
    stop = frames_signals.markers() / key
    stop.unlink(missing_ok=True)
    frames_signals.sweep_markers()
    try:
        grid = _grid_in_parts(task)
        scheduler = for_pool(pool, size())  # the cheapest task first (webui.frames_schedule)
        extra = AHEAD_COST if ahead else 0.0
        if grid is None or (near is None and size() < 2 and not ahead):
            run_all(scheduler, [(extra, frames_worker.whole_set, task, str(stop))], between)
            return True
        # the set in parts, one per worker, nearest first; then put together by one of them
        figures, (_, figure, values, slider) = {}, task
        first = nearest(grid, values[slider]) if near is not None else []
        taken = set(first)
        for positions in (first, [v for v in grid if v not in taken]):
            if positions is first and first and _here_first():
                frames_signals.trace("near-here", key)
                figures.update(frames_worker.part(task, first, str(stop)))
            else:
                parts = _split(positions, AHEAD_PART if ahead else None)
                calls = [
                    (extra + estimate(figure, slider, len(p)), frames_worker.part, task, p, str(stop)) for p in parts
                ]
                done = run_all(scheduler, calls, between)
                for f, part in zip(done, parts):
                    figures.update(f.result())
                    if positions is not first:  # (a set's first part also prepares its state: not a rate)
                        note(figure, slider, f.seconds, len(part))
            if positions is first and first:
                near(first, [figures[v] for v in first])
                frames_signals.trace("near", key)
        _put_together(scheduler, task, [figures[v] for v in grid], between, extra)
        return True
    except frames_worker.Withdrawn:
        stop.touch()
        raise
    except BrokenProcessPool as err:
        _broken(pool, str(err) or type(err).__name__)
        return False


def _local_and_idle() -> bool:
    """Whether the queue's thread may do a set's work itself: a local server, no visitor's run computing."""
    return not hosted_mode() and visitor_busy.idle_now()


def _here_first() -> bool:
    """Whether a set's nearest positions are computed in the queue's own thread: on a local, idle
    server whose workers are still loading (2-3 s after a fresh server's first view, with the tab
    drawing on the same cores: a first key step's sets waited for them)."""
    return not workers_ready() and _local_and_idle()


def _put_together(scheduler, task: tuple, figures: list, between, extra: float = 0.0) -> None:
    """A set's frames put together and written into the disk cache (30-90 ms): here when local and
    idle (its figures are here already), else by a worker, which may be busy with another set's part
    for up to a second (a trace: ADePT's ε set put together 0.85 s after its parts ended)."""
    if _local_and_idle():
        frames_worker.put_together(task, figures)
    else:
        run_all(scheduler, [(extra, frames_worker.put_together, task, figures)], between)


def _grid_in_parts(task: tuple) -> list | None:
    """The grid of a set computed in parts: a chart's, of at least two positions per worker; None
    for a set computed whole (a panel's HTML frames, which are quick; a shorter grid)."""
    if task[0] != "figure":
        return None
    grid = frames_store.grid(registry.get(task[1]), task[3])
    return grid if len(grid) >= 2 * max(1, size()) else None


def _split(positions: list, most: int | None = None) -> list[list]:
    """``positions`` split among the workers (parts of at most ``most``), each spread over them (k,
    k + n, k + 2n...): a set costs its slowest part, and a grid's costly end is shared."""
    n = max(1, size(), -(-len(positions) // most) if most else 0)
    return [positions[k::n] for k in range(n) if positions[k::n]]


def figure_task(spec, values: dict[str, Any], slider: str) -> tuple:
    """What a worker needs to compute a chart's frames (picklable: ids, not objects)."""
    return ("figure", spec.id, {p.name: values[p.name] for p in spec.params}, slider)


def panel_task(panel, values: dict[str, Any], slider: str) -> tuple:
    """What a worker needs to compute a panel's HTML frames (a panel drawn as HTML, found by its id)."""
    return ("panel", panel.id, {p.name: values[p.name] for p in panel.params}, slider)
