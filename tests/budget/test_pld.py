"""dpviz.budget.pld (privacy-loss distributions built, composed and read over arrays) against
Google's dp-accounting, which builds the same distributions reading one loss at a time, and
against the definitions: the composed mass left out of a window, δ and ε read from each other, and
the optimal composition of pure releases as an upper bound."""

from __future__ import annotations

import logging
import math

import numpy as np
import pytest
from dp_accounting.pld import pld_pmf
from dp_accounting.pld import privacy_loss_distribution as lib
from dp_accounting.pld.privacy_loss_mechanism import LaplacePrivacyLoss

from dpviz.budget import kernels, pld
from dpviz.budget.releases import pure_composition_epsilon
from dpviz.budget.subsampled_pld import subsampled_gaussian_pld

DELTAS = (1e-12, 1e-9, 1e-5, 1e-3, 0.1, 0.5)


def _library(kind: str, setting, k: int, interval: float):
    one = (
        lib.from_laplace_mechanism(1 / setting, value_discretization_interval=pld.laplace_step(setting, interval))
        if kind == "laplace"
        else lib.from_gaussian_mechanism(setting[0], sampling_prob=setting[1], value_discretization_interval=interval)
    )
    return one.self_compose(k) if k > 1 else one


def _mine(kind: str, setting, k: int, interval: float):
    one = pld.laplace_pld(setting, interval) if kind == "laplace" else subsampled_gaussian_pld(*setting, interval)
    return one.self_compose(k) if k > 1 else one


def test_connecting_the_dots_gives_the_librarys_masses():
    """Random non-increasing δ's: the same masses and infinity mass as the library's function."""
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 50, 1200):
        deltas = np.sort(rng.uniform(0, 1, n))[::-1]
        theirs = pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap(0.01, -7, -7 + n - 1, deltas).to_dense_pmf()
        ours = pld.connect_dots(0.01, -7, -7 + n - 1, deltas)
        assert ours.lower == theirs._lower_loss
        np.testing.assert_allclose(ours.probs, theirs._probs, rtol=1e-13, atol=1e-17)
        assert ours.infinity == theirs._infinity_mass


@pytest.mark.parametrize("epsilon0", [0.01, 0.3, 1.0, 10.0, 0.0599133, 0.3337])
def test_laplaces_delta_is_the_librarys_reading(epsilon0):
    """δ(ε) against the library's Laplace loss (CDFs at the inverse loss) on [−2ε₀, 2ε₀], within
    rounding (the library reads 5.6·10⁻¹⁷ at ε₀, where the divergence is 0): 1 − e^{(ε − ε₀)/2} on
    [−ε₀, ε₀], 0 above, 1 − e^ε below. The PLD's grid ends outside [−ε₀, ε₀] where ε₀ is not a
    whole number of steps (0.0599133, 0.3337): no mass at +∞ and none negative there either."""
    loss = LaplacePrivacyLoss(1 / epsilon0)
    eps = np.linspace(-2 * epsilon0, 2 * epsilon0, 201)
    want = loss.get_delta_for_epsilon(eps)
    got = pld.laplace_delta(epsilon0, eps)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)
    assert (got[eps > epsilon0] == 0).all() and (got >= 0).all()
    one = pld.laplace_pld(epsilon0, 1e-3)
    assert one.remove.infinity == 0.0 and one.add is None and (one.remove.probs >= 0).all()


@pytest.mark.parametrize("epsilon0", [0.0251528, 0.0599133, 0.3337, 1.2345])
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_laplace_off_the_grid_lies_between_the_exact_epsilon_and_basic_composition(epsilon0, k):
    """k Laplace releases lose exactly kε₀ with probability 2⁻ᵏ (each release's noise on the far side
    of both inputs), so δ(ε) ≥ 2⁻ᵏ(1 − e^{ε − kε₀}) and at δ = 10⁻¹² no ε below
    kε₀ + log(1 − 2ᵏ·10⁻¹²) holds: a pessimistic PLD reads at least that, also where ε₀ is not a
    whole number of 10⁻³ steps (it read 0.17896 for 3·0.0599133 = 0.17974, its δ negative at the
    top). And no loss exceeds kε₀, so at no δ does it read above basic composition's kε₀ (its grid
    holds ±ε₀: on a grid between them it read up to k(ε₀ + 10⁻³), 4% above kε₀ at ε₀ = 0.025)."""
    composed = pld.laplace_pld(epsilon0, 1e-3).self_compose(k)
    floor = k * epsilon0 + math.log1p(-(2.0**k) * 1e-12)
    assert floor <= composed.get_epsilon_for_delta(1e-12) <= k * epsilon0 * (1 + 1e-12)
    for delta in DELTAS:
        assert composed.get_epsilon_for_delta(delta) <= k * epsilon0 * (1 + 1e-12), delta
    eps = np.linspace(0.0, k * epsilon0 + 0.1, 301)
    assert (np.asarray(composed.get_delta_for_epsilon(eps)) >= 0).all()
    step = pld.laplace_step(epsilon0, 1e-3)
    assert step <= 1e-3 and epsilon0 / step == pytest.approx(round(epsilon0 / step), abs=1e-9)


CASES = [
    ("laplace", 0.5, 1, 1e-3),
    ("laplace", 0.5, 7, 1e-3),
    ("laplace", 0.5, 100, 1e-3),
    ("laplace", 2.0, 1000, 1e-3),
    ("laplace", 0.3, 20_000, 1e-2),
    ("laplace", 0.5, 100_000, 1e-2),
    ("laplace", 10.0, 3, 1e-3),
    ("laplace", 0.0599133, 3, 1e-3),  # (ε₀ off the grid: the grid's ends lie outside ±ε₀)
    ("laplace", 0.3337, 100, 1e-3),
    ("laplace", 1.2345, 1000, 1e-2),
    ("subsampled", (0.6, 0.01), 10, 1e-3),
    ("subsampled", (1.1, 256 / 60000), 1000, 1e-3),
    ("subsampled", (8.0, 0.5), 20_000, 1e-3),
    ("subsampled", (2.0, 1.0), 300, 1e-3),
]


@pytest.mark.parametrize("kind,setting,k,interval", CASES)
def test_composed_readings_are_the_librarys(kind, setting, k, interval, caplog):
    """ε at each δ, and δ on a grid of ε, equal to the library's composition of the same PLD to
    within one step of the loss grid (where the two FFTs' rounding, about 10⁻¹⁴ of mass, decides
    on which side of a loss the reading stops), and read where the library's own rounding does not
    decide: it carries 5.6·10⁻¹⁷ of infinite loss per Laplace release (a rounding of δ at ε₀, where
    it is 0), so its Laplace is read only at δ well above that mass composed (at 20,000 releases it
    is 1.1·10⁻¹², and its ε at 10⁻¹² infinite). Not at δ = 10⁻¹²: after 20,000 steps each of the
    library's composed masses carries the FFT's rounding, about 10⁻¹⁶·k of the largest mass, and a
    tail of 10⁻¹² sums thousands of them (dpviz's tilted tail does not; tested against the exact
    Gaussian below)."""
    with caplog.at_level(logging.ERROR):
        theirs = _library(kind, setting, k, interval)
    mine = _mine(kind, setting, k, interval)
    floor = 1000 * k * 5.6e-17 if kind == "laplace" else 0.0
    for delta in DELTAS[1:]:  # (10⁻¹²: there the library's FFT rounding decides)
        if delta <= floor:
            continue
        want = theirs.get_epsilon_for_delta(delta)
        assert mine.get_epsilon_for_delta(delta) == pytest.approx(want, rel=1e-9, abs=1.001 * interval), delta
    top = theirs.get_epsilon_for_delta(max(1e-9, 10 * floor))
    eps = np.linspace(-0.5, top, 41)
    want, got = theirs.get_delta_for_epsilon(eps), mine.get_delta_for_epsilon(eps)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=max(1e-12, 10 * floor))


def test_the_window_leaves_out_at_most_the_tail_mass_and_lies_in_the_librarys():
    """200 Laplace releases on a coarse grid (11 losses), the window forced on: the masses of the
    whole convolution (repeated direct convolution, no FFT rounding) outside the window add up to
    at most 10⁻¹⁵ on each side, and the window lies strictly inside the one the library's orders
    give; at 10⁵ releases on the page's grid, it is a fifth of it or less."""
    from dp_accounting.pld import common

    one = pld.laplace_pld(0.5, 0.1).remove
    k = 200
    a, b = _forced_window(one.probs, k)
    full = np.array([1.0])
    for _ in range(k):
        full = np.convolve(full, one.probs)
    assert 0 < a < b < full.size - 1
    assert full[:a].sum() <= pld.TAIL_MASS and full[b + 1 :].sum() <= pld.TAIL_MASS
    assert full[a : b + 1].sum() >= 1 - 2 * pld.TAIL_MASS - 1e-12
    la, lb = common.compute_self_convolve_bounds(one.probs, k, pld.TAIL_MASS)
    assert la <= a and b <= lb
    # where it matters: 10⁵ releases of Laplace at ε₀ = 0.5 on the page's coarse grid
    fine = pld.laplace_pld(0.5, 1e-2).remove.probs
    a, b = pld._window(fine, 100_000, pld.TAIL_MASS)
    la, lb = common.compute_self_convolve_bounds(fine, 100_000, pld.TAIL_MASS)
    assert la <= a and b <= lb and (b - a) * 5 < (lb - la)


def _forced_window(probs, k):
    small = pld.SMALL_COMPOSITION
    try:
        pld.SMALL_COMPOSITION = 0
        return pld._window(probs, k, pld.TAIL_MASS)
    finally:
        pld.SMALL_COMPOSITION = small


def test_epsilon_and_delta_read_each_other():
    """The ε read at δ meets δ, and one discretization step less misses it (or is 0)."""
    composed = pld.laplace_pld(0.7, 1e-3).self_compose(40)
    for delta in DELTAS:
        eps = composed.get_epsilon_for_delta(delta)
        assert composed.get_delta_for_epsilon(eps) <= delta * (1 + 1e-9)
        if eps > 0:
            assert composed.get_delta_for_epsilon(max(0.0, eps - 1e-3)) > delta
    eps = np.linspace(0, 10, 11)
    arrays = composed.get_delta_for_epsilon(eps)
    scalars = [composed.get_delta_for_epsilon(float(e)) for e in eps]
    np.testing.assert_allclose(arrays, scalars, rtol=1e-9, atol=1e-15)


def test_laplace_composed_is_within_the_optimal_composition_of_pure_releases():
    """Any ε₀-DP release is dominated by randomized response at ε₀ (Kairouz et al. 2015), so the
    optimal composition of k pure releases bounds Laplace's composed ε; the PLD (pessimistic by a
    discretization step per release at most) stays below it here, and at δ = 10⁻¹² after 20,000
    releases it answers where the library's rounding answers ∞."""
    for eps0, k, interval in ((0.5, 100, 1e-3), (0.3, 20_000, 1e-2), (2.0, 1000, 1e-3)):
        composed = pld.laplace_pld(eps0, interval).self_compose(k)
        for delta in DELTAS:
            assert composed.get_epsilon_for_delta(delta) < pure_composition_epsilon(eps0, k, delta)
    assert math.isinf(_library("laplace", 0.3, 20_000, 1e-2).get_epsilon_for_delta(1e-12))
    assert math.isfinite(pld.laplace_pld(0.3, 1e-2).self_compose(20_000).get_epsilon_for_delta(1e-12))


def test_pld_edges():
    """k = 1 is the release itself; k ≤ 0 and unsorted ε's are refused; an infinite mass above δ
    reads ε = ∞; a one-loss distribution."""
    one = pld.laplace_pld(0.5, 1e-3)
    assert one.self_compose(1) is not None and one.remove.self_compose(1) is one.remove
    with pytest.raises(ValueError, match="at least 1"):
        one.self_compose(0)
    with pytest.raises(ValueError, match="ascending"):
        one.get_delta_for_epsilon(np.array([0.2, 0.1]))
    heavy = pld.connect_dots(0.1, 3, 3, [0.2])  # mass 0.8 at loss 0.3, 0.2 at ∞
    assert heavy.probs.tolist() == [0.8] and heavy.infinity == 0.2
    assert heavy.epsilon(0.1) == math.inf
    # δ(ε) = 0.2 + 0.8·(1 − e^{ε − 0.3}) below 0.3: δ = 0.3 at ε = 0.3 + log(7/8); δ = 0.2 from 0.3 on
    assert heavy.epsilon(0.3) == pytest.approx(0.3 + math.log(7 / 8), rel=1e-12)
    assert heavy.epsilon(0.2) == pytest.approx(0.3, rel=1e-12)
    assert heavy.epsilon(1.0) == 0.0


@pytest.mark.parametrize(
    "kind,setting,k", [("laplace", 0.5, 300), ("laplace", 10.0, 400), ("subsampled", (0.6, 0.01), 1000)]
)
def test_reading_epsilon_by_bisection_is_the_librarys_walk_on_the_same_masses(kind, setting, k):
    """ε(δ) found by bisection on the running maximum of δ(ℓ_j) against the library's own walk down
    the losses (its ``_get_epsilon_for_delta``, given dpviz's masses): the same answer, including
    the losses so large that e^{−ℓ} underflows (ε₀ = 10: 4,000 of loss) and δ's of every size."""
    composed = _mine(kind, setting, k, 1e-2 if kind == "laplace" else 1e-3)
    for pmf in (composed.remove,) if composed.add is None else (composed.remove, composed.add):
        for masses in (pmf, pmf.tail_view()):  # (each set of masses as a distribution of its own)
            plain = pld.LossPmf(masses.interval, masses.lower, masses.probs, masses.infinity)
            for delta in (*DELTAS, 1e-300, 0.999):
                want = pld_pmf._get_epsilon_for_delta(plain.infinity, plain.losses[::-1], plain.probs[::-1], delta)
                assert plain.epsilon(delta) == pytest.approx(want, rel=1e-12, abs=1e-12), delta


def test_a_release_read_after_it_was_composed_reads_the_same():
    """The one release's PLD keeps its moment generating function for every composition and its
    running sums for readings; reading it after composing it gives what reading it first gives."""
    fresh = pld.laplace_pld(0.5, 1e-3)
    used = pld.laplace_pld(0.5, 1e-3)
    used.self_compose(300)
    for delta in DELTAS:
        assert used.get_epsilon_for_delta(delta) == fresh.get_epsilon_for_delta(delta)
    eps = np.linspace(-0.5, 0.5, 11)
    np.testing.assert_array_equal(used.get_delta_for_epsilon(eps), fresh.get_delta_for_epsilon(eps))


@pytest.mark.parametrize(
    "kind,setting,interval",
    [
        ("laplace", 0.5, 1e-2),
        ("laplace", 10.0, 1e-2),
        ("subsampled", (0.3, 0.01), 1e-3),
        ("subsampled", (4.0, 0.01), 1e-3),
    ],
)
@pytest.mark.parametrize("k", [1000, 100_000])
def test_the_windows_orders_are_nearly_the_best_the_bound_can_do(kind, setting, interval, k):
    """The window from the few orders kept against the narrowest over 440 orders (10⁻⁹/N to 20/N,
    both signs, by SciPy's logsumexp): at most 5% wider, and never narrower (which would mean a
    bound miscomputed)."""
    from scipy import special

    probs = _mine(kind, setting, 1, interval).remove.probs
    n = probs.size
    orders = np.concatenate([np.arange(1, 21), np.geomspace(1e-9, 1.0, 200)]) / n
    t = np.concatenate([orders, -orders])
    positive = probs > 0
    log_mgf = special.logsumexp(np.flatnonzero(positive)[None, :] * t[:, None], b=probs[positive][None, :], axis=1)
    bound = (k * log_mgf + math.log(2 / pld.TAIL_MASS)) / t
    best_lower = max(0, math.floor(bound[t < 0].max()))
    best_upper = min((n - 1) * k, math.ceil(bound[t > 0].min()))
    a, b = _forced_window(probs, k)
    assert a <= best_lower + 1 and b >= best_upper - 1
    assert (b - a + 1) <= 1.05 * (best_upper - best_lower + 1)


@pytest.mark.parametrize(
    "sigma, k", [(40.0, 20_000), (4.0, 1000), (1.0, 100), (100.0, 100_000), (2.0, 3000), (8.0, 5000)]
)
def test_the_composed_gaussian_meets_its_exact_curve_down_to_one_in_a_trillion(sigma, k):
    """k Gaussian releases composed as a PLD (q = 1) against the exact ε of μ-GDP (Balle and Wang's
    analytic Gaussian at μ = √k/σ): never below it (pessimistic) and within 0.05% of it at δ from
    10⁻¹² to 0.1. At 10⁻¹² the plain FFT's rounding alone moved the answer by more than that; the
    tilted upper tail is what holds it. (σ = 4, 2 and 8 read 10⁻⁶-10⁻⁴ below the exact ε at 10⁻⁹-10⁻¹²
    on an AVX2 machine while such readings were taken from the plain masses: dpviz.budget.pld.TAIL_MARGIN.)"""
    from dpviz.budget.releases import gaussian_mu, gdp_epsilon

    composed = subsampled_gaussian_pld(sigma, 1.0, 2e-4).self_compose(k)
    for delta in (1e-12, 1e-10, 1e-9, 1e-5, 0.1):
        exact = gdp_epsilon(gaussian_mu(sigma, k), delta)
        got = composed.get_epsilon_for_delta(delta)
        assert exact * (1 - 1e-12) <= got <= exact * 1.0005 + 1e-9, delta


def test_laplace_at_one_in_a_trillion_no_longer_depends_on_the_step():
    """20,000 Laplace releases at ε₀ = 0.01: at δ = 10⁻¹² the plain FFT's answer moved by 5% between
    steps of 10⁻⁴ to 10⁻³ (10.52 to 11.00: rounding); with the tilted tail the answers agree to
    10⁻⁵, and stay under the optimal composition of pure releases."""
    answers = [
        pld.laplace_pld(0.01, h).self_compose(20_000).get_epsilon_for_delta(1e-12) for h in (1e-4, 2e-4, 5e-4, 1e-3)
    ]
    assert max(answers) - min(answers) <= 1e-5 * max(answers)
    assert max(answers) < pure_composition_epsilon(0.01, 20_000, 1e-12)


def test_the_tilted_tail_has_no_rounding_floor():
    """The plain composition's top masses are rounding (about ±10⁻¹⁷, negative ones among them);
    the tilted ones keep falling, positive, to 10⁻²⁰ at the window's top."""
    one = pld.laplace_pld(0.5, 1e-2).remove
    composed = one.self_compose(20_000).tail_view()
    top = composed.probs[-1000:]
    assert (top > 0).all() and top[-1] < 1e-18
    assert (np.diff(np.log(top)) < 0).all()


def test_the_tilted_tail_is_composed_only_for_the_readings_that_need_it():
    """A reading at δ = 10⁻⁵ uses the plain masses and composes no tilted tail; one at 10⁻¹² makes
    it and reads it; afterwards the reading at 10⁻⁵ is what it was (each δ decides its masses by
    itself, so no reading depends on which came first), and δ(ε) over an array takes each ε's δ
    from the masses its own plain value calls for."""
    composed = pld.laplace_pld(0.01, 2e-4).self_compose(20_000).remove
    margin, _ = composed._kept["tail"]
    assert 1e-12 < margin < 1e-5
    moderate = composed.epsilon(1e-5)
    assert "tail_view" not in composed._kept
    tiny = composed.epsilon(1e-12)
    assert "tail_view" in composed._kept and tiny == composed.tail_view().epsilon(1e-12)
    assert composed.epsilon(1e-5) == moderate
    eps = np.linspace(0, 12, 61)
    mixed, plain, tail = composed.delta(eps), composed._delta(eps), composed.tail_view()._delta(eps)
    np.testing.assert_array_equal(mixed, np.where(plain < margin, tail, plain))
    quiet = pld.laplace_pld(0.13, 1e-2).self_compose(2).remove  # (27 losses twice: rounding ~10⁻¹⁶)
    margin, _ = quiet._kept["tail"]
    assert margin < 1e-8  # (every reading the page makes, 10⁻¹² and up, from the plain masses but the tiniest)
    quiet.epsilon(1e-5), quiet.delta(np.linspace(0, 0.1, 5))
    assert "tail_view" not in quiet._kept
    one = pld.laplace_pld(0.13, 1e-2).remove
    assert one.self_compose(1) is one and one.tail_view() is one  # (one release: nothing composed)


def test_a_composition_that_leaves_the_negligible_transform_out_is_the_convolution():
    """spectrum_power leaves at 0 every transform value whose k-th power is below 10⁻³⁰: after 2,000
    releases of a Laplace PLD of 11 losses it powers a few hundred of 11,001 values, and the composed
    masses are still the k-fold convolution computed directly (one np.convolve per release, in
    extended precision), to the FFT's own rounding; the values it does power are their k-th powers
    in extended precision, to k·10⁻¹⁶ of themselves."""
    one = pld.laplace_pld(0.5, 0.1).remove
    k = 2000
    spectrum = np.fft.rfft(one.probs, one.probs.size * k)
    powered = pld.spectrum_power(spectrum, k)
    kept = powered != 0
    assert 0 < kept.sum() < spectrum.size / 50
    exact = (spectrum[kept].astype(np.clongdouble) ** k).astype(complex)
    np.testing.assert_allclose(powered[kept], exact, rtol=k * 2.3e-16, atol=0)
    assert (np.abs(spectrum[~kept]) ** k < pld.SPECTRUM_FLOOR).all()
    direct = np.array([1.0], dtype=np.longdouble)
    for _ in range(k):
        direct = np.convolve(direct, one.probs.astype(np.longdouble))
    composed = one.self_compose(k, tail_mass=0.0)  # (the whole range of losses, as the direct one)
    assert composed.lower == one.lower * k and composed.probs.size == direct.size
    np.testing.assert_allclose(composed.probs, direct.astype(float), rtol=0, atol=1e-16 * k)
    top = np.argsort(direct)[-50:]  # (the bulk: to ten digits, relative)
    np.testing.assert_allclose(composed.probs[top], direct[top].astype(float), rtol=1e-10)


@pytest.mark.parametrize("k", [1, 2, 3, 99, 100, 101, 1024, 65_537])
def test_the_compiled_power_is_the_power_in_extended_precision_where_it_counts(k):
    """kernels.power_kept: z^k by squarings for every value with |z|² at or above the threshold (a
    value exactly on it is powered), 0 for the others; each power within about k·10⁻¹⁶ of itself
    against the power in extended precision (the rounding of NumPy's own power of a complex array:
    exp(k·log z) from k = 100 on), k = 1 the values themselves, and odd and even k alike."""
    rng = np.random.default_rng(k)
    n = 2000
    z = rng.uniform(0.2, 1.0, n) ** (1 / k) * np.exp(1j * rng.uniform(-np.pi, np.pi, n))
    z[:3] = [1.0, -1.0, 1j]
    z[3] = math.sqrt(float(np.median(np.abs(z) ** 2)))
    threshold = z[3].real * z[3].real  # (a value on the threshold: kept)
    out = kernels.power_kept(z, k, threshold)
    kept = z.real * z.real + z.imag * z.imag >= threshold
    assert kept[3] and 0 < kept.sum() < n
    assert (out[~kept] == 0).all()
    exact = (z[kept].astype(np.clongdouble) ** k).astype(complex)
    np.testing.assert_allclose(out[kept], exact, rtol=k * 2.3e-16, atol=1e-300)
    np.testing.assert_array_equal(out[:3], [1.0, (-1.0) ** k, (1, 1j, -1, -1j)[k % 4]])  # (exact: parity)
    if k == 1:
        np.testing.assert_array_equal(out[kept], z[kept])
    nkept = int(kept.sum())
    assert (np.abs(out[kept]) > 0).sum() == nkept  # (none of them underflows here: each |z|^k ≥ 0.2)


def test_the_compiled_merge_of_the_tilted_tail_is_numpys():
    """kernels.tail_merge against the same choice written with NumPy arrays: at each index j of the
    window, the tilted mass (read around the circular buffer) times e^{k·log M − θj} where that
    composition's rounding is the smaller, the plain mass elsewhere; on windows that start past the
    buffer's length (wrapping) and at 0, with masses of both signs (an FFT's rounding)."""
    rng = np.random.default_rng(7)
    for start, length, n in ((0, 64, 50), (37, 64, 60), (130, 80, 80)):
        probs = rng.normal(0, 1e-3, n) + np.exp(-0.5 * ((np.arange(n) - n / 3) / 6) ** 2)
        tilted = rng.normal(0, 1e-17, length) + np.exp(-0.5 * ((np.arange(length) - length * 0.7) / 5) ** 2)
        theta = 0.9
        k_log_m = theta * (start + n // 2)  # (the tilt undone crosses 1 mid-window)
        at = np.arange(start, start + n)
        taken = np.take(tilted, at % length)
        factor = k_log_m - theta * at
        better = factor + math.log(np.abs(taken).max()) < math.log(np.abs(probs).max())
        assert 0 < better.sum() < n  # (both kinds of index)
        expected = np.where(better, taken * np.exp(np.where(better, factor, 0.0)), probs)
        out = kernels.tail_merge(probs, tilted, start, length, k_log_m, theta)
        np.testing.assert_allclose(out, expected, rtol=4e-16, atol=0)
        np.testing.assert_array_equal(out[~better], probs[~better])
    zero = kernels.tail_merge(np.array([0.25, 0.5]), np.zeros(4), 1, 4, 0.0, 0.1)
    np.testing.assert_array_equal(zero, [0.25, 0.5])  # (no tilted mass: the plain ones kept)


@pytest.mark.parametrize("k", [1, 30, 3000, 30_000])
def test_the_compiled_sums_from_the_top_are_the_sums_in_extended_precision(k):
    """kernels.top_sums and top_stops against the same sums in extended precision from the same
    losses: U and W from p_∞ and the top loss down, and the running maxima of δ(ℓ_j) = U_j −
    e^{ℓ_j}·W_j where W_j > 0, and of U_{j+1} where W_{j+1} = 0. W's terms e^{−ℓ} come by blocks
    (e^{−ℓ₀}·e^{i·h}), which moves each by about |ℓ|·10⁻¹⁶ of itself (ℓ's own rounding); the top
    masses are rounding of both signs, so W is held to its terms' sum of magnitudes, and δ(ℓ_j) to
    the masses' above ℓ_j. On composed PLDs whose losses reach past the blocks' range (k = 30,000:
    past 600) and on one whose top losses have e^{−ℓ} underflow (W = 0 there: the flat stops)."""
    pmfs = [pld.laplace_pld(0.5, 0.01).remove.self_compose(k)]
    pmfs.append(pld.LossPmf(1.0, 743, np.array([0.2, 0.3, 0.1, 0.15, 0.25]), 1e-3))  # (e^{−746} underflows)
    for pmf in pmfs:
        top = pmf.losses[::-1].astype(np.longdouble)
        p = pmf.probs[::-1].astype(np.longdouble)
        terms = p * np.exp(-top)
        u = np.cumsum(np.concatenate([[np.longdouble(pmf.infinity)], p]))
        w = np.cumsum(np.concatenate([[np.longdouble(0)], terms]))
        tol = 1e-14 + 2e-16 * float(np.abs(top).max())
        got_top, got_u, got_w = pmf._from_top()
        np.testing.assert_array_equal(got_top, pmf.losses[::-1])
        np.testing.assert_array_equal(got_u, np.cumsum(np.concatenate([[pmf.infinity], pmf.probs[::-1]])))
        size_u = np.cumsum(np.concatenate([[pmf.infinity], np.abs(pmf.probs[::-1])]))
        size_w = np.cumsum(np.concatenate([[0.0], np.abs(terms).astype(float)]))
        tol = tol + 1.2e-16 * np.arange(pmf.probs.size + 1)  # (and a sum's own rounding, term by term)
        assert (np.abs(got_w - w) <= tol * size_w + 1e-300).all()  # (and subnormals' rounding)
        w64 = np.cumsum(np.concatenate([[0.0], pmf.probs[::-1] * np.exp(-pmf.losses[::-1])]))
        np.testing.assert_array_equal(got_w == 0, w64 == 0)  # (the NumPy route's flat stops)
        with np.errstate(over="ignore", invalid="ignore"):
            at_loss = np.where(w64[:-1] > 0, u[:-1] - np.exp(top) * w[:-1], -np.inf)
        # (where W is subnormal its few bits are what both routes have: there, NumPy's own δ(ℓ))
        tiny = (w64[:-1] > 0) & (w64[:-1] < np.finfo(float).tiny)
        with np.errstate(divide="ignore", over="ignore"):
            numpy_route = got_u[:-1] - np.exp(pmf.losses[::-1] + np.log(np.where(tiny, w64[:-1], 1.0)))
        at_loss = np.where(tiny, numpy_route, at_loss.astype(float))
        want = np.maximum.accumulate(at_loss)
        reached, flat = pmf._stops()
        finite = np.isfinite(want)
        np.testing.assert_array_equal(np.isfinite(reached), finite)
        with np.errstate(invalid="ignore"):
            assert (np.abs(reached - want)[finite] <= 2 * (tol * size_u)[:-1][finite] + 1e-300).all()
        np.testing.assert_array_equal(flat, np.maximum.accumulate(np.where(got_w[1:] == 0, got_u[1:], -np.inf)))
    assert (pmfs[0].losses.max() > kernels.IN_RANGE) == (k == 30_000)  # (past the blocks' range: per loss)
    reached, flat = pmfs[-1]._stops()
    assert np.isfinite(flat[0]) and np.isneginf(reached[0]) and np.isfinite(reached[-1])


@pytest.mark.parametrize("size", [1, 2, 7, 1001, 56_541])
def test_the_blocked_moment_generating_function_is_the_direct_sum(size):
    """_log_mgf sums p_i·e^{t·i} by blocks of √N (e^{t·a·w}·e^{t·b}); the direct sum in extended
    precision over every i gives the same logarithms to 10⁻¹⁴, with zero and negative masses among
    them (taken as 0)."""
    rng = np.random.default_rng(size)
    probs = rng.random(size) ** 4
    if size > 2:
        probs[::5], probs[1] = 0.0, -1e-18
    probs /= np.maximum(probs, 0).sum()
    t, got = pld._log_mgf(probs)
    index = np.arange(size, dtype=np.longdouble)
    direct = np.log(
        np.exp(t.astype(np.longdouble)[:, None] * index[None, :]) @ np.maximum(probs, 0).astype(np.longdouble)
    )
    np.testing.assert_allclose(got, direct.astype(float), rtol=0, atol=1e-14)


def test_a_reading_by_the_scan_from_the_top_is_the_reading_by_the_running_maxima():
    """A PLD's first ε(δ) readings scan its losses from the top (kernels.scan_from_top), later ones
    search the running maxima: the same answer to the bit at every δ, on composed PLDs (Laplace,
    DP-SGD, with the tilted tail's readings among them), on one whose top losses have W = 0 (the
    flat stop), and at a δ no loss reaches (the answer from the lowest loss)."""
    pmfs = [
        pld.laplace_pld(0.5, 0.01).remove.self_compose(300),
        pld.laplace_pld(0.01, 2e-4).self_compose(20_000).remove,
        subsampled_gaussian_pld(1.0, 0.01, 1e-3).self_compose(1000).add,
        pld.LossPmf(1.0, 743, np.array([0.2, 0.3, 0.1, 0.15, 0.25]), 1e-3),
        pld.LossPmf(0.1, -3, np.array([0.5, 0.3, 0.2]), 0.0),
    ]
    deltas = [1e-12, 1e-9, 1e-5, 1e-3, 0.05, 0.3, 0.6, 0.999]
    flat_stops = 0
    for pmf in pmfs:
        for delta in deltas:
            scanned = pld.LossPmf(pmf.interval, pmf.lower, pmf.probs, pmf.infinity, dict(pmf._kept))
            scanned._kept.pop("reached", None), scanned._kept.pop("top", None)
            searched = pld.LossPmf(pmf.interval, pmf.lower, pmf.probs, pmf.infinity, dict(pmf._kept))
            searched._kept["scans"] = pld.SCANS
            got = scanned.epsilon(delta)
            assert "reached" not in scanned._kept  # (read by the scan: no arrays made)
            assert got == searched.epsilon(delta), (pmf.lower, delta)
            flat_stops += pmf.lower == 743 and got > 700
    assert flat_stops


def test_a_pld_read_at_many_deltas_at_once_gives_each_reading_to_the_bit():
    """LossPmf.epsilons (and Pld.get_epsilons_for_deltas, which the advanced composition reads one
    release's PLD with) against epsilon one δ at a time: the same numbers to the bit, before the
    running maxima exist (δ by δ), after (both searches at once), on a PLD with a mass at infinity
    (inf below it), one with a flat stop (W = 0 at the top), a composed one with its tilted tail
    (read δ by δ), a δ no loss reaches and a δ met with ε = 0."""
    pmfs = [
        subsampled_gaussian_pld(1.0, 0.01, 1e-3),
        subsampled_gaussian_pld(0.5, 0.3, 1e-3).self_compose(400),
        pld.Pld(pld.LossPmf(1.0, 743, np.array([0.2, 0.3, 0.1, 0.15, 0.25]), 1e-3)),
        pld.Pld(pld.LossPmf(0.1, -3, np.array([0.5, 0.3, 0.2]), 1e-6)),
    ]
    deltas = [1e-14, 1e-12, 1e-9, 3e-7, 1e-5, 1e-3, 0.05, 0.3, 0.6, 0.999]
    kinds = set()
    for p in pmfs:
        for _ in range(3):  # (the first readings by the scan, later ones by the arrays)
            one_by_one = [p.get_epsilon_for_delta(d) for d in deltas]
            assert p.get_epsilons_for_deltas(deltas) == one_by_one
            kinds.update("inf" if e == math.inf else "zero" if e == 0 else "finite" for e in one_by_one)
        assert all("reached" in pmf._kept for pmf in p._both())
    assert kinds == {"inf", "zero", "finite"}


def test_a_fresh_pld_read_at_many_deltas_at_once_gives_each_reading_to_the_bit():
    """The same on PLDs read at many δ's before any single reading: the composed ones' δ's below
    the rounding margin read from the tilted tail together, the others from the running maxima
    (or by the scan, for one or two δ's); each against a copy of the same composition read one δ
    at a time, in the order given and in reverse."""
    deltas = [0.5, 1e-3, 1e-12, 1e-5, 2e-10, 1e-9, 1e-14, 1e-300]
    made = [
        lambda: subsampled_gaussian_pld(0.8, 0.01, 2e-4).self_compose(3000),
        lambda: subsampled_gaussian_pld(0.5, 0.3, 1e-3).self_compose(400),
        lambda: pld.laplace_pld(0.5, 1e-3).self_compose(2000),
        lambda: pld.Pld(pld.LossPmf(1.0, 743, np.array([0.2, 0.3, 0.1, 0.15, 0.25]), 1e-3)),
    ]
    tails = 0
    for make in made:
        for asked in (deltas, deltas[:1], deltas[2:4], deltas[::-1]):
            together = make().get_epsilons_for_deltas(asked)
            alone = make()
            assert together == [alone.get_epsilon_for_delta(d) for d in asked], asked
            tails += any("tail_view" in pmf._kept for pmf in alone._both())
    assert tails  # (a composition whose smallest δ's are read from its tilted tail)


def test_a_windows_circular_slice_is_the_indices_taken_modulo_the_length():
    """The composition's window read from its circular convolution: the same values as ``take`` of
    the indices modulo L, for windows inside, ending at the end, wrapping around, starting past L
    and as long as L."""
    values = np.arange(10.0) * 1.5
    for start, size in [(0, 10), (0, 3), (7, 3), (7, 5), (8, 10), (23, 4), (29, 10), (9, 1)]:
        got = pld._circular_slice(values, start, size)
        assert np.array_equal(got, np.take(values, np.arange(start, start + size) % 10)), (start, size)
        assert not np.shares_memory(got, values)
