"""The lesson panel's compute: the lesson (parsed once per file version), the step asked for, and
its question's answer (computed from the figure's table, cached for every visitor)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from dpviz import caches, hosted_mode, lessons
from dpviz.lessons.answers import Answer, answer
from dpviz.lessons.format import Lesson, Step, parse, read_text
from dpviz.params import ParamError
from dpviz.progress import Progress, report

_PARSED = caches.memo("lessons.parsed")


@dataclass(frozen=True)
class LessonStep:
    """What the view draws: the lesson, the step number (from 1), the step and its answer."""

    lesson: Lesson
    number: int
    step: Step
    answer: Answer | None


def lesson_named(name: str) -> Lesson:
    """The lesson called ``name`` from the lesson folders, parsed once per version of its file."""
    path = lessons.path_of(name)
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size, hosted_mode())
    return _PARSED.get(key, lambda: parse(read_text(path), name))


def run(values: Mapping[str, Any], progress: Progress | None = None) -> LessonStep:
    """The step ``values["step"]`` of lesson ``values["lesson"]``, with its answer computed."""
    lesson = lesson_named(values["lesson"])
    number = int(values["step"])
    if number > len(lesson.steps):
        raise ParamError(f"The lesson {lesson.title!r} has {len(lesson.steps)} steps; there is no step {number}.")
    step = lesson.steps[number - 1]
    truth = None
    if step.question is not None:
        report(progress, 0.1, "computing the answer from the figure's table")
        truth = answer(step.question)
    return LessonStep(lesson, number, step, truth)
