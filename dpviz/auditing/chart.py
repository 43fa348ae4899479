"""The audit drawn: the two output distributions on the evaluation part and the event that
separates them (a table, the CSV behind the chart, and a Plotly figure drawn from it alone).

Numeric outputs are drawn as histograms of the event's score (each side's share of outputs per
unit of the score on a log axis, the threshold one of the bin edges, the outermost 0.1% clipped into the end
bins); the event {score > t} or {score <= t} is the shaded side of the threshold. Categorical
outputs are drawn as bars of each output's share (the event's members first, marked).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpviz.theme import OKABE_ITO, go, log_axis, ref_line, rgba, style, two_line_title


def table(result) -> pd.DataFrame:
    """One row per histogram bin (numeric) or per output shown (categorical)."""
    c = result.chart
    if c["kind"] == "numeric":
        return pd.DataFrame(
            {
                "bin_left": c["left"],
                "bin_right": c["right"],
                "share_D": c["a"],
                "share_D_prime": c["b"],
                "in_event": [
                    (lo >= c["threshold"]) if c["above"] else (hi <= c["threshold"])
                    for lo, hi in zip(c["left"], c["right"])
                ],  # the threshold is a bin edge
            }
        )
    return pd.DataFrame({"output": c["outputs"], "share_D": c["a"], "share_D_prime": c["b"], "in_event": c["in_event"]})


def _title(result) -> str:
    verdict = "Claim violated" if result.violated else "No violation found"
    return two_line_title(
        f"{verdict}: proved loss ≥ {result.epsilon_lower_bound:.3g} (claimed {result.claimed_loss:.3g})",
        f"{result.evaluated['a']:,} + {result.evaluated['b']:,} evaluation samples, "
        f"{result.confidence:.0%} confidence, seed {result.seed}",
    )


def figure(df: pd.DataFrame, result) -> go.Figure:
    """The chart from :func:`table`'s rows (and the result's labels)."""
    fig = go.Figure()
    colors = (OKABE_ITO[0], OKABE_ITO[1])
    if "bin_left" in df:
        mid = (df.bin_left + df.bin_right) / 2
        width = df.bin_right - df.bin_left
        densities = [df[col] / width for col in ("share_D", "share_D_prime")]
        positive = pd.concat(densities)[lambda d: d > 0]
        top = float(positive.max()) * 2 if len(positive) else 1.0
        bottom = float(positive.min()) / 2 if len(positive) else 1e-6
        for density, name, color in zip(densities, ("outputs on D", "outputs on D′"), colors):
            fig.add_trace(go.Bar(x=mid, y=density, width=width, name=name, marker_color=rgba(color, 0.55)))
        t = result.chart["threshold"]
        lo, hi = float(df.bin_left.min()), float(df.bin_right.max())
        x0, x1 = (t, hi) if result.chart["above"] else (lo, t)
        fig.add_trace(
            go.Scatter(
                x=[x0, x1, x1, x0, x0],
                y=[bottom, bottom, top, top, bottom],
                mode="lines",
                fill="toself",
                fillcolor=rgba(OKABE_ITO[2], 0.12),
                line=dict(width=0),
                name="the event S",
                hoverinfo="skip",
            )
        )
        ref_line(fig, [t, t], [bottom, top], f"threshold t = {t:.4g}", color=OKABE_ITO[2], dash="dash")
        fig.update_layout(barmode="overlay", bargap=0)
        # the event lives in a tail: a log axis shows the two sides' ratio there as a gap
        # labelled as every dpviz log axis is (1-2-5 or powers of ten, each with its decade)
        log_axis(fig, "y", range=[np.log10(bottom), np.log10(top)])
        fig.update_xaxes(title=result.chart["axis"])
    else:
        labels = [("★ " if m else "") + o for o, m in zip(df.output, df.in_event)]
        for col, name, color in (("share_D", "outputs on D", colors[0]), ("share_D_prime", "outputs on D′", colors[1])):
            fig.add_trace(go.Bar(x=labels, y=df[col], name=name, marker_color=color))
        fig.update_layout(barmode="group")
        fig.update_xaxes(title="output (★ in the event S)", tickangle=-45)
    fig.update_yaxes(title="share of outputs per unit (log scale)" if "bin_left" in df else "share of the outputs")
    fig.update_layout(legend=dict(orientation="h", y=-0.25 if "bin_left" in df else -0.45, x=0))
    return style(fig, _title(result), height=480)
