"""Privacy budget: what ε becomes over many releases, by five accountants side by side, and what
it lets an attacker do. Not one paper's result: the accountants' own papers (Kairouz et al. 2015,
Mironov 2017, Bun and Steinke 2016, Balle and Wang 2018, Dong, Roth and Su 2019) applied to the
mechanisms of the other pages. The math is :mod:`dpviz.budget`, the figures ``figures.py``."""

from dpviz.frontier import target_panel
from dpviz.papers import Paper, Section, SidebarGroup
from dpviz.papers.budget.figures import FRONTIER_PARAMS

PAPER = Paper(
    key="budget",
    compiled=("dpviz.budget.kernels:compile_now",),
    order=5,
    title="Privacy budget",
    page="pages/7_Privacy_budget.py",
    citation="Kairouz, Oh and Viswanath (2015), The composition theorem for differential privacy; Mironov (2017), "
    "Rényi differential privacy; Dong, Roth and Su (2019), Gaussian differential privacy; Google's dp-accounting.",
    claim="Ten releases at ε = 1 are not ε = 10: how far apart the accountants are, and what the "
    "composed ε lets the best attacker do.",
    headline="What does a budget become over many releases?",
    summary=(
        "Every other page shows one release. Run a mechanism k times on the same data and the guarantee "
        "weakens: **basic composition** adds the ε's up, **advanced composition** (Kairouz et al.'s optimal "
        "bound) grows like √k, and the **Rényi**, **zCDP** and **privacy-loss-distribution** accountants are "
        "tighter still. Below, the five side by side for the mechanisms of the other pages, and what the "
        "composed guarantee lets the best attacker do: a membership test's true-positive rate at each false-"
        "positive rate, and what its call makes the attacker believe from a prior. Every setting is in the "
        "sidebar and in the URL."
    ),
    sections=(
        Section(
            title="Composing k releases, and what it lets an attacker do",
            figures=("budget-composition", "budget-delta", "budget-attacker", "budget-posterior", "budget-frontier"),
            panels=(target_panel("budget", FRONTIER_PARAMS),),
            intro="Drag the mechanism's own setting (**σ** for the Gaussian, **ε₀** for Laplace and randomized "
            "response, **σ** and **q** for DP-SGD; the others are greyed out), **k**, **δ** or the attacker's "
            "**prior**: the charts follow, once their frames are computed (a few seconds after a change elsewhere; "
            "until then each move is computed). Choose the mechanism in the sidebar; Laplace and DP-SGD take a few "
            "seconds a move for k up to 10⁵ (they compose a privacy-loss distribution).",
        ),
    ),
    sidebar=(
        SidebarGroup("Mechanism and releases"),
        SidebarGroup("A real attack on top", ("hoho_epsilon", "hoho_lambda", "audit_tpr", "audit_fpr")),
        SidebarGroup("Choose from a target", ("target_measure", "target_value", "target_solve")),
    ),
    seed_note="nothing on this page is random: every number is an accountant's bound.",
    notes=(
        "**Notes.** RDP and PLD come from Google's `dp-accounting` (the PLD pessimistic, discretised at 10⁻³ "
        "of the loss, so an upper bound within its discretization); randomized response's RDP and exact "
        "binomial loss, the Gaussian's exact curve (Balle and Wang 2018) and Kairouz et al.'s optimal composition "
        "are computed here (`dpviz/budget/`), each tested against a brute-force or closed-form route."
    ),
)
