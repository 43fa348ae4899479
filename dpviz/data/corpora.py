"""Sentence corpora: the labelled movie-review sentences gensim ships, and user files.

Default: ``pang_lee_polarity.cor`` from gensim's test data: 200 sentences from Pang & Lee's
movie-review polarity data, each line ``__label__pos`` or ``__label__neg`` and the sentence
(the HoHo paper used 800 Yelp reviews, which cannot be downloaded here; the file is cp1252 text). User files: plain
text (one sentence per line) or CSV with a ``sentence`` column and optional ``label`` column.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np

from dpviz import hosted_mode
from dpviz.data.embeddings import Embedding
from dpviz.data.fasttext_local import gensim_test_data
from dpviz.errors import InputError

MAX_BYTES = 5 * 1024 * 1024
MAX_SENTENCES = 20_000
HOSTED_MAX_SENTENCES = 2_000  # the attack's work grows with targets x sentences; see figures.hoho
TOKEN_RE = re.compile(r"[a-z0-9']+")


class CorpusError(InputError):
    """A corpus that cannot be used; ``str(err)`` says why."""


def movie_reviews() -> tuple[list[str], np.ndarray]:
    """The 200 labelled movie-review sentences gensim ships with its tests: (sentences, 0/1 labels)."""

    sents, labels = [], []
    for line in (
        (gensim_test_data() / "pang_lee_polarity.cor").read_text(encoding="cp1252", errors="replace").splitlines()
    ):
        tag, _, text = line.partition(" ")
        if tag in ("__label__pos", "__label__neg") and text.strip():
            sents.append(text.strip())
            labels.append(1 if tag == "__label__pos" else 0)
    return sents, np.array(labels)


def parse_upload(data: bytes, name: str) -> tuple[list[str], np.ndarray | None]:
    """Sentences (and labels if given) from an uploaded .txt or .csv; clear errors otherwise."""
    if len(data) > MAX_BYTES:
        raise CorpusError(
            f"The file is {len(data) / 2**20:.1f} MiB; at most {MAX_BYTES // 2**20} MiB of sentences are accepted."
        )
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark (Excel's "CSV UTF-8") is dropped
    except UnicodeDecodeError:
        raise CorpusError(
            "The file is not UTF-8 text: upload a .txt (one sentence per line) or a .csv with a 'sentence' column."
        ) from None
    if name.lower().endswith(".csv"):
        try:
            rows = list(csv.DictReader(io.StringIO(text)))
        except csv.Error as err:  # e.g. a field longer than the csv module's limit (131,072 characters)
            raise CorpusError(
                f"The CSV could not be read ({str(err)[:80]}): write one sentence per row, each under 100,000 "
                "characters."
            ) from None
        if not rows or "sentence" not in rows[0]:
            raise CorpusError("The CSV needs a header with a 'sentence' column (and optionally 'label' with 0/1).")
        sents = [r["sentence"].strip() for r in rows if (r.get("sentence") or "").strip()]
        labels = None
        if "label" in rows[0]:
            raw = [(r.get("label") or "").strip() for r in rows if (r.get("sentence") or "").strip()]
            bad = next((x for x in raw if x not in ("0", "1")), None)
            if bad is not None:
                raise CorpusError(f"The 'label' column must hold 0 or 1 in every row; found {bad[:20]!r}.")
            labels = np.array([int(x) for x in raw])
    else:
        sents, labels = [s.strip() for s in text.splitlines() if s.strip()], None
    if len(sents) < 10:
        raise CorpusError(f"At least 10 sentences are needed, got {len(sents)}.")

    most = HOSTED_MAX_SENTENCES if hosted_mode() else MAX_SENTENCES
    if len(sents) > most:
        where = " on the hosted demo (run dpviz locally for more)" if hosted_mode() else ""
        raise CorpusError(f"At most {most:,} sentences are accepted{where}, got {len(sents):,}.")
    return sents, labels


def tokenize(sentence: str) -> list[str]:
    """Lower-cased word tokens of a sentence (letters, digits and inner apostrophes)."""
    return TOKEN_RE.findall(sentence.lower())


def sentence_vectors(sentences: list[str], emb: Embedding, vocab_size: int = 5000, maxlen: int = 100) -> np.ndarray:
    """OME's text representation (reference code): tokens of the first ``maxlen`` positions,
    a vocabulary of the ``vocab_size`` most frequent words of the corpus (others count as
    padding), zero padding to ``maxlen``, and a max-pool over positions of the GloVe vectors
    (words GloVe lacks are zero vectors). Because padding is zeros, short sentences' values
    are >= 0. Returns (N, d) float64."""
    toks = [tokenize(s)[:maxlen] for s in sentences]
    counts: dict[str, int] = {}
    for t in toks:
        for w in t:
            counts[w] = counts.get(w, 0) + 1
    keep = {w for w, _ in sorted(counts.items(), key=lambda kv: -kv[1])[:vocab_size]}
    out = np.zeros((len(sentences), emb.dim))
    for i, t in enumerate(toks):
        vecs = [emb.row64(emb.index[w]) for w in t if w in keep and w in emb.index]
        pad = maxlen - len(vecs)
        if vecs:
            m = np.max(np.stack(vecs), axis=0)
            out[i] = np.maximum(m, 0.0) if pad > 0 else m
    return out


def read_path(path: str | Path) -> tuple[list[str], np.ndarray | None]:
    """Sentences (and 0/1 labels, if the file has them) from a .txt or .csv file, checked as
    :func:`parse_upload` checks an upload; CorpusError with a sentence for a missing or bad file."""
    p = Path(path)
    if not p.is_file():
        raise CorpusError(f"No corpus file at {str(path)[:200]!r}.")
    return parse_upload(p.read_bytes(), p.name)
