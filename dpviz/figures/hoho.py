"""Figure specs of the HoHo page (Salem & Zanella-Beguelin 2021; FORMULAS.md section 3)."""

from __future__ import annotations

import threading
from typing import Any, Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpviz import ome
from dpviz.data import corpora
from dpviz.data.embeddings import get
from dpviz.figures import FigureSpec, register
from dpviz.figures.common import SEED
from dpviz.params import Param
from dpviz.stats import stream
from dpviz.theme import DASHES, OKABE_ITO, log_axis, style, two_line_title

PAGE = "hoho"
PAPER = "Salem & Zanella-Béguelin 2021"

EPSILONS = Param("epsilons", "float_list", (0.001, 0.01, 0.1, 1.0, 10.0), "Values of ε", "OME's claimed ε values (paper: 0.001 and 1).", min=1e-4, max=1000.0, max_items=12)
LAMBDAS = Param("lambdas", "float_list", (1.0, 10.0, 100.0), "Values of λ", "OME's λ (called alpha in the reference code; paper: 1, 10, 100).", min=1.0, max=10_000.0, max_items=8)
MECHS = Param("mechanisms", "choices", ome.MECHANISMS, "Mechanisms", "OME and the unary baselines SUE and OUE.", choices=ome.MECHANISMS, choice_labels={"ome": "OME", "sue": "SUE", "oue": "OUE"})
REPEATS = Param("repeats", "int", 100, "Encodings per target", "Each target sentence is encoded this many times among one encoding of every sentence (paper: 100).", min=2, max=2000, hosted_max=200)
TARGETS = Param("targets", "float", 0.1, "Share of sentences as targets", "Each target gives one AUC; mean and std across targets (paper: 10%).", min=0.01, max=1.0)
LINK_PARAMS = (EPSILONS, LAMBDAS, MECHS, REPEATS, TARGETS, SEED)

_VECTORS: dict[str, np.ndarray] = {}
_LOCK = threading.Lock()


def corpus_vectors() -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Max-pooled GloVe 6B 50d vectors of the movie-review sentences (cached per process)."""
    with _LOCK:
        if "mr" not in _VECTORS:
            sents, labels = corpora.movie_reviews()
            _VECTORS["mr"] = (corpora.sentence_vectors(sents, get("glove-6b-50d")), labels, sents)
        return _VECTORS["mr"]


def attack_table(v: Mapping[str, Any], progress=None) -> pd.DataFrame:
    X, _, _ = corpus_vectors()
    rows = []
    combos = [(m, lam) for m in v["mechanisms"] for lam in (v["lambdas"] if m == "ome" else [np.nan])]
    total, done = len(combos) * len(v["epsilons"]), 0
    for i, (m, lam) in enumerate(combos):
        for j, eps in enumerate(v["epsilons"]):
            rng = stream(v["seed"], 3100 + i, j)
            aucs, recon = ome.attack_corpus(X, m, lam, eps, v["targets"], v["repeats"], rng)
            rows.append((m, lam, eps, aucs.mean(), aucs.std(), recon.mean(), recon.std()))
            done += 1
            if progress:
                progress(done / total, f"{m.upper()} λ = {lam:g}, ε = {eps:g}")
    return pd.DataFrame(rows, columns=["mechanism", "lambda", "epsilon", "auc_mean", "auc_std", "accuracy_mean", "accuracy_std"])


def _series(df):
    for k, (key, part) in enumerate(df.groupby(["mechanism", "lambda"], dropna=False, sort=False)):
        m, lam = key
        label = f"OME, λ = {lam:g}" if m == "ome" else m.upper()
        yield k, label, part.sort_values("epsilon")


def _line_render(df, v, col, std, ytitle, title, detail, chance=None):
    fig = go.Figure()
    for k, label, part in _series(df):
        fig.add_trace(go.Scatter(x=part.epsilon, y=part[col], error_y=dict(type="data", array=part[std], thickness=1), name=label,
                                 mode="lines+markers", line=dict(color=OKABE_ITO[k % 8], dash=DASHES[k % 6], width=2.5)))
    if chance is not None:
        fig.add_hline(y=chance, line=dict(color="#777", dash="dot"), annotation_text="chance")
    log_axis(fig, "x", title="claimed ε (log scale)")
    fig.update_yaxes(title=ytitle, range=[0.4, 1.02])
    fig.update_layout(legend=dict(orientation="h", y=-0.2))
    return style(fig, two_line_title(title, detail), height=460)


def _linking_compute(v, progress=None):
    return attack_table(v, progress)[["mechanism", "lambda", "epsilon", "auc_mean", "auc_std"]]


def _recon_compute(v, progress=None):
    return attack_table(v, progress)[["mechanism", "lambda", "epsilon", "accuracy_mean", "accuracy_std"]]


register(FigureSpec(
    id="hoho-linking", title="Linking a sentence to its encodings (paper's Figure 1a)", page=PAGE, params=LINK_PARAMS,
    compute=_linking_compute,
    render=lambda df, v: _line_render(df, v, "auc_mean", "auc_std", "linking ROC AUC (mean ± std over targets)",
                                      "HoHo links OME encodings to their sentence", f"200 movie-review sentences, {v['repeats']} encodings per target, seed {v['seed']}", 0.5),
    caption=("An attacker who holds a candidate sentence scores every encoding by how many even bits match the candidate's "
             "own encoding. An AUC of 1 means the target's encodings are told apart from every other sentence's: for λ ≥ 10 "
             "OME links perfectly whatever ε claims, while λ = 1 and the unary baselines stay near chance, as the paper found."),
    columns=("mechanism", "lambda", "epsilon", "auc_mean", "auc_std"), paper_figure=f"{PAPER}, Figure 1a",
))

register(FigureSpec(
    id="hoho-reconstruction", title="Reconstructing the plaintext bits (paper's Figure 1b)", page=PAGE, params=LINK_PARAMS,
    compute=_recon_compute,
    render=lambda df, v: _line_render(df, v, "accuracy_mean", "accuracy_std", "share of bits recovered (mean ± std)",
                                      "The even bits of an OME encoding are the plaintext's", f"even bits for OME, all bits for SUE/OUE; seed {v['seed']}", 0.5),
    caption=("Taking the perturbed bits as they are recovers the plaintext's even bits with probability about λ/(1+λ): "
             "99% at λ = 100, 91% at λ = 10, chance at λ = 1, whatever the claimed ε. For SUE and OUE the share is high "
             "only because most unary bits are zeros."),
    columns=("mechanism", "lambda", "epsilon", "accuracy_mean", "accuracy_std"), paper_figure=f"{PAPER}, Figure 1b",
))


# bounds ---------------------------------------------------------------------------------------------

EPS_ONE = Param("epsilon", "float", 1.0, "Claimed ε", "The ε OME claims.", min=1e-4, max=1000.0, log=True)
R_DIMS = Param("r", "int", 1, "Values per input (r)", "How many floats one input holds (1 for the paper's audit, 50 for a sentence vector).", min=1, max=200)
LOW = Param("low", "float", -10.0, "Input range: low", "Smallest input value (the domain is every 1/32 step in the range).", min=-31.0, max=31.0)
HIGH = Param("high", "float", 10.0, "Input range: high", "Largest input value.", min=-31.0, max=63.0)
LAMBDA = Param("lambda_", "float", 10.0, "λ to mark", "The λ marked on the chart.", min=1.0, max=10_000.0, log=True)
LAMBDA_GRID = np.geomspace(1, 1000, 31)


def _bounds_compute(v, progress=None) -> pd.DataFrame:
    if not v["low"] < v["high"]:
        raise ValueError(f"The input range is empty: low ({v['low']:g}) must be below high ({v['high']:g}).")
    domain = np.arange(np.ceil(v["low"] * 32), np.floor(v["high"] * 32) + 1) / 32
    lams = np.unique(np.r_[LAMBDA_GRID, v["lambda_"]])
    rows = [(lam, v["epsilon"], v["epsilon"], ome.hoho_bound(lam, v["epsilon"], v["r"]), ome.exact_worst_case(lam, v["epsilon"], domain, v["r"])) for lam in lams]
    return pd.DataFrame(rows, columns=["lambda", "epsilon", "epsilon_claimed", "epsilon_hoho_bound", "epsilon_exact"])


def _bounds_render(df: pd.DataFrame, v) -> go.Figure:
    fig = go.Figure()
    for k, (col, label) in enumerate([("epsilon_exact", "exact worst-case loss (bit by bit)"), ("epsilon_hoho_bound", "HoHo's bound r·l·ln λ + ε/2"), ("epsilon_claimed", "claimed ε")]):
        fig.add_trace(go.Scatter(x=df["lambda"], y=df[col], name=label, line=dict(color=OKABE_ITO[k], dash=DASHES[k], width=2.5)))
    row = df.loc[(df["lambda"] - v["lambda_"]).abs().idxmin()]
    fig.add_trace(go.Scatter(x=[row["lambda"]] * 2, y=[row.epsilon_exact, row.epsilon_hoho_bound], mode="markers", marker=dict(size=10, color="#000"),
                             name=f"λ = {row['lambda']:g}: exact {row.epsilon_exact:.4g}, HoHo {row.epsilon_hoho_bound:.4g}"))
    log_axis(fig, "x", title="λ (log scale)")
    log_axis(fig, "y", title="privacy loss ε (log scale)")
    fig.update_layout(legend=dict(orientation="h", y=-0.2))
    return style(fig, two_line_title("OME's real privacy loss against λ", f"r = {v['r']}, inputs in [{v['low']:g}, {v['high']:g}] in steps of 1/32, claimed ε = {v['epsilon']:g}"), height=480)


register(FigureSpec(
    id="ome-bounds", title="Claimed ε, HoHo's bound and the exact worst case", page=PAGE, params=(EPS_ONE, R_DIMS, LOW, HIGH, LAMBDA),
    compute=_bounds_compute, render=_bounds_render,
    caption=("Bits are perturbed independently, so the worst-case privacy loss is a sum over the bits two inputs differ in, "
             "each contributing its largest log-ratio; enumerating every pair of encodings in the input range gives it exactly. "
             "For λ > 1 it exceeds HoHo's bound: an odd bit is kept with p₂ = 1/(1+λ³), so one odd bit can contribute about "
             "2·ln λ, not ln λ. The claimed ε is off by orders of magnitude either way."),
    columns=("lambda", "epsilon", "epsilon_claimed", "epsilon_hoho_bound", "epsilon_exact"), paper_figure=f"{PAPER}, Sec. 3.2",
))


# live example ------------------------------------------------------------------------------------------

SENTENCE_INDEX = Param("sentence_index", "int", 0, "Example sentence (#)", "Which movie-review sentence the example encodes (0-199).", min=0, max=199)
EX_LAMBDA = Param("example_lambda", "float", 10.0, "Example λ", "λ of the example encoding.", min=1.0, max=10_000.0, log=True)
EX_EPS = Param("example_epsilon", "float", 1.0, "Example ε", "Claimed ε of the example encoding.", min=1e-4, max=1000.0, log=True)


def _example_compute(v, progress=None) -> pd.DataFrame:
    X, _, sents = corpus_vectors()
    i = v["sentence_index"]
    clean = ome.encode(X[i : i + 1])[0]
    enc = ome.perturb_ome(clean[None], v["example_lambda"], v["example_epsilon"], stream(v["seed"], 3200, i))[0]
    return pd.DataFrame({"bit": np.arange(len(clean)), "original": clean, "encoded": enc, "even": np.arange(len(clean)) % 2 == 0})


def example_scores(df: pd.DataFrame, v) -> tuple[float, float, int]:
    """HoHo score of the example encoding against its own sentence and against another one."""
    X, _, _ = corpus_vectors()
    other = (v["sentence_index"] + 100) % len(X)
    own = float(ome.hoho_score(df["encoded"].to_numpy(), df["original"].to_numpy())[0])
    wrong = float(ome.hoho_score(df["encoded"].to_numpy(), ome.encode(X[other : other + 1])[0])[0])
    return own, wrong, other


def _example_render(df: pd.DataFrame, v) -> go.Figure:
    own, wrong, other = example_scores(df, v)
    _, _, sents = corpus_vectors()
    z = np.vstack([df.original, df.encoded, (df.original == df.encoded) & df.even]).astype(float)
    fig = go.Figure(go.Heatmap(z=z, y=["plaintext bits", "one OME encoding", "even bits that match"], colorscale=[[0, "#f2f2f2"], [1, "#0072B2"]],
                               showscale=False, xgap=0.5, ygap=3, hovertemplate="bit %{x}: %{z}<extra>%{y}</extra>"))
    fig.update_xaxes(title="bit position (11 bits per value; the attack reads the even positions)")
    fig.update_yaxes(autorange="reversed")
    title = two_line_title(f"HoHo score {own:.3f} against the true sentence, {wrong:.3f} against sentence #{other}",
                           f"#{v['sentence_index']}: \"{sents[v['sentence_index']][:80]}\" · λ = {v['example_lambda']:g}, ε = {v['example_epsilon']:g}")
    return style(fig, title, height=330)


register(FigureSpec(
    id="hoho-example", title="One sentence, one encoding", page=PAGE, params=(SENTENCE_INDEX, EX_LAMBDA, EX_EPS, SEED),
    compute=_example_compute, render=_example_render,
    caption=("The 550 bits of one sentence vector (50 values × 11 bits) and one OME encoding of them. Ones are blue. The even "
             "bits survive with probability λ/(1+λ), so the attacker's score against the true sentence is high, against another "
             "sentence much lower."),
    columns=("bit", "original", "encoded", "even"), paper_figure=f"{PAPER}, Algorithm 1",
))
