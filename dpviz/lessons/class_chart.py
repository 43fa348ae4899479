"""The teacher's chart of a class's predictions beside the true value: a histogram of numeric
predictions (the true value a vertical line), or one bar per choice (the true choice marked).
Only counts are drawn: nothing a student typed is shown as text."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from dpviz.lessons.answers import shown
from dpviz.lessons.format import Question
from dpviz.theme import OKABE_ITO, go, style

TRUE = OKABE_ITO[1]
CLASS = OKABE_ITO[0]


def prediction_counts(question: Question, predictions: Sequence[float | str], bins: int = 12) -> tuple[list, list]:
    """(labels or bin edges, counts): per choice in the question's order, or a histogram of the
    numbers over the question's range (or the predictions' own range)."""
    if question.choices:
        return list(question.choices), [sum(1 for p in predictions if p == c) for c in question.choices]
    numbers = np.array([p for p in predictions if isinstance(p, float)], dtype=float)
    low = question.low if question.low is not None else (numbers.min() if len(numbers) else 0.0)
    high = question.high if question.high is not None else (numbers.max() if len(numbers) else 1.0)
    if high <= low:
        high = low + 1.0
    counts, edges = np.histogram(np.clip(numbers, low, high), bins=bins, range=(low, high))
    return list(edges), [int(c) for c in counts]


def predictions_figure(question: Question, predictions: Sequence[float | str], truth: float | str) -> "go.Figure":
    """The class's predictions against the truth."""
    labels, counts = prediction_counts(question, predictions)
    n = len(predictions)
    fig = go.Figure()
    if question.choices:
        colours = [TRUE if c == truth else CLASS for c in labels]
        fig.add_bar(x=labels, y=counts, marker_color=colours, name="predictions", text=counts, textposition="outside")
        fig.update_xaxes(title="prediction (the true answer in orange)")
    else:
        centres = [(a + b) / 2 for a, b in zip(labels[:-1], labels[1:])]
        fig.add_bar(x=centres, y=counts, width=labels[1] - labels[0], marker_color=CLASS, name="predictions")
        fig.add_vline(x=float(truth), line_color=TRUE, line_width=3)
        fig.add_annotation(
            x=float(truth),
            y=1,
            yref="paper",
            text=f"true: {shown(question, float(truth))}",
            showarrow=False,
            yanchor="bottom",
            font=dict(color=TRUE),
        )
        fig.update_xaxes(title=f"prediction{' (' + question.unit + ')' if question.unit else ''}")
    fig.update_yaxes(title="students", rangemode="tozero")
    style(fig, f"The class's predictions ({n} answered)", height=340)
    fig.update_layout(margin=dict(l=60, r=20, t=60, b=50), showlegend=False)
    return fig
