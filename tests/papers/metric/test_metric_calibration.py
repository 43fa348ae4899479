"""The metric paper's calibration numerics and k-nearest-neighbour distances, against independent routes."""

import numpy as np
import pandas as pd
import pytest

from dpviz.papers.metric import calibration, neighbours


def brute_crossing(eps, values, target, grid=200_001):
    """The first point of a fine log-ε grid where the piecewise log-linear curve reaches the target."""
    order = np.argsort(eps)
    x, y = np.log(np.asarray(eps, float)[order]), np.asarray(values, float)[order]
    xs = np.linspace(x[0], x[-1], grid)
    ys = np.interp(xs, x, y)
    sign = np.sign(ys - target)
    hit = np.flatnonzero((sign == 0) | (sign != sign[0]))
    return float(np.exp(xs[hit[0]])) if len(hit) else float("nan")


@pytest.mark.parametrize("seed", range(20))
def test_crossing_matches_a_fine_grid_on_monotone_curves(seed):
    rng = np.random.default_rng(seed)
    eps = np.sort(rng.uniform(0.1, 50, rng.integers(2, 9)))
    values = np.cumsum(rng.uniform(0, 10, len(eps))) * (1 if seed % 2 else -1)
    target = rng.uniform(values.min(), values.max())
    got = calibration.crossing(eps[::-1], values[::-1], target)  # given in any order
    step = (np.log(eps[-1]) - np.log(eps[0])) / 200_000
    assert abs(np.log(got) - np.log(brute_crossing(eps, values, target))) <= 2 * step


def test_crossing_edges():
    assert calibration.crossing(np.array([3.0]), np.array([7.0]), 7.0) == 3.0  # one ε, on the target
    assert np.isnan(calibration.crossing(np.array([3.0]), np.array([7.0]), 6.0))  # one ε, off it
    assert np.isnan(calibration.crossing(np.array([]), np.array([]), 1.0))  # none
    assert (
        calibration.crossing(np.array([1.0, 2.0, 4.0]), np.array([9.0, 5.0, 5.0]), 5.0) == 2.0
    )  # reaches it at a listed ε
    assert calibration.crossing(np.array([1.0, 2.0]), np.array([5.0, 5.0]), 5.0) == 1.0  # flat on it from the start
    assert np.isnan(calibration.crossing(np.array([1.0, 2.0]), np.array([5.0, 5.0]), 4.0))  # flat elsewhere


def test_summary_is_mean_and_quartiles_per_embedding_epsilon_and_statistic():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        [(e, w, eps, *rng.integers(0, 100, 3)) for e in ("a", "b") for w in range(7) for eps in (1.0, 5.0)],
        columns=["embedding", "word", "epsilon", "n_w", "s_w", "s_w_eta"],
    )
    out = calibration.summary(df)
    assert len(out) == 2 * 2 * 3
    for _, row in out.iterrows():
        vals = df[(df.embedding == row.embedding) & (df.epsilon == row.epsilon)][row.statistic].to_numpy()
        assert row["mean"] == pytest.approx(vals.mean())
        assert (row.q25, row.q75) == pytest.approx((np.percentile(vals, 25), np.percentile(vals, 75)))


def test_kth_neighbour_distances_match_brute_force_with_duplicates():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((300, 7)).astype(np.float32)
    x[5] = x[9]  # a duplicate: a neighbour at distance 0
    ids = np.array([0, 5, 9, 299])
    got = neighbours.kth_neighbour_distances(x, ids, 20)
    x64 = x.astype(np.float64)
    for row, i in zip(got, ids):
        d = np.sqrt(((x64 - x64[i]) ** 2).sum(1))
        expected = np.sort(np.delete(d, i))[:20]
        assert np.allclose(row, expected, atol=1e-5)
    assert got[1, 0] == pytest.approx(0.0, abs=1e-6) and got.shape == (4, 20)
    assert neighbours.kth_neighbour_distances(x[:6], np.array([2]), 20).shape == (1, 5)  # fewer words than k


def test_kth_neighbour_distances_search_a_memory_mapped_matrix_in_place(tmp_path, monkeypatch):
    """The papers' matrices are memory-mapped: the search reads them where they are (no index copy)."""
    import faiss

    rng = np.random.default_rng(2)
    path = tmp_path / "m.npy"
    np.save(path, rng.standard_normal((500, 6)).astype(np.float32))
    mm = np.load(path, mmap_mode="r")
    seen = []
    real = faiss.knn
    monkeypatch.setattr(faiss, "knn", lambda xq, xb, k: seen.append(np.shares_memory(xb, mm)) or real(xq, xb, k))
    got = neighbours.kth_neighbour_distances(mm, np.array([3, 7]), 10)
    assert seen == [True]
    assert np.allclose(got, neighbours.kth_neighbour_distances(np.array(mm), np.array([3, 7]), 10))
