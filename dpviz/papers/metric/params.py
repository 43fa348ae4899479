"""The metric-DP page's parameters (Feyisetan et al. 2020): the embedding and its comparison,
the words and their draws, ε (listed and on the slider), the statistics' settings, the
calibration target, the nearest-neighbour sample and the try-it box's sentence. Declared once;
the figures (figures.py) and the prepared state (pipeline.py) read them."""

from __future__ import annotations

from dpviz.data import embeddings as E
from dpviz.data import gensim_models
from dpviz.params import SEED, Param, Upload


class _EmbeddingLabels(dict):
    """Labels of the embedding choices; a gensim-downloader model's label says whether it is on
    this machine or a download of how many MB (looked up each time: a download changes it)."""

    def get(self, key, default=None):
        if key in E.GENSIM:
            return gensim_models.label(key)
        return super().get(key, default)

    def __getitem__(self, key):
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __contains__(self, key):
        return key in E.GENSIM or super().__contains__(key)


EMBEDDING_LABELS = _EmbeddingLabels(
    {
        "glove-6b-50d": "GloVe 6B 50d (built in, 400,000 words)",
        "fasttext-local": "fastText 100d trained here (stand-in, ~15 s once)",
        "none": "none",
    }
)
EMBEDDING = Param(
    "embedding",
    "text",
    "glove-6b-50d",
    "Embedding",
    "glove-6b-50d (GloVe 6B 50d, all 400,000 words), fasttext-local (trained here once), the papers' 300-d vectors by "
    "their gensim-downloader names (glove-wiki-gigaword-300, fasttext-wiki-news-subwords-300, "
    "word2vec-google-news-300), an uploaded file, or (running locally) the path of a .vec/.txt/.bin file.",
    max_items=300,
    options=("glove-6b-50d", "fasttext-local", *E.GENSIM),
    choice_labels=EMBEDDING_LABELS,
    upload=Upload(
        ("vec", "txt", "bin"),
        title="Use your own embedding file",
        caption="A word2vec/fastText .vec, a GloVe .txt or a fastText/word2vec .bin (at most 50 MB here). "
        "For the paper's vectors, run dpviz locally with --set embedding=/path/to/crawl-300d-2M.vec.",
        check="dpviz.papers.metric.pipeline:describe_embedding_upload",
    ),
)
COMPARE = Param(
    "compare",
    "text",
    "none",
    "Compare with",
    "A second embedding to overlay (same choices as Embedding), or none.",
    max_items=300,
    options=("none", "glove-6b-50d", "fasttext-local", *E.GENSIM),
    choice_labels=EMBEDDING_LABELS,
)
EPSILONS = Param(
    "epsilons",
    "float_list",
    (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40),
    "Values of ε",
    "The privacy parameters to compute, comma-separated.",
    min=0.01,
    max=1000.0,
    max_items=40,
)
WORDS = Param(
    "words",
    "int",
    10,
    "Words sampled",
    "How many words to draw (uniformly, seeded) from the most frequent ones.",
    min=1,
    max=2000,
    hosted_max=50,
)
WORD_LIST = Param(
    "word_list",
    "text",
    "",
    "Or these words",
    "Explicit words, comma-separated (overrides the sample).",
    max_items=500,
    hosted_max=WORDS.hosted_max,
)
VOCAB = Param(
    "vocab",
    "int",
    10_000,
    "…from the top",
    "Sampled words come from this many most frequent words.",
    min=10,
    max=400_000,
)
SAMPLES = Param(
    "samples",
    "int",
    1000,
    "Draws per word (N)",
    "Releases of each word (paper: 1,000); nearest-word search is always over the whole vocabulary.",
    min=10,
    max=20_000,
    hosted_max=1000,
)
ETA = Param(
    "eta",
    "float",
    0.05,
    "η for S_w^η",
    "S_w^η is the size of the smallest set of outputs holding at least 1 − η of the draws.",
    min=0.0,
    max=0.5,
)
HIST_EPS = Param(
    "hist_epsilons",
    "float_list",
    (5, 7, 9, 11, 12),
    "ε for the histograms",
    "Histograms of S_w and N_w at these ε (paper's Figure 6: 5, 7, 9, 11, 12 for GloVe 50d).",
    min=0.01,
    max=1000.0,
    max_items=8,
)
TARGET_STAT = Param(
    "target_stat",
    "choice",
    "n_w",
    "Target statistic",
    "What the calibration target constrains.",
    choices=("n_w", "s_w"),
    choice_labels={"n_w": "average N_w (draws that keep the word)", "s_w": "average S_w (distinct outputs)"},
)
TARGET_OP = Param(
    "target_op",
    "choice",
    "at_most",
    "Target direction",
    "Whether the average must stay at most or at least the target.",
    choices=("at_most", "at_least"),
    choice_labels={"at_most": "at most", "at_least": "at least"},
)
TARGET = Param(
    "target",
    "float",
    100.0,
    "Target value",
    "In draws (of N): e.g. N_w at most 100 of 1000 = at most 10% of words unchanged; S_w at least 50.",
    min=0.0,
    max=20_000.0,
)
KNN_WORDS = Param(
    "knn_words",
    "int",
    200,
    "Words for Figure 2",
    "Words sampled from the top-vocab for the k-nearest-neighbour distances.",
    min=10,
    max=5000,
    hosted_max=500,
)

EPSILON = Param(
    "epsilon",
    "float",
    10.0,
    "ε",
    "The privacy parameter of the live views: marked on every curve over ε, drawn in the histograms, "
    "used by the per-word chart and the try-it box.",
    min=0.1,
    max=1000.0,
    log=True,
    slider=True,
)

SWEEP_DIR = Param(
    "sweep_dir",
    "text",
    "",
    "Sweep directory (optional)",
    "A directory written by `python -m dpviz sweep metric`: its whole-vocabulary statistics are drawn next to the live "
    "sample in Figures 3-6.",
    max_items=500,
)

WORD_PARAMS = (EMBEDDING, COMPARE, EPSILONS, WORDS, WORD_LIST, VOCAB, SAMPLES, ETA, SEED)


# the page's "try it" box (no figure: shown as highlighted text)
SENTENCE = Param(
    "sentence",
    "text",
    "the patient was admitted to the hospital in boston on monday",
    "Sentence",
    "Words to privatise (lower-cased; at most 40 words).",
    max_items=500,
)
REWRITES = Param("rewrites", "int", 5, "Rewrites", "How many independent privatised versions to show.", min=1, max=20)
