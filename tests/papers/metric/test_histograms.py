"""The S_w / N_w spread chart (paper's Figures 4-6) at any number of words: a dot per word up to
FEW_WORDS words (ties counted), a histogram with bins from the data above, checked against
counting by hand."""

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from dpviz.papers.metric import figures as mf


def _words(values_s, values_n, eps=5.0, samples=200, emb="glove-6b-50d"):
    return pd.DataFrame(
        {"embedding": emb, "epsilon": eps, "samples": samples, "s_w": values_s, "n_w": values_n},
    )


def _rows(df, series="listed", edges=None):
    return pd.DataFrame(mf._hist_rows(df, series, edges), columns=list(mf.HIST_COLUMNS))


def test_few_words_are_their_values_with_ties_counted():
    s = [3, 3, 3, 200, 0, 17, 17, 5, 5, 5]  # ties, both ends of 0..N
    n = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    rows = _rows(_words(s, n))
    for stat, values in (("s_w", s), ("n_w", n)):
        got = rows[rows.statistic == stat]
        assert (got.bin_low == got.bin_high).all()
        assert dict(zip(got.bin_low, got["count"])) == dict(Counter(values))


@pytest.mark.parametrize("words, strip", [(1, True), (mf.FEW_WORDS, True), (mf.FEW_WORDS + 1, False)])
def test_the_strip_plot_ends_at_few_words(words, strip):
    rng = np.random.default_rng(words)
    rows = _rows(_words(rng.integers(0, 201, words), rng.integers(0, 201, words)))
    assert bool((rows.bin_low == rows.bin_high).all()) is strip
    assert rows.groupby("statistic")["count"].sum().tolist() == [words, words]


@pytest.mark.parametrize(
    "samples, low, high", [(200, 0, 201), (200, 150, 160), (1000, 990, 1001), (7, 0, 8), (20_000, 19_990, 20_001)]
)
def test_many_words_fall_in_whole_number_bins_chosen_from_their_spread(samples, low, high):
    rng = np.random.default_rng(samples + low)
    values = rng.integers(low, high, 500)
    edges = mf.hist_edges(values, samples)
    width = edges[1] - edges[0]
    assert width == int(width) and width >= 1
    assert edges[0] == -0.5 and edges[-1] == samples + 0.5
    assert np.all(np.diff(edges) <= width) and np.all(np.diff(edges) > 0)
    # bins across the words' own range: at least 5 of them (or one per value, when fewer), unless
    # that would make more than MAX_TOTAL_BINS over 0..N
    spread = values.max() - values.min()
    assert len(edges) - 1 <= mf.MAX_TOTAL_BINS
    if np.ceil((samples + 1) / mf.MAX_TOTAL_BINS) < width:
        assert spread / width >= min(5, spread) - 1e-9
    else:
        assert width == np.ceil((samples + 1) / mf.MAX_TOTAL_BINS)
    assert spread / width <= mf.MAX_BINS
    rows = _rows(_words(values, values, samples=samples))
    got = rows[rows.statistic == "n_w"]
    by_hand = Counter(min(int(v) // int(width), len(edges) - 2) for v in values)
    assert got["count"].tolist() == [by_hand.get(i, 0) for i in range(len(edges) - 1)]


def test_the_sliders_words_are_counted_in_the_listed_bins():
    rng = np.random.default_rng(3)
    listed = pd.concat([_words(rng.integers(0, 201, 80), rng.integers(0, 201, 80), eps=e) for e in (5.0, 9.0)])
    edges = mf._shared_edges(listed)
    slider = _words(rng.integers(0, 30, 80), rng.integers(170, 201, 80), eps=7.0)  # a narrow spread of its own
    mine = _rows(slider, "slider", edges)
    for stat in ("s_w", "n_w"):
        got = mine[mine.statistic == stat]
        assert got.bin_low.tolist() == edges[("glove-6b-50d", stat)][:-1].tolist()
        assert got["count"].sum() == 80


def test_the_chart_draws_one_dot_per_word_or_a_log_histogram():
    rng = np.random.default_rng(5)
    v = {"samples": 200, "seed": 0, "words": 10, "word_list": "", "epsilon": 7.0}
    few = pd.concat([_rows(_words(rng.integers(0, 201, 10), [4] * 10, eps=e)) for e in (5.0, 9.0)])
    fig = mf._hist_render(few, dict(v))
    dots = [t for t in fig.data if t.mode == "markers"]
    assert len(dots) == 4 and all(len(t.x) == 10 for t in dots)
    tied = [t for t in dots if set(t.x) == {4}]  # ten words at N_w = 4: ten dots side by side on one row
    assert len(tied) == 2 and all(len(set(np.round(t.y, 9))) == 10 for t in tied)
    assert list(fig.layout.yaxis.ticktext) == ["ε = 5", "ε = 9"]
    nine = pd.concat([_rows(_words(rng.integers(0, 201, 10), [4] * 10, eps=float(e))) for e in range(1, 10)])
    assert mf._hist_render(nine, dict(v)).layout.height >= 2 * 9 * 32  # a row of 32 px per ε in each panel
    many = _rows(_words(rng.integers(0, 201, 100), rng.integers(0, 201, 100)))
    fig = mf._hist_render(many, dict(v))
    assert fig.layout.yaxis.type == "log" and all(t.mode == "lines+markers" for t in fig.data)


def test_the_panels_hold_the_rows_pandas_groups_in_its_order():
    """_hist_panels (one pass over plain arrays) against pandas' filter and groupby, which the chart
    used at every frame: the same curves in the same order, each with the same rows in table order,
    on a shuffled table of two embeddings, both series, ties of ε and a repeated index."""
    rng = np.random.default_rng(11)
    parts = []
    for emb in ("glove-6b-50d", "fasttext-local"):
        for e in (9.0, 5.0, 12.0):
            parts.append(_rows(_words(rng.integers(0, 201, 12), rng.integers(0, 201, 12), eps=e, emb=emb)))
        parts.append(_rows(_words(rng.integers(0, 201, 12), rng.integers(0, 201, 12), eps=5.0, emb=emb), "slider"))
    df = pd.concat(parts)  # an index repeated from each part
    df = df.iloc[rng.permutation(len(df))]
    panels = mf._hist_panels(df)
    plain = df.reset_index(drop=True)
    assert set(panels) == {(e, s) for e in ("glove-6b-50d", "fasttext-local") for s in ("s_w", "n_w")}
    for (emb, stat), curves in panels.items():
        here = plain[(plain.embedding == emb) & (plain.statistic == stat)]
        expected = [(series, eps, part.index.to_numpy()) for (series, eps), part in here.groupby(["series", "epsilon"])]
        assert [(s, e) for s, e, _ in curves] == [(s, e) for s, e, _ in expected]
        assert [s for s, _, _ in curves] == ["listed"] * 3 + ["slider"]
        for (_, _, at), (_, _, rows) in zip(curves, expected):
            assert at.tolist() == rows.tolist()


def test_a_values_dots_sit_side_by_side_around_its_row():
    """k words at one value: k dots at that value, min(0.15, 0.6/k) apart and centred on the row,
    each saying k; written out by hand for k = 1, 2, 3 and 5."""
    trace = mf._strip_trace(np.array([4.0, 10.0, 0.0, 7.0]), np.array([1, 2, 3, 5]), 2, "ε = 5", "#000", "n_w")
    assert trace.x == (4.0, 10.0, 10.0, 0.0, 0.0, 0.0, 7.0, 7.0, 7.0, 7.0, 7.0)
    assert trace.customdata == (1, 2, 2, 3, 3, 3, 5, 5, 5, 5, 5)
    expected = [2.0, 1.925, 2.075, 1.85, 2.0, 2.15, 1.76, 1.88, 2.0, 2.12, 2.24]
    assert np.allclose(trace.y, expected, rtol=0, atol=1e-12)
    empty = mf._strip_trace(np.zeros(0), np.zeros(0, dtype=int), 0, "ε = 5", "#000", "s_w")
    assert len(empty.x) == 0 and len(empty.y) == 0


@pytest.mark.parametrize("dtype", ["str", "object"])
def test_words_by_count_then_word_is_pandas_stable_sort(dtype):
    """The chart of every word orders its bars as pandas' stable sort by (N_w, word) does: ties of
    the count broken by the word by code point (capitals, accents and digits included), ties of
    both (a repeated word) kept in table order, an empty table empty."""
    rng = np.random.default_rng(7)
    words = ["b", "a", "B", "é", "e", "a", "10", "9", "zz", "z", "", "ä"] * 3
    df = pd.DataFrame(
        {"word": pd.Series(words, dtype=dtype), "n_w": rng.integers(0, 3, len(words)), "row": np.arange(len(words))}
    )
    ours = mf.by_count_then_word(df)
    theirs = df.sort_values(["n_w", "word"], kind="stable")
    assert ours["row"].tolist() == theirs["row"].tolist()
    assert ours.index.tolist() == theirs.index.tolist()
    assert mf.by_count_then_word(df.iloc[:0]).empty
