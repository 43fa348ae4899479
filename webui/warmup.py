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


def warm_defaults(frames: bool = True) -> int:
    """Compute every registered figure, then every declared panel, on its page's defaults, every
    lesson's charts and, with ``frames``, each live chart's frames (:func:`warm_frames`); returns
    how many figures were computed. One that fails is logged and skipped: the page will show its
    message to the visitor."""
    from dpviz import papers, tools
    from webui import views

    done = 0
    for spec in registry.all_figures():
        values = {p.name: p.default for p in registry.page_params(spec.page)}
        try:
            done += views.prefill(spec, values)
        except Exception:  # noqa: BLE001  (a warm-up never takes the server down)
            log.exception("warm-up of %s failed", spec.id)
    for page in [*papers.all_papers(), *tools.all_tools()]:
        for panel in page.panels:
            try:
                views.prefill_panel(panel, {p.name: p.default for p in panel.params})
            except Exception:  # noqa: BLE001
                log.exception("warm-up of the %s panel failed", panel.id)
    return done + warm_lessons() + (warm_frames() if frames else 0)


def warm_frames() -> int:
    """Compute every live chart's frames along each of its sliders on its page's defaults (the
    browser draws them while a slider moves); returns how many sets were computed or read."""
    from dpviz import papers
    from webui import live_frames

    if not live_frames.enabled():
        return 0
    done = 0
    for paper in papers.all_papers():
        done += warm_page_frames(paper, {p.name: p.default for p in registry.page_params(paper.key)})
    return done


def warm_page_frames(paper, values: dict) -> int:
    """One paper page's live charts' frames along each of its sliders at ``values`` (every parameter
    of the page), and its HTML panels' (the try-it box); returns how many sets were computed or read.
    One that fails is logged and skipped."""
    from webui import live_frames

    done = 0
    sliders = [p for p in registry.page_params(paper.key) if p.slider]
    for spec in registry.paper_figures(paper.key):
        for p in sliders:
            if spec.on_demand or p.name not in {q.name for q in spec.params}:
                continue
            try:
                live_frames.build(spec, values, p.name)
                done += 1
            except Exception:  # noqa: BLE001  (a warm-up never takes the server down)
                log.exception("frames of %s along %s failed", spec.id, p.name)
    for panel in paper.panels:  # a panel drawn as HTML follows its sliders too (the try-it box)
        for p in sliders:
            if panel.html and p.name in {q.name for q in panel.params}:
                try:
                    live_frames.text_frames_now(panel, values, p)
                    done += 1
                except Exception:  # noqa: BLE001
                    log.exception("frames of the %s panel along %s failed", panel.id, p.name)
    return done


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
