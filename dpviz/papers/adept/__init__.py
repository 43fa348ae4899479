"""ADePT's sensitivity: Habernal (2021), When differential privacy meets NLP: The devil is in
the detail (EMNLP), Theorem 5.1. ``sensitivity`` holds the math, ``figures`` the figure specs."""

from dpviz.frontier import target_panel
from dpviz.papers import Paper, Reproduction, Section, SidebarGroup
from dpviz.papers.adept.figures import FRONTIER_PARAMS

PAPER = Paper(
    key="adept",
    compiled=("dpviz.papers.adept.loss_kernels:compile_now",),
    order=1,
    title="ADePT sensitivity",
    page="pages/1_ADePT_sensitivity.py",
    citation="Habernal (2021), When differential privacy meets NLP: The devil is in the detail. EMNLP.",
    claim="L2-clipped vectors with Laplace noise calibrated to 2C are ε√n-DP, not ε-DP: "
    "the L1 sensitivity of L2 clipping is 2C√n.",
    headline="ADePT's privacy guarantee does not hold",
    summary=(
        "ADePT (Krishna et al., EACL 2021) rewrites text with an auto-encoder whose latent vector is "
        "clipped to L2 norm C and perturbed with Laplace noise of scale 2C/ε. Habernal (EMNLP 2021) "
        "proved that the sensitivity it must be calibrated to is **2C√n**, not 2C, so ADePT is "
        "**ε√n-DP**. Every chart below is computed live from the settings in the sidebar; the URL "
        "holds them, so a copied link reopens this exact view."
    ),
    sections=(
        Section(
            figures=(
                "adept-sensitivity",
                "adept-epsilon",
                "adept-violations",
                "adept-geometry",
                "adept-privacy-loss",
                "adept-fixes",
                "adept-audit",
                "adept-frontier",
            ),
            panels=(target_panel("adept", FRONTIER_PARAMS),),
            intro="**Live:** drag ε or n (or focus a slider and use the arrow keys); the charts below follow at once.",
        ),
    ),
    sidebar=(SidebarGroup("Settings"), SidebarGroup("Choose from a target", ("target_measure", "target_value"))),
    seed_note="every random chart on this page is reproducible from it.",
    notes=(
        "**Notes.** Sensitivities follow Theorem 5.1 of Habernal (2021); the violation simulation "
        "follows the paper's reference code (C = 10, 10,000 pairs per dimension), drawing each pair "
        "once in the largest dimension and using its first n coordinates for dimension n (the same "
        "distribution as a fresh draw; see `dpviz/papers/adept/sensitivity.py`). The Gaussian fix (not in "
        "the paper) is calibrated with the analytic Gaussian mechanism of Balle & Wang (2018)."
    ),
    reproduces=(Reproduction("adept-violations", "adept_fig1", {}, {"pairs": "1000"}),),
    # Figure 1 from 1,000 pairs per dimension first (its Wilson intervals say how much wider)
    first_answer={"pairs": "1000"},
)
