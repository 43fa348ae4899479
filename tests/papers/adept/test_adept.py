"""ADePT formulas, each checked against an independent route."""

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from dpviz.papers.adept import privacy_loss as pl
from dpviz.papers.adept import sensitivity as adept
from dpviz.stats import stream

C = 10.0


# --- sensitivity by brute force over the sphere ------------------------------------------


def _sphere(n, m, rng):
    u = rng.standard_normal((m, n))
    return C * u / np.linalg.norm(u, axis=1, keepdims=True)


def test_l1_sensitivity_in_2d_by_a_dense_grid_of_pairs():
    t = np.linspace(0, 2 * np.pi, 2001)
    pts = C * np.c_[np.cos(t), np.sin(t)]
    d = np.abs(pts[:, None, :] - pts[None, :, :]).sum(-1).max()
    assert d == pytest.approx(adept.sensitivity_l1(2, C), rel=1e-5)
    assert d > adept.sensitivity_claimed(C) * 1.4


def test_l1_sensitivity_in_3d_by_random_pairs_on_the_sphere():
    pts = _sphere(3, 3000, np.random.default_rng(0))
    best = max(np.abs(pts[i : i + 500, None, :] - pts[None, :, :]).sum(-1).max() for i in range(0, 3000, 500))
    true = adept.sensitivity_l1(3, C)
    assert 0.98 * true < best <= true * (1 + 1e-12)


@pytest.mark.parametrize("n", [4, 8, 16])
def test_l1_sensitivity_by_constrained_optimisation(n):
    """maximise ||x - y||_1 subject to ||x||_2 <= C, ||y||_2 <= C, from random starts."""
    rng = np.random.default_rng(n)
    cons = [
        {"type": "ineq", "fun": lambda z: C**2 - z[:n] @ z[:n]},
        {"type": "ineq", "fun": lambda z: C**2 - z[n:] @ z[n:]},
    ]
    best = 0.0
    for _ in range(8):
        z0 = np.r_[_sphere(n, 1, rng)[0], _sphere(n, 1, rng)[0]]
        # smooth |.| as sqrt(.^2 + tiny) so SLSQP can climb
        res = optimize.minimize(
            lambda z: -np.sqrt((z[:n] - z[n:]) ** 2 + 1e-12).sum(),
            z0,
            constraints=cons,
            method="SLSQP",
            options={"maxiter": 500},
        )
        x, y = adept.clip_l2(res.x[:n], C), adept.clip_l2(res.x[n:], C)
        best = max(best, np.abs(x - y).sum())
    true = adept.sensitivity_l1(n, C)
    assert best <= true * (1 + 1e-9)
    assert best == pytest.approx(true, rel=1e-3)


def test_worst_case_pair_attains_the_sensitivity_and_is_on_the_sphere():
    for n in (1, 2, 7, 100):
        x, xp = adept.worst_case_pair(n, C)
        assert np.linalg.norm(x) == pytest.approx(C)
        assert np.abs(x - xp).sum() == pytest.approx(adept.sensitivity_l1(n, C))
        assert np.linalg.norm(x - xp) == pytest.approx(adept.sensitivity_l2(C))


def test_clipping():
    rng = np.random.default_rng(1)
    z = rng.normal(0, 20, (100, 9))
    assert np.all(np.linalg.norm(adept.clip_l2(z, C), axis=1) <= C * (1 + 1e-12))
    assert np.all(np.abs(adept.clip_l1(z, C)).sum(1) <= C * (1 + 1e-12))
    small = z / 1000
    assert np.array_equal(adept.clip_l2(small, C), small)
    assert np.array_equal(adept.clip_l2(np.zeros(3), C), np.zeros(3))


def test_actual_epsilon_is_the_largest_laplace_log_ratio_at_the_worst_pair():
    """Evaluate log p(y|x) - log p(y|x') with scipy's Laplace density, far on x's side."""
    eps = 0.7
    for n in (1, 4, 36):
        x, xp = adept.worst_case_pair(n, C)
        b = adept.sensitivity_claimed(C) / eps
        y = x + 50.0
        loss = stats.laplace.logpdf(y, x, b).sum() - stats.laplace.logpdf(y, xp, b).sum()
        assert loss == pytest.approx(adept.epsilon_actual(eps, n))
    assert adept.epsilon_actual(1.0, 36) == pytest.approx(6.0)  # the paper's "factor 6"


@pytest.mark.parametrize("bad", [0, -1, np.nan, np.inf])
def test_guards_name_the_parameter(bad):
    with pytest.raises(ValueError, match="clip must be"):
        adept.sensitivity_l1(3, bad)
    with pytest.raises(ValueError, match="epsilon must be"):
        adept.epsilon_actual(bad, 3)


# --- violation rates ------------------------------------------------------------------------


def _direct_counts(x, y, dims, l1):
    clip = adept.clip_l1 if l1 else adept.clip_l2
    out = {}
    for n in dims:
        a, b = clip(x[:n].T, C), clip(y[:n].T, C)
        out[n] = int((np.abs(a - b).sum(1) > 2 * C * (1 + adept.TIE_RTOL)).sum())
    return out


@pytest.mark.parametrize("sigma, l1", [(10.0, False), (1.0, False), (0.1, False), (1.0, True), (3.0, False)])
def test_bounds_pruned_counts_equal_direct_counts_on_the_same_draws(sigma, l1):
    rng = np.random.default_rng(int(sigma * 10) + l1)
    top = 260
    # a mixture of scales puts many pairs near the 2C threshold, so every branch runs
    scale = rng.choice([0.3, 1.0, 3.0], size=(1, 3000))
    x = rng.normal(0, sigma, (top, 3000)) * scale
    y = rng.normal(0, sigma, (top, 3000)) * scale
    dims = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 200, 233, 260]
    counts = {("d", n): 0 for n in dims}
    adept._count_block(x, y, dims, C, 2 * C * (1 + adept.TIE_RTOL), l1, counts, "d")
    direct = _direct_counts(x, y, dims, l1)
    assert {n: counts[("d", n)] for n in dims} == direct
    if not l1:
        assert 0 < sum(direct.values()) < len(dims) * 3000  # a non-trivial case


def test_fast_engine_agrees_with_the_reference_loop_statistically():
    """Independent draws: every per-point difference within 5 standard errors."""
    dims = list(range(1, 41)) + list(range(150, 221, 10))
    fast = adept.violation_rates(dims, 4000, C, seed=3).set_index(["dim", "distribution"])
    loop = adept.violation_rates_loop(dims, 4000, C, seed=4).set_index(["dim", "distribution"])
    p1, p2 = fast["violation_rate"], loop["violation_rate"]
    pooled = (p1 + p2) / 2
    se = np.sqrt(np.maximum(pooled * (1 - pooled), 1 / 4000) * 2 / 4000)
    z = (p1 - p2).abs() / se
    assert z.max() < 5, z.idxmax()


def test_paper_figure_1_shape():
    dims = [10, 17, 35, 150, 215]
    df = adept.violation_rates(dims, 10_000, C, seed=0).pivot(
        index="dim", columns="distribution", values="violation_rate"
    )
    assert df.loc[17, "uniform"] > 0.99
    assert df.loc[10, "normal"] < 0.01 and df.loc[35, "normal"] > 0.99
    assert df.loc[150, "normal_tight"] < 0.01 and df.loc[215, "normal_tight"] > 0.99
    assert (df["l1_control"] == 0).all()


def test_violation_rates_are_reproducible_and_seed_dependent():
    a = adept.violation_rates([20], 2000, C, ("normal",), seed=5)
    b = adept.violation_rates([20], 2000, C, ("normal",), seed=5)
    c = adept.violation_rates([20], 2000, C, ("normal",), seed=6)
    assert a.equals(b) and not a.equals(c)
    # one distribution's draws do not depend on which others are computed alongside
    d = adept.violation_rates([20], 2000, C, ("uniform", "normal"), seed=5)
    assert d[d.distribution == "normal"].reset_index(drop=True).equals(a)


def test_violation_rate_guards():
    with pytest.raises(ValueError, match="pairs must be"):
        adept.violation_rates([3], 0, C)
    with pytest.raises(ValueError, match="distribution must be"):
        adept.violation_rates([3], 10, C, ("cauchy",))


# --- privacy loss -----------------------------------------------------------------------


def _direct_loss(n, eps, m, rng):
    x, xp = adept.worst_case_pair(n, C)
    b = adept.sensitivity_claimed(C) / eps
    y = x + rng.laplace(0, b, (m, n))
    return (np.abs(y - xp).sum(1) - np.abs(y - x).sum(1)) / b


@pytest.mark.parametrize("n, eps", [(1, 1.0), (5, 0.5), (64, 1.0), (300, 2.0)])
def test_privacy_loss_mean_closed_form_vs_simulation(n, eps):
    loss = _direct_loss(n, eps, 40_000, np.random.default_rng(n))
    se = loss.std() / np.sqrt(len(loss))
    assert abs(loss.mean() - pl.privacy_loss_mean(n, C, eps)) < 4 * se


@pytest.mark.parametrize("n", [1, 5, 64])
def test_fast_loss_sampler_matches_direct_simulation(n):
    fast = pl.privacy_loss_samples(n, C, 1.0, 20_000, np.random.default_rng(10))
    direct = _direct_loss(n, 1.0, 20_000, np.random.default_rng(11))
    # the loss has atoms (at +-2c/b per coordinate): round away float noise at the atoms
    assert stats.ks_2samp(np.round(fast, 9), np.round(direct, 9)).pvalue > 1e-3
    top = adept.epsilon_actual(1.0, n)
    assert fast.max() <= top * (1 + 1e-12) and fast.min() >= -top * (1 + 1e-12)


def test_largest_loss_has_probability_two_to_the_minus_n():
    n = 3
    loss = pl.privacy_loss_samples(n, C, 1.0, 200_000, np.random.default_rng(2))
    hits = np.isclose(loss, adept.epsilon_actual(1.0, n)).mean()
    se = np.sqrt(0.125 * 0.875 / 200_000)
    assert abs(hits - 2.0**-n) < 4 * se


# --- the page's kernels against NumPy written out ----------------------------------------


def _exceeds_claim_by_numpy(d: np.ndarray, k: np.ndarray, middle: np.ndarray, dim: int) -> np.ndarray:
    """L > epsilon, decided exactly: L/a = d + middle against sqrt(n).

    Where no coordinate is in the middle region (k = 0) the loss is the multiple d*a of
    a = epsilon/sqrt(n), and equals epsilon exactly when d = sqrt(n) (a whole number for
    square n): compare the integers d > 0 and d^2 > n. Elsewhere the loss has a continuous
    part, ties have probability 0, and the float comparison decides.
    """
    exact = (d > 0) & (d.astype(np.int64) ** 2 > int(dim))
    return np.where(k == 0, exact, d + middle > np.sqrt(dim))


def _counts_by_numpy(d, k, middle, dim: int, epsilon: float, edges: np.ndarray, below: int) -> np.ndarray:
    """How many releases fall in each bin (right-closed; the bin of a loss at eps decided exactly)."""
    loss = (epsilon / np.sqrt(dim)) * (d + middle)
    above = _exceeds_claim_by_numpy(d, k, middle, dim)
    which = np.clip(np.searchsorted(edges, loss, side="left") - 1, 0, len(edges) - 2)
    # Rounding may put a loss on the wrong side of the edge at epsilon: the exact decision wins.
    which = np.where(above, np.maximum(which, below), np.minimum(which, below - 1))
    return np.bincount(which, minlength=len(edges) - 1)


def _heads_by_unpacking(gen, n, size):
    """Each release's heads among its first n coins, from the coins' words unpacked into bits
    (lowest bit first) and counted, release by release."""
    words = gen.bit_generator.random_raw(((n + 63) // 64, size))
    heads = []
    for j in range(size):
        bits = np.unpackbits(np.ascontiguousarray(words[:, j]).view(np.uint8), bitorder="little")
        heads.append(int(bits[:n].sum()))
    return np.array(heads)


def _units_by_rows(n, eps, samples, seed):
    """The worst-case loss in units of a, written out release by release from the page's own
    draws (each block's P from the block's stream for P, its rows of exponentials in ascending
    order from the block's stream): K by counting the exponentials at or below a, S by summing
    them in Python."""
    a = eps / np.sqrt(n)
    base = int(stream(seed, 101).integers(2**63))
    d, k, middle = [], [], []
    for b, start in enumerate(range(0, samples, pl.LOSS_BLOCK)):
        size = min(pl.LOSS_BLOCK, samples - start)
        gen = stream(base, b)
        plus = _heads_by_unpacking(stream(base, b, 1), n, size)
        m = n - plus
        rows = list(gen.standard_exponential((max(int(m.max()), 1), size)))  # (more than are read)
        for j in range(size):
            e, total, kk = 0.0, 0.0, 0
            for r in range(m[j]):
                e += rows[r][j] / (m[j] - r)
                if e > a:
                    break
                total, kk = total + e, kk + 1
            d.append(int(plus[j]) - int(m[j]) + kk)
            k.append(kk)
            middle.append(kk - 2.0 * total / a)
    return np.array(d), np.array(k), np.array(middle)


@pytest.mark.parametrize("n, eps", [(1, 1.0), (4, 0.001), (16, 1.0), (64, 10.0), (9, 3.0), (300, 50.0)])
def test_the_loss_from_rows_of_ascending_exponentials_equals_one_written_out(n, eps):
    """Rényi's representation, read at a: the page's arrays against a loop over releases."""
    d, k, middle = pl._privacy_loss_units(n, C, eps, 700, stream(5, 101))
    d0, k0, middle0 = _units_by_rows(n, eps, 700, 5)
    assert np.array_equal(d, d0) and np.array_equal(k, k0)
    assert np.array_equal(middle, middle0)


@pytest.mark.parametrize(
    "n, eps, bins", [(1, 1.0, 60), (2, 0.5, 60), (9, 3.0, 60), (64, 1.0, 60), (1024, 0.013, 7), (300, 1000.0, 3)]
)
def test_the_binning_guess_lands_where_numpys_search_does(n, eps, bins):
    """The compiled bin lookup (an even spacing's guess, then moved by comparing with the edges)
    against ``np.searchsorted(edges, loss, 'left')``: at every edge, a unit in the last place
    either side of it, the bins' middles, beyond both ends, random losses, and NaN."""
    from dpviz.papers.adept import loss_kernels

    edges, below = pl._bins(n, eps, bins)
    width = edges[-1] - edges[0]
    losses = np.concatenate(
        [
            edges,
            np.nextafter(edges, -np.inf),
            np.nextafter(edges, np.inf),
            (edges[:-1] + edges[1:]) / 2,
            [edges[0] - width, edges[-1] + width, -np.inf, np.inf, 0.0, -0.0],
            stream(n, 3).uniform(edges[0] - 0.1 * width, edges[-1] + 0.1 * width, 2000),
        ]
    )
    padded = np.concatenate([edges, np.full(5, np.inf)])  # (a row of the kernel's table: inf past its end)
    for loss in losses:
        assert loss_kernels.first_at_least(padded, edges.size, below, loss) == np.searchsorted(edges, loss), loss
    assert loss_kernels.first_at_least(padded, edges.size, below, np.nan) == 0  # (every comparison false)


@pytest.mark.parametrize("n, eps", [(1, 1.0), (2, 0.37), (9, 3.0), (16, 1.0), (64, 1000.0), (1024, 0.001)])
def test_the_bins_at_one_a_equal_numpys_on_and_beside_every_edge(n, eps):
    """``bin_kept`` (the one-a pass after the walk, with its guessed bin moved to the edges) against
    NumPy's ``searchsorted`` and the exact decision at the claim: releases with K = 0 (the loss
    a·d, on an edge where d lands there), and with K > 0 whose S puts the loss on each edge and a
    unit in the last place either side, and at random."""
    from dpviz.papers.adept import loss_kernels

    edges, below = pl._bins(n, eps, 60)
    a = eps / np.sqrt(n)
    rng = stream(n, 5)
    targets = np.concatenate([edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf)])
    m = rng.integers(1, n + 1, targets.size)  # (at least one coordinate below zero: K >= 1 possible)
    plus = n - m
    k = rng.integers(1, m + 1)  # (1 <= K <= m)
    d = plus - m + k
    s = np.maximum((k + d - targets / a) * a / 2, 0.0)  # S with a·(d + K − 2S/a) at (about) the target
    zero_plus = rng.integers(0, n + 1, 200)  # K = 0: S = 0, the loss a·(P − m)
    plus, m = np.concatenate([plus, zero_plus]), np.concatenate([m, n - zero_plus])
    k, s = np.concatenate([k, np.zeros(200, dtype=np.int64)]), np.concatenate([s, np.zeros(200)])
    plus, m = plus.astype(np.int64), m.astype(np.int64)
    kept = np.stack([k.astype(float), s])
    counts = np.zeros((1, edges.size - 1), dtype=np.int64)
    padded = np.concatenate([edges, np.full(5, np.inf)])[None, :]
    loss_kernels.bin_kept(
        kept, plus, m, np.array([a]), float(np.sqrt(n)), n, padded, np.array([edges.size]), np.array([below]), counts
    )
    d = plus - m + k
    middle = k - 2.0 * s / a
    assert np.array_equal(counts[0], _counts_by_numpy(d, k, middle, n, eps, edges, below))
    assert counts.sum() == plus.size


@pytest.mark.parametrize("n", [1, 2, 9, 64, 1024])
def test_histograms_along_epsilon_equal_each_epsilon_alone_bit_for_bit(n):
    """One set of draws for many ε (unsorted, with a repeat, across blocks) gives each ε's
    histogram exactly as computed at that ε alone, and as the direct count of its releases."""
    samples = pl.LOSS_BLOCK + 300 if n < 1024 else 900
    eps = [3.0, 0.001, 1000.0, 1.0, 0.37, 3.0, 12.0]
    along = pl.privacy_loss_histograms(n, C, eps, samples, seed=4)
    for e, table in zip(eps, along):
        alone = pl.privacy_loss_histogram(n, C, e, samples, seed=4)
        assert table.equals(alone), e
        d, k, middle = pl._privacy_loss_units(n, C, e, samples, stream(4, 101))
        edges, below = pl._bins(n, e, 60)
        assert np.array_equal(table["count"], _counts_by_numpy(d, k, middle, n, e, edges, below)), e
        assert table["count"].sum() == samples


@pytest.mark.parametrize("eps", [1.0, 0.001, 40.0])
def test_histograms_along_n_equal_each_n_alone_bit_for_bit(eps):
    """One set of exponentials for many n (unsorted, with a repeat, square and not, n = 1, across
    blocks) gives each n's histogram exactly as computed at that n alone, and as the direct count
    of its releases written out by a loop over them (_units_by_rows)."""
    samples = pl.LOSS_BLOCK + 300
    dims = [16, 1, 300, 2, 16, 1024, 15]
    along = pl.privacy_loss_histograms_along_dim(dims, C, eps, samples, seed=4)
    for n, table in zip(dims, along):
        alone = pl.privacy_loss_histogram(n, C, eps, samples, seed=4)
        assert table.equals(alone), n
        assert table["count"].sum() == samples
    for n, table in zip(dims[:4], along[:4]):  # (the loop over releases is slow: the smaller n)
        d, k, middle = _units_by_rows(n, eps, samples, 4)
        edges, below = pl._bins(n, eps, 60)
        assert np.array_equal(table["count"], _counts_by_numpy(d, k, middle, n, eps, edges, below)), n


def test_the_same_exponentials_at_every_n():
    """Along n a release keeps its exponentials: where a release has the same m at two n, the
    same K and S; and the rows a block draws do not depend on n (its P come from a stream apart)."""
    base = int(stream(9, 101).integers(2**63))
    a = np.array([0.3])
    rows, coins = pl._exponentials(base, 0, 500), pl._coins(base, 0, 500)
    got = {}
    for n in (8, 40, 9):
        plus = pl._plus(coins, n)
        assert np.array_equal(plus, _heads_by_unpacking(stream(base, 0, 1), n, 500))
        m, k, total = pl._walked(rows, plus, n, a)
        again = pl._walked(pl._exponentials(base, 0, 500), plus, n, a)  # drawn afresh for this n alone
        assert np.array_equal(k, again[1]) and np.array_equal(total, again[2])
        got[n] = (m, k[:, 0], total[:, 0])  # (releases × a)
    m8, k8, s8 = got[8]
    m9, k9, s9 = got[9]
    assert set(np.unique((n9 := 9 - m9) - (8 - m8))) <= {0, 1}  # one coin more: P grows by 0 or 1
    same = m8 == m9
    assert same.sum() > 20 and (n9[same] == 8 - m8[same] + 1).all()
    assert np.array_equal(k8[same], k9[same]) and np.array_equal(s8[same], s9[same])


@pytest.mark.parametrize("n", [1, 2, 63, 64, 65, 130])
def test_heads_among_n_coins_are_binomial(n):
    """P from the coins' words against Binomial(n, 1/2): its mean n/2 and variance n/4 within
    five standard errors over 100,000 releases, and its range 0 … n."""
    plus = pl._plus(pl._coins(3, 0, 100_000), n)
    assert plus.min() >= 0 and plus.max() <= n
    assert abs(plus.mean() - n / 2) < 5 * np.sqrt(n / 4 / 100_000)
    # the sample variance's standard error: sqrt((mu4 - sigma^4)/N), mu4 = sigma^4 (3 - 2/n) for p = 1/2;
    # at n = 1 that is 0 and the variance p(1 - p) moves by (p - 1/2)^2 alone, below 7 sigma^2/N at five
    var = n / 4
    assert abs(plus.var() - var) < 5 * np.sqrt((var**2 * (2 - 2 / n)) / 100_000) + 7 * var / 100_000


@pytest.mark.parametrize("n, eps", [(64, 1.0), (1024, 1.0), (7, 50.0)])
def test_how_many_rows_are_drawn_at_a_time_does_not_change_the_releases(monkeypatch, n, eps):
    """The rows of exponentials come from each block's stream in order, so drawing them 1, 4 or 16
    at a time (pl.ROWS: only how many are drawn past a block's last) gives the same histogram."""
    tables = []
    for rows in (1, 4, 16):
        monkeypatch.setattr(pl, "ROWS", rows)
        tables.append(pl.privacy_loss_histogram(n, C, eps, 3000, seed=6))
    assert tables[0].equals(tables[1]) and tables[1].equals(tables[2])


def test_the_same_releases_at_every_epsilon():
    """The releases behind the histogram stay the same along ε: a release's coordinates with Z >= 0
    do not depend on ε, so d - k (= P - m) is the same at every ε, release by release."""
    parts = [pl._privacy_loss_units(16, C, e, 2000, stream(8, 101)) for e in (0.1, 1.0, 10.0)]
    for d, k, _ in parts[1:]:
        assert np.array_equal(d - k, parts[0][0] - parts[0][1])
    assert (parts[0][1] <= parts[1][1]).all() and (parts[1][1] <= parts[2][1]).all()  # more in the middle as a grows


@pytest.mark.parametrize("n", [16, 15])
def test_exceed_probability_from_histogram_equals_an_exact_per_release_decision(n):
    hist = pl.privacy_loss_histogram(n, C, 1.0, 50_000, seed=3)
    d, k, middle = pl._privacy_loss_units(n, C, 1.0, 50_000, stream(3, 101))
    # independent decision: the loss as a fraction (d + middle) against sqrt(n), ties at k = 0
    # decided with Python integers
    above = [
        (dd > 0 and dd * dd > n) if kk == 0 else (dd + mm > n**0.5)
        for dd, kk, mm in zip(d.tolist(), k.tolist(), middle.tolist())
    ]
    p, lo, hi = pl.exceed_probability(hist)
    assert p == pytest.approx(np.mean(above))
    assert lo <= p <= hi
    assert hist["probability"].sum() == pytest.approx(1.0)


@pytest.mark.parametrize("n, eps, expected", [(4, 0.7, 0.1560), (9, 1.3, 0.3024)])
def test_exact_exceed_probability_matches_independent_figures(n, eps, expected):
    """Values of P[L > eps] computed independently (reported with the issue that found the
    rounding error), for square n where L = eps has positive probability."""
    assert pl.exceed_probability_exact(n, eps) == pytest.approx(expected, abs=5e-5)


@pytest.mark.parametrize("n, eps", [(2, 1.0), (5, 0.5), (7, 2.0), (12, 1.0)])
def test_exact_exceed_probability_vs_direct_laplace_simulation(n, eps):
    """Non-square n (no atom at eps): the direct simulation's float comparison is safe."""
    m = 200_000
    loss = _direct_loss(n, eps, m, np.random.default_rng(100 + n))
    exact = pl.exceed_probability_exact(n, eps)
    se = np.sqrt(exact * (1 - exact) / m)
    assert abs((loss > eps).mean() - exact) < 4.5 * se


@pytest.mark.parametrize(
    "n, clip, eps",
    [
        (4, 3.0, 0.7),
        (9, 7.0, 1.3),
        (16, 10.0, 1.0),
        (25, 1.0, 0.2),
        (4, 10.0, 5.0),
        (5, 3.0, 0.7),
        (10, 2.0, 1.3),
        (1, 1.0, 1.0),
    ],
)
def test_histogram_exceed_probability_vs_exact(n, clip, eps):
    """Square and non-square n: the page's sampled share is within sampling error of the exact one."""
    m = 200_000
    p, _, _ = pl.exceed_probability(pl.privacy_loss_histogram(n, clip, eps, m, seed=1))
    exact = pl.exceed_probability_exact(n, eps)
    se = max(np.sqrt(exact * (1 - exact) / m), 1 / m)
    assert abs(p - exact) < 4.5 * se


def test_exact_exceed_probability_edge_cases():
    from math import comb

    assert pl.exceed_probability_exact(1, 3.0) == 0.0  # L <= eps always in one dimension
    # eps -> 0: the middle region's mass (1 - e^(-a))/2 vanishes and each coordinate is +-a with
    # probability 1/2, so P -> P[2 Bin(n, 1/2) - n > sqrt(n)]; for square n the tie 2k - n = sqrt(n)
    # does not count.
    for n in (4, 9, 5, 16):
        limit = sum(comb(n, k) for k in range(n + 1) if (2 * k - n) > 0 and (2 * k - n) ** 2 > n) / 2**n
        assert pl.exceed_probability_exact(n, 1e-7) == pytest.approx(limit, rel=1e-4)
    # large eps: the middle terms pile up at +a, so L -> eps sqrt(n) > eps almost surely
    assert pl.exceed_probability_exact(4, 60.0) == pytest.approx(1.0, abs=1e-9)
    with pytest.raises(ValueError, match="epsilon"):
        pl.exceed_probability_exact(4, 0.0)


# --- Gaussian calibration and the fixes ------------------------------------------------------


def _hockey_stick_delta(sigma, sens, eps):
    """delta = integral of max(0, p(y) - e^eps q(y)), p = N(0, s^2), q = N(sens, s^2), numerically."""
    f = lambda y: max(0.0, stats.norm.pdf(y, 0, sigma) - np.exp(eps) * stats.norm.pdf(y, sens, sigma))  # noqa: E731
    return integrate.quad(f, -40 * sigma, sens / 2 + 40 * sigma, limit=500, points=[sens / 2])[0]


@pytest.mark.parametrize("eps, delta", [(0.1, 1e-5), (1.0, 1e-5), (5.0, 1e-6), (20.0, 1e-3)])
def test_gaussian_sigma_round_trip_and_numerical_integration(eps, delta):
    sigma = adept.gaussian_sigma(2 * C, eps, delta)
    assert adept.gaussian_delta(sigma, 2 * C, eps) == pytest.approx(delta, rel=1e-6)
    assert _hockey_stick_delta(sigma, 2 * C, eps) == pytest.approx(delta, rel=1e-4)
    if eps < 1:  # the classical calibration is valid and never tighter
        assert 2 * C * np.sqrt(2 * np.log(1.25 / delta)) / eps >= sigma


def test_gaussian_sigma_survives_huge_epsilon():
    assert np.isfinite(adept.gaussian_sigma(20.0, 1000.0, 1e-5))


@pytest.mark.parametrize("kind, scale, n", [("laplace", 3.0, 7), ("gaussian", 2.0, 50)])
def test_noise_rms_closed_form_vs_simulation(kind, scale, n):
    rng = np.random.default_rng(0)
    z = rng.laplace(0, scale, (40_000, n)) if kind == "laplace" else rng.normal(0, scale, (40_000, n))
    assert np.sqrt((z**2).sum(1).mean()) == pytest.approx(adept.noise_rms(kind, scale, n), rel=0.01)


def test_fixes_table():
    df = adept.fixes_utility([1, 16], [0.5, 50.0], C, 1e-5, 400, seed=0)
    assert len(df) == 2 * 2 * 4
    ad = df[df.mechanism == "adept"]
    assert np.allclose(ad.epsilon_actual, ad.epsilon * np.sqrt(ad.dim))
    assert np.allclose(df[df.mechanism != "adept"].epsilon_actual, df[df.mechanism != "adept"].epsilon)
    # at large epsilon the honest mechanisms still keep most of the signal in low dimension
    good = df[(df.epsilon == 50.0) & (df.dim == 1)]
    assert (good.cosine > 0.9).all()
    # rms error for laplace_corrected is sqrt(n) times ADePT's
    a = df[(df.mechanism == "adept") & (df.dim == 16)].rms_error.to_numpy()
    b = df[(df.mechanism == "laplace_corrected") & (df.dim == 16)].rms_error.to_numpy()
    assert np.allclose(b / a, 4.0)


def _simulated_releases(n: int, eps: float, draws: int, seed: int):
    """Per mechanism, (v, M(v)) for ``draws`` signals on the sphere of radius C, simulated in full
    with numpy's own generator (an independent route to the fixes' table)."""
    rng = np.random.default_rng(seed)
    u = rng.standard_normal((draws, n))
    v = C * u / np.linalg.norm(u, axis=1, keepdims=True)
    out = {}
    for mech in adept.FIXES:
        kind, scale, _, _ = adept.fix_noise(mech, n, C, eps, 1e-5)
        sig = adept.clip_l1(v, C) if mech == "l1_clip" else v
        out[mech] = sig + (rng.laplace(0, scale, v.shape) if kind == "laplace" else rng.normal(0, scale, v.shape))
    return v, out


def test_fixes_simulated_rms_matches_closed_form():
    """The table's rms_error (closed form + simulated bias) against a full simulation."""
    n, eps = 32, 5.0
    df = adept.fixes_utility([n], [eps], C, 1e-5, 4000, seed=1)
    v, released = _simulated_releases(n, eps, 20_000, 9)
    for mech, out in released.items():
        rms = np.sqrt(((out - v) ** 2).sum(1).mean())
        assert df[df.mechanism == mech].rms_error.iloc[0] == pytest.approx(rms, rel=0.02)


def test_fixes_simulated_cosine_matches_an_independent_simulation():
    """The cosine from the blocked draws (n = 40: two whole blocks and half a third) against a
    full simulation of M(v), within 4 standard errors of the two."""
    n, eps = 40, 20.0
    df = adept.fixes_utility([n], [eps], C, 1e-5, 4000, seed=3)
    v, released = _simulated_releases(n, eps, 40_000, 11)
    for mech, out in released.items():
        cos = (out * v).sum(1) / (np.linalg.norm(out, axis=1) * C)
        row = df[df.mechanism == mech].iloc[0]
        se = np.hypot(row.cosine_se, cos.std(ddof=1) / np.sqrt(len(cos)))
        assert abs(row.cosine - cos.mean()) < 4 * se, mech


@pytest.mark.parametrize("small, large", [(1, 2), (5, 40), (16, 17), (33, 1024)])
def test_fixes_draws_share_their_first_coordinates_and_do_not_depend_on_order(small, large):
    """n takes the first n coordinates of every draw (so a larger n adds coordinates: the noise's
    squared norms can only grow), and what n gets does not depend on what was drawn before it in
    the process (the frames along n draw each block once)."""
    from dpviz import caches

    caches.empty_all()
    alone = adept.fixes_draws(small, C, 300, 5)
    caches.empty_all()
    bigger = adept.fixes_draws(large, C, 300, 5)
    after = adept.fixes_draws(small, C, 300, 5)
    for key in alone:
        assert np.array_equal(alone[key], after[key]), key
    for key in ("lap.lap", "gau.gau"):
        assert np.all(bigger[key] >= alone[key])
    caches.empty_all()


@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 32, 100])
def test_fixes_draws_from_sums_equal_the_vectors_written_out(n):
    """The dot products from per-draw sums over coordinates (v = C u/‖u‖₂, v1 = t·v) against the
    vectors themselves: each draw's first n coordinates of u, the Laplace and the Gaussian noise
    from the blocks, v normalised, v1 by ``clip_l1``, and every product by ``einsum``; n = 1 (no
    clip: t = 1), a block's edge and a partial block."""
    from dpviz import caches

    caches.empty_all()
    draws, seed = 250, 11
    blocks = [adept._fixes_block(seed, draws, b) for b in range(-(-n // adept.FIXES_BLOCK))]
    u, lap, gau = (np.concatenate([blk[i] for blk in blocks], axis=1)[:, :n] for i in range(3))
    v = C * u / np.linalg.norm(u, axis=1, keepdims=True)
    v1 = adept.clip_l1(v, C)
    vectors = {"v": v, "v1": v1, "lap": lap, "gau": gau}
    got = adept.fixes_draws(n, C, draws, seed)
    for key, value in got.items():
        if key == "bias_sq":
            expected = np.mean(np.sum((v1 - v) ** 2, axis=1))
            assert value == pytest.approx(expected, rel=1e-12, abs=1e-12 * C**2)
            continue
        left, right = key.split(".")
        expected = np.einsum("ij,ij->i", vectors[left], vectors[right])
        assert np.allclose(value, expected, rtol=1e-12, atol=1e-12 * C**2), key
    assert adept.fixes_bias_sq(n, C, draws, seed) == got["bias_sq"]
    if n == 1:
        assert got["bias_sq"] < 1e-20 * C**2  # one coordinate: ‖v‖₁ = ‖v‖₂ = C, nothing clipped (but rounding)


def _cosine_one_scale(d, kind, scale, clip, mech):
    """One scale's mean cosine and standard error, on 1-D arrays, as a row was made before the rows
    of one n were made together: the reference for :func:`adept.fix_cosines`."""
    s = "v1" if mech == "l1_clip" else "v"
    e = "lap" if kind == "laplace" else "gau"
    num = d[f"{s}.v"] + scale * d[f"{e}.v"]
    norm_sq = np.maximum(d[f"{s}.{s}"] + 2 * scale * d[f"{s}.{e}"] + scale**2 * d[f"{e}.{e}"], 0.0)
    cos = num / (np.sqrt(norm_sq) * clip)
    se = float(cos.std(ddof=1) / np.sqrt(len(cos))) if len(cos) > 1 else np.nan
    return float(cos.mean()), se


@pytest.mark.parametrize("n, draws", [(1, 1), (1, 2), (9, 37), (16, 1000), (64, 250)])
def test_the_cosines_of_many_scales_equal_each_scale_alone_bit_for_bit(n, draws):
    """:func:`adept.fix_cosines` (every scale of one mechanism in one pass) gives each scale the
    numbers a row alone gets, to the last bit, whatever the other scales are; and
    :func:`adept.fix_rows` (an n's cases in any order, mechanisms mixed) each case's closed forms
    and cosine. One draw: no standard error."""
    from dpviz import caches

    caches.empty_all()
    d = adept.fixes_draws(n, C, draws, 3)
    scales = [0.0, 1e-9, 0.3, np.float64(2.0) / 3, 20.0, 2e6 / 7, np.sqrt(1024) * 2e6 / 1e-3, 1e150]
    for kind, mech in (("laplace", "adept"), ("laplace", "l1_clip"), ("gaussian", "gaussian")):
        means, ses = adept.fix_cosines(d, kind, scales, C, mech)
        for i, scale in enumerate(scales):
            mean, se = _cosine_one_scale(d, kind, scale, C, mech)
            assert means[i] == mean or (np.isnan(means[i]) and np.isnan(mean)), (mech, scale)
            assert ses[i] == se or (np.isnan(ses[i]) and np.isnan(se)), (mech, scale)
        reversed_ = adept.fix_cosines(d, kind, scales[::-1], C, mech)
        assert np.array_equal(reversed_[0][::-1], means, equal_nan=True)
    cases = [(e, m) for e in (5.0, 0.1, 1000.0, 0.7) for m in ("gaussian", "adept", "l1_clip", "laplace_corrected")]
    for (eps, mech), row in zip(cases, adept.fix_rows(d, n, cases, C, 1e-5)):
        kind, scale, eps_true, delta, rms = adept.fix_rms(d, n, eps, C, 1e-5, mech)
        cosine, se = _cosine_one_scale(d, kind, scale, C, mech)
        assert row[:8] == (mech, n, eps, eps_true, delta, scale, rms, rms / C)
        assert row[8] == cosine and (row[9] == se or (np.isnan(row[9]) and np.isnan(se)))
    caches.empty_all()


@pytest.mark.parametrize("shape", [(6, 5, 1), (6, 3, 16), (2, 1000, 7)])
def test_block_sums_add_left_to_right_as_the_cumulative_sums_did(shape):
    """The block's sums (``_added_in_order``) equal the last of ``np.cumsum`` to the last bit (a
    column at a time, left to right), which NumPy's own pairwise ``sum`` need not."""
    terms = stream(4, 2).standard_cauchy(shape) * 10.0 ** stream(4, 3).integers(-8, 8, shape)
    expected = np.cumsum(terms, axis=-1)[..., -1]
    assert np.array_equal(adept._added_in_order(terms), expected)


# --- geometry ------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3])
def test_geometry(n):
    g = adept.geometry(n, C)
    cols = ["x", "y"] + (["z"] if n == 3 else [])
    ball = g[g["shape"] == "l2_ball"][cols].to_numpy()
    assert np.allclose(np.linalg.norm(ball, axis=1), C)
    l1 = g[g["shape"] == "l1_ball"][cols].to_numpy()
    assert np.allclose(np.abs(l1).sum(1), C)
    cube = g[g["shape"] == "cube"][cols].to_numpy()
    assert np.allclose(np.linalg.norm(cube, axis=1), C)  # cube corners touch the sphere
    pair = g[g["shape"] == "pair"][cols].to_numpy()
    assert np.abs(pair[0] - pair[1]).sum() == pytest.approx(adept.sensitivity_l1(n, C))


# --- the marked point's label ------------------------------------------------------------


def _mark(figure_id, **raw):
    from dpviz import registry

    values, df, fig = registry.run(figure_id, raw)
    notes = [a for a in fig.layout.annotations if a.name == "mark"]
    assert len(notes) == 1, fig.layout.annotations
    return values, notes[0]


@pytest.mark.parametrize("figure_id", ["adept-sensitivity", "adept-epsilon"])
@pytest.mark.parametrize(
    "dim, max_dim, side",
    [(64, 1024, "left"), (1, 1024, "right"), (5, 1024, "right"), (6, 1024, "left"), (2, 2, "left")],
)
def test_the_marked_points_label_sits_beside_its_point_without_an_arrow(figure_id, dim, max_dim, side):
    """The label is beside the ring at (n, value), in log10 coordinates as Plotly reads an
    annotation on a log axis, to its left except in the first quarter of the x axis's log span
    (1 to max_dim), where it goes to the right: 5 is 23% of log 1024, 6 is 26%. It has no arrow
    (Plotly measures an arrow's path on every redraw)."""
    values, note = _mark(figure_id, dim=dim, max_dim=max_dim)
    value = (
        adept.sensitivity_l1(dim, values["clip"])
        if figure_id == "adept-sensitivity"
        else adept.epsilon_actual(values["epsilon"], dim)
    )
    assert note.x == pytest.approx(np.log10(dim)) and note.y == pytest.approx(np.log10(value))
    assert note.showarrow is False
    assert note.yanchor == "bottom" and note.yshift > 0  # above the point
    assert note.xanchor == ("right" if side == "left" else "left")
    assert np.sign(note.xshift) == (-1 if side == "left" else 1)
    assert f"n = {dim}" in note.text


def test_the_fixes_rows_kept_along_a_slider_equal_rows_made_afresh():
    """The fixes' table keeps each row (``adept.fix_rows``) for the next frame; a move of any
    setting a row depends on (ε, n, δ, C, draws, seed) gives the table made from scratch, row for
    row (nothing kept for one setting is read at another)."""
    from dpviz import caches, registry
    from dpviz.papers.adept.figures import SWEEP_DIMS, SWEEP_EPSILONS

    spec = registry.get("adept-fixes")
    caches.empty_all()
    at = dict(spec.defaults(), draws=40)
    moves = [
        {"epsilon": 0.7},  # off the sweep's grid: a row of its own
        {"epsilon": 2.0},  # on it
        {"delta": 1e-3},
        {"seed": 3},
        {"clip": 2.5},
        {"draws": 41},
        {"dim": 9},
        {"sweep": "dim", "epsilon": 0.7},
        {"sweep": "dim", "epsilon": 0.7, "dim": 100},
        {"epsilon": 0.7, "dim": 9},  # back, every row from the memo
    ]
    for move in moves:
        at.update(move)
        if at["sweep"] == "dim":
            dims, eps = sorted(set(SWEEP_DIMS) | {at["dim"]}), [at["epsilon"]]
        else:
            dims, eps = [at["dim"]], sorted(set(SWEEP_EPSILONS) | {at["epsilon"]})
        fresh = adept.fixes_utility(dims, eps, at["clip"], at["delta"], at["draws"], at["seed"])
        kept = spec.table(at)
        assert kept.equals(fresh), move
    assert caches.memo("adept.fix_rows").keys()  # (the rows were kept, not only made)
