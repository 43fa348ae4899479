"""The papers' embeddings by their gensim-downloader names: a model laid out as gensim's
downloader lays it out is used with no network access, converted once; an absent one is one
sentence; the download itself is exercised against a local web server."""

import gzip
import http.server
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from dpviz.data import embeddings as E
from dpviz.data import gensim_models as G

ROOT = Path(__file__).resolve().parents[2]
WORDS = 3000


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("GENSIM_DATA_DIR", str(tmp_path / "gensim-data"))
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(E, "_CACHE", None)  # a fresh in-process memo of loaded embeddings
    return tmp_path / "gensim-data"


def _glove_top(n: int) -> tuple[list[str], np.ndarray]:
    glove = E.get("glove-6b-50d")
    return glove.vocab[:n], np.asarray(glove.vectors[:n], dtype=np.float32)


def _lay_out_text(name: str, words, vectors) -> Path:
    """word2vec text, gzipped, at $GENSIM_DATA_DIR/NAME/NAME.gz (gensim's downloader layout)."""
    path = G.model_file(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent / "__init__.py").write_text("")  # the downloader ships a loader module beside the data
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(f"{len(words)} {vectors.shape[1]}\n")
        for w, v in zip(words, vectors):
            fh.write(w + " " + " ".join(repr(float(x)) for x in v) + "\n")
    return path


def _no_network(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("network access while loading a model that is on this machine")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_a_present_model_loads_without_network_and_is_converted_once(data_dir, monkeypatch):
    words, vectors = _glove_top(WORDS)
    _lay_out_text("glove-wiki-gigaword-300", words, vectors)
    assert "on this machine" in G.label("glove-wiki-gigaword-300")
    _no_network(monkeypatch)
    E.check_source("glove-wiki-gigaword-300")
    emb = E.resolve("glove-wiki-gigaword-300")
    assert emb.size == WORDS and emb.dim == 50 and emb.vocab == words
    assert isinstance(emb.vectors, np.memmap)
    assert np.array_equal(np.asarray(emb.vectors), vectors)  # float32 written with repr: read back exactly
    # a new process-level load reads the converted copy, never gensim's file again
    from gensim.models import KeyedVectors

    monkeypatch.setattr(KeyedVectors, "load_word2vec_format", lambda *a, **k: pytest.fail("converted twice"))
    monkeypatch.setattr(E, "_CACHE", None)
    again = E.resolve("glove-wiki-gigaword-300")
    assert again.vocab == words and np.array_equal(np.asarray(again.vectors), vectors)


def test_a_word2vec_binary_model_loads(data_dir):
    from gensim.models import KeyedVectors

    words, vectors = _glove_top(500)
    kv = KeyedVectors(vectors.shape[1])
    kv.add_vectors(words, vectors)
    path = G.model_file("word2vec-google-news-300")
    path.parent.mkdir(parents=True)
    raw = data_dir / "raw.bin"
    kv.save_word2vec_format(str(raw), binary=True)
    with open(raw, "rb") as src, gzip.open(path, "wb") as dst:
        dst.write(src.read())
    emb = E.resolve("word2vec-google-news-300")
    assert emb.vocab == words and np.array_equal(np.asarray(emb.vectors), vectors)


def test_an_absent_model_is_one_sentence_saying_what_to_download_and_where(data_dir, monkeypatch):
    name = "fasttext-wiki-news-subwords-300"
    assert "download, 958 MB" in G.label(name)
    _no_network(monkeypatch)
    with pytest.raises(E.EmbeddingError) as err:
        E.check_source(name)
    text = str(err.value)
    assert f"python -m dpviz download {name}" in text and str(G.model_file(name)) in text
    with pytest.raises(E.EmbeddingError, match="download"):
        E.resolve(name)
    monkeypatch.setenv("DPVIZ_HOSTED", "1")
    with pytest.raises(E.EmbeddingError, match="does not download"):
        E.check_source(name)
    with pytest.raises(E.EmbeddingError, match="does not download"):
        G.download(name)


def test_the_command_line_says_it_in_one_line(tmp_path):
    env = dict(os.environ, GENSIM_DATA_DIR=str(tmp_path / "empty"), DPVIZ_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "dpviz",
            "figure",
            "metric-stats",
            "--set",
            "embedding=glove-wiki-gigaword-300",
            "--out",
            str(tmp_path / "s.csv"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 2 and "python -m dpviz download glove-wiki-gigaword-300" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.fixture
def web_server(tmp_path):
    """A local web server laid out like gensim-data's releases: /NAME/NAME.gz."""
    root = tmp_path / "www"
    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=str(root), **k)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_download_with_progress_then_load_and_a_cancelled_download_leaves_nothing(data_dir, web_server, monkeypatch):
    root, url = web_server
    words, vectors = _glove_top(WORDS)
    monkeypatch.setenv("GENSIM_DATA_DIR", str(root))
    served = _lay_out_text("glove-wiki-gigaword-300", words, vectors)
    monkeypatch.setenv("GENSIM_DATA_DIR", str(data_dir))
    monkeypatch.setattr(G, "DOWNLOAD_BASE", url)

    cancel = threading.Event()
    seen = []

    def stop_at_once(frac, msg):
        seen.append(frac)
        cancel.set()

    with pytest.raises(E.EmbeddingError, match="cancelled"):
        big = root / "word2vec-google-news-300"
        big.mkdir()
        (big / "word2vec-google-news-300.gz").write_bytes(os.urandom(3 << 20))
        G.download("word2vec-google-news-300", stop_at_once, cancel)
    assert not G.model_file("word2vec-google-news-300").exists()
    assert not list(G.model_file("word2vec-google-news-300").parent.glob("*.part"))

    fractions = []
    path = G.download("glove-wiki-gigaword-300", lambda f, m: fractions.append(f))
    assert path.read_bytes() == served.read_bytes() and fractions[-1] == 1.0
    emb = E.resolve("glove-wiki-gigaword-300")
    assert emb.vocab == words


def test_a_local_file_larger_than_memory_is_refused_before_loading(tmp_path):
    """Locally there is no size cap: the declared matrix is checked against the memory available."""
    path = tmp_path / "huge.vec"
    header = b"40000000 1000\n"
    with open(path, "wb") as fh:
        fh.write(header)
        fh.truncate(40_000_000 * 2002 + len(header))  # sparse: the header's claim fits the file's size
    with pytest.raises(E.EmbeddingError, match="GiB available"):
        E.load_file(path)
