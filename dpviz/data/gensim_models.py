"""The papers' 300-d embeddings by the names NLP users fetch them with: gensim's downloader.

``gensim.downloader`` keeps each model as ``$GENSIM_DATA_DIR/NAME/FILE`` (default
``~/gensim-data``). dpviz resolves that file itself, so a model already there is used without any
network access (gensim's own ``load`` first asks the network for its catalogue). The first use
converts it once into the fast format dpviz reads (a float32 ``.npy`` matrix, memory-mapped, and
the vocabulary), under the dpviz cache directory. A model that is absent is one sentence saying
what to download and where to put it; :func:`download` fetches it with progress and can be
cancelled. A hosted demo never downloads.
"""

from __future__ import annotations

import gzip
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from dpviz import hosted_mode
from dpviz.build_once import build_once
from dpviz.data.embedding import Embedding, EmbeddingError, check_memory
from dpviz.storage import cache_dir

DOWNLOAD_BASE = "https://github.com/RaRe-Technologies/gensim-data/releases/download"


@dataclass(frozen=True)
class GensimModel:
    """A model gensim's downloader serves: its name, file format and download size."""

    name: str
    binary: bool  # word2vec binary (else word2vec text with a "count dim" header)
    size_mb: int  # the download, as gensim's catalogue lists it
    words: int
    title: str

    @property
    def file_name(self) -> str:
        """The file name gensim's downloader writes (``NAME.gz``)."""
        return f"{self.name}.gz"


MODELS = {
    m.name: m
    for m in (
        GensimModel("glove-wiki-gigaword-300", False, 376, 400_000, "GloVe 6B 300d (Wikipedia 2014 + Gigaword 5)"),
        GensimModel("fasttext-wiki-news-subwords-300", False, 958, 999_999, "fastText 300d, wiki-news with subwords"),
        GensimModel("word2vec-google-news-300", True, 1662, 3_000_000, "word2vec 300d, Google News"),
    )
}


def data_dir() -> Path:
    """Where gensim's downloader keeps its files: $GENSIM_DATA_DIR, else ~/gensim-data."""
    return Path(os.environ.get("GENSIM_DATA_DIR") or Path.home() / "gensim-data")


def model_file(name: str) -> Path:
    """Where gensim's downloader keeps the model ``name``: ``$GENSIM_DATA_DIR/NAME/NAME.gz``."""
    return data_dir() / name / MODELS[name].file_name


def is_present(name: str) -> bool:
    """Whether the model is on this machine (downloaded, or already converted to dpviz's format)."""
    return model_file(name).is_file() or _converted(name) is not None


def label(name: str) -> str:
    """The select box's label: the title, and "download, N MB" while the file is absent."""
    m = MODELS[name]
    state = "on this machine" if is_present(name) else f"download, {m.size_mb:,} MB"
    return f"{m.title} ({m.words:,} words; {state})"


def absent_sentence(name: str) -> str:
    """The sentence for an absent model: what to download and where to put it (on a hosted demo:
    that models are not downloaded there)."""

    m = MODELS[name]
    if hosted_mode():
        return (
            f"{name} is not on this server and a hosted demo does not download models: "
            "choose glove-6b-50d or upload a file."
        )
    return (
        f"{name} ({m.size_mb:,} MB) is not in {data_dir()}: download it with `python -m dpviz download {name}` (or "
        "gensim's "
        f"downloader), or put {m.file_name} at {model_file(name)}."
    )


def _converted_dir(name: str) -> Path:
    return cache_dir() / "embeddings" / name


def _converted(name: str) -> Path | None:
    """The converted copy if it is complete (written last: meta.json, with the shape it holds)."""
    folder = _converted_dir(name)
    try:
        meta = json.loads((folder / "meta.json").read_text())
        if (folder / "vectors.npy").stat().st_size >= meta["rows"] * meta["dim"] * 4:
            return folder
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _convert(name: str, progress: Callable[[float, str], None] | None) -> Path:
    """Read gensim's file once (with gensim, after checking its header and the memory it needs)
    and write the matrix as float32 .npy and the vocabulary, one word per line: once for every
    process sharing the cache (:func:`dpviz.build_once.build_once`; the others wait and read it)."""
    return build_once(_converted_dir(name), lambda tmp: _convert_into(name, tmp, progress), ready=_whole)


def _whole(folder: Path) -> bool:
    return _converted(folder.name) is not None


def _convert_into(name: str, folder: Path, progress: Callable[[float, str], None] | None) -> None:
    from gensim.models import KeyedVectors

    src = model_file(name)
    if progress:
        progress(0.05, f"Converting {name} once into dpviz's fast format (a few minutes for a million words)…")
    with gzip.open(src, "rb") as fh:
        header = fh.readline(1 << 16).split()
    if len(header) == 2 and all(t.isdigit() for t in header):
        check_memory(int(header[0]), int(header[1]), what=name)
    kv = KeyedVectors.load_word2vec_format(str(src), binary=MODELS[name].binary)
    folder.mkdir(parents=True)
    vectors = np.asarray(kv.vectors, dtype=np.float32)
    np.save(folder / "vectors.npy", vectors)
    (folder / "vocab.txt").write_text("\n".join(w.replace("\n", " ") for w in kv.index_to_key) + "\n", encoding="utf-8")
    (folder / "meta.json").write_text(
        json.dumps({"name": name, "rows": int(vectors.shape[0]), "dim": int(vectors.shape[1]), "source": str(src)})
    )
    if progress:
        progress(1.0, f"{name} converted.")


def load(name: str, progress: Callable[[float, str], None] | None = None) -> Embedding:
    """A gensim-downloader model from this machine (no network): converted once, then memory-mapped."""
    folder = _converted(name)
    if folder is None:
        if not model_file(name).is_file():
            raise EmbeddingError(absent_sentence(name))
        folder = _convert(name, progress)
    vectors = np.load(folder / "vectors.npy", mmap_mode="r")
    vocab = (folder / "vocab.txt").read_text(encoding="utf-8").split("\n")[: vectors.shape[0]]
    if len(vocab) != vectors.shape[0]:
        raise EmbeddingError(
            f"The converted copy of {name} in {folder} is incomplete: delete that folder to convert again."
        )
    m = MODELS[name]
    return Embedding(
        name,
        f"{m.title}, gensim-data {name}",
        vocab,
        vectors,
        note=f"{vectors.shape[0]:,} words, {vectors.shape[1]} dimensions, from {model_file(name)}.",
    )


def download(
    name: str, progress: Callable[[float, str], None] | None = None, cancel: threading.Event | None = None
) -> Path:
    """Fetch a model from gensim-data's releases into gensim's data directory, with progress; a
    set ``cancel`` event (or an exception in ``progress``) stops it and removes the partial file.
    Not on a hosted demo. (Needs network access; kept thin: a streamed copy and a rename.)"""
    import urllib.request

    if hosted_mode():
        raise EmbeddingError(absent_sentence(name))
    if name not in MODELS:
        raise EmbeddingError(f"Unknown model {name[:60]!r}: dpviz offers {', '.join(MODELS)}.")
    target = model_file(name)
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    url = f"{DOWNLOAD_BASE}/{name}/{MODELS[name].file_name}"
    try:
        with urllib.request.urlopen(url, timeout=30) as response, open(part, "wb") as out:
            total = int(response.headers.get("Content-Length") or MODELS[name].size_mb * 2**20)
            done = 0
            while chunk := response.read(1 << 20):
                if cancel is not None and cancel.is_set():
                    raise EmbeddingError(f"The download of {name} was cancelled.")
                out.write(chunk)
                done += len(chunk)
                if progress:
                    progress(
                        min(done / total, 1.0), f"Downloading {name}: {done / 2**20:,.0f} of {total / 2**20:,.0f} MB"
                    )
        os.replace(part, target)
    except OSError as err:
        raise EmbeddingError(f"Could not download {name} ({err}); {absent_sentence(name)}") from None
    finally:
        if part.exists():
            part.unlink()
    return target
