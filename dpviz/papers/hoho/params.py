"""The HoHo page's attack parameters: ε and λ (listed and on the sliders), the mechanisms, the
share of sentences attacked and the corpus (declared once; the figures and the pipeline read them)."""

from dpviz.papers.hoho import ome
from dpviz.params import SEED, Param, Upload

EPSILONS = Param(
    "epsilons",
    "float_list",
    (0.001, 0.01, 0.1, 1.0, 10.0),
    "Values of ε",
    "OME's claimed ε values (paper: 0.001 and 1).",
    min=1e-4,
    max=1000.0,
    max_items=12,
)
LAMBDAS = Param(
    "lambdas",
    "float_list",
    (1.0, 10.0, 100.0),
    "Values of λ",
    "OME's λ (called alpha in the reference code; paper: 1, 10, 100).",
    min=1.0,
    max=10_000.0,
    max_items=8,
)
MECHS = Param(
    "mechanisms",
    "choices",
    ome.MECHANISMS,
    "Mechanisms",
    "OME and the unary baselines SUE and OUE.",
    choices=ome.MECHANISMS,
    choice_labels={"ome": "OME", "sue": "SUE", "oue": "OUE"},
)
TARGETS = Param(
    "targets",
    "float",
    0.1,
    "Share of sentences as targets",
    "Each target gives one AUC; mean and std across targets (paper: 10%).",
    min=0.01,
    max=1.0,
)
CORPUS = Param(
    "corpus",
    "text",
    "movie-reviews",
    "Sentences",
    "movie-reviews (200 labelled sentences gensim ships) or an uploaded file (upload:NAME).",
    max_items=200,
    upload=Upload(
        ("txt", "csv"),
        title="Use your own sentences",
        caption="A .txt (one sentence per line) or a .csv with a 'sentence' column and optionally 'label' (0/1); at "
        "most 5 MB.",
        check="dpviz.papers.hoho.pipeline:describe_corpus_upload",
        use="Use these sentences",
    ),
)
LINK_PARAMS = (CORPUS, EPSILONS, LAMBDAS, MECHS, TARGETS, SEED)
EPSILON = Param(
    "epsilon", "float", 1.0, "Claimed ε", "The ε OME (or SUE/OUE) claims.", min=1e-4, max=1000.0, log=True, slider=True
)
LAMBDA = Param(
    "lambda_",
    "float",
    10.0,
    "λ",
    "OME's λ (alpha in the reference code): an even 1-bit survives with probability λ/(1+λ).",
    min=1.0,
    max=10_000.0,
    log=True,
    slider=True,
)
MECHANISM = Param(
    "mechanism",
    "choice",
    "ome",
    "Mechanism (live panel)",
    "The mechanism the live panel attacks.",
    choices=ome.MECHANISMS,
    choice_labels={"ome": "OME", "sue": "SUE (basic RAPPOR)", "oue": "OUE"},
)
