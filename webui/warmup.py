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

from dpviz import env_flag, hosted_mode, registry

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


def warm_defaults(frames: bool = True, pages: set[str] | None = None) -> int:
    """Compute every registered figure, then every declared panel, on its page's defaults, every
    lesson's charts and, with ``frames``, each live chart's frames (:func:`warm_frames`); returns
    how many figures were computed. ``pages``: only these pages' (keys), and no lesson. One that
    fails is logged and skipped: the page will show its message to the visitor."""
    from dpviz import papers, tools
    from webui import views

    done = 0
    for spec in registry.all_figures():
        if pages is not None and spec.page not in pages:
            continue
        values = {p.name: p.default for p in registry.page_params(spec.page)}
        try:
            done += views.prefill(spec, values)
        except Exception:  # noqa: BLE001  (a warm-up never takes the server down)
            log.exception("warm-up of %s failed", spec.id)
    for page in [*papers.all_papers(), *tools.all_tools()]:
        if pages is not None and page.key not in pages:
            continue
        for panel in page.panels:
            try:
                views.prefill_panel(panel, {p.name: p.default for p in panel.params})
            except Exception:  # noqa: BLE001
                log.exception("warm-up of the %s panel failed", panel.id)
    if pages is None:
        done += warm_lessons()
    return done + (warm_frames(pages=pages) if frames else 0)


def build(progress=None, pages: set[str] | None = None) -> str:
    """What ``python -m dpviz build`` adds to the compiled engine (``scripts/start.sh`` runs it at
    install): every page's charts and panels on its defaults, every lesson, and every live
    chart's frames along each of its sliders, into the cache, so that the first visitor of a
    fresh install finds every page's first view and drags at frame rate at once (``pages``:
    only these pages', no lesson). The same code as the hosted warm-up (:func:`warm_defaults`),
    with ``progress`` (fraction, message) over the frames, the longest part; returns a sentence
    for the command line."""
    from dpviz.progress import report

    start = time.monotonic()
    failed = _OneLine()
    log.addHandler(failed)
    log.propagate = False  # a part that fails is a line of the build's output, not a traceback
    try:
        report(progress, 0.0, "every page's charts on its defaults")
        charts = warm_defaults(frames=False, pages=pages)
        sets = warm_frames(progress, pages=pages)
        report(progress, 1.0, "done")
    finally:
        log.removeHandler(failed)
        log.propagate = True
    said = f"computed {charts} charts and {sets} sets of frames in {time.monotonic() - start:.0f} s"
    if failed.lines:
        said += f"; {len(failed.lines)} could not be computed (a visitor's page computes them):\n" + "\n".join(
            f"  {line}" for line in failed.lines
        )
    return said


def frame_jobs() -> list[tuple[Any, dict, Any, Any]]:
    """Every set of frames a page draws on its defaults: (page, its values, the live chart's
    spec or the HTML panel, the slider), in page order."""
    from dpviz import papers

    jobs = []
    for paper in papers.all_papers():
        values = {p.name: p.default for p in registry.page_params(paper.key)}
        sliders = [p for p in registry.page_params(paper.key) if p.slider]
        for spec in registry.paper_figures(paper.key):
            jobs += [(paper, values, spec, p) for p in sliders if _follows(spec, p)]
        for panel in paper.panels:  # a panel drawn as HTML follows its sliders too (the try-it box)
            jobs += [
                (paper, values, panel, p) for p in sliders if panel.html and p.name in {q.name for q in panel.params}
            ]
    return jobs


def _follows(spec, p) -> bool:
    return not spec.on_demand and p.name in {q.name for q in spec.params}


def warm_frames(progress=None, pages: set[str] | None = None, values: dict | None = None) -> int:
    """Compute every live chart's frames along each of its sliders on its page's defaults (the
    browser draws them while a slider moves), or those of ``pages`` (keys), at ``values`` if
    given (every parameter of the page); returns how many sets were computed or read. One that
    fails is logged and skipped."""
    from dpviz.panels import Panel
    from dpviz.progress import report
    from webui import live_frames

    if not live_frames.enabled():
        return 0
    jobs = [j for j in frame_jobs() if pages is None or j[0].key in pages]
    done = 0
    for k, (_, defaults, what, p) in enumerate(jobs):
        at = defaults if values is None else values
        name = what.title if isinstance(what, Panel) else what.id
        report(progress, k / len(jobs), f"frames of {name} along {p.name} ({k + 1} of {len(jobs)})")
        try:
            if isinstance(what, Panel):
                live_frames.text_frames_now(what, at, p)
            else:
                live_frames.build(what, at, p.name)
            done += 1
        except Exception:  # noqa: BLE001  (a warm-up never takes the server down)
            log.exception("frames of %s along %s failed", name, p.name)
    return done


def warm_page_frames(paper, values: dict) -> int:
    """One paper page's live charts' frames along each of its sliders at ``values`` (every parameter
    of the page), and its HTML panels' (the try-it box); returns how many sets were computed or read."""
    return warm_frames(pages={paper.key}, values=values)


class _OneLine(logging.Handler):
    """Keeps each failure of the build as one line: what failed and the error's own sentence."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        err = record.exc_info[1] if record.exc_info else None
        self.lines.append(record.getMessage() + (f": {err}" if err is not None else ""))


def warm_lessons(names: list[str] | None = None) -> int:
    """Compute every lesson's charts (each side of a comparison, and those shown with an answer)
    and its answers, so a class finds every step ready; returns how many charts were computed. A
    lesson that cannot be used is skipped: the page tells the teacher why. ``names``: the lessons
    (default: every one found, :func:`dpviz.lessons.available`)."""
    from dpviz import lessons
    from dpviz.lessons.answers import answers
    from dpviz.lessons.format import load
    from dpviz.params import validate
    from webui import views

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
