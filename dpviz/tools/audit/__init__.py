"""The "Audit a mechanism" page: a researcher's own samples and claim, a certified answer
(the math in :mod:`dpviz.auditing`, the compute in ``compute.py``, the view in
``webui/panels/audit.py``)."""

from dpviz.auditing.examples import TITLES
from dpviz.auditing.samples import SUFFIXES
from dpviz.panels import Panel
from dpviz.params import Param, Upload
from dpviz.tools import Tool

EXAMPLE = Param(
    "example",
    "choice",
    "none",
    "Samples",
    "A built-in example, or 'none' for your two files.",
    choices=("none", *TITLES),
    choice_labels={"none": "your two files", **TITLES},
)
A = Param(
    "a",
    "text",
    "",
    "Outputs on D",
    "Samples of M(D), one output per row (CSV/Parquet: numeric columns; .npy; .txt: one word or label per line).",
    max_items=200,
    upload=Upload(SUFFIXES),
)
B = Param(
    "b",
    "text",
    "",
    "Outputs on D'",
    "Samples of M(D') on a neighbouring input, of the same kind and width as those on D.",
    max_items=200,
    upload=Upload(SUFFIXES),
)
CLAIMED = Param("claimed", "float", 1.0, "Claimed ε", "The ε the mechanism claims.", min=0.0, max=100.0)
DELTA = Param("delta", "float", 0.0, "Claimed δ", "The δ the mechanism claims (0 for pure ε-DP).", min=0.0, max=0.5)
DISTANCE = Param(
    "distance",
    "float",
    1.0,
    "Distance d(D, D')",
    "For a metric-DP claim ε·d: the distance between the two inputs (1 for an ordinary DP claim).",
    min=1e-6,
    max=1e6,
)
CONFIDENCE = Param(
    "confidence",
    "float",
    0.95,
    "Confidence",
    "The bound holds with at least this probability, whatever the mechanism.",
    min=0.5,
    max=0.9999,
)
SEED = Param(
    "seed",
    "int",
    0,
    "Seed",
    "Seeds the split of the samples into a training and an evaluation part (and an example's draws).",
    min=0,
    max=2**31 - 1,
)

AUDIT = Panel(
    id="audit",
    title="Your samples and your claim",
    intro=(
        "Give outputs of your mechanism on two neighbouring inputs D and D′, and the privacy it claims. The "
        "auditor learns a distinguishing event on half of the samples and bounds its two probabilities on the "
        "other half with exact binomial bounds: the privacy loss it reports is proved with the stated confidence, "
        "whatever the mechanism. Or click an example."
    ),
    params=(EXAMPLE, A, B, CLAIMED, DELTA, DISTANCE, CONFIDENCE, SEED),
    compute="dpviz.tools.audit.compute:run",
    view="webui.panels.audit:show",
    inputs="webui.panels.audit:examples",
    hidden=("example",),
)

TOOL = Tool(
    key="audit",
    order=10,
    title="Audit a mechanism",
    page="pages/5_Audit_a_mechanism.py",
    claim=(
        "Check a privacy claim from a mechanism's outputs alone: a certified lower bound on its privacy loss, "
        "and whether the claim is violated."
    ),
    headline="Audit a mechanism from its outputs",
    summary=(
        "The four paper pages each check one published claim. This page checks yours: outputs of a mechanism on "
        "two neighbouring inputs, and the ε (and δ) it claims. The answer is a lower bound on the privacy loss "
        "the samples prove, in the manner of DP-Sniper (Bichsel et al., S&P 2021): either the claim is violated, "
        "with the event that shows it, or no violation is found, with how many samples would have found one. An "
        "audit never proves a mechanism private."
    ),
    panels=(AUDIT,),
    notes=(
        "**How it works.** Each side is shuffled with the seed and split in half. On the first half the auditor "
        "tries events of the form {score(y) > t} (scores: each column, a logistic regression on the columns and "
        "on their squares) or, for words, sets of outputs, and keeps the one whose bound is best there. On the "
        "second half it counts that one event and bounds its probabilities with one-sided Clopper-Pearson bounds "
        "at (1 − confidence)/2 each. Any (ε, δ)-DP mechanism has Pr[M(D) ∈ S] ≤ e^ε Pr[M(D′) ∈ S] + δ, so "
        "ln((p_low − δ)/p′_high) is a lower bound on its ε with the stated confidence. The same audit runs from the "
        "command line (`python -m dpviz audit A B --claimed EPS --out result.json`) and in a notebook "
        "(`dpviz.audit(a, b, claimed=...)`)."
    ),
)
