"""What the metric page keeps on disk so that a fresh server process reads what `dpviz build` (or
another process) computed: the nearest-neighbour distances of Figure 2 and the try-it box's
draws. Each is checked against the computation it replaces, and a second process (its memos
emptied) is shown to read rather than compute (the computation made to fail)."""

from __future__ import annotations

import numpy as np
import pytest

from dpviz import caches
from dpviz.data.embeddings import get
from dpviz.papers.metric import figures as F
from dpviz.papers.metric import mechanism as mdp
from dpviz.papers.metric import neighbours
from dpviz.papers.metric import pipeline as P


@pytest.fixture(scope="module")
def glove():
    return get("glove-6b-50d")


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    """An empty disk cache and empty process memos: this test's own."""
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    caches.empty_all()
    yield tmp_path
    caches.empty_all()


def _percentile_by_hand(column: np.ndarray, p: float) -> float:
    """numpy's default ("linear") percentile, written out: the sorted values at h = (n - 1) p / 100,
    interpolated between floor(h) and floor(h) + 1."""
    x = np.sort(column.astype(np.float64))
    h = (len(x) - 1) * p / 100
    lo = int(np.floor(h))
    hi = min(lo + 1, len(x) - 1)
    return x[lo] + (h - lo) * (x[hi] - x[lo])


@pytest.mark.parametrize("shape", [(1, 4), (2, 3), (5, 7), (40, 1000)], ids=["one word", "two", "odd", "page"])
def test_knn_percentiles_equal_each_percentile_by_hand(shape, monkeypatch):
    rng = np.random.default_rng(shape[0])
    d = rng.gamma(3.0, size=shape).astype(np.float32)
    d[:, 0] = d[0, 0]  # ties: every word at the same distance from its nearest word
    monkeypatch.setattr(F, "knn_distances", lambda v, progress=None: d)
    df = F._knn_compute({})
    assert list(df.columns) == ["k", "percentile", "distance"] and len(df) == shape[1] * len(F.PERCENTILES)
    assert df.k.tolist() == [k + 1 for k in range(shape[1]) for _ in F.PERCENTILES]
    assert df.percentile.tolist() == list(F.PERCENTILES) * shape[1]
    want = [_percentile_by_hand(d[:, k], p) for k in range(shape[1]) for p in F.PERCENTILES]
    np.testing.assert_allclose(df.distance.to_numpy(), want, rtol=1e-12, atol=0)
    assert (df[df.k == 1].distance == float(d[0, 0])).all()  # a tie gives that value at every percentile


def test_knn_distances_are_read_back_from_disk_by_another_process(glove, own_cache, monkeypatch):
    v = {"embedding": "glove-6b-50d", "knn_words": 12, "vocab": 3000, "seed": 7}
    first = P.knn_distances(v)
    ids = mdp.sample_word_ids(glove, 12, 3000, 7)
    direct = neighbours.kth_neighbour_distances(glove.vectors, ids, P.K_MAX)
    assert first.dtype == direct.dtype and first.shape == direct.shape == (12, P.K_MAX)
    assert np.array_equal(first, direct)
    caches.empty_all()  # another server process: nothing in memory, the same disk

    def no_search(*a, **k):
        raise AssertionError("searched again: the distances on disk were not read")

    monkeypatch.setattr(neighbours, "kth_neighbour_distances", no_search)
    again = P.knn_distances(v)
    assert np.array_equal(again, direct) and again.dtype == direct.dtype
    with pytest.raises(AssertionError, match="searched again"):  # another setting is searched
        P.knn_distances(dict(v, seed=8))


@pytest.mark.parametrize(
    "sentence",
    ["The hospital qzxqzxqzx in boston", "qzxqzxqzx zzqqxxyy", "boston"],
    ids=["known and unknown", "no known word", "one word"],
)
def test_the_try_it_box_is_read_back_from_disk_by_another_process(glove, own_cache, monkeypatch, sentence):
    v = {"embedding": "glove-6b-50d", "sentence": sentence, "epsilon": 9.0, "rewrites": 4, "seed": 3}
    tokens, rows, status, per_word = P.try_it(glove, v)
    assert (rows, status) == mdp.rewrite(glove, tokens, 9.0, 4, 3)  # the direct computation
    known = sorted({glove.index[t] for t in tokens if t in glove.index})
    if known:
        assert per_word.equals(mdp.mdp_stats(glove, known, [9.0], P.TRY_DRAWS, 0.05, 3))
    else:
        assert per_word is None
    epsilons = (9.0, 2.5, 40.0)
    want = {eps: mdp.rewrite(glove, tokens, eps, 4, 3) for eps in epsilons}
    stats = {eps: mdp.mdp_stats(glove, known, [eps], P.TRY_DRAWS, 0.05, 3) for eps in epsilons} if known else {}
    caches.empty_all()  # another server process (or a frames worker)

    def no_draws(*a, **k):
        raise AssertionError("drew again: the try-it box's draws on disk were not read")

    monkeypatch.setattr(mdp, "draw_envelopes", no_draws)
    for eps in epsilons:  # any ε, from the same draws
        again = P.try_it(glove, dict(v, epsilon=eps))
        assert again[:3] == (tokens, *want[eps])
        assert again[3].equals(stats[eps]) if known else again[3] is None
    if any(t in glove.index for t in tokens):
        with pytest.raises(AssertionError, match="drew again"):  # another seed draws anew
            P.try_it(glove, dict(v, seed=4))


@pytest.mark.parametrize("words", [1, 3])
def test_words_with_no_other_word_keep_their_number_on_disk(words, own_cache, monkeypatch):
    """A vocabulary of one word (an upload): no neighbour distance for any sampled word. The
    search's (words, 0) comes back as it was, from memory and from disk alike (it came back from
    disk as (0, 0) before)."""
    v = {"embedding": "glove-6b-50d", "knn_words": words, "vocab": 3000, "seed": 7}
    searched = []

    def none_other(vectors, ids, k):
        searched.append(len(ids))
        return np.empty((len(ids), 0), dtype=np.float32)

    monkeypatch.setattr(neighbours, "kth_neighbour_distances", none_other)
    assert P.knn_distances(v).shape == (words, 0)
    caches.empty_all()  # another process: read from disk, not searched again
    again = P.knn_distances(v)
    assert again.shape == (words, 0) and searched == [words]


@pytest.mark.parametrize("others", [0, 1, 9])
def test_the_tenth_neighbour_histogram_names_a_vocabulary_too_small(others, monkeypatch):
    """Fewer than ten other words: a sentence saying what is needed, not an IndexError."""
    from dpviz.errors import InputError

    monkeypatch.setattr(F, "knn_distances", lambda v, progress=None: np.ones((4, others), dtype=np.float32))
    with pytest.raises(InputError, match=f"at least 11 words.* {others} other word"):
        F._knn_hist_compute({})


def test_the_tenth_neighbour_histogram_counts_the_tenth_column(monkeypatch):
    d = np.arange(40, dtype=np.float32).reshape(4, 10)
    monkeypatch.setattr(F, "knn_distances", lambda v, progress=None: d)
    df = F._knn_hist_compute({})
    assert df["count"].sum() == 4 and df.bin_low.iloc[0] == 9 and df.bin_high.iloc[-1] == 39
