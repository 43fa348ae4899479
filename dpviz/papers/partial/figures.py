"""Figure specs of the partial-sensitivity page (Mueller et al. 2022; docs/formulas.md, section 4)."""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pandas as pd

from dpviz import caches
from dpviz.frontier import frontier_spec
from dpviz.papers.partial import bars_network as bn
from dpviz.papers.partial import sensitivity as partial_sensitivity
from dpviz.papers.partial.params import EXPR, INDIVIDUALS, RANGES
from dpviz.params import SEED, Param
from dpviz.registry import FigureSpec, register
from dpviz.theme import DASHES, OKABE_ITO, go, log_axis, style, subplots, two_line_title

QUICK_TRAINING = {"per_class": "100", "sgd_steps": "100", "dpsgd_steps": "100", "eval_per_class": "50"}
"""Reduced settings the registry-wide tests run these figures at."""
PAGE = "partial"
PAPER = "Mueller et al. 2022"

GRID = Param(
    "grid",
    "int",
    61,
    "Grid points per axis",
    "Resolution of the surface over the first two attributes.",
    min=11,
    max=201,
    hosted_max=101,
)
VIEW = Param(
    "view",
    "choice",
    "scatter3d",
    "Figure 1 view",
    "The paper's 3-D view (partial sensitivities against the gradient norm) or linked contour maps over the "
    "attributes.",
    choices=("scatter3d", "contours"),
    choice_labels={"scatter3d": "3-D, as in the paper", "contours": "contour maps over the box"},
)
PEOPLE = Param(
    "people",
    "text",
    "1,3; 1.5,0.5; 2,2; 1.2,1.8; 1.9,2.9",
    "Individuals (values in attribute order)",
    "Rows separated by ';', values by ',', e.g. 1,3; 1.5,0.5 (at most 20 rows).",
    max_items=400,
)
SIGMA = Param(
    "sigma",
    "float",
    10.0,
    "Gaussian noise σ",
    "Standard deviation of the Gaussian mechanism's noise on the query.",
    min=0.001,
    max=1e6,
    log=True,
    slider=True,
)
ALPHA = Param(
    "alpha",
    "float",
    2.0,
    "Rényi order α",
    "Order of the Rényi divergence for the individual RDP loss.",
    min=1.01,
    max=1000.0,
    log=True,
    slider=True,
)

PER_CLASS = Param(
    "per_class",
    "int",
    1000,
    "Training images per class",
    "Noisy bar images per class (paper: 1,000).",
    min=10,
    max=5000,
    hosted_max=1000,
)
NOISE_SD = Param(
    "noise_sd",
    "float",
    0.2,
    "Pixel noise σ",
    "Standard deviation of the Gaussian noise added to each pixel before min-max normalisation (paper: 0.2).",
    min=0.01,
    max=2.0,
)
LR = Param(
    "lr", "float", 0.1, "SGD learning rate", "Full-batch gradient descent step size (paper: 0.1).", min=1e-4, max=10.0
)
SGD_STEPS = Param(
    "sgd_steps", "int", 1000, "SGD steps", "Gradient descent steps (paper: 1,000).", min=10, max=20_000, hosted_max=2000
)
DP_STEPS = Param(
    "dpsgd_steps", "int", 2000, "DP-SGD steps", "DP-SGD steps (paper: 2,000).", min=10, max=20_000, hosted_max=4000
)
DP_CLIP = Param(
    "clip",
    "float",
    0.1,
    "DP-SGD clipping norm C",
    "Per-example gradients are clipped to this L2 norm (paper: 0.1).",
    min=1e-4,
    max=100.0,
    log=True,
)
NOISE_MULT = Param(
    "noise_multiplier",
    "float",
    5.0,
    "DP-SGD noise multiplier",
    "Gaussian noise of std noise_multiplier × C on the summed clipped gradients (paper: 5).",
    min=0.0,
    max=100.0,
)
DP_LR = Param(
    "dpsgd_lr",
    "float",
    0.1,
    "DP-SGD learning rate",
    "DP-SGD step size (not stated in the paper; 0.1 like SGD).",
    min=1e-4,
    max=10.0,
)
EVAL = Param(
    "eval_per_class",
    "int",
    500,
    "Evaluation images per class",
    "Fresh images per class on which partial sensitivities are measured.",
    min=10,
    max=5000,
    hosted_max=1000,
)

NET_PARAMS = (PER_CLASS, NOISE_SD, LR, SGD_STEPS, DP_STEPS, DP_CLIP, NOISE_MULT, DP_LR, EVAL, SEED)


def _ps():
    """dpviz.papers.partial.sensitivity, imported when a query figure is first computed (its symbolic work
    runs in a worker process; this process only evaluates the compiled result with numpy)."""

    return partial_sensitivity


def query_analysis(v: Mapping[str, Any]) -> "QueryAnalysis":  # noqa: F821 (dpviz.papers.partial.sensitivity.QueryAnalysis)
    """The analysis of a typed query, made once per (formula, ranges, N) in a limited worker process."""
    return _ps().analyse(v["expr"], v["ranges"], int(v["individuals"]))


# 1. the query's global sensitivity ------------------------------------------------------------


def _query_compute(v, progress=None) -> pd.DataFrame:
    a = query_analysis(v)
    return _ps().query_table(a, _ps().global_sensitivity(a))


def _query_render(df: pd.DataFrame, v) -> go.Figure:
    gs = df["global_sensitivity"].iloc[0]
    where = ", ".join(f"{r.attribute} = {r.argmax:.4g}" for r in df.itertuples())
    fig = go.Figure(
        go.Bar(
            x=df["attribute"],
            y=df["partial_sensitivity_at_argmax"],
            marker_color=[OKABE_ITO[i % 8] for i in range(len(df))],
            text=[f"{x:.4g}" for x in df["partial_sensitivity_at_argmax"]],
            textposition="outside",
        )
    )
    fig.add_hline(y=0, line=dict(color="#444"))
    fig.update_xaxes(title="attribute")
    fig.update_yaxes(title="∂g/∂x at the maximiser")
    fig.update_layout(margin=dict(t=110))
    return style(
        fig,
        two_line_title(
            f"Global sensitivity {gs:.8g} at ({where})",
            f"shgo and a grid, polished (grid max {df['grid_max'].iloc[0]:.8g}); N = {v['individuals']} individuals",
        ),
        height=440,
    )


register(
    FigureSpec(
        id="partial-query",
        title="Global sensitivity of the query",
        page=PAGE,
        params=(EXPR, RANGES, INDIVIDUALS),
        compute=_query_compute,
        render=_query_render,
        caption=(
            "The global sensitivity is the largest gradient norm g = ‖∇f‖/N over the allowed attribute "
            "values, found with scipy's shgo and checked on a dense grid (as in the paper), the grid's best points "
            "polished and the best searched again at finer scales. The bars show "
            "each attribute's partial sensitivity ∂g/∂x at that worst case: how strongly that attribute "
            "pushes the sensitivity up (positive) or down (negative) there."
        ),
        columns=(
            "attribute",
            "low",
            "high",
            "argmax",
            "global_sensitivity",
            "grid_max",
            "partial_sensitivity_at_argmax",
        ),
        paper_figure=f"{PAPER}, Sec. 5.1",
    )
)


# 2. Figure 1: partial sensitivities against the gradient norm ---------------------------------------


def _surface_compute(v, progress=None) -> pd.DataFrame:
    a = query_analysis(v)
    if len(a.attributes) < 2:
        raise _ps().FormulaError("Figure 1 needs at least two attributes.")
    gs = _ps().global_sensitivity(a)
    top = np.array([[gs["argmax"][name] for name in a.attributes]])
    return (
        _ps()
        .surface_table(a, v["grid"], gs["argmax"])
        .assign(
            x_attribute=a.attributes[0],
            y_attribute=a.attributes[1],
            other_attributes=len(a.attributes) - 2,
            # the global maximum itself (the query chart's), which the grid need not hold: a kink's or
            # a ridge's maximum lies between its points, and the grid's largest g was marked as it
            max_x=top[0, 0],
            max_y=top[0, 1],
            max_gradient_norm=gs["value"],
            max_partial_x=a.evaluate(a.partial_fns[0], top)[0],
            max_partial_y=a.evaluate(a.partial_fns[1], top)[0],
        )
    )


def _surface_render(df: pd.DataFrame, v) -> go.Figure:
    xa, ya = df["x_attribute"].iloc[0], df["y_attribute"].iloc[0]
    top = df.iloc[0]  # (the max_ columns: the global maximum, the same in every row)
    rest = " (other attributes at the maximiser)" if df["other_attributes"].iloc[0] > 0 else ""
    if v["view"] == "scatter3d":
        fig = go.Figure(
            go.Scatter3d(
                x=df["partial_x"],
                y=df["partial_y"],
                z=df["gradient_norm"],
                mode="markers",
                marker=dict(
                    size=2.5,
                    color=df["gradient_norm"],
                    colorscale="Viridis",
                    colorbar=dict(title="g", len=0.7, y=0.45, thickness=14),
                ),
                name="grid points",
                hovertemplate=f"∂g/∂{xa} = %{{x:.4g}}<br>∂g/∂{ya} = %{{y:.4g}}<br>g = %{{z:.4g}}<extra></extra>",
            )
        )
        fig.add_trace(
            go.Scatter3d(
                x=[top.max_partial_x],
                y=[top.max_partial_y],
                z=[top.max_gradient_norm],
                mode="markers+text",
                marker=dict(size=8, color="#D55E00", symbol="diamond"),
                text=[f"max g = {top.max_gradient_norm:.6g}"],
                textposition="bottom center",
                name=f"global maximum, g = {top.max_gradient_norm:.6g}",
            )
        )
        # camera back from the box so that no axis title or the maximum's label leaves the picture
        # (at 1.6, 1.6, 1.2 the chart drawn 597 px wide, the page's column at 1280 px, cut the
        # z axis's title to a bar at the scene's left edge: seen in the browser on 2026-12-03);
        # a cube (not the data's proportions: one axis seen end on had its ticks piled up) with five
        # ticks an axis, so that the turned tick labels of one axis stay apart
        ticks = dict(nticks=5, tickfont=dict(size=12))
        fig.update_layout(
            scene=dict(
                xaxis=dict(title=f"∂g/∂{xa}", **ticks),
                yaxis=dict(title=f"∂g/∂{ya}", **ticks),
                zaxis=dict(title="g", **ticks),
                aspectmode="cube",
                camera=dict(eye=dict(x=1.9, y=1.9, z=1.43), center=dict(x=0, y=0, z=-0.12)),
                domain=dict(x=[0, 0.88], y=[0.04, 0.92]),
            ),
            legend=dict(x=0, y=1),
            height=620,
        )
    else:
        fig = subplots.make_subplots(
            rows=1, cols=3, subplot_titles=("gradient norm g", f"∂g/∂{xa}", f"∂g/∂{ya}"), horizontal_spacing=0.16
        )
        xs, ys = np.sort(df["x"].unique()), np.sort(df["y"].unique())
        for c, col in enumerate(("gradient_norm", "partial_x", "partial_y"), start=1):
            z = df.pivot(index="y", columns="x", values=col).loc[ys, xs].to_numpy()
            diverging = col != "gradient_norm"
            lim = float(np.nanmax(np.abs(z))) if diverging else None
            fig.add_trace(
                go.Contour(
                    x=xs,
                    y=ys,
                    z=z,
                    colorscale="RdBu_r" if diverging else "Viridis",
                    zmid=0 if diverging else None,
                    zmin=-lim if diverging else None,
                    zmax=lim if diverging else None,
                    ncontours=20,
                    showscale=True,
                    colorbar=dict(
                        x=fig.layout[f"xaxis{c if c > 1 else ''}"].domain[1] + 0.01,
                        len=0.9,
                        thickness=10,
                        tickfont=dict(size=11),
                        nticks=5,
                    ),
                ),
                row=1,
                col=c,
            )
            fig.add_trace(
                go.Scatter(
                    x=[top.max_x],
                    y=[top.max_y],
                    mode="markers",
                    marker=dict(color="#D55E00", size=12, symbol="x", line=dict(width=2)),
                    name="global maximum",
                    showlegend=c == 1,
                ),
                row=1,
                col=c,
            )
            fig.update_xaxes(title=xa, row=1, col=c)
            fig.update_yaxes(title=ya if c == 1 else None, row=1, col=c)
        fig.update_layout(legend=dict(orientation="h", y=-0.2), height=480)
    return style(
        fig,
        two_line_title(
            "How each attribute moves one individual's sensitivity",
            f"f = {v['expr']}, {v['ranges']}, N = {v['individuals']}{rest}",
        ),
        height=fig.layout.height,
    )


register(
    FigureSpec(
        id="partial-query-surface",
        title="Partial sensitivities over the input box (paper's Figure 1)",
        page=PAGE,
        params=(EXPR, RANGES, INDIVIDUALS, GRID, VIEW),
        compute=_surface_compute,
        render=_surface_render,
        caption=(
            "Every point is one grid point of the attribute box. In the 3-D view (the paper's) the horizontal "
            "axes are the partial sensitivities and the height is the gradient norm g, the individual's "
            "sensitivity; the global maximum is the orange diamond. The contour view shows the same three "
            "quantities over the attributes themselves: where an attribute's partial sensitivity is large, "
            "small changes in it change the privacy loss most."
        ),
        columns=(
            "x",
            "y",
            "gradient_norm",
            "partial_x",
            "partial_y",
            "x_attribute",
            "y_attribute",
            "other_attributes",
            "max_x",
            "max_y",
            "max_gradient_norm",
            "max_partial_x",
            "max_partial_y",
        ),
        paper_figure=f"{PAPER}, Figure 1",
    )
)


# 3. individuals ---------------------------------------------------------------------------------


def _people_prepare(v, progress=None) -> pd.DataFrame:
    """Everything at σ = 1, α = 2; the sliders then scale ε_RDP = α g²/(2σ²) exactly."""
    a = query_analysis(v)
    wide = _ps().individuals_table(a, _ps().parse_people(v["people"], a), 1.0, 2.0)
    rows = []
    for r in wide.to_dict("records"):
        for name in a.attributes:
            rows.append(
                {
                    "individual": r["individual"],
                    "attribute": name,
                    "value": r[name],
                    "gradient_norm": r["gradient_norm"],
                    "rdp_epsilon": r["rdp_epsilon"],
                    "partial_sensitivity": r[f"partial_{name}"],
                    "share_of_loss": r[f"share_{name}"],
                    "most_sensitive_attribute": r["most_sensitive_attribute"],
                }
            )
    return pd.DataFrame(rows)


def _people_evaluate(state: pd.DataFrame, v) -> pd.DataFrame:
    return state.assign(rdp_epsilon=state["rdp_epsilon"] * (v["alpha"] / 2.0) / v["sigma"] ** 2)


def _people_render(df: pd.DataFrame, v) -> go.Figure:
    # the table's columns read once as arrays, each individual's first row and each attribute's rows
    # picked by index (pandas' drop_duplicates, groupby and astype were most of a frame along σ)
    individual = df["individual"].to_numpy()
    names = [str(i) for i in individual]  # (as pandas' astype(str) writes them)
    attribute = df["attribute"].to_numpy()
    first = np.sort(np.unique(individual, return_index=True)[1])  # (in the table's order)
    who = [names[i] for i in first]
    fig = subplots.make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.55, 0.45],
        horizontal_spacing=0.12,
        subplot_titles=(
            f"Rényi-DP ε at α = {v['alpha']:g}<br>(label: most sensitive attribute)",
            "share of g² from<br>each attribute (%)",
        ),
    )
    fig.add_trace(
        go.Bar(
            x=who,
            y=df["rdp_epsilon"].to_numpy()[first],
            marker_color="#555",
            name="ε_RDP",
            showlegend=False,
            text=[f"{m}" for m in df["most_sensitive_attribute"].to_numpy()[first]],
            textposition="outside",
            textfont=dict(size=14),
            hovertemplate="individual %{x}<br>ε_RDP = %{y:.4g}<extra></extra>",
        ),
        row=1,
        col=1,
    )
    share, value, partial = (df[c].to_numpy() for c in ("share_of_loss", "value", "partial_sensitivity"))
    for k, name in enumerate(dict.fromkeys(attribute.tolist())):  # (in the table's order, as groupby(sort=False))
        part = np.flatnonzero(attribute == name)
        fig.add_trace(
            go.Bar(
                x=[names[i] for i in part],
                y=100 * share[part],
                name=f"from ∂f/∂{name}",
                marker_color=OKABE_ITO[k % 8],
                customdata=np.c_[value[part], partial[part]],
                hovertemplate=f"{name} = %{{customdata[0]:.4g}}<br>∂g/∂{name} = %{{customdata[1]:.4g}}<br>%{{y:.1f}}% "
                "of the loss<extra></extra>",
            ),
            row=1,
            col=2,
        )
    fig.update_layout(
        barmode="stack",
        legend=dict(orientation="h", y=-0.2, x=0.55),
        uniformtext=dict(minsize=12, mode="show"),
        margin=dict(t=140),  # the two-line title above the two-line panel titles
    )
    fig.update_xaxes(title="individual")
    log_axis(fig, "y", title="ε_RDP (log scale)", row=1, col=1)
    fig.update_yaxes(range=[0, 100], row=1, col=2)  # the panel's title says what it counts (no y title in the gap)
    return style(
        fig,
        two_line_title(
            "Each individual's privacy loss, and which attribute it comes from",
            f"Gaussian mechanism σ = {v['sigma']:g}: ε_RDP = α g(x)² / (2σ²)",
        ),
        height=480,
    )


register(
    FigureSpec(
        id="partial-individuals",
        title="Individual privacy loss and which attribute drives it",
        page=PAGE,
        params=(EXPR, RANGES, INDIVIDUALS, PEOPLE, SIGMA, ALPHA),
        prepare=_people_prepare,
        evaluate=_people_evaluate,
        live=("sigma", "alpha"),
        render=_people_render,
        caption=(
            "With the Gaussian mechanism, individual i's Rényi-DP loss is α g(xᵢ)²/(2σ²): people whose "
            "attributes sit where the gradient norm is large lose more privacy. Each bar is split by the share "
            "of g² that comes from each attribute's gradient component (right); the label names the attribute with "
            "the largest partial sensitivity |∂g/∂x|, the one whose change would move this person's loss most."
        ),
        columns=(
            "individual",
            "attribute",
            "value",
            "gradient_norm",
            "rdp_epsilon",
            "partial_sensitivity",
            "share_of_loss",
            "most_sensitive_attribute",
        ),
        paper_figure=f"{PAPER}, Sec. 5.1",
    )
)


# the privacy-utility frontier (dpviz/frontier.py) ---------------------------------------------------

FRONTIER_PARAMS = (EXPR, RANGES, INDIVIDUALS, PEOPLE, SIGMA, ALPHA)
register(frontier_spec("partial", FRONTIER_PARAMS))


# 4-6. the network: Figure 2A, 2B and training curves ---------------------------------------------

_EXPERIMENTS = caches.memo("partial.experiments")


def experiment(v: Mapping[str, Any], progress=None) -> bn.Experiment:
    """Train (or reuse) the SGD/DP-SGD pair for these parameters; the three network figures
    share one training run per process (the lock keeps concurrent sessions from training twice)."""
    key = tuple(v[p.name] for p in NET_PARAMS)
    return _EXPERIMENTS.get(key, lambda: bn.run_experiment(*key, progress=progress))


def _pixels(exp: bn.Experiment) -> dict[str, np.ndarray]:
    return {
        name: bn.partial_sensitivity(p, exp.X_eval, exp.y_eval) for name, p in (("SGD", exp.sgd), ("DP-SGD", exp.dpsgd))
    }


def _maps_compute(v, progress=None) -> pd.DataFrame:
    exp = experiment(v, progress)
    rows = []
    classes = {"vertical": exp.y_eval == 0, "horizontal": exp.y_eval == 1, "all": np.ones_like(exp.y_eval, bool)}
    for opt, sens in _pixels(exp).items():
        for cls, mask in classes.items():
            top = np.abs(sens[mask]).max(0).reshape(bn.SIDE, bn.SIDE)
            for r in range(bn.SIDE):
                for c in range(bn.SIDE):
                    rows.append((opt, cls, r, c, float(top[r, c])))
    return pd.DataFrame(
        rows, columns=["optimizer", "sample_class", "pixel_row", "pixel_col", "max_partial_sensitivity"]
    )


def _maps_render(df: pd.DataFrame, v) -> go.Figure:
    titles = [
        "class 0 (vertical bar)",
        "SGD, class 0",
        "DP-SGD, class 0",
        "class 1 (horizontal bar)",
        "SGD, class 1",
        "DP-SGD, class 1",
    ]
    fig = subplots.make_subplots(rows=2, cols=3, subplot_titles=titles, horizontal_spacing=0.05, vertical_spacing=0.1)
    vmax = float(df.loc[df.sample_class != "all", "max_partial_sensitivity"].max())
    # the cells' numbers in a unit that shows the largest with two digits (0.035 as 35 in 10^-3):
    # as 0.0x they were four characters in a 27-px cell at 1280 wide, read as one run with the next
    power = math.floor(math.log10(vmax)) - 1 if vmax > 0 else 0
    unit = f"<br>cells: ×10<sup>{power}</sup>".replace("-", "−") if power else ""
    for r, (cls, proto) in enumerate(zip(("vertical", "horizontal"), bn.prototypes()), start=1):
        fig.add_trace(
            go.Heatmap(z=proto, colorscale="Greys", showscale=False, zmin=0, zmax=1, hoverinfo="skip"), row=r, col=1
        )
        for c, opt in enumerate(("SGD", "DP-SGD"), start=2):
            part = df[(df.optimizer == opt) & (df.sample_class == cls)]
            z = part.pivot(index="pixel_row", columns="pixel_col", values="max_partial_sensitivity").to_numpy()
            fig.add_trace(
                go.Heatmap(
                    z=z,
                    colorscale="Viridis",
                    zmin=0,
                    zmax=vmax,
                    showscale=(r == 1 and c == 3),
                    colorbar=dict(
                        title=dict(text="max<br>|∂G/∂pixel|" + unit, side="top"),
                        len=0.9,
                        thickness=14,
                    ),
                    text=np.rint(z / 10.0**power),
                    texttemplate="%{text:.0f}",
                    textfont=dict(size=11),
                    hovertemplate="row %{y}, col %{x}: %{z:.4g}<extra></extra>",
                ),
                row=r,
                col=c,
            )
    fig.update_yaxes(autorange="reversed", showticklabels=False, scaleanchor=None)
    fig.update_xaxes(showticklabels=False)
    fig.update_layout(margin=dict(l=20, r=20))
    return style(
        fig,
        two_line_title(
            "Which pixels drive the per-example gradient norm: SGD vs. DP-SGD",
            f"max over {v['eval_per_class']:,} images per class of |∂G/∂pixel|, G = ‖∇_θ loss‖; shared colour scale",
        ),
        height=640,
    )


NET_CAPTION_TAIL = " Training runs in a few seconds and is cached by its parameters."

register(
    FigureSpec(
        id="partial-dpsgd",
        quick=QUICK_TRAINING,
        title="Pixel-wise partial sensitivity, SGD vs. DP-SGD (paper's Figure 2A)",
        page=PAGE,
        params=NET_PARAMS,
        compute=_maps_compute,
        render=_maps_render,
        caption=(
            "G is the norm of one image's loss gradient with respect to the weights, the quantity DP-SGD "
            "clips; each cell is the largest |∂G/∂pixel| over the evaluation images of one class. After plain "
            "SGD the pixels of the *other* class's bar dominate: an image with such features is an outlier and "
            "moves the gradient most. DP-SGD lowers those peaks and spreads sensitivity over unrelated pixels."
            + NET_CAPTION_TAIL
        ),
        columns=("optimizer", "sample_class", "pixel_row", "pixel_col", "max_partial_sensitivity"),
        paper_figure=f"{PAPER}, Figure 2A",
        disk_cache=True,
    )
)


def _hist_compute(v, progress=None) -> pd.DataFrame:
    sens = _pixels(experiment(v, progress))
    lim = max(float(np.abs(s).max()) for s in sens.values())
    edges = np.linspace(-lim, lim, 81)
    rows = []
    for opt, s in sens.items():
        counts, _ = np.histogram(s.ravel(), bins=edges)
        rows += [(opt, edges[i], edges[i + 1], int(counts[i])) for i in range(len(counts))]
    return pd.DataFrame(rows, columns=["optimizer", "bin_low", "bin_high", "count"])


def _hist_render(df: pd.DataFrame, v) -> go.Figure:
    fig = go.Figure()
    for k, opt in enumerate(("SGD", "DP-SGD")):
        part = df[df.optimizer == opt]
        fig.add_trace(
            go.Bar(
                x=(part.bin_low + part.bin_high) / 2,
                y=part["count"],
                width=part.bin_high - part.bin_low,
                name=opt,
                marker=dict(color=OKABE_ITO[k], opacity=0.6),
            )
        )
    fig.update_layout(barmode="overlay", bargap=0, legend=dict(x=0.01, y=0.99))
    fig.update_xaxes(title="partial sensitivity ∂G/∂pixel (all pixels, all evaluation images)")
    log_axis(fig, "y", title="count (log scale)")
    return style(
        fig,
        two_line_title(
            "Distribution of pixel partial sensitivities (paper's Figure 2B)",
            f"{2 * v['eval_per_class']:,} evaluation images × 25 pixels",
        ),
        height=440,
    )


register(
    FigureSpec(
        id="partial-histograms",
        quick=QUICK_TRAINING,
        title="Distribution of partial sensitivities (paper's Figure 2B)",
        page=PAGE,
        params=NET_PARAMS,
        compute=_hist_compute,
        render=_hist_render,
        caption=(
            "All partial sensitivities, pooled over pixels and images. The paper found SGD's concentrated "
            "around specific values and DP-SGD's more dispersed around zero: clipping and noise homogenise "
            "how much any single pixel can move an example's gradient." + NET_CAPTION_TAIL
        ),
        columns=("optimizer", "bin_low", "bin_high", "count"),
        paper_figure=f"{PAPER}, Figure 2B",
        disk_cache=True,
    )
)


def _training_compute(v, progress=None) -> pd.DataFrame:
    exp = experiment(v, progress)
    h = exp.history.copy()
    h["test_accuracy"] = h["optimizer"].map(exp.test_accuracy)
    return h


def _training_render(df: pd.DataFrame, v) -> go.Figure:
    fig = subplots.make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("training loss (binary cross-entropy)", "training accuracy"),
        horizontal_spacing=0.1,
    )
    for k, opt in enumerate(("SGD", "DP-SGD")):
        part = df[df.optimizer == opt]
        label = f"{opt} (test accuracy {part['test_accuracy'].iloc[0]:.3f})"
        line = dict(color=OKABE_ITO[k], dash=DASHES[k], width=2.5)
        fig.add_trace(go.Scatter(x=part.step, y=part.loss, name=label, line=line, legendgroup=opt), row=1, col=1)
        fig.add_trace(
            go.Scatter(x=part.step, y=part.accuracy, name=label, line=line, legendgroup=opt, showlegend=False),
            row=1,
            col=2,
        )
    fig.update_xaxes(title="step")
    log_axis(fig, "y", title="loss (log scale)", row=1, col=1)
    fig.update_yaxes(title="accuracy", range=[0, 1.02], row=1, col=2)
    fig.update_layout(legend=dict(orientation="h", y=-0.22))
    first, last = df.groupby("optimizer")["loss"].first(), df.groupby("optimizer")["loss"].last()
    detail = "; ".join(f"{o}: loss {first[o]:.3f} → {last[o]:.4f}" for o in ("SGD", "DP-SGD"))
    return style(
        fig,
        two_line_title(
            "Training SGD and DP-SGD on the bar images", detail + " (paper: SGD 1.316 → 0.0208, DP-SGD 0.772 → 0.196)"
        ),
        height=460,
    )


register(
    FigureSpec(
        id="partial-training",
        quick=QUICK_TRAINING,
        title="Training curves",
        page=PAGE,
        params=NET_PARAMS,
        compute=_training_compute,
        render=_training_render,
        caption=(
            "Both optimisers separate the two classes; DP-SGD converges more slowly because every example's "
            "gradient is clipped to C and noise is added. Starting losses differ from the paper's because the "
            "initialisation differs (see the notes below)." + NET_CAPTION_TAIL
        ),
        columns=("optimizer", "step", "loss", "accuracy", "test_accuracy"),
        paper_figure=f"{PAPER}, Sec. 5.2",
        disk_cache=True,
    )
)
