"""The metric-DP engine's compiled loops, each against a brute-force reading of its definition."""

import numpy as np
import pytest

from dpviz.papers.metric import kernels


def dominated_brute_force(a, b, tol_a, tol_b):
    """v is dominated if some q is surely closer (a_q + tol_a < a_v - tol_a) with a b surely at
    least as large (b_q >= b_v + 2 tol_b)."""
    closer = (a[:, None] + tol_a) < (a[None, :] - tol_a)  # [q, v]
    larger = b[:, None] >= b[None, :] + 2 * tol_b
    return (closer & larger).any(axis=0)


@pytest.mark.parametrize("tol_a, tol_b", [(0.0, 0.0), (0.05, 0.02)])
def test_pareto_fronts_keep_exactly_the_undominated_words(tol_a, tol_b):
    rng = np.random.default_rng(1)
    m, n = 7, 900
    draw = rng.integers(0, m, n)
    draw[draw == 4] = 5  # draw 4 lists nothing
    word = np.arange(n) * 3 + 11
    a = np.round(rng.exponential(size=n), 1)  # many exact ties in a
    b = np.round(rng.normal(size=n) + 0.3 * a, 1)  # and in b
    offsets, words = kernels.pareto_fronts(m, draw, word, a, b, tol_a, tol_b)
    assert offsets[0] == 0 and offsets[-1] == len(words) and np.all(np.diff(offsets) >= 0)
    for k in range(m):
        mine = draw == k
        expected = set(word[mine][~dominated_brute_force(a[mine], b[mine], tol_a, tol_b)])
        got = words[offsets[k] : offsets[k + 1]]
        assert len(set(got)) == len(got) and set(got) == expected
        assert np.all(np.diff(a[np.searchsorted(word, got)]) >= 0)  # in order of a
    assert offsets[5] == offsets[4]  # the empty draw


def winners_brute_force(vec, ids, w, u, t):
    """The nearest candidate to w + t u in float64, ties to the smaller id."""
    d2 = ((w[None, :] + t * u[None, :] - vec) ** 2).sum(1)
    best = d2 <= d2.min()
    return ids[best].min()


def test_upper_envelopes_give_the_nearest_candidate_between_breakpoints():
    rng = np.random.default_rng(2)
    d, m = 3, 40
    vec64 = rng.normal(size=(60, d))
    vec64[17] = vec64[5]  # duplicate vectors: the smaller id wins
    vec64[30] = vec64[31] * 1.0
    ids_all = np.arange(60) * 2 + 100
    w = vec64[5].copy()
    u = rng.normal(size=(m, d))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    cand = [rng.choice(60, size=rng.integers(1, 25), replace=False) for _ in range(m)]
    cand[0] = np.array([17, 5, 30, 31])
    cand[1] = np.array([9])  # one candidate: never a breakpoint
    offsets = np.concatenate([[0], np.cumsum([len(c) for c in cand])])
    pos = np.concatenate(cand)
    words = ids_all[pos]
    breaks, winners = kernels.upper_envelopes(vec64, pos, words, offsets, w, u)
    for k in range(m):
        vk, ik = vec64[cand[k]], ids_all[cand[k]]
        fin = breaks[k][np.isfinite(breaks[k])]
        assert np.all(np.diff(fin) > 0)
        probes = np.concatenate(
            [[fin[0] / 2 if len(fin) else 1.0], (fin[:-1] + fin[1:]) / 2, [fin[-1] * 2 + 1] if len(fin) else []]
        )
        for j, t in enumerate(probes):
            assert winners[k, j] == winners_brute_force(vk, ik, w, u[k], t)
        assert np.all(winners[k, len(fin) + 1 :] == -1)
    assert winners[0, 0] == ids_all[5]  # w itself (id 110) and its duplicate (id 134): the smaller id
    assert not np.isfinite(breaks[1]).any() and winners[1, 0] == ids_all[9]


def test_scan_resumes_where_the_output_filled_up():
    """With room for one word's hits only, the scan stops early and resumes; together the calls
    keep the same words with the same thresholds as one call with room for all."""
    rng = np.random.default_rng(3)
    n, m = 500, 8
    prod = rng.normal(size=(n, m + 1)).astype(np.float32)
    sq = rng.uniform(1, 2, n)
    edges = np.array([-np.inf, 0.5, 1.0, 2.0, np.inf])
    grid_band = np.searchsorted(edges, 0.5 + (np.arange(16) - 0.5) / 10, side="right") - 1
    args = (sq, 0.3, 0.5, 10.0, grid_band, edges, 1e-6, 1e-6)

    def fresh():
        best = np.full((len(edges), m), -np.inf)
        return best, np.full((len(edges), m), -np.inf, dtype=np.float32)

    best1, floor1 = fresh()
    big = np.empty((n * m, 4))
    n1, done = kernels.scan_block(prod, 0, n, 0, m, *args, best1, floor1, big, 0)
    assert done == n and n1 > m
    best2, floor2 = fresh()
    out, done, calls = np.empty((m, 4)), 0, 0
    parts = []
    while done < n:
        used, done = kernels.scan_block(prod, done, n, 0, m, *args, best2, floor2, out, 0)
        parts.append(out[:used].copy())
        calls += 1
    assert calls > 1
    assert np.array_equal(np.concatenate(parts), big[:n1])
    assert np.array_equal(best1, best2) and np.array_equal(floor1, floor2)


def test_thresholds_are_rounded_down_to_float32():
    x = np.random.default_rng(4).normal(size=10_000) * 10.0 ** np.random.default_rng(5).integers(-8, 8, 10_000)
    tol_b = 1e-3
    floor = np.full((1, 10_001), np.inf, dtype=np.float32)  # one padding column: left as it is
    kernels.fill_thresholds(x[None, :], tol_b, floor)
    f = floor[0, :-1]
    assert f.dtype == np.float32 and np.all(f <= x - 2 * tol_b)
    assert np.all(np.nextafter(f, np.float32(np.inf)).astype(np.float64) > x - 2 * tol_b)  # the nearest such
    assert floor[0, -1] == np.inf


def test_raise_thresholds_takes_each_bands_maximum():
    rng = np.random.default_rng(6)
    first = rng.integers(0, 7, 300)  # 6 = beyond the last band: raises nothing
    prod = rng.normal(size=(300, 5)).astype(np.float32)
    best = np.full((6, 4), -np.inf)
    best[2] = 10.0  # already higher: stays
    kernels.raise_thresholds(first, prod, best)
    for j in range(6):
        expected = np.full(4, 10.0) if j == 2 else prod[first == j, :4].max(0)
        assert np.array_equal(best[j], expected)
