"""``fasttext-local``: a small fastText model trained here, offline, as a stand-in for the
paper's 300-d English fastText vectors (which cannot be downloaded on this machine).

Corpus: the English text gensim ships in its test data: the shortened English Wikipedia
dump (enwiki-latest-pages-articles1...shortened.bz2, about 460,000 tokens) and the Lee
background/evaluation corpora (about 60,000 tokens). Model: gensim FastText, 100
dimensions, window 5, min_count 5, 5 epochs, seed 0, one worker (reproducible). Trained
once, with progress, and cached under the user cache directory. It differs from the
paper's vectors in size (about 10,000 words vs 1-2 million), corpus (0.5M tokens vs
billions) and dimension (100 vs 300): use it to see the method, and point dpviz at the
official files (``--set embedding=/path/to/crawl-300d-2M.vec`` or the page's file box)
to reproduce the paper's numbers.
"""

from __future__ import annotations

import bz2
import json
from pathlib import Path

import numpy as np

from dpviz.build_once import build_once
from dpviz.data.embedding import Embedding
from dpviz.storage import cache_dir

VERSION = 1
SETTINGS = dict(vector_size=100, window=5, min_count=5, epochs=5, seed=0, workers=1)
CORPUS_FILES = ("enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2", "lee_background.cor", "lee.cor")


def gensim_test_data() -> Path:
    """The folder of test corpora that ships with gensim (Lee corpus, a Wikipedia excerpt, ...),
    found without importing gensim (its import takes seconds: the HoHo page's movie reviews, its
    first chart, need only the file)."""
    import importlib.util

    spec = importlib.util.find_spec("gensim")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("gensim is not installed (pip install -r requirements.txt)")
    return Path(list(spec.submodule_search_locations)[0]) / "test" / "test_data"


def corpus_sentences() -> list[list[str]]:
    """Tokenised sentences (paragraphs) from gensim's English test data."""
    from gensim.corpora.wikicorpus import extract_pages, filter_wiki
    from gensim.utils import simple_preprocess

    root = gensim_test_data()
    out: list[list[str]] = []
    with bz2.open(root / CORPUS_FILES[0]) as fh:
        for _title, text, _pid in extract_pages(fh):
            for para in filter_wiki(text).split("\n"):
                toks = simple_preprocess(para, min_len=1, max_len=30)
                if len(toks) > 3:
                    out.append(toks)
    for name in CORPUS_FILES[1:]:
        with open(root / name, encoding="utf8", errors="ignore") as fh:
            out.extend(t for t in (simple_preprocess(line, min_len=1, max_len=30) for line in fh) if t)
    return out


def model_dir() -> Path:
    """Where the locally trained fastText model and its vectors are cached."""
    return cache_dir() / "embeddings" / f"fasttext-local-v{VERSION}"


def train(progress=None) -> Path:
    """Train and save the model (vectors .npy, vocabulary .json, gensim KeyedVectors) unless it
    is cached: once for every process sharing the cache directory (:func:`dpviz.build_once.build_once`:
    the others wait for the first's model and read it)."""
    return build_once(model_dir(), lambda tmp: _train_into(tmp, progress), ready=_complete)


def _complete(path: Path) -> bool:
    return (path / "settings.json").exists()


def _train_into(tmp: Path, progress=None) -> None:
    from gensim.models import FastText
    from gensim.models.callbacks import CallbackAny2Vec

    class _Report(CallbackAny2Vec):
        def __init__(self):
            self.epoch = 0

        def on_epoch_end(self, model):
            self.epoch += 1
            if progress:
                progress(
                    0.1 + 0.9 * self.epoch / SETTINGS["epochs"],
                    f"training fastText: epoch {self.epoch} of {SETTINGS['epochs']}",
                )

    if progress:
        progress(0.02, "reading gensim's English test corpora")
    sents = corpus_sentences()
    model = FastText(**SETTINGS)
    model.build_vocab(corpus_iterable=sents)
    model.train(corpus_iterable=sents, total_examples=len(sents), epochs=model.epochs, callbacks=[_Report()])
    tmp.mkdir(parents=True)
    np.save(tmp / "vectors.npy", model.wv.vectors.astype(np.float32))
    (tmp / "vocab.json").write_text(json.dumps(model.wv.index_to_key))
    model.wv.save(str(tmp / "kv.model"))
    # written last: a folder with it is whole (the folder is published by one rename besides)
    (tmp / "settings.json").write_text(json.dumps({**SETTINGS, "corpus": CORPUS_FILES, "tokens": sum(map(len, sents))}))


def load_fasttext_local(progress=None) -> Embedding:
    """The fasttext-local embedding (trained once, about 15 s, then read from the cache);
    unknown words get fastText's subword vectors."""
    path = train(progress)  # the cached model, trained first if it is not there
    vectors = np.load(path / "vectors.npy", mmap_mode="r")
    vocab = json.loads((path / "vocab.json").read_text())
    settings = json.loads((path / "settings.json").read_text())

    model: list = []  # the gensim model, loaded at the first unknown word

    def oov(word: str):
        if not model:
            from gensim.models import KeyedVectors

            model.append(KeyedVectors.load(str(path / "kv.model")))
        return model[0].get_vector(word)

    return Embedding(
        "fasttext-local",
        "fastText trained locally on gensim's English test corpora",
        vocab,
        vectors,
        oov=oov,
        note=(
            f"{len(vocab):,} words, {vectors.shape[1]} dimensions, {settings['tokens']:,} training tokens "
            "(the paper: 300-d vectors trained on billions of tokens)."
        ),
    )
