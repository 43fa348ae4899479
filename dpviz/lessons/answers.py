"""A question's answer, computed: the cell of a figure's table a lesson names
(:class:`dpviz.lessons.format.Cell`), read from the table the figure computes at the stated
settings, so the answer follows the settings. Rows are selected by the cell's conditions
(numbers compared as numbers, ``=`` within a relative 1e-9, text as text); ``pick`` says what
several rows give (``only``: they must agree).
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpviz import caches, registry
from dpviz.lessons import LessonError
from dpviz.lessons.format import Cell, Lesson, Question

_ANSWERS = caches.memo("lessons.answers")
_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


@dataclass(frozen=True)
class Answer:
    """A question's true value (a number after ``scale``, or a choice) and how it is shown."""

    value: float | str
    shown: str


def _matches(column: pd.Series, op: str, text: str) -> pd.Series:
    if pd.api.types.is_bool_dtype(column):
        want = text.strip().lower() in ("1", "true", "yes")
        return (column == want) if op == "=" else (column != want)
    if pd.api.types.is_numeric_dtype(column):
        try:
            value = float(text)
        except ValueError:
            raise LessonError(
                [f"the condition compares the numeric column {column.name!r} with {text[:30]!r}."]
            ) from None
        if op in ("=", "!="):
            close = np.isclose(column.to_numpy(dtype=float), value, rtol=1e-9, atol=0.0)
            return pd.Series(close if op == "=" else ~close, index=column.index)
        return _COMPARE[op](column, value)
    as_text = column.astype(str)
    if op == "=":
        return as_text == text
    if op == "!=":
        return as_text != text
    raise LessonError([f"the column {column.name!r} holds text: compare it with = or !=."])


def cell_value(table: pd.DataFrame, cell: Cell) -> float | str:
    """The value of ``cell`` in ``table``; LessonError when no row matches, or several disagree under pick only."""
    rows = table
    for column, op, text in cell.where:
        rows = rows[_matches(rows[column], op, text)]
    if rows.empty:
        raise LessonError(
            [f"No row of {cell.figure}'s table has {cell.describe().split(' where ', 1)[-1]}: the cell does not exist."]
        )
    values = rows[cell.column]
    if cell.by:
        order = rows[cell.by].astype(float)
        best = values[order == (order.min() if cell.pick == "min" else order.max())]
        if best.nunique(dropna=False) > 1:
            raise LessonError(
                [
                    f"{cell.by!r} is at its {cell.pick}imum on {len(best)} rows of {cell.figure}'s table "
                    f"({cell.describe()}) whose {cell.column!r} differ ({', '.join(map(str, best.unique()[:4]))}): "
                    "a tie has no one answer; add a condition."
                ]
            )
        value = best.iloc[0]
    elif cell.pick == "only":
        if values.nunique(dropna=False) > 1:
            raise LessonError(
                [
                    f"{len(values)} rows of {cell.figure}'s table match ({cell.describe()}) and differ: "
                    "add a condition or a pick."
                ]
            )
        value = values.iloc[0]
    elif cell.pick in ("mean", "sum"):
        value = float(getattr(values.astype(float), cell.pick)())
    elif cell.pick in ("min", "max"):
        value = getattr(values, cell.pick)()
    else:
        value = values.iloc[0] if cell.pick == "first" else values.iloc[-1]
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, float, np.integer, np.floating)):
        if not math.isfinite(float(value)):
            raise LessonError([f"The cell {cell.describe()} is empty (not a number) at these settings."])
        return float(value)
    return str(value)


def table_of(cell: Cell) -> pd.DataFrame:
    """The figure's table at the cell's settings (through the figure caches)."""
    return registry.run(cell.figure, dict(cell.settings), draw=False)[1]


def shown(question: Question, value: float | str) -> str:
    """A value as the lesson shows it (its digits and unit)."""
    if isinstance(value, str):
        return value
    unit = f" {question.unit}" if question.unit and question.unit != "%" else question.unit
    return f"{value:,.{question.digits}f}{unit}"


def answer(question: Question) -> Answer:
    """The true answer of a question, computed (cached per cell for every visitor)."""
    cell = question.cell
    key = (cell.figure, tuple(sorted(cell.settings.items())), cell.column, cell.where, cell.pick, cell.by)
    raw = _ANSWERS.get(key, lambda: cell_value(table_of(cell), cell))
    if isinstance(raw, str):
        if question.choices and raw not in question.choices:
            raise LessonError(
                [f"The answer {raw!r} ({cell.describe()}) is not among the choices {', '.join(question.choices)}."]
            )
        return Answer(raw, raw)
    if question.choices:
        raise LessonError([f"The cell {cell.describe()} is a number, but the question offers choices."])
    value = raw * question.scale
    return Answer(value, shown(question, value))


def close_enough(question: Question, prediction: float | str, truth: float | str) -> bool:
    """Whether a prediction is counted as right: the same choice, or a number within 10% of the
    true value (within 1% of the question's range, or 0.01, when the true value is 0)."""
    if question.choices or isinstance(truth, str):
        return prediction == truth
    return abs(float(prediction) - truth) <= tolerance(question, truth)


def tolerance(question: Question, truth: float) -> float:
    """How far a number may be from ``truth`` and count as right: 10% of it (1% of the question's
    range, or 0.01, when it is 0)."""
    span = (question.high - question.low) if question.low is not None and question.high is not None else 1.0
    return max(0.1 * abs(truth), 0.01 * span if truth == 0 else 0.0)


def answers(lesson: Lesson) -> list[tuple[int, Question, Answer]]:
    """Every question's answer, in step order: (step number, question, answer)."""
    return [(step, q, answer(q)) for step, q in lesson.questions]
