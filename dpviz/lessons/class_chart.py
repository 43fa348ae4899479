"""The teacher's chart of a class's predictions beside the true value: a histogram of numeric
predictions (the true value a vertical line), or one bar per choice (the true choice marked).
Only counts are drawn: nothing a student typed is shown as text."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from dpviz.lessons.answers import shown, tolerance
from dpviz.lessons.format import Question
from dpviz.theme import OKABE_ITO, go, style

TRUE = OKABE_ITO[1]
CLASS = OKABE_ITO[0]


def prediction_counts(
    question: Question, predictions: Sequence[float | str], truth: float | str | None = None, bins: int = 12
) -> tuple[list, list]:
    """(labels or bin edges, counts): per choice in the question's order, or a histogram of the
    numbers over the span of the predictions and the true value (within the question's range,
    widened by a twentieth each side so that no value sits on the edge; one unit either side when
    they are all equal), so that a class whose answers lie close together is not one bar."""
    if question.choices:
        return list(question.choices), [sum(1 for p in predictions if p == c) for c in question.choices]
    numbers = np.array([p for p in predictions if isinstance(p, (int, float))], dtype=float)
    seen = np.append(numbers, float(truth)) if isinstance(truth, (int, float)) else numbers
    if len(seen) == 0:
        seen = np.array([question.low or 0.0, question.high if question.high is not None else 1.0])
    low, high = float(seen.min()), float(seen.max())
    pad = (high - low) / 20 if high > low else 1.0
    low, high = low - pad, high + pad
    if question.low is not None:
        low = max(low, question.low)
    if question.high is not None:
        high = min(high, question.high)
    if high <= low:
        high = low + 1.0
    counts, edges = np.histogram(np.clip(numbers, low, high), bins=bins, range=(low, high))
    return list(edges), [int(c) for c in counts]


def predictions_figure(question: Question, predictions: Sequence[float | str], truth: float | str) -> "go.Figure":
    """The class's predictions against the truth."""
    labels, counts = prediction_counts(question, predictions, truth)
    n = len(predictions)
    fig = go.Figure()
    if question.choices:
        colours = [TRUE if c == truth else CLASS for c in labels]
        fig.add_bar(x=labels, y=counts, marker_color=colours, name="predictions", text=counts, textposition="outside")
        fig.update_xaxes(title="prediction (the true answer in orange)")
    else:
        centres = [(a + b) / 2 for a, b in zip(labels[:-1], labels[1:])]
        near = close_band(question, float(truth))
        fig.add_vrect(x0=near[0], x1=near[1], fillcolor=TRUE, opacity=0.12, line_width=0)
        fig.add_bar(
            x=centres,
            y=counts,
            width=labels[1] - labels[0],
            marker_color=CLASS,
            name="predictions",
            text=[c or "" for c in counts],
            textposition="outside",
            hovertemplate="%{y} students between %{customdata[0]:.3g} and %{customdata[1]:.3g}<extra></extra>",
            customdata=list(zip(labels[:-1], labels[1:])),
        )
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
        unit = f" ({question.unit})" if question.unit else ""
        fig.update_xaxes(title=f"prediction{unit}; shaded: counted close (within 10% of the true value)")
    fig.update_yaxes(title="students", rangemode="tozero", dtick=max(1, math.ceil(max(counts, default=0) / 5)))
    style(fig, f"The class's predictions ({n} answered)", height=340)
    fig.update_layout(margin=dict(l=60, r=20, t=60, b=50), showlegend=False)
    return fig


def close_band(question: Question, truth: float) -> tuple[float, float]:
    """The predictions counted close to ``truth`` (:func:`dpviz.lessons.answers.close_enough`), as an interval."""
    half = tolerance(question, truth)
    return truth - half, truth + half
