"""Metric DP: sampler, exact engine against brute force, statistics, limits."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpviz.data.embeddings import Embedding, get
from dpviz.papers.metric import mechanism as mdp
from dpviz.papers.metric import reference


def small_embedding(v=400, d=6, seed=0, duplicates=True):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(v, d)).astype(np.float32)
    if duplicates:
        x[7] = x[3]  # an exact duplicate: ties must go to the smaller id
    return Embedding("toy", "random", [f"w{i}" for i in range(v)], x)


def test_radius_has_mean_d_over_epsilon_and_gamma_distribution():
    d, eps = 50, 4.0
    u, g = mdp.sample_directions_and_radii(d, 20_000, np.random.default_rng(0))
    r = g / eps
    assert r.mean() == pytest.approx(d / eps, rel=0.01)
    assert stats.kstest(r, stats.gamma(a=d, scale=1 / eps).cdf).pvalue > 1e-3


def test_directions_are_uniform_on_the_sphere():
    d = 10
    u, _ = mdp.sample_directions_and_radii(d, 40_000, np.random.default_rng(1))
    assert np.allclose(np.linalg.norm(u, axis=1), 1)
    assert np.abs(u.mean(0)).max() < 0.02
    assert np.allclose(u.T @ u / len(u), np.eye(d) / d, atol=0.01)
    # a coordinate of a uniform unit vector: (u_1 + 1)/2 ~ Beta((d-1)/2, (d-1)/2)
    assert stats.kstest((u[:, 0] + 1) / 2, stats.beta((d - 1) / 2, (d - 1) / 2).cdf).pvalue > 1e-3


def test_noise_density_is_the_multivariate_laplace():
    """z = r u with r ~ Gamma(d, 1/eps): density proportional to exp(-eps ||z||) in R^d, whose norm
    has density ~ r^(d-1) exp(-eps r), i.e. Gamma(d, 1/eps): check E||z|| and Var||z||."""
    d, eps = 3, 2.0
    _, g = mdp.sample_directions_and_radii(d, 50_000, np.random.default_rng(2))
    r = g / eps
    assert r.var() == pytest.approx(d / eps**2, rel=0.03)


@pytest.fixture(autouse=True, params=["default", "tiny pilot"])
def route(request, monkeypatch):
    """Every engine test runs with the default thresholds and with a pilot sample so small that
    the thresholds are learnt during the pass: the outputs must not depend on how good the
    thresholds are (the brute-force test below also runs with no distance bands at all)."""
    if request.param == "tiny pilot":
        monkeypatch.setattr(mdp, "PILOT", 16)
        monkeypatch.setattr(mdp, "BANDS", 6)
    return request.param


@pytest.mark.parametrize("one_band", [False, True], ids=["bands", "one band, coarse grid"])
@pytest.mark.parametrize("v, d, seed", [(400, 6, 0), (1500, 20, 1), (300, 2, 2)])
def test_engine_equals_float64_brute_force(v, d, seed, one_band, monkeypatch):
    monkeypatch.setattr(mdp, "CHUNK", 128)  # many blocks: exercises the thresholds' carry between blocks
    if one_band:  # the weakest thresholds: w's own b and what the pass learns, a two-cell band table
        monkeypatch.setattr(mdp, "BANDS", 1)
        monkeypatch.setattr(mdp, "GRID", 2)
    emb = small_embedding(v, d, seed)
    eps = [0.3, 1, 3, 10, 30, 100]
    for wid in (0, 3, 7, 50, v - 1):
        u, g = mdp.sample_directions_and_radii(d, 300, mdp.word_stream(seed, wid))
        fast = mdp.nearest_words(emb, wid, u, g, eps)
        ref = reference.nearest_words_numpy(emb.vectors, wid, u, g, eps)
        assert np.array_equal(fast, ref)


def degenerate_vocabularies():
    rng = np.random.default_rng(0)
    dup = rng.normal(size=(20, 3)).astype(np.float32)
    dup[5:] = dup[0]
    return {
        "one word": rng.normal(size=(1, 3)),
        "two words, d = 1": rng.normal(size=(2, 1)),
        "50 words, d = 1": rng.normal(size=(50, 1)),
        "all identical": np.ones((30, 3)),
        "all zero": np.zeros((10, 2)),
        "mostly duplicates": dup,
        "integer lattice (exact distance ties)": rng.integers(-2, 3, size=(200, 2)),
    }


@pytest.mark.parametrize("name", list(degenerate_vocabularies()))
def test_engine_on_degenerate_vocabularies(name):
    """Tiny vocabularies, d = 1, duplicates everywhere and exact ties: the outputs equal float64
    brute force (ties to the smaller id), for a word and for a point that is no word."""
    x = degenerate_vocabularies()[name].astype(np.float32)
    emb = Embedding("toy", "degenerate", [f"w{i}" for i in range(len(x))], x)
    eps = [0.01, 0.3, 1, 3, 10, 100, 1e5]
    for wid in sorted({0, len(x) - 1}):
        for m in (1, 7, 300):
            u, g = mdp.sample_directions_and_radii(emb.dim, m, np.random.default_rng(wid + m))
            assert np.array_equal(
                mdp.nearest_words(emb, wid, u, g, eps), reference.nearest_words_numpy(x, wid, u, g, eps)
            )
    point = np.full(emb.dim, 3.0)
    u, g = mdp.sample_directions_and_radii(emb.dim, 50, np.random.default_rng(9))
    out = mdp.nearest_words_from_point(emb, point, u, g, eps)
    for j, e in enumerate(eps):
        d2 = (((point + (g / e)[:, None] * u)[:, None, :] - x.astype(np.float64)[None]) ** 2).sum(-1)
        nearest = np.where(d2 <= d2.min(1, keepdims=True), np.arange(len(x)), len(x)).min(1)
        assert np.array_equal(out[:, j], nearest)


def test_duplicate_vectors_resolve_to_the_smaller_id():
    emb = small_embedding()
    u, g = mdp.sample_directions_and_radii(emb.dim, 200, np.random.default_rng(3))
    out = mdp.nearest_words(emb, 7, u, g, [1e6])  # no noise to speak of: w7 == w3
    assert (out == 3).all()


def test_n_w_equals_its_closed_form_through_the_stay_threshold():
    emb = small_embedding(800, 8, 4, duplicates=False)
    eps = np.array([0.5, 1, 2, 4, 8, 16, 32])
    for wid in (1, 99, 500):
        u, g = mdp.sample_directions_and_radii(emb.dim, 500, mdp.word_stream(4, wid))
        out = mdp.nearest_words(emb, wid, u, g, eps)
        tau = reference.stay_threshold(emb.vectors, wid, u)
        closed = [(g / e <= tau).sum() for e in eps]
        assert [(out[:, j] == wid).sum() for j in range(len(eps))] == closed


@pytest.fixture(scope="module")
def glove():
    return get("glove-6b-50d")


_FAISS: dict = {}
"""faiss's answers by word: the same for both routes (the pilot's size changes the engine, not the
brute force), so searched once per run (6 s a word of the test's 30)."""


def test_engine_equals_faiss_brute_force_on_real_glove(glove):
    eps = [2, 5, 10, 20, 60]
    mismatches = 0
    for word in ("the", "privacy", "hospital", "zsombor"):
        wid = glove.word_id(word)
        u, g = mdp.sample_directions_and_radii(glove.dim, 200, mdp.word_stream(0, wid))
        fast = mdp.nearest_words(glove, wid, u, g, eps)
        if word not in _FAISS:
            _FAISS[word] = reference.nearest_words_bruteforce(glove, wid, u, g, eps)
        brute = _FAISS[word]
        diff = np.argwhere(fast != brute)
        for i, j in diff:  # allowed only where float32 brute force met a float64 near-tie
            p = glove.vectors64[wid] + (g[i] / eps[j]) * u[i]
            d1 = np.sum((glove.vectors64[fast[i, j]] - p) ** 2)
            d2 = np.sum((glove.vectors64[brute[i, j]] - p) ** 2)
            assert d1 <= d2 and (d2 - d1) <= 1e-4 * d2
        mismatches += len(diff)
    assert mismatches <= 2


def test_large_epsilon_keeps_every_word_and_small_epsilon_scatters(glove):
    df = mdp.mdp_stats(glove, [glove.word_id("hospital")], [0.5, 1e5], 300, 0.05, seed=0)
    tiny, huge = df.iloc[0], df.iloc[1]
    assert huge.n_w == 300 and huge.s_w == 1 and huge.cosine == pytest.approx(1.0)
    assert tiny.n_w == 0 and tiny.s_w > 100


def test_output_statistics_on_hand_made_outputs():
    out = np.array([5] * 6 + [1] * 2 + [2, 3])  # word 5 kept 6 times of 10
    assert mdp.output_stats(out, 5, eta=0.0) == (6, 4, 4)
    assert mdp.output_stats(out, 5, eta=0.2) == (6, 4, 2)  # 6 + 2 = 8 of 10 >= 0.8
    assert mdp.output_stats(out, 5, eta=0.4) == (6, 4, 1)
    h = mdp.renyi_entropies(np.arange(8))
    assert all(v == pytest.approx(np.log(8)) for v in h.values())  # uniform: every order equal
    h = mdp.renyi_entropies(out)
    assert h["H_0"] >= h["H_1"] >= h["H_2"] >= h["H_inf"] == pytest.approx(-np.log(0.6))


def test_statistics_do_not_depend_on_which_other_words_run(glove):
    a = mdp.mdp_stats(glove, [10, 20], [5, 10], 100, 0.05, seed=3)
    b = mdp.mdp_stats(glove, [20], [5, 10], 100, 0.05, seed=3)
    assert a[a.word == glove.vocab[20]].reset_index(drop=True).equals(b)


def test_guards():
    emb = small_embedding()
    u, g = mdp.sample_directions_and_radii(emb.dim, 5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="epsilons must be"):
        mdp.nearest_words(emb, 0, u, g, [0])
    with pytest.raises(ValueError, match="eta must be"):
        mdp.mdp_stats(emb, [0], [1], 10, 1.5, 0)


def test_rewrite_marks_unknown_words(glove):
    rows, status = mdp.rewrite(glove, ["the", "qzxqzxqzx"], 1e5, 3, 0)
    assert status == ["in vocabulary", "unknown"]
    assert rows == [["the", "qzxqzxqzx"]] * 3
    with pytest.raises(ValueError, match="no words"):
        mdp.tokenize("!!!")


def test_try_it_box_equals_the_direct_computation_and_is_shared(glove, monkeypatch):
    from dpviz.papers.metric import pipeline as metric
    from dpviz.papers.metric.pipeline import TRY_DRAWS, try_it

    monkeypatch.setattr(metric, "_TRY", type(metric._TRY)(maxsize=64))  # this route's own prepared draws
    monkeypatch.setattr(metric, "_TRY_AT", type(metric._TRY)(maxsize=64))  # and its own answers per ε

    v = {
        "embedding": "glove-6b-50d",
        "sentence": "The hospital  qzxqzxqzx in boston",
        "epsilon": 8.0,
        "rewrites": 3,
        "seed": 4,
    }
    tokens, rows, status, per_word = try_it(glove, v)
    assert tokens == ["the", "hospital", "qzxqzxqzx", "in", "boston"]
    assert (rows, status) == mdp.rewrite(glove, tokens, 8.0, 3, 4)
    known = sorted({glove.index[t] for t in tokens if t in glove.index})
    assert per_word.equals(mdp.mdp_stats(glove, known, [8.0], TRY_DRAWS, 0.05, 4))
    keys = len(metric._TRY.keys())
    # another ε, another visitor: evaluated from the same prepared draws, equal to a fresh computation
    tokens2, rows2, _, per_word2 = try_it(glove, dict(v, epsilon=23.0))
    assert len(metric._TRY.keys()) == keys
    assert rows2 == mdp.rewrite(glove, tokens, 23.0, 3, 4)[0]
    assert per_word2.equals(mdp.mdp_stats(glove, known, [23.0], TRY_DRAWS, 0.05, 4))
    try_it(glove, dict(v, seed=5))
    assert len(metric._TRY.keys()) == keys + 1  # the seed is part of the prepared state's key
    answers = len(metric._TRY_AT.keys())
    assert try_it(glove, dict(v, epsilon=23.0))[1] == rows2 and len(metric._TRY_AT.keys()) == answers  # kept per ε


@pytest.fixture(scope="module")
def glove50():
    return get("glove-6b-50d")


def test_envelopes_equal_the_direct_engine_at_any_epsilon_on_glove(glove50):
    """The live route (one envelope per draw, any ε afterwards) against the engine it replaced
    (float64 distances from the noisy point, per ε) on the same draws, at ε never listed before,
    down to ε where the noise swamps everything and up to ε where every release is the word."""
    rng = np.random.default_rng(12)
    eps = np.r_[np.exp(rng.uniform(np.log(0.05), np.log(500), 30)), 0.01, 1e4]
    for wid in (2, 777, 30_000, 399_999):
        u, g = mdp.sample_directions_and_radii(glove50.dim, 200, mdp.word_stream(5, wid))
        env = mdp.draw_envelopes(glove50, glove50.vectors64[wid], u, g, self_id=wid)
        assert np.array_equal(env.outputs(eps), reference.nearest_words_direct(glove50, wid, u, g, eps))
        assert (env.outputs([1e6]) == wid).all()  # t -> 0: the word itself


def test_envelope_structure(glove50):
    u, g = mdp.sample_directions_and_radii(glove50.dim, 300, mdp.word_stream(0, 1234))
    env = mdp.draw_envelopes(glove50, glove50.vectors64[1234], u, g, self_id=1234)
    finite = np.isfinite(env.breaks)
    assert (env.winners[:, 0] == 1234).all()  # nearest at t = 0+
    with np.errstate(invalid="ignore"):
        step = np.diff(env.breaks, axis=1)
    assert np.all(~finite[:, 1:] | (step >= 0))  # breakpoints ascend
    assert (finite.sum(1) >= 1).all()  # every draw leaves the word at some t
    # consecutive winners differ, and every used winner is a real id
    used = np.c_[np.ones(len(finite), bool), finite]
    assert (env.winners[used] >= 0).all()
    assert not np.any((env.winners[:, 1:] == env.winners[:, :-1]) & finite)


def test_word_envelopes_do_not_depend_on_threads_or_word_order(glove50):
    ids = [5, 77, 1000]
    one = mdp.stats_at(glove50, mdp.word_envelopes(glove50, ids, 150, 3, workers=1), [2.0, 9.0], 0.05)
    two = mdp.stats_at(glove50, mdp.word_envelopes(glove50, ids[::-1], 150, 3, workers=2), [2.0, 9.0], 0.05)
    key = ["word", "epsilon"]
    pd_one = one.sort_values(key).reset_index(drop=True)
    pd_two = two.sort_values(key).reset_index(drop=True)
    assert pd_one.equals(pd_two)


def test_envelopes_survive_the_shared_table_exactly():
    """The word state server processes share through the disk cache: table and back gives the
    same arrays, and the same outputs at any ε, for words with different numbers of pieces."""
    rng = np.random.default_rng(5)
    states = {}
    for word, (n, pieces) in {7: (4, 3), 2: (3, 1), 11: (5, 5)}.items():
        breaks = np.sort(rng.exponential(size=(n, pieces - 1)), axis=1)
        if pieces > 2:
            breaks[0, -1] = np.inf  # a padded row
        winners = rng.integers(0, 50, size=(n, pieces))
        states[word] = mdp.Envelopes(rng.gamma(3.0, size=n), breaks, winners)
    back = mdp.envelopes_from_table(mdp.envelopes_table(states))
    assert list(back) == list(states)
    for word, env in states.items():
        np.testing.assert_array_equal(back[word].g, env.g)
        np.testing.assert_array_equal(back[word].breaks, env.breaks)
        np.testing.assert_array_equal(back[word].winners, env.winners)
        eps = [0.01, 0.5, 1.0, 7.0, 1e4]
        np.testing.assert_array_equal(back[word].outputs(eps), env.outputs(eps))
    assert mdp.envelopes_from_table(mdp.envelopes_table({})) == {}


def _columns_with_ties(rng, draws, epsilons, vocabulary):
    """Outputs (draws x epsilons) as the envelopes give them: a few words, so that outputs tie in
    their counts (the order S_w^eta takes them in), with a column of one word and one of all words."""
    out = rng.integers(0, vocabulary, size=(draws, epsilons))
    out[:, 0] = 3  # every release the same word
    if epsilons > 1:
        out[:, 1] = np.arange(draws) % vocabulary  # counts tied across the words
    return out


@pytest.mark.parametrize("draws, epsilons, vocabulary", [(1, 1, 1), (1, 3, 2), (10, 4, 5), (97, 7, 3), (300, 65, 40)])
def test_column_stats_equal_the_definitions_column_by_column(draws, epsilons, vocabulary):
    """``column_stats`` (every ε's column at once) against ``output_stats`` and ``renyi_entropies``
    (the definitions, one column at a time) at several η, and one column alone gives its numbers in
    a whole grid's call to the last bit (a single ε and the slider's frames agree)."""
    rng = np.random.default_rng(draws * 1000 + epsilons)
    out = _columns_with_ties(rng, draws, epsilons, vocabulary)
    for eta in (0.0, 0.05, 0.2, 0.5, 1.0):
        wid = int(rng.integers(0, vocabulary))
        got = mdp.column_stats(out, wid, eta)
        for j in range(epsilons):
            assert (got["n_w"][j], got["s_w"][j], got["s_w_eta"][j]) == mdp.output_stats(out[:, j], wid, eta)
            for name, value in mdp.renyi_entropies(out[:, j]).items():
                assert got[name][j] == pytest.approx(value, rel=1e-13, abs=1e-15), (name, j)
            alone = mdp.column_stats(out[:, j : j + 1].copy(), wid, eta)
            assert all(alone[name][0].tobytes() == got[name][j].tobytes() for name in got), j


def _envelope(rng, draws, pieces, vocabulary, word=None):
    """A word's envelopes as the engine makes them: ascending breakpoints, +inf and −1 padded rows,
    winners drawn from a few words (ties in their counts), optionally every winner ``word``."""
    breaks = np.sort(rng.exponential(size=(draws, pieces - 1)), axis=1)
    winners = rng.integers(0, vocabulary, size=(draws, pieces))
    for i in range(0, draws, 3):  # every third draw with fewer pieces
        used = int(rng.integers(1, pieces + 1))
        breaks[i, used - 1 :] = np.inf
        winners[i, used:] = -1
    if word is not None:
        winners[winners >= 0] = word
    g = rng.gamma(3.0, size=draws)
    if draws > 1 and pieces > 1:  # a breakpoint t = G/ε hits exactly at ε = 2 (not below it: the earlier piece)
        breaks[1, 0] = g[1] / 2.0
        breaks[1] = np.sort(breaks[1])
    return mdp.Envelopes(g, breaks, winners)


@pytest.mark.parametrize(
    "draws, pieces, vocabulary, word",
    [(1, 1, 1, 0), (1, 3, 5, 2), (2, 2, 2, 7), (40, 4, 3, 1), (300, 12, 60, 5), (200, 6, 10**6, None), (50, 5, 4, 3)],
)
def test_envelope_stats_equal_the_pieces_and_column_stats(draws, pieces, vocabulary, word):
    """The compiled pass (``envelope_column_stats``: pieces counted, releases tallied per distinct
    winner) against ``Envelopes.pieces`` and ``column_stats`` of the releases they give: the same
    pieces and counts, the entropies to rounding, at ε in any order (repeated, past every break,
    before the first), for a word released always, never, or among others, at η from 0 to near 1;
    and each ε's numbers alone are the grid's to the last bit."""
    rng = np.random.default_rng(draws + pieces)
    env = _envelope(rng, draws, pieces, vocabulary, None if word is None else word)
    wid = word if word is not None else int(env.winners[0, 0])
    eps = np.array([3.0, 0.01, 1.0, 1.0, 1e6, 0.3, 2.0, 1e-4])
    for eta in (0.0, 0.05, 0.5, 0.999):
        pieces_at, got = mdp.envelope_column_stats(env, wid, eps, eta)
        np.testing.assert_array_equal(pieces_at, env.pieces(eps))
        ref = mdp.column_stats(env.outputs(eps), wid, eta)
        for name in ("n_w", "s_w", "s_w_eta"):
            assert got[name].dtype == ref[name].dtype and got[name].tolist() == ref[name].tolist(), name
        for name in ("H_0", "H_1", "H_2", "H_inf"):
            np.testing.assert_allclose(got[name], ref[name], rtol=1e-13, atol=1e-15, err_msg=name)
        for j in range(len(eps)):
            _, alone = mdp.envelope_column_stats(env, wid, eps[j : j + 1], eta)
            assert all(alone[name][0].tobytes() == got[name][j].tobytes() for name in got), j
    _, never = mdp.envelope_column_stats(env, -5, eps, 0.05)  # a word no release is
    assert never["n_w"].tolist() == [0] * len(eps)


def test_statistics_at_a_grid_are_each_epsilons_own_and_the_cosine_its_definition(glove50):
    """``stats_at`` over a slider's grid (what the frames and the frontier's curves ask) gives, at
    each ε, the table of a call with that ε alone, to the last bit; the mean cosine is, draw by
    draw, cos(φ(w), φ(M(w))) computed from the vectors (an ε repeated, one past every break)."""
    wids = [2, 777, 30_000]
    envelopes = mdp.word_envelopes(glove50, wids, 120, seed=4)
    grid = [0.05, 0.3, 1.0, 4.0, 4.0, 25.0, 1e6]
    together = mdp.stats_at(glove50, envelopes, grid, 0.05)
    for j, e in enumerate(grid):
        alone = mdp.stats_at(glove50, envelopes, [e], 0.05)
        rows = together.iloc[j :: len(grid)].reset_index(drop=True)
        pd.testing.assert_frame_equal(rows, alone, check_exact=True)
    vectors = glove50.vectors64
    for i, wid in enumerate(wids):
        out = envelopes[wid].outputs(grid)
        for j in range(len(grid)):
            released = vectors[out[:, j]]
            cos = released @ vectors[wid] / (np.linalg.norm(released, axis=1) * np.linalg.norm(vectors[wid]))
            assert together.cosine[i * len(grid) + j] == pytest.approx(cos.mean(), abs=1e-12)
    at_the_top = together.cosine.to_numpy()[len(grid) - 1 :: len(grid)]  # ε = 1e6: every release the word
    assert at_the_top == pytest.approx([1.0] * len(wids))
