"""Lessons: a teacher takes a class through a paper's finding, step by step (predict, then reveal).

A lesson is a plain text file (``lessons/<name>.md``; the format is :mod:`dpviz.lessons.format`
and ``docs/lessons.md``): prose, dpviz's charts at stated settings, and questions whose answers
are never typed into the file. A question names a figure, its settings and the cell of the
figure's table that answers it (:mod:`dpviz.lessons.answers`), and dpviz computes it, so a
teacher who changes a setting gets a lesson that is still right. Nothing in a lesson is code:
it is parsed line by line, checked against the figure registry before anything is computed
(:func:`dpviz.lessons.format.parse` returns one sentence per problem), and its prose is escaped
Markdown without HTML.

Lessons come from the shipped folder (``lessons/`` at the top of the project) and from
``$DPVIZ_LESSONS_DIR``; the page and a hosted demo take lessons by name from those two folders
only, never a path a visitor types.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from dpviz.errors import InputError

SHIPPED = Path(__file__).resolve().parent / "shipped"
"""The lessons that ship with dpviz (package data: `pip install .` carries them)."""
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,60}")


class LessonError(InputError):
    """A lesson that cannot be used: ``problems`` holds one sentence per problem."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__(" ".join(self.problems))


def folders() -> list[Path]:
    """Where lessons are found: the shipped folder, then ``$DPVIZ_LESSONS_DIR`` when set."""
    out = [SHIPPED]
    extra = os.environ.get("DPVIZ_LESSONS_DIR", "").strip()
    if extra:
        out.append(Path(extra).expanduser())
    return out


def available() -> dict[str, Path]:
    """Every lesson by name (its file's stem), the shipped ones first; a teacher's lesson with a
    shipped lesson's name replaces it."""
    found: dict[str, Path] = {}
    for folder in folders():
        if folder.is_dir():
            for path in sorted(folder.glob("*.md")):
                if NAME.fullmatch(path.stem):
                    found[path.stem] = path
    return found


def path_of(name: str) -> Path:
    """The file of the lesson called ``name``; LessonError naming the lessons otherwise."""
    lessons = available()
    if name not in lessons:
        names = ", ".join(lessons) or "none"
        raise LessonError([f"There is no lesson {str(name)[:60]!r}: the lessons here are {names}."])
    return lessons[name]
