"""Embedding loaders on small real files (gensim ships them) and bad files."""

import os
from pathlib import Path

import numpy as np
import pytest
import shared_models

from dpviz.data import embeddings as E
from dpviz.data import fasttext_local
from dpviz.papers.metric import pipeline as fm

DATA = fasttext_local.gensim_test_data()


def test_glove_wheel_is_memory_mapped_and_complete():
    emb = E.load_glove_6b_50d()
    assert emb.size == 400_000 and emb.dim == 50
    assert isinstance(emb.vectors, np.memmap)
    assert emb.vocab[:3] == ["the", ",", "."]  # frequency order
    assert emb.word_id("privacy") > 0


@pytest.mark.parametrize(
    "name, subwords",
    [
        ("lee_fasttext.bin", True),
        ("lee_fasttext.vec", False),
        ("crime-and-punishment.vec", False),
        ("crime-and-punishment.bin", True),
        ("test_glove.txt", False),
    ],
)
def test_real_gensim_files_load(name, subwords):
    from gensim.models import KeyedVectors
    from gensim.models.fasttext import load_facebook_vectors

    emb = E.load_file(DATA / name)
    if name.endswith(".bin") and subwords:
        ref = load_facebook_vectors(str(DATA / name))
    elif name.endswith(".bin"):
        ref = KeyedVectors.load_word2vec_format(str(DATA / name), binary=True)
    else:
        ref = KeyedVectors.load_word2vec_format(str(DATA / name), binary=False, no_header=name.endswith(".txt"))
    assert emb.size == len(ref.index_to_key) and emb.dim == ref.vector_size
    w = ref.index_to_key[5]
    assert np.allclose(emb.vectors[emb.word_id(w)], ref[w])
    assert (emb.oov is not None) == subwords


@pytest.mark.parametrize(
    "content, fragment",
    [
        (b"", "empty"),
        (b"this is not\nan embedding file\n", "Could not read|neither"),
        (os.urandom(4096), "Could not read|neither"),
    ],
)
def test_bad_files_give_a_sentence(tmp_path, content, fragment):
    for suffix in (".vec", ".bin"):
        p = tmp_path / f"bad{suffix}"
        p.write_bytes(content)
        with pytest.raises(E.EmbeddingError, match=fragment):
            E.load_file(p)


def test_missing_and_oversized_files(tmp_path):
    with pytest.raises(E.EmbeddingError, match="No embedding file"):
        E.load_file(tmp_path / "nope.vec")
    with pytest.raises(E.EmbeddingError, match="at most"):
        E.load_file(DATA / "lee_fasttext.vec", max_bytes=1000)


def test_hosted_mode_refuses_paths_and_uploads_cannot_escape(monkeypatch):
    monkeypatch.setenv("DPVIZ_HOSTED", "1")
    with pytest.raises(E.EmbeddingError, match="hosted demo"):
        fm.resolve(str(DATA / "lee_fasttext.vec"))
    with pytest.raises(E.EmbeddingError, match="plain file name"):
        fm.resolve("upload:../../etc/passwd")


def test_fasttext_local_trains_once_and_is_cached(tmp_path, monkeypatch):
    """The stand-in as the run trained it once for all its caches (tests/shared_models.py; trained
    here if no test has yet, its progress then reaching 1): its size, subwords, and a second load
    that reads it back without training. Its training under the lock by two processes at once, with
    its progress, is test_build_once.py's."""
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    shared_models.share_models(tmp_path)
    seen = []
    emb = fasttext_local.load_fasttext_local(lambda f, m: seen.append(f))
    assert emb.dim == 100 and 5000 < emb.size < 20000
    assert not seen or max(seen) == pytest.approx(1.0)
    assert emb.oov("unseenwordish").shape == (100,)  # subwords give a vector for unknown words
    again = fasttext_local.load_fasttext_local(lambda f, m: pytest.fail("retrained"))
    assert again.vocab == emb.vocab


def test_truncated_or_forged_fasttext_bin_is_refused_not_hung(tmp_path):
    """gensim loops forever at EOF on a broken vocabulary: dpviz must refuse it first."""
    good = (DATA / "lee_fasttext.bin").read_bytes()
    assert E.looks_like_fasttext_bin(good)
    for name, data in [
        ("cut.bin", good[:5000]),
        ("header.bin", good[:92]),
        ("forged.bin", good[:64] + (10**6).to_bytes(4, "little") * 3 + good[76:3000]),
    ]:
        assert not E.looks_like_fasttext_bin(data)
        p = tmp_path / name
        p.write_bytes(data)
        with pytest.raises(E.EmbeddingError):
            E.load_file(p)


def test_an_upload_is_saved_by_content_and_resolves(tmp_path, monkeypatch):
    from dpviz import uploads

    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    data = (DATA / "lee_fasttext.vec").read_bytes()
    ref = uploads.save_upload(data, "My Vectors.VEC")
    assert ref.startswith("upload:") and ref.endswith(".vec") and ref == uploads.save_upload(data, "again.vec")
    monkeypatch.setenv("DPVIZ_HOSTED", "1")  # uploads are the way in on a hosted demo
    emb = E.resolve(ref)
    assert emb.size > 100 and uploads.upload_path(ref).read_bytes() == data
    for bad in ("upload:../x.vec", "upload:.hidden", "upload:a/b.vec", "upload:"):
        with pytest.raises((ValueError, E.EmbeddingError), match="plain file name"):
            E.resolve(bad)


def _fasttext_with(good: bytes, **changes) -> bytes:
    """lee_fasttext.bin (old layout: the arguments from byte 0) with declared sizes changed."""
    import struct

    data = bytearray(good)
    layout = E.fasttext_bin_layout(good)
    matrix_at = layout["matrix_at"]
    for name, value in changes.items():
        if name == "dim":
            struct.pack_into("<i", data, 0, value)
        elif name == "bucket":
            struct.pack_into("<i", data, 32, value)
        elif name == "rows":
            struct.pack_into("<q", data, matrix_at, value)
        elif name == "cols":
            struct.pack_into("<q", data, matrix_at + 8, value)
    return bytes(data)


def _header_bombs() -> dict[str, bytes]:
    good = (DATA / "lee_fasttext.bin").read_bytes()
    vec = (DATA / "lee_fasttext.vec").read_bytes()
    body = vec.split(b"\n", 1)[1]
    return {
        "billion.vec": b"1000000000 300\nthe 0.1\n",  # the 21-byte kind
        "wide.vec": b"3 100000000\n" + body[:2000],  # absurd dimension
        "long.vec": b"99999 10\n" + body,  # more words than the bytes can hold
        "billion.bin": b"1000000000 300\n" + bytes(400),  # word2vec binary
        "wide.bin": b"2 2000000\n" + bytes(400),
        "bucket.bin": _fasttext_with(good, bucket=2_000_000_000),
        "rows.bin": _fasttext_with(good, rows=10**9),
        "cols.bin": _fasttext_with(good, cols=10**6),
        "dim.bin": _fasttext_with(good, dim=10**6, cols=10**6),
        "wideline.txt": b"word " + b"0.5 " * 20_000 + b"\n",  # GloVe text, 20,000 "dimensions"
        "noline.txt": b"w" + b"1" * (1 << 17),  # one endless first line
    }


def test_headers_that_claim_more_than_the_file_holds_are_refused_before_allocating(tmp_path):
    """Each hostile file is refused with a sentence; all of them together, loaded in a fresh process,
    leave its peak memory near that of importing gensim (gensim itself would allocate gigabytes)."""
    import json
    import subprocess
    import sys

    paths = []
    for name, data in _header_bombs().items():
        p = tmp_path / name
        p.write_bytes(data)
        paths.append(str(p))
        with pytest.raises(E.EmbeddingError) as err:
            E.load_file(p)
        assert "Traceback" not in str(err.value) and len(str(err.value)) < 300
    script = (
        "import json, resource, sys\n"
        "from dpviz.data import embeddings as E\n"
        "import gensim.models, gensim.models.fasttext\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "refused = 0\n"
        "for p in sys.argv[1:]:\n"
        "    try:\n"
        "        E.load_file(p)\n"
        "    except E.EmbeddingError:\n"
        "        refused += 1\n"
        "print(json.dumps([base, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, refused]))\n"
    )
    out = subprocess.run([sys.executable, "-c", script, *paths], capture_output=True, text=True, check=True)
    base_kib, peak_kib, refused = json.loads(out.stdout.strip().splitlines()[-1])
    assert refused == len(paths)
    assert peak_kib - base_kib < 64 * 1024  # KiB: under 64 MiB above the baseline


def test_the_size_check_accepts_every_real_file_and_reports_its_format():
    expected = {
        "lee_fasttext.bin": "fasttext-bin",
        "crime-and-punishment.bin": "fasttext-bin",
        "lee_fasttext.vec": "word2vec-text",
        "test_glove.txt": "glove-text",
    }
    for name, layout in expected.items():
        assert E.check_declared_size(DATA / name).format == layout
    layout = E.fasttext_bin_layout((DATA / "crime-and-punishment.bin").read_bytes())
    # the new layout; gensim reads the same sizes its own way
    assert {k: layout[k] for k in ("dim", "nwords", "bucket", "rows")} == {
        "dim": 5,
        "nwords": 291,
        "bucket": 100,
        "rows": 391,
    }
    from gensim.models.fasttext import load_facebook_vectors

    kv = load_facebook_vectors(str(DATA / "crime-and-punishment.bin"))
    assert (kv.vector_size, len(kv.index_to_key), kv.bucket) == (5, 291, 100)


def _word2vec_bin(path: Path, words: int, dim: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    with open(path, "wb") as fh:
        fh.write(f"{words} {dim}\n".encode())
        for i in range(words):
            fh.write(f"w{seed}_{i} ".encode() + rng.standard_normal(dim).astype(np.float32).tobytes())


def test_loaded_embeddings_stay_within_a_memory_budget_measured_in_a_fresh_process(tmp_path):
    """Eight distinct 8 MB uploads under a 20 MB budget: the process's resident memory stays near one
    budget above its baseline, and an upload whose file the disk quota deleted leaves memory too."""
    import json
    import subprocess
    import sys

    paths = []
    for k in range(8):
        p = tmp_path / f"up{k}.bin"
        _word2vec_bin(p, 20_000, 100, k)
        paths.append(str(p))
    script = (
        "import gc, json, os, sys\n"
        "from pathlib import Path\n"
        "from dpviz.data import embeddings as E\n"
        "import gensim.models\n"
        "def rss():\n"
        "    gc.collect()\n"
        "    return int(open('/proc/self/statm').read().split()[1]) * os.sysconf('SC_PAGE_SIZE')\n"
        "E.get(sys.argv[1]); base = rss()\n"
        "for p in sys.argv[2:]:\n"
        "    E.get(p)\n"
        "after = rss(); memo = E._loaded()\n"
        "Path(sys.argv[-1]).unlink(); E.get(sys.argv[1])\n"
        "print(json.dumps([base, after, memo.nbytes(), memo.keys()]))\n"
    )
    env = dict(os.environ, DPVIZ_EMBEDDINGS_MB="20")
    out = subprocess.run([sys.executable, "-c", script, *paths], capture_output=True, text=True, check=True, env=env)
    base, after, held, keys = json.loads(out.stdout.strip().splitlines()[-1])
    assert held <= 20 * 2**20 + 10 * 2**20  # the budget plus at most the newest entry
    assert after - base < 48 * 2**20, (after - base) / 2**20  # eight uploads would be 64 MB more
    assert paths[-1] not in keys and paths[0] in keys  # deleted file dropped; the one just used kept
    assert len(keys) < 4
