"""Figure specs and renders of the HoHo page (Salem & Zanella-Beguelin 2021; docs/formulas.md,
section 3). The attack's parameters are declared in params.py, its prepared state (sentence
vectors, the exact attack's counts) is computed in pipeline.py."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from dpviz.errors import InputError
from dpviz.frontier import frontier_spec
from dpviz.papers.hoho import exact as hoho_exact
from dpviz.papers.hoho import ome, utility
from dpviz.papers.hoho.params import CORPUS, EPSILON, LAMBDA, LINK_PARAMS, MECHANISM, TARGETS
from dpviz.papers.hoho.pipeline import attack_counts, attack_table, corpus_vectors
from dpviz.params import SEED, Param
from dpviz.registry import FigureSpec, register, unchanged
from dpviz.stats import stream
from dpviz.theme import DASHES, OKABE_ITO, go, log_axis, mark_x, ref_line, style, subplots, two_line_title

QUICK_ATTACK = {"targets": "0.05", "epsilons": "0.1,1", "lambdas": "1,10"}
"""Reduced settings the registry-wide tests run these figures at."""
PAGE = "hoho"
PAPER = "Salem & Zanella-Béguelin 2021"


def _series(df):
    for k, (key, part) in enumerate(df.groupby(["mechanism", "lambda"], dropna=False, sort=False)):
        m, lam = key
        label = f"OME, λ = {lam:g}" if m == "ome" else m.upper()
        yield k, label, part.sort_values("epsilon")


def _line_render(df, v, col, std, ytitle, title, detail, chance=None, bars=""):
    """Mean per (mechanism, λ) against ε with ±1 std bars; ``bars`` says in the legend what the bars are."""
    fig = go.Figure()
    for k, label, part in _series(df):
        fig.add_trace(
            go.Scatter(
                x=part.epsilon,
                y=part[col],
                error_y=dict(type="data", array=part[std], thickness=1),
                name=label,
                mode="lines+markers",
                line=dict(color=OKABE_ITO[k % 8], dash=DASHES[k % 6], width=2.5),
            )
        )
    if chance is not None:
        ref_line(fig, [df.epsilon.min(), df.epsilon.max()], [chance, chance], f"chance ({chance:g})")
    log_axis(fig, "x", title="claimed ε (log scale)")
    fig.update_yaxes(title=ytitle, range=[0.4, 1.02])
    fig.update_layout(legend=dict(orientation="h", y=-0.22), margin=dict(l=80))
    return style(fig, two_line_title(title, f"{detail}<br>{bars}" if bars else detail), height=490)


def _linking_prepare(v, progress=None):
    return attack_table(v, progress)[["mechanism", "lambda", "epsilon", "auc_mean", "auc_std"]]


def _recon_prepare(v, progress=None):
    return attack_table(v, progress)[["mechanism", "lambda", "epsilon", "accuracy_mean", "accuracy_std"]]


def _mark_epsilon(y0: float, y1: float):
    """A mark of the slider's ε from y0 to y1 (figures over the listed ε)."""
    return lambda fig, v: mark_x(fig, v["epsilon"], y0, y1, f"the slider's ε = {v['epsilon']:g}")


register(
    FigureSpec(
        id="hoho-linking",
        quick=QUICK_ATTACK,
        title="Linking a sentence to its encodings (paper's Figure 1a)",
        page=PAGE,
        params=LINK_PARAMS + (EPSILON,),
        prepare=_linking_prepare,
        evaluate=unchanged,
        live=("epsilon",),
        mark=_mark_epsilon(0.4, 1.02),
        render=lambda df, v: _line_render(
            df,
            v,
            "auc_mean",
            "auc_std",
            "linking ROC AUC",
            "HoHo links OME encodings to their sentence",
            f"corpus {v['corpus']}, expected AUC (exact), targets drawn with seed {v['seed']}",
            0.5,
            "mean over targets; bars: spread (std) across targets, not a standard error",
        ),
        caption=(
            "An attacker who holds a candidate sentence scores every encoding by how many even bits match the "
            "candidate's "
            "own encoding. An AUC of 1 means the target's encodings are told apart from every other sentence's: for λ "
            "≥ 10 "
            "OME links perfectly whatever ε claims, while λ = 1 and the unary baselines stay near chance, as the "
            "paper found. "
            "The AUC is computed exactly, not simulated: a score is a sum of four binomials fixed by the two "
            "plaintexts, so the "
            "expected AUC of the paper's procedure (100 encodings of the target among one encoding of every sentence) "
            "follows "
            "in closed form; a simulation of that procedure is the test that checks it. The bars are the spread "
            "(standard "
            "deviation) of the AUC across target sentences, not a standard error: all targets share the same other "
            "sentences "
            "as negatives, so their AUCs are not independent."
        ),
        columns=("mechanism", "lambda", "epsilon", "auc_mean", "auc_std"),
        paper_figure=f"{PAPER}, Figure 1a",
    )
)

register(
    FigureSpec(
        id="hoho-reconstruction",
        quick=QUICK_ATTACK,
        title="Reconstructing the plaintext bits (paper's Figure 1b)",
        page=PAGE,
        params=LINK_PARAMS + (EPSILON,),
        prepare=_recon_prepare,
        evaluate=unchanged,
        live=("epsilon",),
        mark=_mark_epsilon(0.4, 1.02),
        render=lambda df, v: _line_render(
            df,
            v,
            "accuracy_mean",
            "accuracy_std",
            "share of bits recovered",
            "The even bits of an OME encoding are the plaintext's",
            f"even bits for OME, all bits for SUE/OUE; seed {v['seed']}",
            0.5,
            "mean over sentences; bars: spread (std) across sentences",
        ),
        caption=(
            "Taking the perturbed bits as they are recovers the plaintext's even bits with probability about λ/(1+λ): "
            "99% at λ = 100, 91% at λ = 10, chance at λ = 1, whatever the claimed ε. For SUE and OUE the share is high "
            "only because most unary bits are zeros. Exact expected accuracy per sentence: ones·p + zeros·(1 − q)."
        ),
        columns=("mechanism", "lambda", "epsilon", "accuracy_mean", "accuracy_std"),
        paper_figure=f"{PAPER}, Figure 1b",
    )
)


# bounds ---------------------------------------------------------------------------------------------

R_DIMS = Param(
    "r",
    "int",
    1,
    "Values per input (r)",
    "How many floats one input holds (1 for the paper's audit, 50 for a sentence vector).",
    min=1,
    max=200,
)
LOW = Param(
    "low",
    "float",
    -10.0,
    "Input range: low",
    "Smallest input value (the domain is every 1/32 step in the range).",
    min=-31.0,
    max=31.0,
)
HIGH = Param("high", "float", 10.0, "Input range: high", "Largest input value.", min=-31.0, max=63.0)
LAMBDA_GRID = np.geomspace(1, 1000, 31)


def _domain(v) -> np.ndarray:
    if not v["low"] < v["high"]:
        raise InputError(f"The input range is empty: low ({v['low']:g}) must be below high ({v['high']:g}).")
    domain = np.arange(np.ceil(v["low"] * 32), np.floor(v["high"] * 32) + 1) / 32
    if len(domain) == 0:
        raise InputError(
            f"The input range [{v['low']:g}, {v['high']:g}] holds no value OME can encode (its values are the "
            "multiples of 1/32): widen it to include one."
        )
    return domain


def _bounds_prepare(v, progress=None) -> np.ndarray:
    """How two inputs in the range can differ, bit by bit (the (ε, λ)-free part of the exact loss)."""
    return ome.loss_patterns(_domain(v))


def _bounds_evaluate(patterns: np.ndarray, v) -> pd.DataFrame:
    lams = np.unique(np.r_[LAMBDA_GRID, v["lambda_"]])
    exact = ome.exact_worst_cases(lams, v["epsilon"], patterns, v["r"])  # every λ in one product
    rows = [
        (lam, v["epsilon"], v["epsilon"], ome.hoho_bound(lam, v["epsilon"], v["r"]), float(worst))
        for lam, worst in zip(lams, exact)
    ]
    return pd.DataFrame(rows, columns=["lambda", "epsilon", "epsilon_claimed", "epsilon_hoho_bound", "epsilon_exact"])


def _bounds_render(df: pd.DataFrame, v) -> go.Figure:
    fig = go.Figure()
    for k, (col, label) in enumerate(
        [
            ("epsilon_exact", "exact worst-case loss (bit by bit)"),
            ("epsilon_hoho_bound", "HoHo's bound r·l·ln λ + ε/2"),
            ("epsilon_claimed", "claimed ε"),
        ]
    ):
        fig.add_trace(
            go.Scatter(x=df["lambda"], y=df[col], name=label, line=dict(color=OKABE_ITO[k], dash=DASHES[k], width=2.5))
        )
    row = df.loc[(df["lambda"] - v["lambda_"]).abs().idxmin()]
    fig.add_trace(
        go.Scatter(
            x=[row["lambda"]] * 2,
            y=[row.epsilon_exact, row.epsilon_hoho_bound],
            mode="markers",
            marker=dict(size=10, color="#000"),
            name=f"the slider's λ = {row['lambda']:g}: exact {row.epsilon_exact:.4g}, HoHo "
            f"{row.epsilon_hoho_bound:.4g}",
        )
    )
    log_axis(fig, "x", title="λ (log scale)")
    log_axis(fig, "y", title="privacy loss ε (log scale)")
    fig.update_layout(legend=dict(orientation="h", y=-0.2))
    return style(
        fig,
        two_line_title(
            "OME's real privacy loss against λ",
            f"r = {v['r']}, inputs in [{v['low']:g}, {v['high']:g}] in steps of 1/32, claimed ε = {v['epsilon']:g}",
        ),
        height=480,
    )


register(
    FigureSpec(
        id="hoho-bounds",
        title="Claimed ε, HoHo's bound and the exact worst case",
        page=PAGE,
        params=(EPSILON, R_DIMS, LOW, HIGH, LAMBDA),
        prepare=_bounds_prepare,
        evaluate=_bounds_evaluate,
        live=("epsilon", "lambda_"),
        render=_bounds_render,
        caption=(
            "Bits are perturbed independently, so the worst-case privacy loss is a sum over the bits two inputs "
            "differ in, "
            "each contributing its largest log-ratio; enumerating every pair of encodings in the input range gives it "
            "exactly. "
            "For λ > 1 it exceeds HoHo's bound: an odd bit is kept with p₂ = 1/(1+λ³), so one odd bit can contribute "
            "about "
            "2·ln λ, not ln λ. The claimed ε is off by orders of magnitude either way."
        ),
        columns=("lambda", "epsilon", "epsilon_claimed", "epsilon_hoho_bound", "epsilon_exact"),
        paper_figure=f"{PAPER}, Sec. 3.2",
    )
)


# live example ------------------------------------------------------------------------------------------

SENTENCE_INDEX = Param(
    "sentence_index",
    "int",
    0,
    "Example sentence (#)",
    "Which sentence of the corpus the example encodes (counted from 0).",
    min=0,
    max=19_999,
)


def _example_compute(v, progress=None) -> pd.DataFrame:
    X, _, sents = corpus_vectors(v["corpus"])
    i = v["sentence_index"]
    if i >= len(X):
        raise InputError(f"The corpus has {len(X)} sentences: choose a sentence number from 0 to {len(X) - 1}.")
    clean = ome.encode(X[i : i + 1])[0]
    enc = ome.perturb_ome(clean[None], v["lambda_"], v["epsilon"], stream(v["seed"], 3200, i))[0]
    other = (i + len(X) // 2) % len(X)
    return pd.DataFrame(
        {
            "bit": np.arange(len(clean)),
            "original": clean,
            "encoded": enc,
            "even": np.arange(len(clean)) % 2 == 0,
            "other_sentence": other,
            "other_original": ome.encode(X[other : other + 1])[0],
            "sentence": sents[i][:80],
        }
    )


def example_scores(df: pd.DataFrame) -> tuple[float, float, int]:
    """HoHo score of the example encoding against its own sentence and against another one
    (whose number is the third value), from the example's table."""
    own = float(ome.hoho_score(df["encoded"].to_numpy(), df["original"].to_numpy())[0])
    wrong = float(ome.hoho_score(df["encoded"].to_numpy(), df["other_original"].to_numpy())[0])
    return own, wrong, int(df["other_sentence"].iloc[0])


def _example_render(df: pd.DataFrame, v) -> go.Figure:
    own, wrong, other = example_scores(df)
    z = np.vstack([df.original, df.encoded, (df.original == df.encoded) & df.even]).astype(float)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            y=["plaintext bits", "one OME encoding", "even bits that match"],
            colorscale=[[0, "#f2f2f2"], [1, "#0072B2"]],
            showscale=False,
            xgap=0.5,
            ygap=3,
            hovertemplate="bit %{x}: %{z}<extra>%{y}</extra>",
        )
    )
    fig.update_xaxes(title="bit position (11 bits per value; the attack reads even positions)")
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(margin=dict(l=150, r=30, b=70))
    title = two_line_title(
        f"HoHo score {own:.3f} against the true sentence, {wrong:.3f} against sentence #{other}",
        f'#{v["sentence_index"]}: "{df["sentence"].iloc[0]}" · λ = {v["lambda_"]:g}, ε = {v["epsilon"]:g}',
    )
    return style(fig, title, height=330)


register(
    FigureSpec(
        id="hoho-example",
        title="One sentence, one encoding",
        page=PAGE,
        params=(CORPUS, SENTENCE_INDEX, LAMBDA, EPSILON, SEED),
        compute=_example_compute,
        render=_example_render,
        caption=(
            "The 550 bits of one sentence vector (50 values × 11 bits) and one OME encoding of them. Ones are blue. "
            "The even "
            "bits survive with probability λ/(1+λ), so the attacker's score against the true sentence is high, "
            "against another "
            "sentence much lower."
        ),
        columns=("bit", "original", "encoded", "even", "other_sentence", "other_original", "sentence"),
        paper_figure=f"{PAPER}, Algorithm 1",
    )
)


# the live panel: ε and λ -------------------------------------------------------------------------------

LIVE_COLUMNS = (
    "mechanism",
    "lambda",
    "epsilon",
    "threshold",
    "fpr",
    "tpr",
    "auc_mean",
    "auc_std",
    "reconstruction_mean",
    "epsilon_claimed",
    "epsilon_exact",
    "epsilon_hoho_bound",
)


def _live_prepare(v, progress=None) -> dict:
    if progress:
        progress(0.2, "counting the bit classes of every target against every sentence")
    state = {"counts": attack_counts(v["corpus"], v["mechanism"], v["targets"], v["seed"])}
    if v["mechanism"] == "ome":
        if progress:
            progress(0.6, "listing how two inputs in the range can differ, bit by bit")
        state["patterns"] = ome.loss_patterns(_domain(v))
    return state


def _live_evaluate(state: dict, v) -> pd.DataFrame:
    """The linking attack at the sliders' (ε, λ), exactly: ROC curve averaged over targets at every
    score threshold, expected AUC, expected reconstruction, and the exact worst-case loss of one
    input of r values beside the claim (SUE and OUE are ε-LDP as claimed)."""
    m, eps = v["mechanism"], v["epsilon"]
    lam = v["lambda_"] if m == "ome" else np.nan
    r = hoho_exact.exact_attack(state["counts"], 1.0 if np.isnan(lam) else lam, eps)
    if m == "ome":
        exact = ome.exact_worst_case(lam, eps, None, v["r"], patterns=state["patterns"])
        bound = ome.hoho_bound(lam, eps, v["r"])
    else:
        exact, bound = eps, np.nan
    thresholds = np.arange(len(r["tpr"]))
    return pd.DataFrame(
        {
            "mechanism": m,
            "lambda": lam,
            "epsilon": eps,
            "threshold": thresholds,
            "fpr": r["fpr"],
            "tpr": r["tpr"],
            "auc_mean": r["auc"].mean(),
            "auc_std": r["auc"].std(),
            "reconstruction_mean": r["reconstruction"].mean(),
            "epsilon_claimed": eps,
            "epsilon_exact": exact,
            "epsilon_hoho_bound": bound,
        },
        columns=list(LIVE_COLUMNS),
    )


def _live_render(df: pd.DataFrame, v) -> go.Figure:
    # the first row's values and the ROC's columns read as arrays (pandas' row and sort_values were
    # a third of a frame along ε and λ)
    row = SimpleNamespace(**{c: df[c].iat[0] for c in df.columns if c not in ("threshold", "fpr", "tpr")})
    name = {"ome": f"OME, λ = {getattr(row, 'lambda'):g}", "sue": "SUE", "oue": "OUE"}[row.mechanism]
    fig = subplots.make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.5, 0.5],
        horizontal_spacing=0.17,
        subplot_titles=("ROC curve of the linking attack", f"privacy loss ε of one input<br>(r = {v['r']}; log scale)"),
    )
    # the ROC in threshold order (high to low): TPR and FPR are survival functions of the score, so
    # this is FPR's order; sorting by FPR itself broke ties (FPR = 1 at low scores, rounding noise
    # near 0 at high λ) differently between processes and drew another curve
    threshold = df["threshold"].to_numpy()
    order = np.argsort(-threshold, kind="stable")  # (ties in the table's order, as sort_values' stable descending)
    fig.add_trace(
        go.Scatter(
            x=df["fpr"].to_numpy()[order],
            y=df["tpr"].to_numpy()[order],
            mode="lines",
            name=f"attack: AUC {row.auc_mean:.3f}",  # the mechanism is in the title
            line=dict(color=OKABE_ITO[0], width=3),
            hovertemplate="score ≥ %{customdata}: TPR %{y:.3f}, FPR %{x:.3f}<extra></extra>",
            customdata=threshold[order],
        ),
        row=1,
        col=1,
    )
    ref_line(fig, [0, 1], [0, 1], "chance: AUC 0.5", row=1, col=1)
    # labels of a word a line: three side by side in the narrow panel ran into each other
    bars = [("claimed<br>ε", row.epsilon_claimed, "#777"), ("exact<br>worst<br>case", row.epsilon_exact, OKABE_ITO[1])]
    if np.isfinite(row.epsilon_hoho_bound):
        bars.append(("HoHo's<br>bound", row.epsilon_hoho_bound, OKABE_ITO[2]))
    fig.add_trace(
        go.Bar(
            x=[b[0] for b in bars],
            y=[b[1] for b in bars],
            marker_color=[b[2] for b in bars],
            showlegend=False,
            text=[f"{b[1]:.4g}" for b in bars],
            textposition="outside",
            cliponaxis=False,
        ),
        row=1,
        col=2,
    )
    fig.update_xaxes(title="FPR: other sentences above the threshold", range=[0, 1], row=1, col=1)
    fig.update_yaxes(title="TPR: the target's encodings", range=[0, 1.02], row=1, col=1)
    heights = [b[1] for b in bars]
    log_axis(fig, "y", row=1, col=2, range=[np.log10(min(heights) / 4), np.log10(max(heights) * 3)])
    # the legend in the ROC panel's lower right corner (under the chance line), clear of the bars' axis
    # and of its own panel's y axis (short entries: with the mechanism's name it reached over the 0.2 tick)
    fig.update_layout(legend=dict(x=0.41, y=0.03, xanchor="right", yanchor="bottom"), margin=dict(t=135))
    fig.update_xaxes(tickangle=0, row=1, col=2)  # the two-line labels level, not turned into each other
    title = two_line_title(
        # short enough for one line at a laptop's width (a longer one ran past the chart's edge)
        f"{name}, claimed ε = {row.epsilon:g}: linking AUC {row.auc_mean:.3f}, "
        f"{100 * row.reconstruction_mean:.1f}% bits read back",
        f"exact (no sampling); mean over targets drawn with seed {v['seed']} (AUC spread ±{row.auc_std:.3f}); corpus "
        f"{v['corpus']}",
    )
    return style(fig, title, height=500)


register(
    FigureSpec(
        id="hoho-live",
        title="Live: the attack at any ε and λ",
        page=PAGE,
        params=(CORPUS, MECHANISM, TARGETS, SEED, EPSILON, LAMBDA, R_DIMS, LOW, HIGH),
        prepare=_live_prepare,
        evaluate=_live_evaluate,
        live=("epsilon", "lambda_"),
        render=_live_render,
        caption=(
            "Drag ε and λ. Left: the ROC curve of HoHo's linking attack, exactly (the score of an encoding is a sum "
            "of four "
            "binomials fixed by the plaintexts), averaged over the target sentences at every score threshold. Right: "
            "what OME "
            "claims against the exact worst-case privacy loss of one input of r values, bit by bit. λ barely moves "
            "with ε: "
            "ε enters OME only through q = 1/(1 + λ e^(ε/(r·l))), while the even bits keep p₁ = λ/(1+λ). SUE and OUE "
            "ignore λ "
            "and keep their claim."
        ),
        columns=LIVE_COLUMNS,
        paper_figure=f"{PAPER}, Sec. 3-4",
    )
)


# the privacy-utility frontier (dpviz/frontier.py) ---------------------------------------------------

FRONTIER_PARAMS = (CORPUS, TARGETS, SEED, EPSILON, LAMBDA)
register(frontier_spec("hoho", FRONTIER_PARAMS, quick={"targets": "0.05"}))


# auditor --------------------------------------------------------------------------------------------

AUDIT_SAMPLES = Param(
    "audit_samples",
    "int",
    50_000,
    "Auditor samples",
    "Samples a side in the final audit of the most revealing pair: the auditor learns its event on half and "
    "counts it on the other half (the command line can run millions).",
    min=1000,
    max=10_000_000,
    hosted_max=100_000,
)
AUDIT_LAMBDAS = (1.0, 10.0, 100.0)
AUDIT_EPSILONS = (0.001, 1.0)
DOMAIN = np.arange(-320, 321) / 32  # one float in [-10, 10]
CANDIDATES = ((-10.0, 10.0), (0.0, 9.96875), (-0.03125, 0.03125), (-5.0, 5.0), (-1.0, 1.0))


def _audit_compute(v, progress=None) -> pd.DataFrame:
    from dpviz.auditing import mechanisms  # (lazy: SciPy, 0.5 s, for the audit chart's button only)

    rows, k = [], 0
    for lam in AUDIT_LAMBDAS:
        for eps in AUDIT_EPSILONS:
            r = mechanisms.audit(ome.OMEFloat(lam, eps), CANDIDATES, v["audit_samples"], v["seed"], 3300, k)
            rows.append((lam, eps, r["epsilon_lower_bound"], ome.exact_worst_case(lam, eps, DOMAIN), r["samples"]))
            k += 1
            if progress:
                progress(k / (len(AUDIT_LAMBDAS) * len(AUDIT_EPSILONS)), f"auditing λ = {lam:g}, ε = {eps:g}")
    return pd.DataFrame(rows, columns=["lambda", "epsilon_claimed", "epsilon_lower_bound", "epsilon_exact", "samples"])


def _audit_render(df: pd.DataFrame, v) -> go.Figure:
    fig = subplots.make_subplots(
        rows=1,
        cols=len(AUDIT_EPSILONS),
        subplot_titles=[f"claimed ε = {e:g}" for e in AUDIT_EPSILONS],
        horizontal_spacing=0.1,
    )
    for c, eps in enumerate(AUDIT_EPSILONS, start=1):
        part = df[df.epsilon_claimed == eps]
        x = [f"λ = {lam:g}" for lam in part["lambda"]]
        fig.add_trace(
            go.Bar(x=x, y=part.epsilon_exact, name="exact worst case", marker_color=OKABE_ITO[0], showlegend=c == 1),
            row=1,
            col=c,
        )
        fig.add_trace(
            go.Bar(
                x=x,
                y=part.epsilon_lower_bound,
                name="auditor's lower bound (90%)",
                marker_color=OKABE_ITO[1],
                showlegend=c == 1,
                text=[f"{e:.2f}" for e in part.epsilon_lower_bound],
                textposition="outside",
            ),
            row=1,
            col=c,
        )
        ref_line(
            fig,
            x,
            [eps] * len(x),
            "claimed ε",
            color="#000",
            dash="dash",
            width=2.5,
            showlegend=c == 1,
            row=1,
            col=c,
            mode="lines+markers",
            marker=dict(symbol="line-ew", size=60, line=dict(width=2.5, color="#000")),
        )
    log_axis(fig, "y", title="ε (log scale)")
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=-0.18))
    return style(
        fig,
        two_line_title(
            "An empirical audit of OME on one float in [−10, 10] (paper's Figure 2)",
            f"dashed: the claim; no orange bar: the auditor proved nothing (bound 0); "
            f"{v['audit_samples']:,} samples a side, seed {v['seed']}",
        ),
        height=480,
    )


register(
    FigureSpec(
        id="hoho-audit",
        quick={"audit_samples": "2000"},
        title="A black-box audit (paper's Figure 2)",
        page=PAGE,
        params=(AUDIT_SAMPLES, SEED),
        compute=_audit_compute,
        render=_audit_render,
        caption=(
            "The sample auditor (the Audit page's) sees only inputs and outputs. Each of five candidate pairs of "
            "floats is audited on 5,000 outputs a side; the most revealing pair is audited again on fresh samples: "
            "an event learned on half of them (scores on the 11 output bits) and exact binomial bounds at 90% "
            "confidence on the other half. Its lower bound never exceeds the exact loss, yet for λ ≥ 10 it beats the "
            "claim by more than three orders of magnitude at ε = 0.001 (the paper: about 4,600x); with N samples a "
            "side no event can prove much more than ln(N / 6)."
        ),
        columns=("lambda", "epsilon_claimed", "epsilon_lower_bound", "epsilon_exact", "samples"),
        paper_figure=f"{PAPER}, Figure 2",
        disk_cache=True,
    )
)


# utility ----------------------------------------------------------------------------------------------


def _utility_compute(v, progress=None) -> pd.DataFrame:
    X, y, _ = corpus_vectors(v["corpus"])
    if y is None:
        raise InputError(
            "This corpus has no labels: upload a CSV with a 'label' column (0/1) to train the sentiment classifier."
        )
    return utility.classifier_accuracy(X, y, v["mechanisms"], v["lambdas"], v["epsilons"], v["seed"], progress)


def _utility_render(df: pd.DataFrame, v) -> go.Figure:
    fig = go.Figure()
    base = df[df.mechanism == "none"].iloc[0]
    for k, label, part in _series(df[df.mechanism != "none"]):
        fig.add_trace(
            go.Scatter(
                x=part.epsilon,
                y=part.accuracy_mean,
                error_y=dict(type="data", array=part.accuracy_std, thickness=1),
                name=label,
                mode="lines+markers",
                line=dict(color=OKABE_ITO[k % 8], dash=DASHES[k % 6], width=2.5),
            )
        )
    span = [df.epsilon.min(), df.epsilon.max()]
    ref_line(
        fig, span, [base.accuracy_mean] * 2, f"unperturbed bits: {base.accuracy_mean:.2f}", color="#000", dash="dash"
    )
    ref_line(fig, span, [0.5, 0.5], "chance (0.5)")
    log_axis(fig, "x", title="claimed ε (log scale)")
    fig.update_yaxes(title="accuracy (5-fold CV)", range=[0.3, 1.0])
    fig.update_layout(legend=dict(orientation="h", y=-0.2))
    return style(
        fig,
        two_line_title(
            "What OME's λ buys: utility of a classifier on the encodings",
            f"logistic regression on 200 labelled sentences; seed {v['seed']}",
        ),
        height=460,
    )


register(
    FigureSpec(
        id="hoho-utility",
        quick={"epsilons": "0.1,1", "lambdas": "1,10"},
        title="Utility beside privacy",
        page=PAGE,
        params=LINK_PARAMS + (EPSILON,),
        prepare=_utility_compute,
        evaluate=unchanged,
        live=("epsilon",),
        mark=_mark_epsilon(0.3, 1.0),
        render=_utility_render,
        disk_cache=True,
        caption=(
            "Why λ was attractive: with λ ≥ 10 the encodings keep the clean bits' accuracy at any ε, because the even "
            "bits survive; the same bits are what the attack reads. On gensim's 200 sentences even the clean bits "
            "give only "
            "about 60% (L2-regularised logistic regression, C = 0.05), so the differences here are within the error "
            "bars; "
            "the paper's 800 Yelp reviews and a neural classifier show the gap more clearly."
        ),
        columns=("mechanism", "lambda", "epsilon", "accuracy_mean", "accuracy_std"),
        paper_figure=f"{PAPER}, Sec. 4",
    )
)
