"""Figure specs and renders of the metric-DP page (Feyisetan et al. 2020; docs/formulas.md,
section 2). The parameters are declared in params.py, the prepared state (embeddings, word
draws, statistics) is computed in pipeline.py."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpviz.data.embeddings import resolve
from dpviz.errors import InputError
from dpviz.frontier import frontier_spec
from dpviz.papers.metric import calibration
from dpviz.papers.metric import mechanism as mdp
from dpviz.papers.metric.params import (
    EMBEDDING,
    EPSILON,
    HIST_EPS,
    KNN_WORDS,
    SWEEP_DIR,
    TARGET,
    TARGET_OP,
    TARGET_STAT,
    VOCAB,
    WORD_PARAMS,
)
from dpviz.papers.metric.pipeline import knn_distances, tables, tables_along, word_state, word_table
from dpviz.params import SEED
from dpviz.registry import FigureSpec, get, register, unchanged
from dpviz.theme import DASHES, OKABE_ITO, go, log_axis, mark_x, ref_line, rgba, style, subplots, two_line_title

QUICK_WORDS = {"words": "3", "samples": "100", "epsilons": "2,5,10,30"}
"""Reduced settings the registry-wide tests run these figures at."""
PAGE = "metric"
PAPER = "Feyisetan et al. 2020"


STAT_LABEL = {"n_w": "N_w: draws with M(w) = w", "s_w": "S_w: distinct outputs", "s_w_eta": "S_w^η"}


def _band(fig, x, lo, hi, color, group, row=None, col=None):
    kw = dict(row=row, col=col) if row else {}
    fig.add_trace(
        go.Scatter(
            x=list(x) + list(x)[::-1],
            y=list(hi) + list(lo)[::-1],
            fill="toself",
            fillcolor=rgba(color, 0.18),
            mode="lines",
            line=dict(width=0),
            hoverinfo="skip",
            showlegend=False,
            legendgroup=group,
        ),
        **kw,
    )


def mark_epsilon(fig, v, top: float, axes=(("x", "y"),)) -> None:
    """The slider's ε from 0 to ``top`` in each panel."""
    mark_x(fig, v["epsilon"], 0, top, f"the slider's ε = {v['epsilon']:g}", axes)


TWO_PANELS = (("x", "y"), ("x2", "y2"))


def _caption_n(v) -> str:
    return f"{v['samples']:,} draws per word, seed {v['seed']}"


# 1. metric-stats ----------------------------------------------------------------------------------


def _stats_compute(v, progress=None) -> pd.DataFrame:
    return word_table(v, "embedding", progress)[["word", "epsilon", "n_w", "s_w", "s_w_eta"]]


def _stats_render(df: pd.DataFrame, v) -> go.Figure:
    fig = subplots.make_subplots(
        rows=1, cols=2, subplot_titles=(STAT_LABEL["s_w"], STAT_LABEL["n_w"]), horizontal_spacing=0.1
    )
    words = df.word.nunique()
    for c, stat in enumerate(("s_w", "n_w"), start=1):
        for word, part in df.groupby("word") if words > 1 else ():  # one word: its line is the mean
            fig.add_trace(
                go.Scatter(
                    x=part.epsilon,
                    y=part[stat],
                    mode="lines",
                    line=dict(color="rgba(0,114,178,0.25)", width=1),
                    name=word,
                    showlegend=False,
                    hovertemplate=f"{word}: %{{y}} at ε = %{{x}}<extra></extra>",
                ),
                row=1,
                col=c,
            )
        mean = df.groupby("epsilon")[stat].mean()
        fig.add_trace(
            go.Scatter(
                x=mean.index,
                y=mean.values,
                mode="lines+markers",
                line=dict(color="#000", width=3),
                name="mean over words" if words > 1 else f"“{df.word.iloc[0]}”" if words else "no words",
                showlegend=c == 1,
            ),
            row=1,
            col=c,
        )
        fig.update_yaxes(title=f"count (of {v['samples']:,})", row=1, col=c)
    log_axis(fig, "x", title="ε (log scale)")
    fig.update_layout(legend=dict(x=0.01, y=-0.2, orientation="h"))
    return style(
        fig,
        two_line_title(
            f"Plausible deniability per word on {v['embedding']}",
            (f"{words:,} words (thin lines), " if words != 1 else f"the word “{df.word.iloc[0]}”, ") + _caption_n(v),
        ),
        height=460,
    )


register(
    FigureSpec(
        id="metric-stats",
        quick=QUICK_WORDS,
        title="N_w and S_w per word",
        page=PAGE,
        params=WORD_PARAMS + (EPSILON,),
        prepare=_stats_compute,
        evaluate=unchanged,
        live=("epsilon",),
        mark=lambda fig, v: mark_epsilon(fig, v, v["samples"], TWO_PANELS),
        render=_stats_render,
        caption=(
            "Each thin line is one word: S_w counts the distinct words its N releases turned into, N_w how often "
            "the word came back unchanged. Small ε scatters every release (S_w near N, N_w near 0); large ε returns "
            "the word itself. Frequent words sit in dense regions and lose their identity at a larger ε than rare ones."
        ),
        columns=("word", "epsilon", "n_w", "s_w", "s_w_eta"),
        paper_figure=f"{PAPER}, Sec. 3",
        disk_cache=False,
    )
)


# 1b. live: every sampled word at the slider's ε --------------------------------------------------


def _live_prepare(v, progress=None) -> dict[int, mdp.Envelopes]:
    return word_state(v, "embedding", progress)


LIVE_COLUMNS = ["word", "epsilon", "n_w", "s_w", "s_w_eta", "cosine"]


def _live_evaluate(state: dict[int, mdp.Envelopes], v) -> pd.DataFrame:
    df = mdp.stats_at(resolve(v["embedding"]), state, [v["epsilon"]], v["eta"])
    return df[LIVE_COLUMNS]


def _live_along_epsilon(v, epsilons) -> list[pd.DataFrame]:
    """The tables at many ε from one ``stats_at`` call over the same draws: each ε's rows (word by
    word) as a call with that ε alone gives them, to the last bit."""
    df = mdp.stats_at(resolve(v["embedding"]), _live_prepare(v), epsilons, v["eta"])[LIVE_COLUMNS]
    return mdp.stats_by_epsilon(df, len(epsilons))


def by_count_then_word(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` sorted by N_w, then by word (ties of both kept in table order: the same in every
    process), as ``df.sort_values(["n_w", "word"], kind="stable")`` sorts it: two stable argsorts
    of the columns' arrays, the word's first (words compare by code point, as Arrow's text
    does). pandas' sort by two columns factorises both, a third of a millisecond at each frame."""
    words, counts = df["word"].to_numpy(), df["n_w"].to_numpy()
    order = np.argsort(words, kind="stable")
    return df.take(order[np.argsort(counts[order], kind="stable")])


def _live_render(df: pd.DataFrame, v) -> go.Figure:
    df = by_count_then_word(df)
    n = v["samples"]
    fig = subplots.make_subplots(
        rows=1,
        cols=2,
        shared_yaxes=True,
        horizontal_spacing=0.08,  # at 0.04 the left panel's last tick (1000) ran into the right's first (0)
        # each title on two lines: side by side at the page's width they ran into each other
        subplot_titles=(f"N_w: releases that keep<br>the word (of {n:,})", f"S_w: distinct outputs<br>(of {n:,})"),
    )
    fig.add_trace(
        go.Bar(
            y=df.word,
            x=df.n_w,
            orientation="h",
            marker_color=OKABE_ITO[1],
            name="N_w",
            showlegend=False,
            hovertemplate="%{y}: N_w = %{x}<extra></extra>",
            # each bar's count written on it (or beside it when short: at large ε every S_w is 1, a
            # bar too thin to see on an axis of N, and the panel looked empty)
            texttemplate="%{x}",
            textposition="auto",
            textfont=dict(size=11),
            insidetextfont=dict(color="#000"),  # 5.3:1 on the orange (white is 3.9:1)
            cliponaxis=False,
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Bar(
            y=df.word,
            x=df.s_w,
            orientation="h",
            marker_color=OKABE_ITO[0],
            name="S_w",
            showlegend=False,
            hovertemplate="%{y}: S_w = %{x}<extra></extra>",
            # each bar's count written on it (or beside it when short: at large ε every S_w is 1, a
            # bar too thin to see on an axis of N, and the panel looked empty)
            texttemplate="%{x}",
            textposition="auto",
            textfont=dict(size=11),
            insidetextfont=dict(color="#fff"),  # 5.3:1 on the blue
            cliponaxis=False,
        ),
        row=1,
        col=2,
    )
    fig.update_xaxes(range=[0, n * 1.02], title="count")
    outputs = f"{df.s_w.mean():,.0f}"
    title = two_line_title(
        f"At ε = {v['epsilon']:g}: on average {df.n_w.mean():,.0f} of {n:,} releases keep the word, "
        f"{outputs} distinct output{'' if outputs == '1' else 's'}",
        f"{len(df)} words of {v['embedding']}, {_caption_n(v)}; exact for this ε from the same draws as every ε",
    )
    fig.update_layout(margin=dict(t=140))  # the two-line title above the two-line panel titles
    return style(fig, title, height=max(380, 160 + 26 * len(df)))


register(
    FigureSpec(
        id="metric-live",
        title="Every sampled word at the slider's ε",
        page=PAGE,
        params=WORD_PARAMS + (EPSILON,),
        prepare=_live_prepare,
        evaluate=_live_evaluate,
        live=("epsilon",),
        render=_live_render,
        along={"epsilon": _live_along_epsilon},
        caption=(
            "Drag ε. Each word's N releases were drawn once; each draw's output is known for every ε at once (a ray "
            "φ(w) + t·u with t = G/ε changes its nearest word only at a few breakpoints), so any ε is answered "
            "exactly in "
            "milliseconds. Words that keep their identity at small ε sit far from their neighbours."
        ),
        columns=("word", "epsilon", "n_w", "s_w", "s_w_eta", "cosine"),
        paper_figure=f"{PAPER}, Sec. 3",
    )
)


# 2. Figure 3: averages, two embeddings ---------------------------------------------------------------


def _fig3_compute(v, progress=None) -> pd.DataFrame:
    return calibration.summary(tables(v, progress))


def _fig3_render(df: pd.DataFrame, v) -> go.Figure:
    fig = subplots.make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("average S_w (distinct outputs)", "average N_w (unchanged)"),
        horizontal_spacing=0.1,
    )
    for k, (emb, part) in enumerate(df.groupby("embedding", sort=False)):
        for c, stat in enumerate(("s_w", "n_w"), start=1):
            p = part[part.statistic == stat].sort_values("epsilon")
            _band(fig, p.epsilon, p.q25, p.q75, OKABE_ITO[k], emb, 1, c)
            fig.add_trace(
                go.Scatter(
                    x=p.epsilon,
                    y=p["mean"],
                    name=emb,
                    legendgroup=emb,
                    showlegend=c == 1,
                    mode="lines+markers",
                    line=dict(color=OKABE_ITO[k], dash=DASHES[k], width=2.5),
                ),
                row=1,
                col=c,
            )
            fig.update_yaxes(title=f"count (of {v['samples']:,})", row=1, col=c)
    log_axis(fig, "x", title="ε (log scale)")
    fig.update_layout(legend=dict(orientation="h", y=-0.22))
    return style(
        fig,
        two_line_title(
            "Average plausible deniability against ε (paper's Figure 3)",
            f"mean over words, band: interquartile range; {_caption_n(v)}",
        ),
        height=460,
    )


register(
    FigureSpec(
        id="metric-figure3",
        quick=QUICK_WORDS,
        title="Average S_w and N_w against ε (paper's Figure 3)",
        page=PAGE,
        params=WORD_PARAMS + (SWEEP_DIR,) + (EPSILON,),
        prepare=_fig3_compute,
        evaluate=unchanged,
        live=("epsilon",),
        mark=lambda fig, v: mark_epsilon(fig, v, v["samples"], TWO_PANELS),
        render=_fig3_render,
        caption=(
            "The same ε means different privacy on different embeddings: the curves of two embeddings are shifted, "
            "because their vectors are spread differently (dimension, density). Choose a comparison embedding in the "
            "sidebar to overlay it; the band is the interquartile range across words."
        ),
        columns=("embedding", "epsilon", "statistic", "mean", "q25", "q75"),
        paper_figure=f"{PAPER}, Figure 3",
    )
)


# 3. Figures 4-6: histograms ----------------------------------------------------------------------------


FEW_WORDS = 60
"""Up to this many words a panel shows every word as a dot (a strip plot); above, a histogram."""
MAX_BINS = 40
MAX_TOTAL_BINS = 200
"""Bins over 0..N at most: words all near one value at N = 20,000 would otherwise get 20,001 bins."""


def hist_edges(values: np.ndarray, samples: int) -> np.ndarray:
    """Bin edges over 0..N for many words, their number chosen from the data: numpy's "auto" rule
    (the larger of Sturges' log2(W) + 1 and Freedman-Diaconis' 2 IQR / W^(1/3) bins, over the range
    the words take), held to 5..MAX_BINS bins, each a whole number of samples wide (S_w and N_w are
    counts out of N) and at least one wide, and at most MAX_TOTAL_BINS over 0..N: a 10-word sample
    got 20 fixed bins, almost all empty."""
    values = np.asarray(values, dtype=float)
    span = max(1.0, float(values.max() - values.min())) if len(values) else 1.0
    used = len(np.histogram_bin_edges(values, bins="auto")) - 1 if len(values) > 1 else 1
    width = max(1, int(np.ceil(span / min(max(used, 5), MAX_BINS))), int(np.ceil((samples + 1) / MAX_TOTAL_BINS)))
    bins = int(np.ceil((samples + 1) / width))
    edges = -0.5 + width * np.arange(bins + 1)  # bin i holds the counts i*width .. (i+1)*width - 1
    edges[-1] = min(edges[-1], samples + 0.5)  # the last bin ends at N (it may be narrower)
    return edges


def _hist_rows(df: pd.DataFrame, series: str, edges: dict | None = None) -> list[tuple]:
    """Per (embedding, ε, statistic): with at most FEW_WORDS words, one row per value a word takes
    (bin_low = bin_high = the value, count = how many words take it: the strip plot's dots); with
    more, one row per bin of ``edges[(embedding, statistic)]`` (or :func:`hist_edges` of these words)."""
    rows = []
    # the groups of (embedding, ε) in the order they first come, as pandas' groupby(sort=False),
    # from plain arrays: this runs at every frame of the slider
    groups: dict[tuple, list[int]] = {}
    for i, key in enumerate(zip(df["embedding"].tolist(), df["epsilon"].tolist())):
        groups.setdefault(key, []).append(i)
    stats = {stat: df[stat].to_numpy(dtype=float) for stat in ("s_w", "n_w")}
    samples = df["samples"].to_numpy()
    for (emb, eps), at in groups.items():
        n = int(samples[at[0]])  # a sweep may use another N
        for stat in ("s_w", "n_w"):
            values = stats[stat][at]
            if len(values) <= FEW_WORDS:
                taken, counts = np.unique(values, return_counts=True)
                rows += [(emb, eps, series, stat, x, x, int(c)) for x, c in zip(taken, counts)]
                continue
            e = (edges or {}).get((emb, stat))
            e = hist_edges(values, n) if e is None else e
            counts, _ = np.histogram(values, bins=e)
            rows += [(emb, eps, series, stat, e[i], e[i + 1], int(counts[i])) for i in range(len(counts))]
    return rows


def _shared_edges(df: pd.DataFrame) -> dict:
    """One set of bins per (embedding, statistic), from all the listed ε's words: the curves of one
    panel count over the same bins, and the slider's curve over them too."""
    out = {}
    for emb, part in df.groupby("embedding", sort=False):
        for stat in ("s_w", "n_w"):
            out[(emb, stat)] = hist_edges(part[stat].to_numpy(dtype=float), int(part["samples"].max()))
    return out


HIST_COLUMNS = ("embedding", "epsilon", "series", "statistic", "bin_low", "bin_high", "count")


def _hist_prepare(v, progress=None) -> dict:
    listed = tables(dict(v, epsilons=v["hist_epsilons"]), progress)
    edges = _shared_edges(listed)
    return {"rows": pd.DataFrame(_hist_rows(listed, "listed", edges), columns=list(HIST_COLUMNS)), "edges": edges}


def _hist_evaluate(state: dict, v) -> pd.DataFrame:
    """The listed ε, plus the slider's ε evaluated from the same draws and counted in the same bins."""
    return _with_slider_rows(state, tables(dict(v, epsilons=[v["epsilon"]])))


def _hist_along_epsilon(v, epsilons) -> list[pd.DataFrame]:
    """:func:`_hist_evaluate` at many ε, the slider's rows of every ε from one evaluation of the
    same draws (:func:`tables_along`)."""
    state = get("metric-histograms").state(v)
    return [_with_slider_rows(state, live) for live in tables_along(v, epsilons)]


def _with_slider_rows(state: dict, live: pd.DataFrame) -> pd.DataFrame:
    """The listed ε's rows (``state``) and those of the slider's ε (the words' table ``live``),
    counted in the listed ε's bins."""
    slider = pd.DataFrame(_hist_rows(live, "slider", state["edges"]), columns=list(HIST_COLUMNS))
    return pd.concat([state["rows"], slider], ignore_index=True)


def _hist_panels(df: pd.DataFrame) -> dict[tuple[str, str], list[tuple[str, float, np.ndarray]]]:
    """The table's rows by panel, (embedding, statistic), and in a panel by curve: (series, ε, the
    rows' positions in table order), the curves sorted by series then ε, as pandas' groupby sorts
    them. One pass over plain arrays: the chart is drawn at every frame of the slider, where a
    filter and a groupby per panel cost more than the drawing."""
    keys = zip(df["embedding"].tolist(), df["statistic"].tolist(), df["series"].tolist(), df["epsilon"].tolist())
    rows: dict[tuple, list[int]] = {}
    for i, key in enumerate(keys):
        rows.setdefault(key, []).append(i)
    panels: dict[tuple[str, str], list[tuple[str, float, np.ndarray]]] = {}
    for emb, stat, series, eps in sorted(rows, key=lambda k: (k[2], k[3])):
        panels.setdefault((emb, stat), []).append((series, eps, np.array(rows[emb, stat, series, eps])))
    return panels


def _hist_render(df: pd.DataFrame, v) -> go.Figure:
    """Each panel one statistic of one embedding: with few words (the table's bins are single
    values) every word a dot on its ε's row, words with the same value stacked; with many a
    histogram per ε on a log count axis, as in the paper."""
    embs = list(dict.fromkeys(df.embedding))
    low, high, count = (df[c].to_numpy() for c in ("bin_low", "bin_high", "count"))
    strip = bool(len(df)) and bool((low == high).all())
    short = {"s_w": "S_w", "n_w": "N_w"}  # two panels side by side leave no room for the long labels
    titles = [f"{short[s] if len(embs) > 1 else STAT_LABEL[s]} · {e}" for s in ("s_w", "n_w") for e in embs]
    # with dots, every panel's rows are labelled by their ε ("ε = 10 (slider)", some 110 px): at 0.1
    # of the width between panels a right panel's labels lay over its left neighbour's dots
    fig = subplots.make_subplots(
        rows=2, cols=len(embs), subplot_titles=titles, vertical_spacing=0.24, horizontal_spacing=0.22 if strip else 0.1
    )
    n = int(v["samples"])
    panels = _hist_panels(df)
    for r, stat in enumerate(("s_w", "n_w"), start=1):
        for c, emb in enumerate(embs, start=1):
            rows = []
            for k, (series, eps, at) in enumerate(panels.get((emb, stat), [])):
                slider = series == "slider"
                name = f"ε = {eps:g}" + (" (slider)" if slider else "")
                color = "#000" if slider else OKABE_ITO[k % 8]
                rows.append(name)
                if strip:
                    fig.add_trace(_strip_trace(low[at], count[at], k, name, color, stat), row=r, col=c)
                    continue
                counts = count[at].astype(float)
                counts[counts == 0] = np.nan
                fig.add_trace(
                    go.Scatter(
                        x=(low[at] + high[at]) / 2,
                        y=counts,
                        mode="lines+markers",
                        line=dict(color=color, shape="hvh", width=4 if slider else 2),
                        name=name,
                        legendgroup=f"{series}{eps}",
                        showlegend=(r == 1 and c == 1),
                    ),
                    row=r,
                    col=c,
                )
            fig.update_xaxes(title=dict(text=f"{STAT_LABEL[stat].split(':')[0]} (of {n:,})", standoff=4), row=r, col=c)
            if strip:
                fig.update_xaxes(range=[-0.03 * n, 1.03 * n], row=r, col=c)
                fig.update_yaxes(
                    tickvals=list(range(len(rows))), ticktext=rows, range=[-0.6, len(rows) - 0.4], row=r, col=c
                )
    if strip:
        fig.update_layout(showlegend=False)
        note = "one dot per word, words with the same value side by side"
        # every ε's row labelled: 32 px a row in each of the two panels (a crowded axis drops labels)
        rows = max(len(curves) for curves in panels.values())
        height = max(660, 2 * 32 * rows + 300)
    else:
        height = 660
        top = max(1, int(count.max()))
        # counts are whole words: label 1, 2, 5, 10, ... from one word up to the fullest bin
        log_axis(fig, "y", title="words (log scale)", range=[-0.1, np.log10(top) + 0.15])
        fig.update_layout(legend=dict(title="ε"))
        note = "empty bins not drawn"
    return style(
        fig,
        two_line_title("How S_w and N_w are spread across words (paper's Figures 4-6)", f"{_caption_n(v)}; {note}"),
        height=height,
    )


_STRIPS: dict[tuple, object] = {}
"""The fast drawing's strip traces by their arguments (:func:`_strip_trace`), at most
:data:`STRIPS_KEPT`: the listed ε's rows are the same at every frame of the slider."""
STRIPS_KEPT = 256


def _strip_trace(values: np.ndarray, counts: np.ndarray, row: int, name: str, color: str, stat: str) -> go.Scatter:
    """One ε's words as dots on row ``row``: a value k words take (``values`` and their ``counts``)
    is k dots spread across the row. Under the fast drawing (a live chart's frames), a trace made
    once is given again for the same arguments: the listed ε's five rows in each panel are the
    same at every frame (its figure copies a trace it is given, :meth:`dpviz.fast_figure.Figure.add_trace`,
    and never changes one in place); Plotly's figures get a new trace each time."""
    key = None
    if getattr(go.Figure, "fast", False):
        key = (values.dtype.str, values.tobytes(), counts.dtype.str, counts.tobytes(), row, name, color, stat)
        kept = _STRIPS.get(key)
        if kept is not None:
            return kept
    trace = _new_strip_trace(values, counts, row, name, color, stat)
    if key is not None:
        if len(_STRIPS) >= STRIPS_KEPT:
            _STRIPS.clear()
        _STRIPS[key] = trace
    return trace


def _new_strip_trace(values: np.ndarray, counts: np.ndarray, row: int, name: str, color: str, stat: str) -> go.Scatter:
    counts = counts.astype(int)
    ks, xs = np.repeat(counts, counts), np.repeat(values, counts)
    # the dots of one value side by side around the row, min(0.15, 0.6/k) apart: the j-th of its k
    # dots at j − (k − 1)/2 steps from it
    within = np.arange(ks.size) - np.repeat(np.cumsum(counts) - counts, counts)
    ys = row + (within - (ks - 1) / 2) * np.minimum(0.15, 0.6 / ks)
    label = {"s_w": "S_w", "n_w": "N_w"}[stat]
    return go.Scatter(
        x=xs.tolist(),
        y=ys.tolist(),
        mode="markers",
        marker=dict(color=color, size=9, line=dict(width=1, color="#fff")),
        name=name,
        customdata=ks.tolist(),
        hovertemplate=f"{name}: {label} = %{{x}} for %{{customdata}} word(s)<extra></extra>",
    )


register(
    FigureSpec(
        id="metric-histograms",
        quick=QUICK_WORDS,
        title="Histograms of S_w and N_w (paper's Figures 4-6)",
        page=PAGE,
        params=WORD_PARAMS + (HIST_EPS, SWEEP_DIR, EPSILON),
        prepare=_hist_prepare,
        evaluate=_hist_evaluate,
        live=("epsilon",),
        render=_hist_render,
        along={"epsilon": _hist_along_epsilon},
        caption=(
            "At a fixed ε the words differ: some keep their identity almost always (high N_w), others almost never. "
            f"Up to {FEW_WORDS} words each word is a dot; with more, the counts are on a log axis, as in the "
            "paper; the paper's Figure 6 uses GloVe 50d at ε = 5, 7, 9, 11, "
            "12. "
            "The black dots or thick black line are the slider's ε, from the same draws."
        ),
        columns=HIST_COLUMNS,
        paper_figure=f"{PAPER}, Figures 4-6",
    )
)


# 4. calibration and matched ε -----------------------------------------------------------------------------


STAT_SYMBOL = {"n_w": "N_w", "s_w": "S_w"}
"""The statistics as the page's text writes them (the table's columns are n_w and s_w)."""

CAL_COLUMNS = (
    "embedding",
    "statistic",
    "operator",
    "target",
    "epsilon",
    "mean",
    "epsilon_low",
    "epsilon_high",
    "epsilon_at_target",
)


def _cal_compute(v, progress=None) -> pd.DataFrame:
    """Each embedding's average statistic per ε (the curve drawn) and, on every row of that
    embedding, the ε range meeting the target and the matched ε."""
    s = calibration.summary(tables(v, progress))
    parts = []
    for emb, part in s[s.statistic == v["target_stat"]].groupby("embedding", sort=False):
        part = part.sort_values("epsilon")
        ok = part["mean"] <= v["target"] if v["target_op"] == "at_most" else part["mean"] >= v["target"]
        good = part.loc[ok, "epsilon"]
        parts.append(
            pd.DataFrame(
                {
                    "embedding": emb,
                    "statistic": v["target_stat"],
                    "operator": v["target_op"],
                    "target": v["target"],
                    "epsilon": part.epsilon.to_numpy(),
                    "mean": part["mean"].to_numpy(),
                    "epsilon_low": float(good.min()) if len(good) else np.nan,
                    "epsilon_high": float(good.max()) if len(good) else np.nan,
                    "epsilon_at_target": calibration.crossing(
                        part.epsilon.to_numpy(), part["mean"].to_numpy(), v["target"]
                    ),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)[list(CAL_COLUMNS)]


def _cal_render(df: pd.DataFrame, v) -> go.Figure:
    fig = go.Figure()
    for k, (emb, part) in enumerate(df.groupby("embedding", sort=False)):
        fig.add_trace(
            go.Scatter(
                x=part.epsilon,
                y=part["mean"],
                name=emb,
                mode="lines+markers",
                line=dict(color=OKABE_ITO[k], dash=DASHES[k], width=2.5),
            )
        )
        row = df[df.embedding == emb].iloc[0]
        if np.isfinite(row.epsilon_at_target):
            e = row.epsilon_at_target
            ref_line(
                fig,
                [e, e],
                [0, v["target"]],
                f"{emb}: matched ε ≈ {e:.3g}",
                color=OKABE_ITO[k],
                dash="dot",
                mode="lines+markers",
                marker=dict(size=[0, 12], symbol="diamond", color=OKABE_ITO[k]),
            )
    eps = df["epsilon"]
    ref_line(
        fig,
        [eps.min(), eps.max()],
        [v["target"]] * 2,
        f"target: average {STAT_SYMBOL[v['target_stat']]} {v['target_op'].replace('_', ' ')} {v['target']:g}",
        color="#000",
        dash="dash",
    )
    log_axis(fig, "x", title="ε (log scale)")
    fig.update_yaxes(title=f"average {STAT_SYMBOL[v['target_stat']]} (of {v['samples']:,})")
    fig.update_layout(legend=dict(orientation="h", y=-0.22))
    return style(
        fig,
        two_line_title(
            "Calibrate ε to a plausible-deniability target",
            "dashed: the target; dotted with ◆: the ε at which each embedding's average reaches it (matched ε)",
        ),
        height=500,
    )


register(
    FigureSpec(
        id="metric-calibrate",
        quick=QUICK_WORDS,
        title="Calibration: which ε meets a target",
        page=PAGE,
        params=WORD_PARAMS + (TARGET_STAT, TARGET_OP, TARGET) + (EPSILON,),
        prepare=_cal_compute,
        evaluate=unchanged,
        live=("epsilon",),
        mark=lambda fig, v: mark_epsilon(fig, v, v["samples"]),
        render=_cal_render,
        caption=(
            'State a target, e.g. "at most 10% of words unchanged" (N_w at most 100 of 1000) or "at least 50 distinct '
            'outputs", and read off the ε range that meets it on the computed grid for each embedding. The dotted '
            "lines are "
            "the matched ε (interpolated in log ε): comparing them across embeddings is the paper's point, e.g. GloVe "
            "at ε = 29 "
            "matched fastText at ε = 36 on average N_w."
        ),
        columns=CAL_COLUMNS,
        paper_figure=f"{PAPER}, Sec. 4",
    )
)


# 5. Renyi entropies ------------------------------------------------------------------------------------------


def _entropy_compute(v, progress=None) -> pd.DataFrame:
    df = word_table(v, "embedding", progress)
    df = df.assign(log_S_w=np.log(df.s_w), log_inv_Pw=-np.log(np.maximum(df.n_w, 0.5) / df.samples))
    cols = ["H_0", "H_1", "H_2", "H_inf", "log_S_w", "log_inv_Pw"]
    out = (
        df.groupby("epsilon")[cols].mean().reset_index().melt(id_vars="epsilon", var_name="quantity", value_name="mean")
    )
    return out


ENTROPY_STYLE = {
    "H_0": ("H₀ (Hartley)", 0, "solid"),
    "H_1": ("H₁ (Shannon)", 1, "solid"),
    "H_2": ("H₂ (collision)", 2, "solid"),
    "H_inf": ("H∞ (min-entropy)", 3, "solid"),
    "log_S_w": ("proxy log S_w", 0, "dot"),
    "log_inv_Pw": ("proxy log(N / N_w)", 3, "dot"),
}


def _entropy_render(df: pd.DataFrame, v) -> go.Figure:
    fig = go.Figure()
    for q, (label, c, dash) in ENTROPY_STYLE.items():
        p = df[df.quantity == q]
        fig.add_trace(
            go.Scatter(
                x=p.epsilon,
                y=p["mean"],
                name=label,
                mode="lines",
                line=dict(color=OKABE_ITO[c], dash=dash, width=2.5 if dash == "solid" else 3),
            )
        )
    log_axis(fig, "x", title="ε (log scale)")
    fig.update_yaxes(title="entropy (nats), mean over words")
    fig.update_layout(legend=dict(x=0.99, xanchor="right", y=0.99))
    return style(
        fig,
        two_line_title(
            f"Rényi entropies of M(w) and the paper's proxies ({v['embedding']})",
            f"empirical output distribution over {_caption_n(v)}; N_w = 0 counted as 0.5",
        ),
        height=460,
    )


register(
    FigureSpec(
        id="metric-entropy",
        quick=QUICK_WORDS,
        title="Rényi entropies of the output distribution",
        page=PAGE,
        params=WORD_PARAMS + (EPSILON,),
        prepare=_entropy_compute,
        evaluate=unchanged,
        live=("epsilon",),
        mark=lambda fig, v: mark_epsilon(fig, v, float(np.log(v["samples"]))),
        render=_entropy_render,
        caption=(
            "The paper's statistics are proxies for Rényi entropies of each word's output distribution: log S_w for "
            "the "
            "Hartley entropy H₀ and log(N/N_w) for the min-entropy H∞. Dotted proxies lie on their solid counterparts "
            "exactly where the empirical estimate is the entropy itself; H₁ and H₂ fall between the extremes."
        ),
        columns=("epsilon", "quantity", "mean"),
        paper_figure=f"{PAPER}, Sec. 3",
    )
)


# 6. utility beside privacy ------------------------------------------------------------------------------------


def _utility_compute(v, progress=None) -> pd.DataFrame:
    df = tables(v, progress)
    g = df.groupby(["embedding", "epsilon"])
    return pd.DataFrame(
        {"mean_cosine": g.cosine.mean(), "share_kept": (g.n_w.sum() / g.samples.sum()), "mean_s_w": g.s_w.mean()}
    ).reset_index()


def _utility_render(df: pd.DataFrame, v) -> go.Figure:
    fig = subplots.make_subplots(specs=[[{"secondary_y": True}]])
    for k, (emb, p) in enumerate(df.groupby("embedding", sort=False)):
        fig.add_trace(
            go.Scatter(
                x=p.epsilon,
                y=p.mean_cosine,
                name=f"{emb}: mean cos(φ(w), φ(M(w)))",
                line=dict(color=OKABE_ITO[k], width=2.5),
                legendgroup=emb,
            ),
            secondary_y=False,
        )
        fig.add_trace(
            go.Scatter(
                x=p.epsilon,
                y=p.share_kept,
                name=f"{emb}: share of words kept",
                line=dict(color=OKABE_ITO[k], dash="dash", width=2.5),
                legendgroup=emb,
            ),
            secondary_y=False,
        )
        fig.add_trace(
            go.Scatter(
                x=p.epsilon,
                y=p.mean_s_w,
                name=f"{emb}: average S_w (privacy)",
                line=dict(color=OKABE_ITO[k], dash="dot", width=2),
                legendgroup=emb,
            ),
            secondary_y=True,
        )
    log_axis(fig, "x", title="ε (log scale)")
    fig.update_yaxes(title="utility (cosine, share kept)", range=[-0.05, 1.05], secondary_y=False)
    n = v["samples"]
    # the same relative range as the left axis, so 0 and N sit on the left axis's 0 and 1
    fig.update_yaxes(title=f"average S_w (of {n:,})", secondary_y=True, showgrid=False, range=[-0.05 * n, 1.05 * n])
    fig.update_layout(legend=dict(orientation="h", y=-0.22))
    return style(fig, two_line_title("Utility beside privacy", f"{_caption_n(v)}"), height=500)


register(
    FigureSpec(
        id="metric-utility",
        quick=QUICK_WORDS,
        title="Utility beside privacy",
        page=PAGE,
        params=WORD_PARAMS + (EPSILON,),
        prepare=_utility_compute,
        evaluate=unchanged,
        live=("epsilon",),
        mark=lambda fig, v: mark_epsilon(fig, v, 1.0),
        render=_utility_render,
        caption=(
            "Solid: how similar the released word's vector is to the original; dashed: the share of releases that kept "
            "the word; dotted (right axis): the privacy side, distinct outputs. Where S_w falls, utility rises: the ε "
            "that gives useful rewrites is the ε where plausible deniability is gone."
        ),
        columns=("embedding", "epsilon", "mean_cosine", "share_kept", "mean_s_w"),
        paper_figure=f"{PAPER}",
    )
)


# the privacy-utility frontier (dpviz/frontier.py) ---------------------------------------------------

FRONTIER_PARAMS = WORD_PARAMS + (EPSILON,)
register(frontier_spec("metric", FRONTIER_PARAMS, quick=QUICK_WORDS))


# 7. Figure 2: k-nearest-neighbour distances ----------------------------------------------------------------------

PERCENTILES = (5, 20, 50, 80, 95)


def _knn_compute(v, progress=None) -> pd.DataFrame:
    """Per k (1..K_MAX) and percentile, that percentile of the sampled words' distances to their
    k-th nearest word: one row per (k, percentile), k-major. All the percentiles in one call along
    the words' axis (numpy's default linear interpolation, in float64 from faiss's float32
    distances), where one call per (k, percentile) took 0.5-1 s of a first view."""
    d = knn_distances(v, progress).astype(np.float64)
    at = np.percentile(d, PERCENTILES, axis=0)  # (percentile, k)
    k = d.shape[1]
    return pd.DataFrame(
        {
            "k": np.repeat(np.arange(1, k + 1, dtype=np.int64), len(PERCENTILES)),
            "percentile": np.tile(np.asarray(PERCENTILES, dtype=np.int64), k),
            "distance": at.T.ravel(),
        }
    )


def _knn_render(df: pd.DataFrame, v) -> go.Figure:
    fig = go.Figure()
    for i, p in enumerate(PERCENTILES):
        part = df[df.percentile == p]
        fig.add_trace(
            go.Scatter(
                x=part.k,
                y=part.distance,
                name=f"{p}th percentile",
                line=dict(color=OKABE_ITO[i], dash=DASHES[i], width=2.5),
            )
        )
    log_axis(fig, "x", title="k (log scale)")
    fig.update_yaxes(title="distance to k-th nearest word")
    fig.update_layout(legend=dict(x=0.01, y=0.99))
    return style(
        fig,
        two_line_title(
            f"How far the neighbours are ({v['embedding']}, paper's Figure 2)",
            f"{v['knn_words']} words from the top {v['vocab']:,}, seed {v['seed']}",
        ),
        height=460,
    )


register(
    FigureSpec(
        id="metric-knn-distances",
        quick={"knn_words": "20"},
        title="Distance to the k-th nearest neighbour (paper's Figure 2)",
        page=PAGE,
        params=(EMBEDDING, KNN_WORDS, VOCAB, SEED),
        compute=_knn_compute,
        render=_knn_render,
        caption=(
            "The noise radius has mean d/ε; a word's release changes once the noisy point is nearer another word. How "
            "far "
            "the neighbours are, across words, sets the ε scale at which an embedding starts to hide words: dense "
            "neighbourhoods (low curves) need less noise."
        ),
        columns=("k", "percentile", "distance"),
        paper_figure=f"{PAPER}, Figure 2",
    )
)


def _knn_hist_compute(v, progress=None) -> pd.DataFrame:
    d = knn_distances(v, progress)
    if d.shape[1] < 10:  # (an uploaded vocabulary of ten words or fewer)
        raise InputError(
            f"The histogram of distances to the 10th nearest word needs at least 11 words in the vocabulary; "
            f"this one gives each word {d.shape[1]} other word{'s' if d.shape[1] != 1 else ''}."
        )
    d = d[:, 9]
    counts, edges = np.histogram(d, bins=30)
    return pd.DataFrame({"bin_low": edges[:-1], "bin_high": edges[1:], "count": counts})


def _knn_hist_render(df: pd.DataFrame, v) -> go.Figure:
    fig = go.Figure(
        go.Bar(
            x=(df.bin_low + df.bin_high) / 2, y=df["count"], width=df.bin_high - df.bin_low, marker_color=OKABE_ITO[0]
        )
    )
    fig.update_xaxes(title="distance to the 10th nearest word")
    fig.update_yaxes(title="words")
    fig.update_layout(bargap=0)
    return style(
        fig,
        two_line_title("Distance to the 10th nearest neighbour", f"{v['embedding']}, {v['knn_words']} words"),
        height=380,
    )


register(
    FigureSpec(
        id="metric-knn-histogram",
        quick={"knn_words": "20"},
        title="Distance to the 10th neighbour (paper's Figure 2, right)",
        page=PAGE,
        params=(EMBEDDING, KNN_WORDS, VOCAB, SEED),
        compute=_knn_hist_compute,
        render=_knn_hist_render,
        caption=(
            "The spread of the 10th-neighbour distance across words. Words in the left tail have close neighbours "
            "and are hidden already at a larger ε than those in the right tail."
        ),
        columns=("bin_low", "bin_high", "count"),
        paper_figure=f"{PAPER}, Figure 2",
    )
)
