"""The HoHo attack on OME: Salem & Zanella-Béguelin (2021), HoHo: a hop-on hop-off attack against
optimized multiple encoding. ``ome`` holds the encoding and its exact loss, ``exact`` the attack's
exact AUC and reconstruction, ``attack`` the simulated attack on a corpus, ``figures`` the specs."""

from dpviz.frontier import target_panel
from dpviz.panels import Panel
from dpviz.papers import Paper, Reproduction, Section, SidebarGroup
from dpviz.papers.hoho.figures import FRONTIER_PARAMS
from dpviz.papers.hoho.params import EPSILON, LAMBDA

PAPER = Paper(
    key="hoho",
    compiled=("dpviz.papers.hoho.kernels:compile_now",),
    order=3,
    title="HoHo attack on OME",
    page="pages/3_HoHo_attack.py",
    citation="Salem & Zanella-Béguelin (2021), HoHo: a hop-on hop-off attack against optimized multiple encoding.",
    claim="OME's even bits survive perturbation: an attacker links and reconstructs sentences, "
    "and the true bound is r·l·ln(λ) + ε/2, not ε.",
    headline="OME's even bits give the sentence away",
    summary=(
        "Optimized Multiple Encoding (OME; Lyu et al., SIGIR 2020) writes each value of a sentence vector as "
        "11 bits and flips bits at random, claiming ε-local DP. Salem & Zanella-Béguelin (2021) noticed that "
        "the even 1-bits are kept with probability λ/(1+λ) whatever ε is: for the λ that made OME accurate, "
        "an encoding almost copies half of its plaintext's bits. Their **HoHo** attack links encodings to "
        "sentences and reads the bits back. Sentences: the 200 labelled movie-review sentences gensim ships "
        "(the paper used 800 Yelp reviews), as max-pooled GloVe 6B 50d vectors (r = 50, 550 bits)."
    ),
    sections=(
        Section(
            figures=(
                "hoho-live",
                "hoho-example",
                "hoho-linking",
                "hoho-reconstruction",
                "hoho-bounds",
                "hoho-utility",
                "hoho-audit",
                "hoho-frontier",
            ),
            panels=(
                Panel(
                    id="budget-link",
                    title="The attack against the ε-DP promise",
                    params=(EPSILON, LAMBDA),
                    compute="dpviz.papers.hoho.budget_link:budget_link",
                    view="webui.panels.budget_link:show",
                    html="webui.panels.budget_link:as_html",
                ),
                target_panel("hoho", FRONTIER_PARAMS),
            ),
            intro="**Live:** drag ε and λ (or focus a slider and use the arrow keys); every chart below follows, "
            "computed exactly.",
        ),
    ),
    sidebar=(SidebarGroup("Settings"), SidebarGroup("Choose from a target", ("target_measure", "target_value"))),
    seed_note="every encoding on this page follows from it.",
    notes=(
        "**Notes.** Encoding exactly as the reference code's `float_to_binary` (m = 6, n = 5; the minus sign "
        "written as a leading 1, so values from 32 up read back as negative), perturbation by global bit parity. "
        "SUE (basic RAPPOR) and OUE use a unary encoding: each value cut into 16 equal bins over the corpus "
        "range, one one-hot block per value, the budget split as ε/r per block. The audit runs the sample "
        "auditor of the Audit page (`dpviz/auditing/`, after DP-Sniper, Bichsel et al., S&P 2021) on OME's "
        "outputs; the ADePT page's audit does too."
    ),
    reproduces=(
        Reproduction("hoho-linking", "hoho_fig1a"),
        Reproduction("hoho-reconstruction", "hoho_fig1b"),
        Reproduction("hoho-audit", "hoho_fig2", {"audit_samples": "1000000"}, {"audit_samples": "5000"}),
    ),
    aliases={"ome-audit": "hoho-audit", "ome-bounds": "hoho-bounds"},
    # the attack on 2% of the sentences as targets first (its AUC's band says how much wider)
    first_answer={"targets": "0.02"},
)
