"""Hosted demo warm-up: when the server gets its first visitor, a background thread computes
every page's charts on their default settings into the shared figure cache (and the metric
page's try-it box), then every lesson's charts and answers, so the first clicks of a class do
not each wait for a cold computation (the metric page alone takes ~6 s cold). On with
DPVIZ_HOSTED=1 or DPVIZ_WARMUP=1; off locally, where a visitor who opens one page should not pay
for the others."""

from __future__ import annotations

import logging
import sys
import threading
import time
from typing import Any

from dpviz import env_flag, hosted_mode, lessons, papers, registry, sandbox, tools
from dpviz.frames import slider_grid
from dpviz.lessons.answers import answers
from dpviz.lessons.format import load
from dpviz.panels import Panel
from dpviz.params import applies, validate
from dpviz.processes import (
    exit_with_parent_process,
    freeze_loaded,
    keep_freed_memory,
    one_thread_everywhere,
    spawn_context,
)
from dpviz.progress import report
from webui import frames_schedule, frames_store
from webui.failure_lines import failures_as_lines

_LOCK = threading.Lock()
_STARTED = False
log = logging.getLogger("dpviz.warmup")


def enabled() -> bool:
    """DPVIZ_WARMUP=1/0 decides; unset, the warm-up runs in hosted mode only."""
    flag = env_flag("DPVIZ_WARMUP")
    return hosted_mode() if flag is None else flag


def start_once() -> threading.Thread | None:
    """Start the warm-up thread the first time this is called in the process (when enabled)."""
    global _STARTED
    if not enabled():
        return None
    with _LOCK:
        if _STARTED:
            return None
        _STARTED = True
    thread = threading.Thread(target=_warm_and_say, name="dpviz-warmup", daemon=True)
    thread.start()
    return thread


def _warm_and_say() -> None:
    """The warm-up, then one line in the server's log saying it is done (an operator, and the
    fault tests, read it: a process that says so has every page's defaults computed)."""
    start = time.monotonic()
    done = warm_defaults()
    print(
        f"dpviz: warm-up done: {done} charts computed in {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True
    )


def warm_defaults(frames: bool = True, pages: set[str] | None = None, progress=None) -> int:
    """Compute every registered figure, then every declared panel, on its page's defaults, every
    lesson's charts and, with ``frames``, each live chart's frames (:func:`warm_frames`); returns
    how many figures were computed. ``pages``: only these pages' (keys), and no lesson. One that
    fails is logged and skipped: the page will show its message to the visitor. ``progress`` is
    told each chart, panel and the lessons as they are done (not the frames)."""
    from webui import views  # (lazy: Streamlit, 0.27 s, which the build's frame workers do without)

    specs = [s for s in registry.all_figures() if pages is None or s.page in pages]
    panels = [
        panel
        for page in [*papers.all_papers(), *tools.all_tools()]
        if pages is None or page.key in pages
        for panel in page.panels
    ]
    total = len(specs) + len(panels) + (pages is None)
    done = 0
    for k, spec in enumerate(specs):
        report(progress, k / total, f"chart {spec.id} ({k + 1} of {total})")
        values = {p.name: p.default for p in registry.page_params(spec.page)}
        try:
            done += views.prefill(spec, values)
        except Exception:  # noqa: BLE001  (a warm-up never takes the server down)
            log.exception("warm-up of %s failed", spec.id)
    for k, panel in enumerate(panels, start=len(specs)):
        report(progress, k / total, f"panel {panel.id} ({k + 1} of {total})")
        try:
            views.prefill_panel(panel, {p.name: p.default for p in panel.params})
        except Exception:  # noqa: BLE001
            log.exception("warm-up of the %s panel failed", panel.id)
    if pages is None:
        report(progress, (total - 1) / total, f"the lessons ({total} of {total})")
        done += warm_lessons()
    report(progress, 1.0, "every chart on its defaults")
    return done + (warm_frames(pages=pages) if frames else 0)


def frame_jobs(ahead: bool = False) -> list[tuple[Any, dict, Any, Any]]:
    """Every set of frames a page draws on its defaults: (page, its values, the live chart's
    spec or the HTML panel, the slider), in page order; with ``ahead``, then those one key step of
    another slider away (:func:`webui.frames_store.ahead_settings`: a reader's first step)."""

    jobs, later = [], []
    for paper in papers.all_papers():
        values = {p.name: p.default for p in registry.page_params(paper.key)}
        sliders = [p for p in registry.page_params(paper.key) if p.slider and applies(p, values)]
        for spec in registry.paper_figures(paper.key):
            jobs += [(paper, values, spec, p) for p in sliders if _follows(spec, p)]
            steps = frames_store.ahead_settings(spec, values, sliders) if ahead else []
            later += [(paper, moved, spec, spec.param(slider)) for slider, moved, _ in steps]
        for panel in paper.panels:  # a panel drawn as HTML follows its sliders too (the try-it box)
            jobs += [
                (paper, values, panel, p) for p in sliders if panel.html and p.name in {q.name for q in panel.params}
            ]
    return jobs + later


def _follows(spec, p) -> bool:
    return not spec.on_demand and p.name in {q.name for q in spec.params}


def warm_frames(
    progress=None, pages: set[str] | None = None, values: dict | None = None, workers: int = 1, ahead: bool = False
) -> int:
    """Compute every live chart's frames along each of its sliders on its page's defaults (the
    browser draws them while a slider moves), or those of ``pages`` (keys), at ``values`` if
    given (every parameter of the page); returns how many sets were computed or read. One that
    fails is logged and skipped. ``workers`` > 1: in that many processes (:func:`_in_pool`).
    ``ahead`` (on the defaults): also the sets a reader's first key step needs (:func:`frame_jobs`)."""
    from webui import live_frames  # (lazy: as views above)

    if not live_frames.enabled():
        return 0
    ahead = ahead and values is None
    jobs = _selected(pages, ahead)
    if workers > 1 and len(jobs) > 1:
        return _in_pool(jobs, pages, values, workers, progress, ahead)
    done, rates = 0, {}
    for k, job in enumerate(jobs):
        report(progress, k / len(jobs), f"{_job_name(job)} ({k + 1} of {len(jobs)})")
        made, rate = _timed_job(job, values)
        done += made
        rates.update(rate)
    frames_schedule.record_built(rates)  # the servers' workers take the cheapest task first
    return done


def _selected(pages: set[str] | None, ahead: bool = False) -> list:
    return [j for j in frame_jobs(ahead) if pages is None or j[0].key in pages]


def _job_name(job) -> str:
    _, _, what, p = job
    return f"frames of {what.title if isinstance(what, Panel) else what.id} along {p.name}"


def _compute_job(job, values: dict | None) -> int:
    """One set of frames into the cache (1), or a logged failure (0)."""

    _, defaults, what, p = job
    at = defaults if values is None else values
    try:
        if isinstance(what, Panel):
            frames_store.text_frames_now(what, at, p)
        else:
            frames_store.build(what, at, p.name)
        return 1
    except Exception:  # noqa: BLE001  (a warm-up never takes the server down)
        log.exception("%s failed", _job_name(job))
        return 0


def _timed_job(job, values: dict | None) -> tuple[int, dict]:
    """:func:`_compute_job`, and the seconds a position it took ({(chart, slider): seconds}) when it
    computed a chart's frames rather than finding them in the cache (CPU time: the workers share
    the cores)."""
    _, defaults, what, p = job
    at = defaults if values is None else values
    timed = not isinstance(what, Panel) and not frames_store.on_disk(what, at, p)
    start = time.process_time()
    made = _compute_job(job, values)
    if not (made and timed):
        return made, {}
    return made, {(what.id, p.name): (time.process_time() - start) / len(frames_store.grid(what, p.name))}


def patient() -> None:
    """The formula worker's wall clock for the build: 180 s, not a visitor's 20 s (the build is
    no visitor, and the machine may be busy installing; the CPU-seconds limit stays)."""

    sandbox.WALL_SECONDS = max(sandbox.WALL_SECONDS, 180.0)


def _worker_start() -> None:
    """A pool worker's numeric libraries on one thread each (N workers, N cores), freed memory
    kept for its next arrays (as a frame worker's), patient too, and ended with its build."""
    exit_with_parent_process()
    one_thread_everywhere()
    keep_freed_memory()
    patient()


def _worker_job(pages: tuple | None, index: int, values: dict | None, ahead: bool) -> tuple[int, str | None, dict]:
    """Job ``index`` of :func:`_selected` in a pool worker: (1, None, its rate) when its frames are
    in the cache (:func:`_timed_job`), else (0, the failure's line, {})."""
    job = _selected(set(pages) if pages is not None else None, ahead)[index]
    freeze_loaded()  # what the worker loaded and kept so far, out of the collector's full passes
    with failures_as_lines(log) as failed:
        done, rate = _timed_job(job, values)
    return done, (failed.lines[0] if failed.lines else None), rate


def _in_pool(jobs: list, pages: set[str] | None, values: dict | None, workers: int, progress, ahead: bool) -> int:
    """The jobs in ``workers`` processes (concurrent.futures; each writes its frames into the
    shared disk cache, as a server process would), the longest-looking first; a pool that breaks
    (a worker killed) is logged, and the jobs it left are computed here."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    key = tuple(sorted(pages)) if pages is not None else None
    order = sorted(range(len(jobs)), key=lambda i: -_weight(jobs[i]))
    done, left, rates = 0, set(order), {}
    report(progress, 0.0, f"{len(jobs)} sets of frames in {workers} processes")
    try:
        with ProcessPoolExecutor(workers, spawn_context(), _worker_start) as pool:
            futures = {pool.submit(_worker_job, key, i, values, ahead): i for i in order}
            for future in as_completed(futures):
                made, line, rate = future.result()
                left.discard(futures[future])
                done += made
                rates.update(rate)
                if line:
                    log.warning("%s", line)
                report(progress, 1 - len(left) / len(jobs), f"{_job_name(jobs[futures[future]])} done")
    except BrokenProcessPool:
        log.warning("the frames' process pool broke: %d sets computed here instead", len(left))
    for i in sorted(left):
        made, rate = _timed_job(jobs[i], values)
        done += made
        rates.update(rate)
    frames_schedule.record_built(rates)  # the servers' workers take the cheapest task first
    return done


def _weight(job) -> int:
    """How long a job looks (its slider's positions; a frontier solves a frontier at each): the
    pool starts the longest first, so that none is left alone at the end."""

    _, _, what, p = job
    return len(slider_grid(p)) * (4 if str(getattr(what, "id", "")).endswith("frontier") else 1)


def warm_page_frames(paper, values: dict) -> int:
    """One paper page's live charts' frames along each of its sliders at ``values`` (every parameter
    of the page), and its HTML panels' (the try-it box); returns how many sets were computed or read."""
    return warm_frames(pages={paper.key}, values=values)


def warm_lessons(names: list[str] | None = None) -> int:
    """Compute every lesson's charts (each side of a comparison, and those shown with an answer)
    and its answers, so a class finds every step ready; returns how many charts were computed. A
    lesson that cannot be used is skipped: the page tells the teacher why. ``names``: the lessons
    (default: every one found, :func:`dpviz.lessons.available`)."""
    from webui import views  # (lazy: as above)

    done = 0
    for name in lessons.available() if names is None else names:
        try:
            lesson = load(name)
            for figure, raw in lesson.chart_settings():
                spec = registry.get(figure)
                values, errors = validate(spec.params, raw, hosted=hosted_mode())
                if not errors:
                    done += views.prefill(spec, values)
            answers(lesson)
        except Exception:  # noqa: BLE001  (a warm-up never takes the server down)
            log.exception("warm-up of the lesson %s failed", name)
    return done
