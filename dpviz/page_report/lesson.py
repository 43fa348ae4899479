"""A lesson as one report: every step's text, its question with the answer dpviz computes, what
the reveal explains, and every chart the lesson draws (each side of a comparison, and the charts
shown with an answer) at the settings the lesson states, in step order.

    python -m dpviz lesson report adept --out adept-lesson.html        (.html .pdf .ipynb)
    python -m dpviz lesson report hoho --step 5 --out step5.pdf        (one step)

The charts are :class:`dpviz.page_report.Chart` like a page's, so the three formats are a page
report's; the lesson's text is the report's notes, before the charts. A chart's key is
``step<N>-<k>`` (``-A``/``-B`` for a comparison's sides).
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import urlencode

from dpviz import __version__, hosted_mode, papers, registry
from dpviz.lessons.answers import answer
from dpviz.lessons.format import Lesson, Step, load
from dpviz.page_report import DEFAULT_BASE_URL, Report, Setting, charts_of, created_now, url_path, write_report
from dpviz.params import ParamError, validate
from dpviz.progress import Progress

LESSONS_PAGE = "pages/6_Lessons.py"


def _steps(lesson: Lesson, step: int | None) -> list[int]:
    if step is None:
        return list(range(1, len(lesson.steps) + 1))
    if not isinstance(step, int) or not 1 <= step <= len(lesson.steps):
        raise ParamError(
            f"The lesson {lesson.name!r} has steps 1 to {len(lesson.steps)}; {str(step)[:20]!r} is not one."
        )
    return [step]


def _values(figure: str, raw: Mapping[str, str]) -> dict[str, Any]:
    spec = registry.get(figure)
    values, errors = validate(spec.params, raw, hosted=hosted_mode())
    if errors:  # checked when the lesson was read; a hosted cap may differ from where it was written
        raise ParamError(" ".join(errors))
    return {p.name: values[p.name] for p in spec.params}


def _text(number: int, step: Step) -> str:
    """A step as Markdown paragraphs: its title and prose, the question with its computed answer,
    and what the reveal explains."""
    parts = [f"**Step {number}: {step.title}.** {step.text}".strip()]
    if step.question is not None:
        q = step.question
        truth = answer(q)
        parts.append(f"**Question.** {q.ask}")
        parts.append(f"**Answer, computed by dpviz:** {truth.shown} ({q.cell.describe()}).")
    if step.reveal:
        parts.append(step.reveal)
    return "\n\n".join(parts)


def lesson_charts(lesson: Lesson, numbers: list[int]) -> list[tuple[str, str, dict[str, str], str]]:
    """(key, title, raw settings, figure) of every chart the steps draw, in order."""
    out = []
    for number in numbers:
        step = lesson.steps[number - 1]
        for k, chart in enumerate((*step.charts, *step.reveal_charts)):
            spec = registry.get(chart.figure)
            if chart.compare is None:
                out.append((f"step{number}-{k + 1}", f"Step {number}: {spec.title}", dict(chart.settings), spec.id))
                continue
            for label, side in zip("AB", chart.compare):
                shown = ", ".join(f"{spec.param(name).label} = {v}" for name, v in side.items())
                title = f"Step {number}, {label} ({shown}): {spec.title}"
                out.append((f"step{number}-{k + 1}-{label}", title, {**chart.settings, **side}, spec.id))
    return out


def build_lesson(
    name: str,
    step: int | None = None,
    *,
    base_url: str = DEFAULT_BASE_URL,
    progress: Progress | None = None,
    draw: bool = True,
) -> Report:
    """The report of lesson ``name`` (every step, or only ``step``)."""
    lesson = load(name)
    numbers = _steps(lesson, step)
    items = lesson_charts(lesson, numbers)
    charts = charts_of(
        [(registry.get(figure), _values(figure, raw), key, title) for key, title, raw, figure in items],
        progress,
        draw=draw,
    )
    query = {"lesson": lesson.name} | ({"step": str(step)} if step is not None else {})
    paper = papers.get(lesson.paper)
    questions = sum(1 for n in numbers if lesson.steps[n - 1].question is not None)
    which = f"step {step} of {len(lesson.steps)}" if step is not None else f"all {len(lesson.steps)} steps"
    return Report(
        page="lessons",
        title=f"Lesson: {lesson.title}",
        headline=lesson.summary,
        summary=(
            f"A lesson on {paper.title} ({lesson.minutes} minutes): {which}, {questions} question"
            f"{'' if questions == 1 else 's'} with the answers dpviz computes, and {len(charts)} chart"
            f"{'' if len(charts) == 1 else 's'} at the settings the lesson states. Each chart's own settings "
            "are in its command line."
        ),
        citation=paper.citation,
        notes="\n\n".join(_text(n, lesson.steps[n - 1]) for n in numbers),
        settings=(
            Setting("lesson", "Lesson", lesson.name, "adept", "The lesson's name."),
            Setting("step", "Step", str(step) if step is not None else "all", "all", "The step reported."),
        ),
        query=query,
        link=f"{base_url.rstrip('/')}/{url_path(LESSONS_PAGE)}?{urlencode(query)}",
        charts=charts,
        version=__version__,
        created=created_now(),
        hosted=hosted_mode(),
        remake=f"python -m dpviz lesson report {lesson.name}" + (f" --step {step}" if step is not None else ""),
        notes_first=True,
    )


def write_lesson(
    name: str,
    step: int | None,
    out,
    *,
    base_url: str = DEFAULT_BASE_URL,
    progress: Progress | None = None,
):
    """Build the report of a lesson and write it to ``out`` (.html .pdf .ipynb); the lesson, the
    step, the format and the path are checked before any work."""

    def check() -> None:
        _steps(load(name), step)

    def make(progress: Progress | None, draw: bool) -> Report:
        return build_lesson(name, step, base_url=base_url, progress=progress, draw=draw)

    return write_report(check, make, out, progress, part=f"lesson-{name}")
