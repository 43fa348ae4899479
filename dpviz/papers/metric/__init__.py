"""Metric DP over word embeddings: Feyisetan, Balle, Diethe & Drake (2020), Calibrating mechanisms
for privacy preserving text analysis (PrivateNLP @ WSDM). ``mechanism`` holds the exact engine and
the statistics, ``neighbours`` the k-nearest-neighbour distances, ``calibration`` the crossing of
a target, ``sweep`` the whole-vocabulary Dask sweep, ``figures`` the figure specs."""

from dpviz.frontier import target_panel
from dpviz.panels import Panel
from dpviz.papers import Paper, Reproduction, Section, SidebarGroup
from dpviz.papers.metric.params import COMPARE, EMBEDDING, EPSILON, REWRITES, SENTENCE, WORD_PARAMS
from dpviz.params import SEED

_FULL = {"compare": "fasttext-local", "words": "100"}
_QUICK = {"compare": "fasttext-local", "words": "5", "samples": "200", "epsilons": "2,5,10,20,40"}

PAPER = Paper(
    key="metric",
    compiled=("dpviz.papers.metric.mechanism:loops_ready",),
    order=2,
    title="Metric DP over word embeddings",
    page="pages/2_Metric_DP.py",
    citation="Feyisetan, Balle, Diethe & Drake (2020), Calibrating mechanisms for privacy "
    "preserving text analysis. PrivateNLP @ WSDM.",
    claim="The same ε means very different plausible deniability (N_w, S_w) on different "
    "embeddings: calibrate ε per embedding, not by its number.",
    headline="Metric DP over word embeddings: how much does ε hide?",
    summary=(
        "The multivariate Laplace mechanism releases the word nearest to φ(w) + z, with noise density "
        "∝ exp(−ε‖z‖). Feyisetan et al. (2020) measure what that hides with two plausible-deniability "
        "statistics over N releases of each word: **N_w**, how often the word comes back unchanged, and "
        "**S_w**, how many distinct words it becomes. The same ε hides very differently on different "
        "embeddings, so ε must be calibrated per embedding. Nearest-word search here is exact over the "
        "whole vocabulary (400,000 words for GloVe)."
    ),
    sections=(
        Section(
            figures=(
                "metric-live",
                "metric-figure3",
                "metric-stats",
                "metric-histograms",
                "metric-calibrate",
                "metric-utility",
                "metric-entropy",
                "metric-frontier",
                "metric-knn-distances",
                "metric-knn-histogram",
            ),
            intro="**Live:** drag ε (or focus the slider and use the arrow keys): each word's draws were made once "
            "and are "
            "answered exactly at any ε, so every chart below and the try-it box follow at once.",
            lead=Panel(
                id="embedding",
                title="",
                params=(EMBEDDING, COMPARE),
                compute="dpviz.papers.metric.pipeline:load_panel",
                view="webui.panels.embedding:show",
                refusal="webui.panels.embedding:refused",
                cached=False,  # the loaded embeddings have their own cache and memory budget
                working="Loading the embedding…",
            ),
            panels=(
                Panel(
                    id="try-it",
                    title="Try it: privatise a sentence",
                    params=(EMBEDDING, SENTENCE, REWRITES, SEED, EPSILON),
                    compute="dpviz.papers.metric.pipeline:try_it_panel",
                    view="webui.panels.try_it:show",
                    html="webui.panels.try_it:as_html",
                    cached=False,  # the pipeline keeps each answer per ε itself
                    working="Privatising…",
                ),
                target_panel("metric", WORD_PARAMS + (EPSILON,)),
            ),
        ),
    ),
    sidebar=(
        SidebarGroup("Words and ε"),
        SidebarGroup("Try it", ("sentence", "rewrites")),
        SidebarGroup("Choose from a target", ("target_measure", "target_value")),
    ),
    seed_note="each word's draws follow from (seed, word), so results do not depend on which other words run.",
    notes=(
        "**Notes.** Sampling as in the public implementations: direction uniform on the sphere, radius "
        "Gamma(d, 1/ε). One draw's radius is G/ε with G ~ Gamma(d, 1) shared across ε, so every ε of a draw is "
        "answered by one exact search (see `dpviz/papers/metric/mechanism.py`): results equal brute-force faiss "
        "search on the same draws. The paper used 300-d GloVe and fastText over 319,000 words; this page "
        "defaults to GloVe 6B 50d."
    ),
    reproduces=(
        Reproduction("metric-knn-distances", "metric_fig2_knn", {"knn_words": "1000"}, {"knn_words": "100"}),
        Reproduction("metric-knn-histogram", "metric_fig2_k10", {"knn_words": "1000"}, {"knn_words": "100"}),
        Reproduction("metric-figure3", "metric_fig3", _FULL, _QUICK),
        Reproduction("metric-histograms", "metric_fig4-6", _FULL, {**_QUICK, "epsilons": "5,7,9,11,12"}),
    ),
    # 100 draws per word give every chart within seconds on a cold start (N_w and S_w as counts of 100)
    first_answer={"samples": "100"},
    aliases={
        f"mdp-{name}": f"metric-{name}"
        for name in (
            "stats",
            "live",
            "figure3",
            "histograms",
            "calibrate",
            "entropy",
            "utility",
            "knn-distances",
            "knn-histogram",
        )
    },
)
