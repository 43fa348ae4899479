"""Partial sensitivity: Mueller et al. (2022), Partial sensitivity analysis in differential
privacy. ``sensitivity`` holds the symbolic analysis of a query (``safe_expr`` parses it,
``expr_program`` evaluates it), ``bars_network`` the network trained with SGD and DP-SGD,
``figures`` the figure specs."""

from dpviz.frontier import target_panel
from dpviz.panels import Panel
from dpviz.papers import Paper, Reproduction, Section, SidebarGroup
from dpviz.papers.partial.figures import FRONTIER_PARAMS
from dpviz.papers.partial.params import EXPR, INDIVIDUALS, RANGES

_NET_QUICK = {"per_class": "200", "sgd_steps": "300", "dpsgd_steps": "300", "eval_per_class": "100"}
NET_PARAMS = (
    "per_class",
    "noise_sd",
    "lr",
    "sgd_steps",
    "dpsgd_steps",
    "clip",
    "noise_multiplier",
    "dpsgd_lr",
    "eval_per_class",
    "seed",
)

PAPER = Paper(
    key="partial",
    order=4,
    title="Partial sensitivity",
    page="pages/4_Partial_sensitivity.py",
    citation="Mueller et al. (2022), Partial sensitivity analysis in differential privacy.",
    claim="The gradient of the gradient norm shows which input attributes drive each "
    "individual's privacy loss, for a query and for SGD vs. DP-SGD.",
    headline="Which input attributes drive privacy loss?",
    summary=(
        "Mueller et al. (2022) differentiate the *gradient norm*, the quantity that sets an individual's "
        "sensitivity and so their privacy loss, once more with respect to the inputs. The result, the "
        "**partial sensitivity** ∂g/∂xⱼ, says how much each input attribute moves that loss. Below: a "
        "database query you can type (derived symbolically with sympy), and a small network trained with "
        "SGD and with DP-SGD. Every setting is in the sidebar and in the URL."
    ),
    sections=(
        Section(
            title="1. A database query (paper, Sec. 5.1)",
            figures=("partial-query", "partial-query-surface", "partial-individuals", "partial-frontier"),
            panels=(target_panel("partial", FRONTIER_PARAMS),),
            intro="**Live:** the Gaussian mechanism's σ and the Rényi order α act in closed form on the "
            "sensitivities above: drag them.",
            lead=Panel(
                id="formulas",
                title="",
                params=(EXPR, RANGES, INDIVIDUALS),
                compute="dpviz.papers.partial.sensitivity:formulas_panel",
                view="webui.panels.formulas:show",
                on_refusal="The network section below still works.",
            ),
        ),
        Section(
            title="2. SGD vs. DP-SGD on 5×5 bar images (paper, Sec. 5.2)",
            figures=("partial-training", "partial-dpsgd", "partial-histograms"),
        ),
    ),
    sidebar=(
        SidebarGroup("Database query"),
        SidebarGroup("Choose from a target", ("target_measure", "target_value")),
        SidebarGroup("Network training", NET_PARAMS),
    ),
    seed_note="the training data, initialisation and DP-SGD noise all follow from it.",
    notes=(
        "**Notes.** The formula box is parsed, never executed: only numbers, the declared attributes, "
        "arithmetic and an allow-list of functions are accepted (see `dpviz/papers/partial/safe_expr.py`). The "
        "symbolic work runs in a separate process with CPU-time and memory limits (`dpviz/sandbox.py`); abs, min "
        "and max are differentiated where they are smooth (everywhere but their kinks). Global "
        "sensitivity: scipy's shgo and a grid of 40,000 points, the grid's best points polished and the best "
        "searched again at finer scales; no number is given where the norm is infinite or undefined at a point "
        "met, or where a value found lies 10 times above the grid's (a singularity between its points). "
        "The network follows the paper "
        "(25-8-1, sigmoid after every layer, binary cross-entropy, full batch); the reference notebook "
        "adds the hidden bias after the sigmoid, has no output bias and includes input gradients in the "
        "norm, while dpviz uses the standard layer and the gradient with respect to the weights (what "
        "DP-SGD clips). Its second derivatives are exact (closed form) and tested against finite differences."
    ),
    reproduces=(
        Reproduction("partial-query-surface", "partial_fig1", {}, {"grid": "31"}),
        Reproduction("partial-dpsgd", "partial_fig2a", {}, _NET_QUICK),
        Reproduction("partial-histograms", "partial_fig2b", {}, _NET_QUICK),
    ),
    # a tenth of the training data and steps: the two models' curves within a second
    first_answer={"per_class": "200", "sgd_steps": "200", "dpsgd_steps": "400", "eval_per_class": "100"},
    aliases={
        f"ps-{name}": f"partial-{name}"
        for name in ("query", "query-surface", "individuals", "training", "dpsgd", "histograms")
    },
)
