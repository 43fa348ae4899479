"""Figure specs of the ADePT page (Habernal 2021; docs/formulas.md, section 1)."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from dpviz import caches
from dpviz.frontier import frontier_spec
from dpviz.papers.adept import privacy_loss as loss
from dpviz.papers.adept import sensitivity as adept
from dpviz.papers.adept.loss_bounds import exceed_probability_bounds
from dpviz.params import SEED, Param
from dpviz.progress import report
from dpviz.registry import FigureSpec, register, unchanged
from dpviz.theme import DASHES, OKABE_ITO, go, log_axis, ref_line, rgba, style, subplots, two_line_title

PAGE = "adept"

DIM = Param(
    "dim",
    "int",
    64,
    "Dimension n",
    "Dimension n of ADePT's encoder output (the vector that is clipped and noised).",
    min=1,
    max=1024,
    slider=True,
)
MAX_DIM = Param(
    "max_dim", "int", 1024, "Largest n on the axis", "The curves run from n = 1 to this dimension.", min=2, max=1024
)
CLIP = Param(
    "clip", "float", 10.0, "Clipping constant C", "ADePT clips the encoder output to L2 norm C.", min=0.001, max=1e6
)
EPSILON = Param(
    "epsilon",
    "float",
    1.0,
    "Privacy budget ε (claimed)",
    "The ε ADePT claims; the Laplace scale is 2C/ε.",
    min=0.001,
    max=1000.0,
    log=True,
    slider=True,
)
PAIRS = Param(
    "pairs",
    "int",
    10_000,
    "Pairs per point",
    "Independent neighbouring pairs behind each point of the violation curves (paper: 10,000).",
    min=100,
    max=200_000,
    hosted_max=10_000,
)
DIMS = Param(
    "dims",
    "int_list",
    tuple(range(1, 256)),
    "Dimensions to simulate",
    "Which n to simulate: a range like 1-255 or a list like 2,10,20 (paper: 1-255).",
    min=1,
    max=1024,
    max_items=1024,
)
DISTS = Param(
    "distributions",
    "choices",
    adept.DISTRIBUTIONS,
    "Distributions",
    "Distributions of the unclipped encoder outputs; the L1 control must stay at 0.",
    choices=adept.DISTRIBUTIONS,
    choice_labels=adept.DISTRIBUTION_LABELS,
)
GEOM_DIM = Param("geometry_dim", "int", 2, "Picture in", "Draw the balls in 2-D or 3-D.", min=2, max=3)
SAMPLES = Param(
    "samples",
    "int",
    100_000,
    "Releases simulated",
    "Simulated releases y ~ M(x) behind the privacy-loss histogram.",
    min=1_000,
    max=2_000_000,
    hosted_max=200_000,
)
SWEEP = Param(
    "sweep",
    "choice",
    "epsilon",
    "Sweep over",
    "Draw the fixes against the dimension n (at the chosen ε) or against ε (at the chosen n).",
    choices=("dim", "epsilon"),
    choice_labels={"dim": "dimension n", "epsilon": "privacy budget ε"},
)
DELTA = Param(
    "delta",
    "float",
    1e-5,
    "δ of the Gaussian fix",
    "The Gaussian mechanism gives (ε, δ)-DP; this is its δ.",
    min=1e-12,
    max=0.1,
    log=True,
)
DRAWS = Param(
    "draws",
    "int",
    1000,
    "Draws per point (utility)",
    "Simulated releases per point for the cosine similarity.",
    min=100,
    max=20_000,
    hosted_max=2_000,
)

SWEEP_DIMS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
SWEEP_EPSILONS = (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


# 1. sensitivity ------------------------------------------------------------------------


def _sensitivity_compute(v: Mapping[str, Any], progress=None) -> pd.DataFrame:
    n = np.arange(1, v["max_dim"] + 1)
    return pd.DataFrame(
        {
            "dim": n,
            "sensitivity_claimed": adept.sensitivity_claimed(v["clip"]),
            "sensitivity_l1": adept.sensitivity_l1(n, v["clip"]),
            "sensitivity_l2": adept.sensitivity_l2(v["clip"]),
        }
    )


MARK_GAP = 8
"""Pixels left of and above a marked point to its label's lower right corner."""


def _marker_annotation(fig, x, y, text, x_range, axes=("x", "y")):
    """A ringed point with its label just above and to the left of it, on log-log axes (named, so
    it also works on a figure rebuilt from a dict). The curves rise to the right, so that corner is
    clear of them; in the first quarter of ``x_range`` (the x axis's span), where the label would
    run into the axis, it goes to the right. The label's coordinates are log10 values, as Plotly
    reads an annotation's there. It is named ``mark``, which is how the phone layout
    (``text_fit``, ``live_js/``) finds it.

    The label is not on a Plotly annotation arrow: Plotly measures an arrow's path on every draw
    (``getTotalLength``, which forces the page's layout), a third of this chart's redraw while a
    slider is dragged. A leader line drawn as a shape sized in pixels is no way out either: on a log
    axis Plotly reads a negative pixel offset as a position and clamps it to almost zero."""
    fig.add_trace(
        go.Scatter(
            x=[x],
            y=[y],
            mode="markers",
            marker=dict(size=11, color="#000", symbol="circle-open", line=dict(width=2)),
            showlegend=False,
            hoverinfo="skip",
            name=f"n = {x}",
            xaxis=axes[0],
            yaxis=axes[1],
        )
    )
    # near the axis's left end (n = 1 is at its edge) the label goes to the right of the point
    low, high = np.log10(x_range[0]), np.log10(x_range[1])
    right = high > low and (np.log10(x) - low) / (high - low) < 0.25
    fig.add_annotation(
        x=np.log10(x),
        y=np.log10(y),
        text=text,
        name="mark",
        showarrow=False,
        xanchor="left" if right else "right",
        yanchor="bottom",
        align="left" if right else "right",
        xshift=MARK_GAP if right else -MARK_GAP,
        yshift=MARK_GAP,
        bgcolor="rgba(255,255,255,0.9)",
        xref=axes[0],
        yref=axes[1],
    )


def _sensitivity_mark(fig, v) -> None:
    n = min(v["dim"], v["max_dim"])
    s1 = float(adept.sensitivity_l1(n, v["clip"]))
    _marker_annotation(fig, n, s1, f"n = {n}: 2C√n = {s1:,.4g}<br>= {np.sqrt(n):.3g}× the claim", (1, v["max_dim"]))


def _epsilon_mark(fig, v) -> None:
    n = min(v["dim"], v["max_dim"])
    e = float(adept.epsilon_actual(v["epsilon"], n))
    _marker_annotation(fig, n, e, f"n = {n}: ε = {e:.4g}", (1, v["max_dim"]))


def _sensitivity_render(df: pd.DataFrame, v: Mapping[str, Any]) -> go.Figure:
    fig = go.Figure()
    lines = [
        ("sensitivity_l1", "true L1 sensitivity 2C√n (what Laplace needs)", 0, 0),
        ("sensitivity_claimed", "claimed sensitivity 2C (ADePT)", 1, 1),
        ("sensitivity_l2", "L2 sensitivity 2C (the same line as the claim)", 2, 2),
    ]
    for col, name, c, d in lines:
        fig.add_trace(
            go.Scatter(
                x=df["dim"],
                y=df[col],
                name=name,
                mode="lines",
                line=dict(color=OKABE_ITO[c], dash=DASHES[d], width=3 - 0.5 * d),
            )
        )
    log_axis(fig, "x", title="dimension n of the encoder output (log scale)")
    log_axis(fig, "y", title=f"sensitivity (units of z; C = {v['clip']:g}, log scale)")
    # the legend under the plot: in its upper left corner it met the marked point's label for n
    # above about 200, where the curve reaches the top of the plot; the chart taller by its rows,
    # so that the plot keeps its height (and its y title its size)
    fig.update_layout(legend=dict(orientation="h", y=-0.2, x=0))
    return style(fig, "ADePT's claimed sensitivity vs. the true L1 sensitivity", height=600)


register(
    FigureSpec(
        id="adept-sensitivity",
        title="Sensitivity: claimed vs. true",
        page=PAGE,
        params=(DIM, MAX_DIM, CLIP),
        compute=_sensitivity_compute,
        live=("dim",),
        mark=_sensitivity_mark,
        render=_sensitivity_render,
        caption=(
            "The Laplace mechanism must be calibrated to the **L1** sensitivity. After clipping to "
            "L2 norm C, two vectors can still be 2C·√n apart in L1 (the corners ±(C/√n)(1,…,1)), "
            "while ADePT used 2C, which is only the **L2** sensitivity. On log axes the true curve is a "
            "line of slope ½: the gap grows as √n and equals the claim only at n = 1 (Theorem 5.1)."
        ),
        columns=("dim", "sensitivity_claimed", "sensitivity_l1", "sensitivity_l2"),
        paper_figure="Habernal 2021, Theorem 5.1",
    )
)


# 2. epsilon ------------------------------------------------------------------------------


def curve_dims(max_dim: int) -> np.ndarray:
    """The dimensions a curve over n is drawn at: every n up to 100, then steps of about 4% up to
    ``max_dim`` (with the powers of two, and ``max_dim``): on the log axis it reads as every n
    does, with a sixth of the points, which is what the ε slider's frames carry for every ε."""
    low = np.arange(1, min(max_dim, 100) + 1)
    high = np.round(np.geomspace(100, max_dim, max(2, int(np.log(max_dim / 100) / np.log(1.04)) + 1)))
    powers = 2 ** np.arange(int(np.log2(max_dim)) + 1)
    n = np.unique(np.concatenate([low, high, powers, [max_dim]]).astype(int))
    return n[(n >= 1) & (n <= max_dim)]


def _epsilon_compute(v: Mapping[str, Any], progress=None) -> pd.DataFrame:
    n = curve_dims(v["max_dim"])
    actual = adept.epsilon_actual(v["epsilon"], n)
    return pd.DataFrame(
        {"dim": n, "epsilon_claimed": v["epsilon"], "epsilon_actual": actual, "ratio": actual / v["epsilon"]}
    )


def _epsilon_render(df: pd.DataFrame, v: Mapping[str, Any]) -> go.Figure:
    fig = subplots.make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("ε claimed vs. ε actually given", "how many times the claim"),
        horizontal_spacing=0.12,
    )
    fig.add_trace(
        go.Scatter(x=df["dim"], y=df["epsilon_actual"], name="ε actual = ε√n", line=dict(color=OKABE_ITO[1], width=3)),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=df["dim"],
            y=df["epsilon_claimed"],
            name="ε claimed",
            line=dict(color=OKABE_ITO[0], dash="dash", width=2.5),
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=df["dim"], y=df["ratio"], name="ratio = √n", line=dict(color=OKABE_ITO[2], width=3), showlegend=True
        ),
        row=1,
        col=2,
    )
    ref_line(fig, [1, v["max_dim"]], [6, 6], "6× the claim (reached at n = 36)", row=1, col=2)
    log_axis(fig, "x", title="dimension n (log scale)")
    log_axis(fig, "y", title="privacy budget ε (log scale)", row=1, col=1)
    log_axis(fig, "y", title="ε actual / ε claimed (log scale)", row=1, col=2)
    # the ratio's scale on the right edge: at half a page's width (598 px) its title, between the
    # panels, ran into the left panel's curve
    fig.update_yaxes(side="right", row=1, col=2)
    fig.update_layout(legend=dict(orientation="h", y=-0.2, x=0))
    return style(
        fig,
        two_line_title(f"ADePT claims ε = {v['epsilon']:g} but gives ε√n", "the factor √n does not depend on ε"),
        height=540,
    )


register(
    FigureSpec(
        id="adept-epsilon",
        title="Claimed ε vs. the ε ADePT actually gives",
        page=PAGE,
        params=(DIM, MAX_DIM, EPSILON),
        compute=_epsilon_compute,
        live=("dim",),  # ε changes the curves; n only moves the marked point
        mark=_epsilon_mark,
        render=_epsilon_render,
        caption=(
            "Calibrating Laplace noise to 2C instead of 2C√n divides the noise by √n, so the mechanism "
            "is (ε√n)-DP, not ε-DP. The right panel shows the factor alone (its scale on the right): it does not "
            "depend on ε, and "
            'from n = 36 on it is at least 6, the paper\'s "at least factor 6". (The curves are drawn at every n '
            "up to 100, then every 4%.)"
        ),
        columns=("dim", "epsilon_claimed", "epsilon_actual", "ratio"),
        paper_figure="Habernal 2021, Section 5",
    )
)


# 3. violations (the paper's Figure 1) ------------------------------------------------------


def _violations_mark(fig: go.Figure, v: Mapping[str, Any]) -> None:
    """The slider's n, when the simulated dimensions reach it."""
    if v["dims"][0] <= v["dim"] <= v["dims"][-1]:
        ref_line(
            fig,
            [v["dim"], v["dim"]],
            [0, 100],
            f"n = {v['dim']} (the dimension chosen above)",
            color="#555",
            mode="lines+text",
            text=["", f"n = {v['dim']}"],
            textposition="top right",
        )


def _violations_prepare(v: Mapping[str, Any], progress=None) -> pd.DataFrame:
    df = adept.violation_rates(v["dims"], v["pairs"], v["clip"], v["distributions"], v["seed"], progress)
    return df[["dim", "distribution", "violation_rate", "ci_low", "ci_high"]]


def _violations_render(df: pd.DataFrame, v: Mapping[str, Any]) -> go.Figure:
    fig = go.Figure()
    for k, d in enumerate(adept.DISTRIBUTIONS):
        part = df[df["distribution"] == d].sort_values("dim")
        if part.empty:
            continue
        color, label = OKABE_ITO[k], adept.DISTRIBUTION_LABELS[d]
        x = part["dim"].tolist()
        fig.add_trace(
            go.Scatter(
                x=x + x[::-1],
                y=(100 * part["ci_high"]).tolist() + (100 * part["ci_low"]).tolist()[::-1],
                fill="toself",
                fillcolor=rgba(color, 0.2),
                mode="lines",
                line=dict(width=0),
                hoverinfo="skip",
                showlegend=False,
                legendgroup=d,
            )
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=100 * part["violation_rate"],
                name=label,
                mode="lines+markers" if len(x) < 30 else "lines",
                line=dict(color=color, dash=DASHES[k], width=2.5),
                legendgroup=d,
                hovertemplate="n = %{x}<br>%{y:.2f}% of pairs break 2C<extra>" + label + "</extra>",
            )
        )
    fig.update_xaxes(title="dimension n of the encoder output")
    fig.update_yaxes(title="pairs with ‖clip(x) − clip(x′)‖₁ > 2C (%)", range=[-2, 106])
    fig.update_layout(legend=dict(orientation="h", y=-0.2, x=0))
    return style(
        fig,
        two_line_title(
            "Neighbouring pairs that break ADePT's 2C bound",
            f"C = {v['clip']:g}, {v['pairs']:,} pairs per point, seed {v['seed']}, shaded: 95% Wilson intervals",
        ),
        height=560,
    )


register(
    FigureSpec(
        id="adept-violations",
        quick={"dims": "1-40", "pairs": "500"},
        title="How many pairs break the bound (paper's Figure 1)",
        page=PAGE,
        params=(DIMS, PAIRS, CLIP, DISTS, SEED, DIM),
        prepare=_violations_prepare,
        evaluate=unchanged,  # the rates do not depend on the marked n
        live=("dim",),
        mark=_violations_mark,
        render=_violations_render,
        caption=(
            "Each point is the share of independent pairs of simulated encoder outputs whose clipped "
            "vectors are more than 2C apart in L1: for those pairs ADePT's noise is too small. The shaded "
            "band is a 95% Wilson interval. Uniform outputs break the bound almost always from n ≈ 17, "
            "N(0, (0.1C)²) from n ≈ 35; clipping by the L1 norm (the control) never does."
        ),
        columns=("dim", "distribution", "violation_rate", "ci_low", "ci_high"),
        paper_figure="Habernal 2021, Figure 1",
        disk_cache=True,
    )
)


# 4. geometry -----------------------------------------------------------------------------

SHAPE_STYLE = {
    "l2_ball": ("L2 ball of radius C (where ADePT clips)", OKABE_ITO[0], "solid"),
    "l1_ball": ("L1 ball of radius C", OKABE_ITO[1], "dash"),
    "cube": ("cube [−C/√n, C/√n]ⁿ, corners on the sphere", OKABE_ITO[2], "dot"),
}


def _geometry_compute(v: Mapping[str, Any], progress=None) -> pd.DataFrame:
    return adept.geometry(v["geometry_dim"], v["clip"])


def _geometry_render(df: pd.DataFrame, v: Mapping[str, Any]) -> go.Figure:
    n, c = v["geometry_dim"], v["clip"]
    fig = go.Figure()
    three = n == 3
    for shape, (label, color, dash) in SHAPE_STYLE.items():
        part = df[df["shape"] == shape]
        first = True
        for _, seg in part.groupby("part", sort=True):
            kw = dict(
                x=seg["x"],
                y=seg["y"],
                mode="lines",
                name=label,
                legendgroup=shape,
                showlegend=first,
                line=dict(color=color, dash=dash, width=2 if not three else 3),
            )
            if three:
                kw["line"]["width"] = 2 if shape == "l2_ball" else 5
                fig.add_trace(go.Scatter3d(z=seg["z"], opacity=0.45 if shape == "l2_ball" else 1, **kw))
            else:
                fig.add_trace(go.Scatter(**kw))
            first = False
    pair = df[df["shape"] == "pair"]
    dist = 2 * c * np.sqrt(n)
    label = f"worst-case pair ±(C/√{n})(1,…,1): L1 distance 2C√{n} = {dist:.4g} > 2C = {2 * c:g}"
    kw = dict(
        x=pair["x"],
        y=pair["y"],
        mode="lines+markers+text",
        name=label,
        text=["x", "x′"],
        textposition="top center",
        marker=dict(size=9, color="#000"),
        line=dict(color="#000", width=3),
    )
    if three:
        fig.add_trace(go.Scatter3d(z=pair["z"], **kw))
        # The default camera looks down the (1,1,1) diagonal, right through the pair: turn it, from
        # far enough that the cube's near corner stays inside the picture. Ticks at 0 and C only
        # (the ball's radius; Plotly's seven a side, and then two axes' -C, ran into each other at
        # the corner where the axes meet).
        ticks = dict(tickvals=[0.0, c], ticktext=["0", f"{c:g}"], range=[-1.15 * c, 1.15 * c])
        fig.update_layout(
            scene=dict(
                aspectmode="cube",
                xaxis=dict(title="z₁", **ticks),
                yaxis=dict(title="z₂", **ticks),
                zaxis=dict(title="z₃", **ticks),
                camera=dict(eye=dict(x=2.05, y=-1.1, z=0.65)),
                domain=dict(y=[0.22, 1]),
            ),
            height=620,
        )
    else:
        fig.add_trace(go.Scatter(**kw))
        fig.update_xaxes(title="z₁", scaleanchor="y", scaleratio=1, range=[-1.25 * c, 1.25 * c])
        fig.update_yaxes(title="z₂", range=[-1.25 * c, 1.25 * c])
    fig.update_layout(legend=dict(orientation="h", y=-0.15 if not three else 0, x=0))
    return style(fig, f"Why 2C is the wrong sensitivity: the geometry in {n}-D (C = {c:g})", height=620)


register(
    FigureSpec(
        id="adept-geometry",
        title="The geometry behind the error",
        page=PAGE,
        params=(GEOM_DIM, CLIP),
        compute=_geometry_compute,
        render=_geometry_render,
        caption=(
            "ADePT clips to the L2 ball (blue). Its two points farthest apart in L1 are opposite corners "
            "of the inscribed cube, ±(C/√n)(1,…,1): their L1 distance is 2C√n, more than the 2C that "
            "ADePT assumed. Only vectors inside the L1 ball (orange) are at most 2C apart in L1, which is "
            "why clipping by the L1 norm repairs the mechanism."
        ),
        columns=("shape", "part", "x", "y", "z"),
    )
)


# 5. privacy loss of the worst-case pair ------------------------------------------------------


def _loss_compute(v: Mapping[str, Any], progress=None) -> pd.DataFrame:
    report(progress, 0.1, "simulating releases")
    return loss.privacy_loss_histogram(v["dim"], v["clip"], v["epsilon"], v["samples"], v["seed"])


def _loss_along_epsilon(v: Mapping[str, Any], epsilons) -> list[pd.DataFrame]:
    """The histograms at many ε from one set of simulated releases (the same tables as at each ε)."""
    return loss.privacy_loss_histograms(v["dim"], v["clip"], epsilons, v["samples"], v["seed"])


def _loss_along_dim(v: Mapping[str, Any], dims) -> list[pd.DataFrame]:
    """The histograms at many n from one set of exponentials (the same tables as at each n)."""
    return loss.privacy_loss_histograms_along_dim(dims, v["clip"], v["epsilon"], v["samples"], v["seed"])


def _loss_render(df: pd.DataFrame, v: Mapping[str, Any]) -> go.Figure:
    p, lo, hi = loss.exceed_probability(df)
    low, high = exceed_probability_bounds(v["dim"], v["epsilon"])
    eps, top = v["epsilon"], float(adept.epsilon_actual(v["epsilon"], v["dim"]))
    mean = loss.privacy_loss_mean(v["dim"], v["clip"], eps)
    # the columns read once as arrays (pandas' Series through Plotly's checks were a third of a frame)
    low_edge, high_edge = df["loss_low"].to_numpy(dtype=float), df["loss_high"].to_numpy(dtype=float)
    share = df["probability"].to_numpy(dtype=float)
    colors = np.where(df["above_claim"].to_numpy(dtype=bool), OKABE_ITO[1], OKABE_ITO[0])
    fig = go.Figure(
        go.Bar(
            x=(low_edge + high_edge) / 2,
            y=share,
            width=high_edge - low_edge,
            marker=dict(color=colors, line=dict(width=0)),
            name="share of releases (orange: L > claimed ε)",
            hovertemplate="L in (%{customdata[0]:.3g}, %{customdata[1]:.3g}]<br>%{y:.4f} of releases<extra></extra>",
            customdata=np.c_[low_edge, high_edge],
        )
    )
    positive = share[share > 0]
    y0, y1 = float(positive.min()) / 2, float(positive.max()) * 2
    for x, label, color, dash in [
        (eps, f"claimed ε = {eps:g}", "#000", "dash"),
        (mean, f"mean loss (KL divergence) = {mean:.3g}", "#555", "dot"),
        (top, f"largest possible loss ε√n = {top:.3g}", OKABE_ITO[1], "dashdot"),
    ]:
        fig.add_trace(
            go.Scatter(
                x=[x, x],
                y=[y0, y1],
                mode="lines",
                name=label,
                line=dict(color=color, dash=dash, width=2.5),
                hoverinfo="skip",
            )
        )
    fig.update_layout(legend=dict(orientation="h", y=-0.22, x=0), bargap=0)
    fig.update_xaxes(title="privacy loss L(y) = ln p(y | x) / p(y | x′)  (nats)")
    log_axis(fig, "y", title="share of releases (log scale)")
    title = two_line_title(
        f"At n = {v['dim']}, ε = {eps:g}, one release exceeds the claim with probability {50 * (low + high):.2f}%",
        f"exact (bounds {100 * low:.3f}–{100 * high:.3f}%); {v['samples']:,} simulated releases, seed {v['seed']}: "
        f"{100 * p:.2f}% (95% CI {100 * lo:.2f}–{100 * hi:.2f}%)",
    )
    return style(fig, title, height=580)


register(
    FigureSpec(
        id="adept-privacy-loss",
        quick={"samples": "5000"},
        title="Privacy loss of the worst-case pair",
        page=PAGE,
        params=(DIM, CLIP, EPSILON, SAMPLES, SEED),
        compute=_loss_compute,
        render=_loss_render,
        along={"epsilon": _loss_along_epsilon, "dim": _loss_along_dim},
        caption=(
            "For x = (C/√n)(1,…,1) and x′ = −x, each release y = x + Laplace(2C/ε)ⁿ has privacy loss "
            "L(y) = (‖y − x′‖₁ − ‖y − x‖₁)/b. ε-DP requires L ≤ ε for every y; the orange bars are releases "
            "where a single output already breaks the claim. The loss can reach ε√n; its mean (dotted) is "
            "the KL divergence n(2c + b e^(−2c/b) − b)/b with c = C/√n. The probability in the title is computed "
            "exactly "
            "(the loss distribution on a fine lattice, rounded up and down for two bounds); the bars are simulated "
            "releases, the same releases at every ε of the slider (only which of their coordinates fall in the "
            "middle region changes), and along n each release gains one coordinate at a time, so the bars move "
            "with ε and n rather than with fresh sampling noise."
        ),
        columns=("loss_low", "loss_high", "count", "probability", "above_claim"),
        disk_cache=True,
    )
)


# 6. privacy-utility of the fixes ---------------------------------------------------------------


def _fixes_prepare(v: Mapping[str, Any], progress=None) -> dict[int, dict]:
    """Per n, the draws every ε and mechanism share (the sweep's dimensions up front; a new n
    from the slider is added when first asked for)."""
    dims = SWEEP_DIMS if v["sweep"] == "dim" else ()
    state = {}
    for k, n in enumerate(dims):
        state[n] = adept.fixes_draws(n, v["clip"], v["draws"], v["seed"])
        report(progress, (k + 1) / len(dims), f"drawing signals and noise for n = {n}")
    return state


def _fixes_evaluate(state: dict[int, dict], v: Mapping[str, Any]) -> pd.DataFrame:
    if v["sweep"] == "dim":
        dims, eps = sorted(set(SWEEP_DIMS) | {v["dim"]}), [v["epsilon"]]
    else:
        dims, eps = [v["dim"]], sorted(set(SWEEP_EPSILONS) | {v["epsilon"]})
    for n in dims:
        if n not in state:  # draws depend only on (n, C, draws, seed): the same as if prepared
            state[n] = adept.fixes_draws(n, v["clip"], v["draws"], v["seed"])
    return adept.fixes_evaluate(state, dims, eps, v["clip"], v["delta"], rows=_fix_rows_kept(v))


def _fix_rows_kept(v: Mapping[str, Any]):
    """:func:`adept.fix_rows`, each row kept (``adept.fix_rows``) per the setting it depends on: along
    the slider every frame shares the sweep's rows and makes only the slider's own (the rows were
    a third of the fixes' frames along ε, computed again at each position), those of one n together."""
    memo, fixed = caches.memo("adept.fix_rows"), (v["clip"], v["draws"], v["seed"], v["delta"])

    def rows(d, n, cases, clip, delta) -> list[tuple]:
        keys = [(n, eps, mech, *fixed) for eps, mech in cases]
        held = [memo.peek(key) for key in keys]
        missing = [i for i, row in enumerate(held) if row is None]
        if missing:
            made = adept.fix_rows(d, n, [cases[i] for i in missing], clip, delta)
            for i, row in zip(missing, made):
                held[i] = memo.get(keys[i], lambda row=row: row)
        return held

    return rows


def _fixes_render(df: pd.DataFrame, v: Mapping[str, Any]) -> go.Figure:
    x = "dim" if v["sweep"] == "dim" else "epsilon"
    fig = subplots.make_subplots(
        rows=1,
        cols=3,
        # the error's formula in its panel's title, its y axis titled short, the panels further
        # apart: at the page's width (about 590 px for three panels) the formula as a y title
        # stood over the first panel's curves
        subplot_titles=(
            "ε really guaranteed",
            "RMS error ‖M(v)−v‖₂/C",
            "mean cosine",
        ),
        horizontal_spacing=0.16,
    )
    # the table's columns read once as arrays, each mechanism's rows picked by a mask (pandas'
    # filtering and sorting per mechanism were a third of a frame's drawing)
    cols = {
        c: df[c].to_numpy() for c in (x, "mechanism", "epsilon_actual", "rms_error_relative", "cosine", "cosine_se")
    }
    for k, mech in enumerate(adept.FIXES):
        at = np.flatnonzero(cols["mechanism"] == mech)
        at = at[np.argsort(cols[x][at], kind="stable")]
        style_kw = dict(color=OKABE_ITO[k], dash=DASHES[k], width=2.5)
        label = adept.FIX_LABELS[mech]
        fig.add_trace(
            go.Scatter(
                x=cols[x][at], y=cols["epsilon_actual"][at], name=label, legendgroup=mech, line=style_kw,
                mode="lines+markers",
            ),
            row=1,
            col=1,
        )  # fmt: skip
        fig.add_trace(
            go.Scatter(
                x=cols[x][at],
                y=cols["rms_error_relative"][at],
                name=label,
                legendgroup=mech,
                showlegend=False,
                line=style_kw,
                mode="lines+markers",
            ),
            row=1,
            col=2,
        )
        fig.add_trace(
            go.Scatter(
                x=cols[x][at],
                y=cols["cosine"][at],
                name=label,
                legendgroup=mech,
                showlegend=False,
                line=style_kw,
                mode="lines+markers",
                error_y=dict(type="data", array=1.96 * cols["cosine_se"][at], thickness=1),
            ),
            row=1,
            col=3,
        )
    here = np.flatnonzero(cols[x] == (v["dim"] if x == "dim" else v["epsilon"]))
    for c, col in enumerate(("epsilon_actual", "rms_error_relative", "cosine"), start=1):
        fig.add_trace(
            go.Scatter(
                x=cols[x][here],
                y=cols[col][here],
                mode="markers",
                name=f"the slider's {'n' if x == 'dim' else 'ε'} = {cols[x][here[0]]:g}",
                marker=dict(size=14, symbol="circle-open", color="#000", line=dict(width=2)),
                showlegend=c == 1,
                hoverinfo="skip",
            ),
            row=1,
            col=c,
        )
    xtitle = "dimension n (log scale)" if x == "dim" else "claimed ε (log scale)"
    log_axis(fig, "x", title=xtitle)
    log_axis(fig, "y", title="ε", row=1, col=1)
    log_axis(fig, "y", title="error / C", row=1, col=2)
    fig.update_yaxes(title="cos(v, M(v))", range=[-0.05, 1.05], row=1, col=3)
    fig.update_layout(legend=dict(orientation="h", y=-0.42, x=0), margin=dict(b=170))
    fixed = f"ε = {v['epsilon']:g}" if x == "dim" else f"n = {v['dim']}"
    return style(
        fig,
        two_line_title(
            "ADePT and its fixes: privacy against utility",
            f"{fixed}, C = {v['clip']:g}, Gaussian δ = {v['delta']:g}, {v['draws']:,} draws per point, seed "
            f"{v['seed']}",
        ),
        height=560,
    )


register(
    FigureSpec(
        id="adept-fixes",
        quick={"draws": "200"},
        title="Privacy and utility of the fixes",
        page=PAGE,
        params=(SWEEP, DIM, EPSILON, CLIP, DELTA, DRAWS, SEED),
        prepare=_fixes_prepare,
        evaluate=_fixes_evaluate,
        live=("dim", "epsilon"),
        render=_fixes_render,
        caption=(
            "Left: the ε each mechanism really guarantees. Only ADePT as published drifts up with √n; the "
            "fixes keep the claimed ε (the Gaussian one with a small δ). Middle and right: what the honest "
            "guarantee costs, for a signal v on the sphere of radius C in a random direction. RMS error is "
            "closed-form for the noise (Laplace b√(2n), Gaussian σ√n); the cosine is simulated (95% error bars). "
            "Against the corrected Laplace, the Gaussian fix, calibrated to the L2 sensitivity 2C, cuts the "
            "RMS error by a factor growing like √n; L1 clipping keeps ADePT's noise but shrinks the signal "
            "itself, so its error cannot fall below the clipping bias."
        ),
        columns=tuple(adept.FIXES_COLUMNS),
        paper_figure="Habernal 2021, Section 7",
    )
)


# the privacy-utility frontier (dpviz/frontier.py) ---------------------------------------------------

FRONTIER_PARAMS = (DIM, EPSILON, CLIP, DELTA, DRAWS, SEED)
register(frontier_spec("adept", FRONTIER_PARAMS, quick={"draws": "200"}))


# 7. an empirical audit of the worst-case pair -------------------------------------------------------------

AUDIT_SAMPLES = Param(
    "audit_samples",
    "int",
    50_000,
    "Auditor samples",
    "Samples a side of the worst-case pair: the auditor learns its event on half and counts it on the other "
    "half (the command line can run millions).",
    min=1000,
    max=10_000_000,
    hosted_max=100_000,
)
AUDIT_DIMS = (1, 2, 4, 9, 16, 36)


def _audit_compute(v, progress=None) -> pd.DataFrame:
    from dpviz.auditing import mechanisms  # (lazy: SciPy, 0.5 s, for the audit chart's button only)

    rows = []
    release = mechanisms.Laplace(adept.sensitivity_claimed(v["clip"]) / v["epsilon"])
    for k, n in enumerate(AUDIT_DIMS):
        x, xp = adept.worst_case_pair(n, v["clip"])
        r = mechanisms.audit_pair(release, x, xp, v["audit_samples"], v["seed"], 901, n)
        rows.append(
            (
                n,
                v["epsilon"],
                float(adept.epsilon_actual(v["epsilon"], n)),
                r["epsilon_lower_bound"],
                np.nan if r["epsilon_estimate"] is None else r["epsilon_estimate"],
                r["samples"],
            )
        )
        report(progress, (k + 1) / len(AUDIT_DIMS), f"auditing n = {n}")
    return pd.DataFrame(
        rows, columns=["dim", "epsilon_claimed", "epsilon_true", "epsilon_lower_bound", "epsilon_hat", "samples"]
    )


def _audit_render(df: pd.DataFrame, v) -> go.Figure:
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=df.dim,
            y=df.epsilon_true,
            name="true ε = ε√n",
            mode="lines+markers",
            line=dict(color=OKABE_ITO[1], width=2.5),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=df.dim,
            y=df.epsilon_lower_bound,
            name="auditor's lower bound (90% confidence)",
            mode="lines+markers",
            line=dict(color=OKABE_ITO[0], dash="dash", width=2.5),
        )
    )
    fig.add_trace(
        go.Scatter(
            x=df.dim, y=df.epsilon_claimed, name="claimed ε", mode="lines", line=dict(color="#000", dash="dot", width=2)
        )
    )
    log_axis(fig, "x", title="dimension n (log scale)")
    fig.update_yaxes(title="ε")
    fig.update_layout(legend=dict(x=0.01, y=0.99))
    return style(
        fig,
        two_line_title(
            "A black-box audit catches ADePT above its claim",
            f"worst-case pair, Laplace scale 2C/ε, {v['audit_samples']:,} samples a side, seed {v['seed']}",
        ),
        height=460,
    )


register(
    FigureSpec(
        id="adept-audit",
        quick={"audit_samples": "2000"},
        title="An empirical audit of the worst-case pair",
        page=PAGE,
        params=(EPSILON, CLIP, AUDIT_SAMPLES, SEED),
        compute=_audit_compute,
        on_demand=True,
        render=_audit_render,
        caption=(
            "The sample auditor of the Audit page, also behind the HoHo page's audit, run on outputs drawn at "
            "ADePT's worst-case pair ±(C/√n)(1,…,1): it learns a distinguishing event on half of the samples "
            "(per-column scores, logistic regressions and summed per-column log ratios) and bounds its two "
            "probabilities on the other half with exact binomial bounds. Its lower bound rises above the claimed ε "
            "from n = 2 on, without knowing the proof, and stays below the true ε√n: the full loss shows only far in "
            "the tails, where few samples fall, and a lower bound only ever proves too little."
        ),
        columns=("dim", "epsilon_claimed", "epsilon_true", "epsilon_lower_bound", "epsilon_hat", "samples"),
        paper_figure="Habernal 2021, Sec. 4 (audit: Bichsel et al. 2021)",
        disk_cache=True,
    )
)
