"""The privacy budget's accountants (dpviz.budget) against independent routes: the analytic
Gaussian mechanism, the Gaussian's Rényi divergence, brute-force sums and integrals, the exact
two-point trade-off of randomized response, and TensorFlow Privacy's published DP-SGD ε."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpviz.budget import accountants as acc
from dpviz.budget.releases import (
    Release,
    gaussian_mu,
    gdp_delta,
    gdp_epsilon,
    gdp_tradeoff,
    pure_composition_delta,
    pure_composition_epsilon,
    rr_tradeoff,
    tradeoff_from_deltas,
)
from dpviz.errors import InputError


def _gaussian_delta_by_integral(sigma: float, k: int, eps: float) -> float:
    """δ(ε) of k Gaussian releases by numerical integration of the privacy loss's definition,
    δ = ∫ (p(x) − e^ε q(x))₊ dx with p = N(√k/σ, 1), q = N(0, 1) (k releases of noise σ on a
    sensitivity-1 query are, by sufficiency, one release of noise σ/√k)."""
    mu = math.sqrt(k) / sigma
    p, q = stats.norm(mu, 1).pdf, stats.norm(0, 1).pdf
    # the integrand is positive where log p/q = μx − μ²/2 > ε
    start = (eps + mu * mu / 2) / mu
    value, _ = integrate.quad(lambda x: p(x) - math.exp(eps) * q(x), start, math.inf, epsabs=1e-14, epsrel=1e-12)
    return value


@pytest.mark.parametrize(
    "sigma,k,eps", [(1.0, 1, 1.0), (2.0, 10, 1.5), (5.0, 100, 3.0), (0.7, 3, 0.2), (30.0, 1000, 0.5)]
)
def test_the_gdp_curve_is_the_gaussians_privacy_loss_integral(sigma, k, eps):
    assert float(gdp_delta(gaussian_mu(sigma, k), eps)) == pytest.approx(
        _gaussian_delta_by_integral(sigma, k, eps), rel=1e-8
    )


@pytest.mark.parametrize(
    "sigma,k,delta",
    [(1.0, 1, 1e-5), (2.0, 10, 1e-5), (5.0, 100, 1e-6), (0.8, 4, 1e-3), (20.0, 1000, 1e-8), (40.0, 20000, 1e-6)],
)
def test_gaussian_composition_by_pld_equals_the_analytic_mechanism_at_mu_root_k(sigma, k, delta):
    """dp-accounting's PLD ε of k Gaussian releases against Balle and Wang's analytic ε at
    μ = √k/σ: the PLD is pessimistic, at most its discretization (k·interval, and in practice far
    less) above."""
    exact = gdp_epsilon(gaussian_mu(sigma, k), delta)
    by_pld = float(acc.composed_pld(Release("gaussian", sigma=sigma), k).get_epsilon_for_delta(delta))
    assert acc.epsilon("pld", Release("gaussian", sigma=sigma), k, delta) == exact  # what the page draws
    assert exact <= by_pld + 1e-9
    assert by_pld - exact <= max(2e-3 * exact, 5 * acc.pld_interval(Release("gaussian", sigma=sigma), k))
    assert float(gdp_delta(gaussian_mu(sigma, k), exact)) == pytest.approx(delta, rel=1e-6)


@pytest.mark.parametrize("sigma,k", [(1.0, 1), (3.0, 10), (0.9, 250), (4.0, 100_000), (100.0, 3), (0.3, 7)])
def test_rdp_of_the_gaussian_is_dp_accountings_for_alpha_over_two_sigma_squared_per_release(sigma, k):
    """The RDP accountant's ε for the Gaussian (the closed form α/(2σ²) per release, Mironov 2017,
    Prop. 7, converted here over the orders at once) equals dp-accounting's RdpAccountant composing
    k Gaussian events and converting in its own loop, at δ from 10⁻¹² to 0.5."""
    from dp_accounting import GaussianDpEvent, SelfComposedDpEvent
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    library = rdp.RdpAccountant(list(acc.ORDERS))
    library.compose(SelfComposedDpEvent(GaussianDpEvent(sigma), k))
    for delta in (1e-12, 1e-5, 1e-3, 0.1, 0.5):
        mine = acc.epsilon("rdp", Release("gaussian", sigma=sigma), k, delta)
        assert mine == pytest.approx(library.get_epsilon(delta), rel=1e-14, abs=1e-15), delta


def test_the_rdp_conversion_is_dp_accountings_compute_epsilon():
    """rdp_to_epsilon (over the orders at once) against dp-accounting's compute_epsilon (a loop over
    them), on random RDP curves: increasing ones, tiny ones where the KL bound gives 0, and one with
    a negative order (0 too)."""
    from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon

    rng = np.random.default_rng(7)
    orders = np.array(acc.ORDERS)
    for scale in (1e-14, 1e-6, 1e-3, 0.1, 1.0, 30.0):
        for _ in range(20):
            curve = np.sort(rng.uniform(0, scale, len(orders))) * np.sqrt(orders)
            for delta in (1e-12, 1e-5, 0.3):
                want = compute_epsilon(orders, curve, delta)[0]
                assert acc.rdp_to_epsilon(curve, delta) == pytest.approx(want, rel=1e-14, abs=1e-15)
    curve = np.ones(len(orders))
    curve[3] = -1e-3
    assert acc.rdp_to_epsilon(curve, 1e-5) == 0.0 == compute_epsilon(orders, curve, 1e-5)[0]


def test_randomized_responses_renyi_divergence_by_its_definition():
    for eps0, alpha in itertools.product([0.1, 1.0, 4.0], [1.5, 2.0, 10.0, 64.0]):
        p = math.exp(eps0) / (1 + math.exp(eps0))
        direct = math.log(p**alpha * (1 - p) ** (1 - alpha) + (1 - p) ** alpha * p ** (1 - alpha)) / (alpha - 1)
        assert float(acc.rr_rdp(eps0, [alpha])[0]) == pytest.approx(direct, rel=1e-10)


def _rr_delta_by_enumeration(eps0: float, k: int, eps: float) -> float:
    """δ(ε) of k randomized responses by enumerating all 2^k answer vectors:
    Σ_y (P(y) − e^ε Q(y))₊, P answering the truth 1, Q the truth 0, each with probability p."""
    p = math.exp(eps0) / (1 + math.exp(eps0))
    total = 0.0
    for y in itertools.product([0, 1], repeat=k):
        ones = sum(y)
        pp = p**ones * (1 - p) ** (k - ones)
        qq = (1 - p) ** ones * p ** (k - ones)
        total += max(0.0, pp - math.exp(eps) * qq)
    return total


@pytest.mark.parametrize(
    "eps0,k,eps", [(0.5, 1, 0.0), (0.5, 1, 0.3), (1.0, 6, 2.0), (0.3, 9, 0.9), (2.0, 4, 4.0), (1.0, 8, 8.0)]
)
def test_the_optimal_composition_is_randomized_responses_enumerated(eps0, k, eps):
    """Kairouz et al.'s optimal composition at any ε against brute force over every output (including
    ε = kε₀, where δ is 0, and an even k whose loss takes the value 0)."""
    assert float(pure_composition_delta(eps0, k, eps)) == pytest.approx(
        _rr_delta_by_enumeration(eps0, k, eps), abs=1e-13
    )


def test_kairouz_theorem_at_its_own_points():
    """Thm. 3.3's closed form at ε = (k − 2i)ε₀: δ_i = Σ_{j<i} C(k,j)(e^{(k−j)ε₀} − e^{(k−2i+j)ε₀})/(1+e^ε₀)^k."""
    eps0, k = 0.7, 11
    for i in range(0, k // 2 + 1):
        closed = (
            sum(math.comb(k, j) * (math.exp((k - j) * eps0) - math.exp((k - 2 * i + j) * eps0)) for j in range(i))
            / (1 + math.exp(eps0)) ** k
        )
        assert float(pure_composition_delta(eps0, k, (k - 2 * i) * eps0)) == pytest.approx(closed, abs=1e-14)


RELEASES = [
    Release("gaussian", sigma=0.8),
    Release("gaussian", sigma=4.0),
    Release("laplace", epsilon0=0.2),
    Release("laplace", epsilon0=1.5),
    Release("rr", epsilon0=0.5),
    Release("rr", epsilon0=3.0),
    Release("subsampled", q=0.01, sigma=1.0),
    Release("subsampled", q=0.2, sigma=2.0),
]


@pytest.mark.parametrize("release", RELEASES, ids=lambda r: r.label)
@pytest.mark.parametrize("k", [1, 2, 7, 64, 1000, 5000])
@pytest.mark.parametrize("delta", [1e-3, 1e-6])
def test_basic_is_never_below_advanced_and_advanced_never_below_the_pld(release, k, delta):
    found = acc.epsilons(release, k, delta)
    basic, advanced, pld = (found[n][0] for n in ("basic", "advanced", "pld"))
    assert basic >= advanced - 1e-9
    # the PLD is pessimistic, above the exact curve by at most its discretization (k·interval)
    assert advanced >= pld - k * acc.pld_interval(release, k)
    if release.kind == "rr":
        assert advanced == pytest.approx(pld, abs=1e-9)  # randomized response is the optimal bound's worst case
    if release.kind != "subsampled":
        assert math.isfinite(found["zcdp"][0]) and found["zcdp"][0] >= pld - 1e-9
    else:
        assert math.isnan(found["zcdp"][0]) and "amplification" in found["zcdp"][1]


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.5])
def test_the_gaussian_tradeoff_from_its_privacy_curve_is_phi_of_phi_inverse_minus_mu(mu):
    """The trade-off curve the page draws from δ(ε) (Dong et al., Prop. 2.12, over a fine ε grid)
    against G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), computed here from scipy's normal directly."""
    alpha = np.array([1e-4, 1e-3, 0.01, 0.05, 0.1, 0.3, 0.5, 0.9])
    eps = np.linspace(0, mu * mu / 2 + 8 * mu, 20001)
    implied = tradeoff_from_deltas(eps, gdp_delta(mu, eps), alpha)
    direct = np.array([stats.norm.cdf(stats.norm.ppf(1 - a) - mu) for a in alpha])
    assert np.allclose(gdp_tradeoff(mu, alpha), direct, rtol=1e-10, atol=1e-15)
    assert np.all(implied <= direct + 1e-12)  # a supremum over fewer ε can only be lower
    assert np.allclose(implied, direct, atol=2e-4)


@pytest.mark.parametrize("eps0", [0.1, 1.0, 3.0])
def test_randomized_responses_tradeoff_from_its_privacy_curve_is_its_two_point_form(eps0):
    alpha = np.linspace(0, 1, 41)
    eps = np.concatenate([[0.0, eps0], np.linspace(0, 2 * eps0, 400)])
    implied = tradeoff_from_deltas(eps, pure_composition_delta(eps0, 1, eps), alpha)
    p = math.exp(eps0) / (1 + math.exp(eps0))
    # two outputs: the best tests reject on "1", on nothing, on both, or at random between (the
    # segments through (0, 1), (1 − p, p), (1, 0) in (α, β))
    two_point = np.where(alpha <= 1 - p, 1 - alpha * p / (1 - p), (1 - alpha) * (1 - p) / p)
    assert np.allclose(rr_tradeoff(eps0, alpha), two_point, atol=1e-12)
    assert np.allclose(implied, two_point, atol=1e-12)


def test_dp_sgd_on_mnist_matches_tensorflow_privacys_published_epsilon():
    """TensorFlow Privacy's tutorial (tensorflow/privacy, tutorials/README.md, "Select Parameters"):
    batch 256 of 60,000 MNIST images, noise multiplier 1.12, 60 epochs: ε = 2.92 at δ = 1e-5 by its
    RDP accountant of the time, whose conversion was ε_α − log δ/(α − 1) (Mironov 2017, Prop. 3);
    with the same orders and that conversion, dp-accounting's RDP gives 2.92. dpviz's RDP uses
    Balle et al.'s tighter conversion and the PLD is tighter still: both below, as they must be."""
    q, steps = 256 / 60000, math.ceil(60 * 60000 / 256)
    release = Release("subsampled", q=q, sigma=1.12)
    orders = [1 + x / 10 for x in range(1, 100)] + list(range(12, 64))
    from dp_accounting import GaussianDpEvent, PoissonSampledDpEvent, SelfComposedDpEvent
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    per_order = []
    for a in orders:  # each order's RDP, read back through the tighter conversion's formula
        one = rdp.RdpAccountant([a])
        one.compose(SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(1.12)), steps))
        eps_a = one.get_epsilon(1e-5)
        per_order.append(eps_a - math.log1p(-1 / a) + (math.log(1e-5) + math.log(a)) / (a - 1))
    classic = min(r - math.log(1e-5) / (a - 1) for r, a in zip(per_order, orders))
    assert round(classic, 2) == 2.92
    renyi, pld = acc.epsilon("rdp", release, steps, 1e-5), acc.epsilon("pld", release, steps, 1e-5)
    assert pld < renyi < 2.92
    assert 2.2 < pld  # (2.31 here; the PLD of the same steps by Google's accountant)


def test_pure_composition_epsilon_inverts_its_delta_and_is_zero_where_delta_is_reached_at_once():
    eps = pure_composition_epsilon(0.4, 50, 1e-5)
    assert float(pure_composition_delta(0.4, 50, eps)) == pytest.approx(1e-5, rel=1e-6)
    assert pure_composition_epsilon(0.01, 1, 0.99) == 0.0  # δ(0) = 2p − 1 ≈ 0.005 ≤ 0.99


def _epsilon_over_every_j(eps0: float, k: int, delta: float) -> float:
    """The optimal composition's ε by the tails over every j (the lower half too), then the
    smallest loss segment where δ(ε) ≤ δ, solved on it: the route before the half-sum."""
    from dpviz.budget.releases import _delta_on, _tails

    tails = _tails(eps0, k)
    loss, tail, log_b = tails
    at = _delta_on(tails, np.r_[0.0, np.maximum(loss, 0.0)])
    if at[0] <= delta:
        return 0.0
    above = np.nonzero(at[1:] <= delta)[0]
    m = int(above[0]) if len(above) else k
    eps = math.log(max(tail[m] - delta, 1e-300)) - float(log_b[m])
    low = max(float(loss[m - 1]), 0.0) if m > 0 else 0.0
    return float(min(max(eps, low), float(loss[m])))


@pytest.mark.parametrize("eps0", [1e-4, 0.003, 0.05, 0.3, 1.0, 2.5, 7.0, 10.0])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 11, 100, 101, 999, 1000, 1001, 4000, 20_000, 100_000, 100_001])
def test_the_optimal_compositions_epsilon_is_the_whole_sums(eps0, k):
    """pure_composition_epsilon (a compiled pass from the top of a window of j down to the
    crossing: dpviz/budget/kernels.py) against the array route over every j (the lower half too):
    the same ε to 10⁻¹² (the two take exp and log1p from different libraries: their last bits,
    where A_m − δ cancels, are the difference), at odd and even k, k = 1, tiny and large ε₀, and
    δ from 10⁻¹² to 0.999 (where the answer is 0 too)."""
    for delta in (1e-12, 1e-9, 1e-7, 1e-5, 1e-3, 0.05, 0.3, 0.9, 0.999):
        want = _epsilon_over_every_j(eps0, k, delta)
        assert pure_composition_epsilon(eps0, k, delta) == pytest.approx(want, rel=1e-12, abs=1e-300), (eps0, k, delta)


@pytest.mark.parametrize(
    "make,said",
    [
        (lambda: Release("gaussian", sigma=0.0), "noise multiplier is > 0"),
        (lambda: Release("gaussian", sigma=-1.0), "noise multiplier is > 0"),
        (lambda: Release("subsampled", q=1.5, sigma=1.0), "sampling rate is in (0, 1]"),
        (lambda: Release("laplace", epsilon0=float("nan")), "ε₀ is > 0"),
        (lambda: Release("uniform"), "not one dpviz composes"),
        (lambda: acc.epsilons(Release("gaussian"), 0, 1e-5), "from 1 to 1,000,000"),
        (lambda: acc.epsilons(Release("gaussian"), 10, 1.0), "strictly between 0 and 1"),
        (lambda: acc.epsilons(Release("gaussian"), 10, 0.0), "strictly between 0 and 1"),
    ],
)
def test_bad_settings_get_a_sentence_naming_the_parameter_and_the_range(make, said):
    with pytest.raises(InputError, match=None) as err:
        make()
    assert said in str(err.value)


PLD_SETTINGS = [
    (Release("subsampled", sigma=4.0, q=0.01), 100_000),
    (Release("subsampled", sigma=4.0, q=0.01), 1000),
    (Release("subsampled", sigma=1.1, q=256 / 60000), 14_063),
    (Release("subsampled", sigma=0.3, q=0.01), 100_000),
    (Release("subsampled", sigma=0.5, q=0.5), 100),
    (Release("laplace", epsilon0=0.5), 100_000),
    (Release("laplace", epsilon0=0.01), 20_000),
    (Release("laplace", epsilon0=10.0), 2),
]


@pytest.mark.parametrize("release, k", PLD_SETTINGS)
def test_the_plds_step_is_sized_by_its_window_and_its_epsilon_barely_moves_at_half_the_step(release, k):
    """pld_interval's step keeps the composed window near WINDOW_LOSSES (at most it unless the step
    is the coarsest, at least a fifth of it where the step is not at either end) and is 1, 2 or 5
    times a power of ten; the ε at half the step is within 0.5% (the step's own error, pessimistic:
    never above the coarser one's by more than rounding), from δ = 10⁻⁹ to 0.1."""
    from dpviz.budget.pld import laplace_pld
    from dpviz.budget.subsampled_pld import subsampled_gaussian_pld

    h = acc.pld_interval(release, k)
    one = acc.pld_interval(release, 1)
    assert one == acc.PLD_INTERVAL or (
        one < acc.PLD_INTERVAL and acc._release_pld(release, one).losses_spanned() >= acc.RELEASE_LOSSES
    )
    mantissa = h / 10.0 ** math.floor(math.log10(h) + 1e-12)
    assert min(abs(mantissa - m) for m in (1, 2, 5)) < 1e-9
    composed = acc.composed_pld(release, k)
    kept = max(pmf.probs.size for pmf in (composed.remove, composed.add) if pmf is not None)
    if h < acc.INTERVALS[1]:  # (at the coarsest step the window is what it is)
        assert kept <= 1.1 * acc.WINDOW_LOSSES
    finest = acc.FINEST_FOR_PURE if release.kind == "laplace" else acc.INTERVALS[0]
    if finest < h < acc.INTERVALS[1]:
        assert kept >= acc.WINDOW_LOSSES / 5
    half = (
        laplace_pld(release.epsilon0, h / 2) if release.kind == "laplace"
        else subsampled_gaussian_pld(release.sigma, release.q, h / 2)
    ).self_compose(k)  # fmt: skip
    for delta in (1e-9, 1e-5, 0.1):
        coarse, fine = acc.epsilon("pld", release, k, delta), half.get_epsilon_for_delta(delta)
        assert fine <= coarse * (1 + 1e-9) + 1e-12, delta
        assert coarse <= fine * 1.005 + 1e-12, delta


NARROW_RELEASES = [  # (σ, k): DP-SGD at q = 0.01, where one release's losses are narrow
    (4.0, 316),  # the whole range at 10⁻³ (57,000 losses) once set a step ten times too coarse
    (8.0, 1333),
    (20.0, 5623),  # 32% too high before 2026-12-01
    (50.0, 9085),  # 113% too high
    (100.0, 1000),  # 9% too high at the former finest step, 10⁻⁴
    (100.0, 14_677),
    (50.0, 2),
]


@pytest.mark.parametrize("sigma, k", NARROW_RELEASES)
def test_the_plds_epsilon_is_within_half_a_percent_of_dp_accountings_on_a_step_four_times_finer(sigma, k):
    """Where one release's losses are narrow (DP-SGD at q = 0.01, σ from 4 to 100), the PLD
    accountant's ε at δ = 10⁻⁵ and 10⁻⁹ is within 0.5% above ``dp-accounting``'s own pessimistic PLD
    on a step four times finer than the one chosen, and not below it (beyond rounding): the
    library's route, objects and FFT, an independent composition of the same mechanism."""
    from dp_accounting.pld import privacy_loss_distribution as lib

    release = Release("subsampled", sigma=sigma, q=0.01)
    h = acc.pld_interval(release, k)
    fine = lib.from_gaussian_mechanism(sigma, sampling_prob=0.01, value_discretization_interval=h / 4).self_compose(k)
    for delta in (1e-5, 1e-9):
        ours, reference = acc.epsilon("pld", release, k, delta), fine.get_epsilon_for_delta(delta)
        assert reference * (1 - 1e-9) - 1e-12 <= ours <= reference * 1.005 + 1e-12, (delta, h, ours, reference)


@pytest.mark.parametrize("sigma", [0.6, 1.5, 4.0, 8.0, 20.0, 100.0])
def test_the_plds_step_never_gets_finer_as_k_grows(sigma):
    """Along the frontier's grid of k (2 to 10⁵), the step chosen for DP-SGD at q = 0.01 never gets
    finer as k grows (a composition's window widens with k); and one release spans at least
    RELEASE_LOSSES losses on it, unless the step is FINE_STEP or coarser, or the window set it
    (the composition then holds over WINDOW_LOSSES/2.5 losses: the ladder rounds up by at most
    2.5), or it is the finest step."""
    release = Release("subsampled", sigma=sigma, q=0.01)
    ks = sorted({max(2, int(k)) for k in np.geomspace(2, 100_000, 25)})
    steps = [acc.pld_interval(release, k) for k in ks]
    assert steps == sorted(steps), list(zip(ks, steps))
    for k, h in zip(ks, steps):
        one = acc._release_pld(release, h)
        window = one.window_losses(k)
        assert (
            one.losses_spanned() >= acc.RELEASE_LOSSES
            or h >= acc.FINE_STEP
            or window > acc.WINDOW_LOSSES / 2.5
            or h == acc.INTERVALS[0]
        ), (k, h)


@pytest.mark.parametrize("sigma", [4.0, 20.0, 50.0, 100.0])
def test_every_accountants_epsilon_grows_with_k_from_one_release_on(sigma):
    """k + 1 releases are never more private than k: along the frontier's grid of k from 1 to 10⁵,
    every accountant's ε at δ = 10⁻⁵ for DP-SGD at q = 0.01 never falls (beyond rounding). One
    release's PLD was read on 10⁻³ whatever its width: at σ = 50 its ε, 0.00088, was twice the ε
    of two releases (0.0004, on a finer step), and basic and advanced composition, which read it,
    were as far above."""
    release = Release("subsampled", sigma=sigma, q=0.01)
    ks = sorted({max(1, int(k)) for k in np.geomspace(1, 100_000, 25)})
    for name in ("basic", "advanced", "rdp", "pld"):
        eps = [acc.epsilon(name, release, k, 1e-5) for k in ks]
        for k, before, after in zip(ks[1:], eps, eps[1:]):
            assert after >= before * (1 - 1e-9), (name, k, before, after)
    assert acc.epsilon("basic", release, 1, 1e-5) == acc.epsilon("pld", release, 1, 1e-5)


def test_the_plds_step_is_finer_than_it_was_where_epsilon_is_small_and_coarser_where_it_is_large():
    """After 10⁵ DP-SGD steps at σ = 4 the step is finer than the former fixed 10⁻³ and the ε lower
    (that step was 1.4% above); at σ = 0.3 it is coarser and composes a tenth of the losses."""
    from dpviz.budget.subsampled_pld import subsampled_gaussian_pld

    small, large = Release("subsampled", sigma=4.0, q=0.01), Release("subsampled", sigma=0.3, q=0.01)
    assert acc.pld_interval(small, 100_000) < acc.PLD_INTERVAL < acc.pld_interval(large, 100_000)
    former = subsampled_gaussian_pld(4.0, 0.01, acc.PLD_INTERVAL).self_compose(100_000).get_epsilon_for_delta(1e-5)
    assert acc.epsilon("pld", small, 100_000, 1e-5) < former / 1.01


@pytest.mark.parametrize("k, low", [(1, 0), (2, 0), (7, 3), (1000, 0), (100_000, 49_999)])
@pytest.mark.parametrize("eps0", [1e-4, 0.5, 7.0])
def test_the_binomial_loss_uses_scipys_log_pmf_to_the_bit(k, low, eps0):
    """The randomized-response loss's log-probabilities keep their log binomial coefficients per
    (k, low); they are SciPy's binom.logpmf to the bit, the second time (from the cache) too."""
    from scipy import stats

    from dpviz.budget.releases import _rr_loss

    p = 1.0 / (1.0 + math.exp(-eps0))
    expected = stats.binom.logpmf(np.arange(low, k + 1), k, p)
    for _ in range(2):
        loss, logp = _rr_loss(eps0, k, low)
        assert np.array_equal(logp, expected)
    assert np.array_equal(loss, eps0 * (2 * np.arange(low, k + 1) - k))


def test_one_gdp_delta_at_a_time_is_the_array_routes_to_the_bit():
    """gdp_epsilon's root finder reads δ(ε) one ε at a time on Python floats: the same numbers as
    gdp_delta over an array, at 2,440 (μ, ε) from μ = 0.001 to 60 and ε = 0 to 10⁴."""
    from dpviz.budget.releases import _gdp_delta_one, gdp_delta

    mus, eps = np.geomspace(1e-3, 60, 40), np.r_[0.0, np.geomspace(1e-6, 1e4, 60)]
    for mu in mus:
        assert [_gdp_delta_one(float(mu), float(e)) for e in eps] == list(gdp_delta(float(mu), eps))


def test_a_window_that_begins_above_the_crossing_is_not_used(monkeypatch):
    """Where δ is met at the window's first loss already, the crossing may lie below the window:
    the compiled pass says so (NaN) and the whole upper half is read instead (a window made to
    begin too high here)."""
    from dpviz.budget import kernels, releases

    eps0, k, delta = 0.3, 20_000, 1e-5
    low = (k - 1) // 2
    _, top = releases._mass_window(eps0, k, low, delta)
    monkeypatch.setattr(releases, "_mass_window", lambda e, kk, lo, d, *coefficients: (top - 5, top))
    found = []
    crossing = kernels.crossing
    monkeypatch.setattr(kernels, "crossing", lambda *a: found.append((a[5], crossing(*a))) or found[-1][1])
    assert pure_composition_epsilon(eps0, k, delta) == pytest.approx(_epsilon_over_every_j(eps0, k, delta), rel=1e-12)
    assert math.isnan(found[0][1]) and found[0][0] == top - 5  # the window refused
    assert found[1][0] == low and not math.isnan(found[1][1])  # then the half's answer


def test_the_window_leaves_out_only_terms_below_the_cut():
    """The window's top is where the binomial's log-pmf has fallen below 10⁻³⁰·δ/(k + 1) (and at
    most 10⁻³⁰⁰/(k + 1)), checked against SciPy's own log-pmf: the terms above it sum to less than
    10⁻³⁰·δ; it begins 5 standard deviations below the mode, or at the upper half's start."""
    from dpviz.budget import releases

    for eps0, k in [(0.05, 100_000), (1.0, 100_000), (7.0, 20_000), (0.3, 4_000), (1e-4, 100_000)]:
        low = (k - 1) // 2
        p = 1 / (1 + math.exp(-eps0))
        logpmf = stats.binom.logpmf(np.arange(low, k + 1), k, p)
        for delta in (1e-12, 1e-5, 0.3, 1e-250):
            start, top = releases._mass_window(eps0, k, low, delta)
            cut = max(math.log(delta) - releases.DELTA_CUT, -releases.MASS_CUT) - math.log(k + 1)
            above = logpmf[top - low + 1 :]
            assert (above < cut + 1e-9).all(), (eps0, k, delta)
            assert np.exp(above).sum() < 1e-30 * delta
            mode = int((k + 1) * p)
            assert start == max(low, mode - int(5 * math.sqrt(k * p * (1 - p))) - 2)


def test_gdp_epsilon_is_brents_root_and_the_smallest_epsilon_that_meets_delta():
    """gdp_epsilon (Newton's method on log δ, inside a bracket) against SciPy's Brent's method on
    δ(ε) − δ over 1,600 (μ, δ) from μ = 10⁻⁴ to 300 and δ = 10⁻¹⁴ to 0.9: δ(ε) ≤ δ at its answer
    (Brent's may miss by a rounding); the same ε to 10⁻¹² of it where δ(ε) is well conditioned
    (μ ≥ 0.01), and 1 − 10⁻⁹ of it misses there; elsewhere (δ a difference of two nearly equal
    probabilities) the same δ at both answers to 10⁻¹⁴."""
    from scipy import optimize

    from dpviz.budget.releases import _gdp_delta_one

    for mu in np.geomspace(1e-4, 300, 40):
        for delta in np.geomspace(1e-14, 0.9, 40):
            mu, delta = float(mu), float(delta)
            eps = gdp_epsilon(mu, delta)
            if _gdp_delta_one(mu, 0.0) <= delta:
                assert eps == 0.0
                continue
            brent = optimize.brentq(lambda e, m=mu, d=delta: _gdp_delta_one(m, e) - d, 0.0, 1e6, xtol=1e-14, rtol=1e-14)
            assert _gdp_delta_one(mu, eps) <= delta, (mu, delta)
            if mu >= 0.01:
                assert eps == pytest.approx(brent, rel=1e-12, abs=1e-14), (mu, delta)
                assert _gdp_delta_one(mu, eps * (1 - 1e-9)) > delta, (mu, delta, eps)
            else:
                assert abs(_gdp_delta_one(mu, eps) - _gdp_delta_one(mu, brent)) <= 1e-14, (mu, delta)


def test_gdp_epsilons_at_once_are_each_deltas_own_answer():
    """gdp_epsilons (every δ's root found side by side, as the budget charts ask a slider's δ's)
    gives each δ the answer gdp_epsilon gives it alone, to the last bit: δ's whose answer is 0
    (δ(0) already below them) among the others, a repeated δ, δ's from 10⁻¹⁴ to 0.9 in one call,
    and an empty call."""
    from dpviz.budget.releases import gdp_delta, gdp_epsilons

    rng = np.random.default_rng(7)
    for mu in (1e-4, 0.01, 0.3, 1.0, 4.0, 60.0, 300.0):
        deltas = np.r_[np.geomspace(1e-14, 0.9, 30), rng.uniform(1e-9, 0.5, 10)]
        deltas = np.r_[deltas, deltas[3], gdp_delta(mu, np.zeros(1))[0]]  # a tie; δ = δ(0): ε = 0
        rng.shuffle(deltas)
        together = gdp_epsilons(mu, deltas)
        alone = [gdp_epsilon(mu, float(d)) for d in deltas]
        assert [float(e).hex() for e in together] == [e.hex() for e in alone], mu
        assert (together[deltas >= gdp_delta(mu, np.zeros(1))[0]] == 0.0).all()
    assert gdp_epsilons(1.0, []).shape == (0,)


def _tradeoff_over_every_pair(epsilons, deltas, alpha):
    """f(α) = sup over ε of max(0, 1 − δ(ε) − e^ε·α, e^{−ε}·(1 − δ(ε) − α)) by reading every
    (α, ε) pair (the route before the search between neighbours' maximisers)."""
    a = np.asarray(alpha, dtype=float)[:, None]
    e, d = np.asarray(epsilons, dtype=float)[None, :], np.asarray(deltas, dtype=float)[None, :]
    with np.errstate(over="ignore", invalid="ignore"):
        one = 1 - d - np.exp(e) * a
        two = np.exp(-e) * (1 - d - a)
    return np.clip(np.nanmax(np.maximum(one, two), axis=1), 0.0, 1.0)


@pytest.mark.parametrize(
    "release", [Release("gaussian", sigma=4.0), Release("gaussian", sigma=0.5), Release("rr", epsilon0=3.0),
                Release("laplace", epsilon0=0.5)], ids=lambda r: r.label,
)  # fmt: skip
@pytest.mark.parametrize("k", [1, 10, 1000])
def test_the_tradeoff_curve_is_the_supremum_over_every_pair(release, k):
    """tradeoff_from_deltas seeks each α's best ε between its neighbours' maximisers: the same
    curve as the supremum over every (α, ε) pair, to 2 units in the last place, on the attacker's
    chart's grids; with α unsorted and repeated, ε unsorted, a δ that is NaN (a PLD that cannot
    answer there) and ε's whose e^ε overflows."""
    from dpviz.papers.budget.figures import ALPHAS

    top = max(1.0, min(acc.epsilon("pld", release, k, 1e-12), 50.0 * k))
    eps = np.unique(np.concatenate([np.linspace(0.0, top, 4001), np.geomspace(1e-4, top, 400)]))
    deltas = acc.composed_delta(release, k, eps)
    assert (
        np.max(np.abs(tradeoff_from_deltas(eps, deltas, ALPHAS) - _tradeoff_over_every_pair(eps, deltas, ALPHAS)))
        <= 2.3e-16
    )
    rng = np.random.default_rng(k)
    alpha = rng.permutation(np.r_[ALPHAS, ALPHAS[::7]])
    shuffled = rng.permutation(len(eps))
    holes = deltas[shuffled].copy()
    holes[::97] = np.nan
    wide = np.r_[eps[shuffled], 800.0, 1e4]
    holes = np.r_[holes, 0.0, 0.0]
    got, want = tradeoff_from_deltas(wide, holes, alpha), _tradeoff_over_every_pair(wide, holes, alpha)
    assert np.max(np.abs(got - want)) <= 2.3e-16


@pytest.mark.parametrize("rising", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_compiled_tradeoff_search_equals_numpys_to_the_bit(rising, seed):
    """kernels.monotone_max against the NumPy search it replaced, on lines of sorted slopes with
    ties, NaN intercepts and infinite slopes, at unsorted-then-sorted α with repeats and the ends."""
    from dpviz.budget import kernels
    from dpviz.budget.releases import _monotone_max_numpy

    rng = np.random.default_rng(seed)
    eps = np.sort(np.r_[rng.uniform(0, 30, 300), rng.uniform(0, 30, 20).repeat(2), 0.0, 800.0])
    c = 1 - rng.uniform(0, 1, eps.size) * np.exp(-eps)
    c[::37] = np.nan
    with np.errstate(over="ignore"):  # (e^800: an infinite slope, as tradeoff_from_deltas meets it)
        slope = np.exp(eps) if rising else np.exp(-eps)
    intercept = c if rising else np.exp(-eps) * c
    alpha = np.sort(np.r_[rng.uniform(0, 1, 120), 0.0, 1.0, 0.5, 0.5])
    with np.errstate(over="ignore", invalid="ignore"):
        want = _monotone_max_numpy(intercept, slope, alpha, rising)
    got = kernels.monotone_max(intercept, slope, alpha, rising)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("release", RELEASES, ids=lambda r: r.label)
@pytest.mark.parametrize("k", [1, 3, 1000, 40_000])
def test_every_delta_at_once_is_every_delta_one_at_a_time(release, k):
    """``epsilons_over`` (a PLD read at every δ of a k at once, the δ chart's route) against
    ``epsilons`` at each δ alone: the same numbers to the bit and the same reasons, from δ near 1
    down to δ's below any mass the PLD holds."""
    deltas = [0.5, 0.1, 1e-3, 1e-5, 3.3e-7, 1e-9, 1e-12, 1e-200]
    together = acc.epsilons_over(release, k, deltas)
    for i, delta in enumerate(deltas):
        alone = acc.epsilons(release, k, delta)
        for name in acc.ACCOUNTANTS:
            got, want = together[name][i], alone[name]
            assert got[1] == want[1] and (got[0] == want[0] or math.isnan(got[0]) and math.isnan(want[0])), (
                name,
                delta,
                got,
                want,
            )


def test_an_accountant_that_fails_at_one_delta_of_many_answers_the_others(monkeypatch):
    """A failure inside the batch is asked again δ by δ: only the δ that fails is NaN, with the
    sentence ``epsilons`` gives, and the other accountants are untouched."""
    release = Release("subsampled", q=0.01, sigma=1.0)
    deltas = [1e-3, 1e-5, 1e-7]
    plain = acc.epsilons_over(release, 100, deltas)
    real = acc.advanced

    def fails_at_one(release, k, delta):
        if delta == 1e-5:
            raise FloatingPointError("overflow")
        return real(release, k, delta)

    monkeypatch.setattr(acc, "advanced", fails_at_one)
    monkeypatch.setitem(acc._BY_NAME, "advanced", fails_at_one)
    monkeypatch.setitem(acc._OVER, "advanced", lambda r, k, ds: [fails_at_one(r, k, d) for d in ds])
    found = acc.epsilons_over(release, 100, deltas)
    assert (
        math.isnan(found["advanced"][1][0])
        and "cannot answer at this setting (FloatingPointError)" in found["advanced"][1][1]
    )
    assert [found["advanced"][i] for i in (0, 2)] == [plain["advanced"][i] for i in (0, 2)]
    assert {n: found[n] for n in acc.ACCOUNTANTS if n != "advanced"} == {
        n: plain[n] for n in acc.ACCOUNTANTS if n != "advanced"
    }
    with pytest.raises(InputError, match="strictly between 0 and 1"):
        acc.epsilons_over(release, 100, [1e-5, 1.0])


@pytest.mark.parametrize(
    "sigma,k,delta",
    [(83.30528495850389, 52, 1.9349862193484988e-09), (53.61954129161428, 66, 1.543766312606757e-11), (2.0, 9, 1e-5)],
)
def test_the_advanced_compositions_epsilon_meets_its_delta_in_exact_arithmetic(sigma, k, delta):
    """Kairouz et al.'s Thm. 3.3 for k Gaussian releases: with δ₁ given to each release (its exact ε₁
    from the Gaussian curve) and the rest to the composed randomized response, the total
    1 − (1 − δ₁)^k·(1 − δ_RR(ε)) at the ε answered, recomputed in 50-digit arithmetic (δ_RR as the
    binomial sum itself, ε₁'s δ from the curve), is at most δ for one of the splits, to 10⁻¹²
    of it. (The rest δ_RR was 1 − (1 − δ)/(1 − δ₁)^k in floats, a quotient of 1 − 10⁻¹⁰ or so: the
    total came out 2·10⁻⁸ of itself above δ at the first two settings, found on random ones.)"""
    from budget_exact import gaussian_delta, rr_delta
    from mpmath import mpf

    release = Release("gaussian", sigma=sigma)
    got = acc.advanced(release, k, delta)
    totals = []
    for share in acc.SPLITS:
        delta1 = share * delta / k
        epsilon1 = acc.single_epsilon(release, delta1)
        assert gaussian_delta(1 / sigma, epsilon1) <= delta1 * (1 + 1e-12)
        totals.append(1 - (1 - mpf(delta1)) ** k * (1 - rr_delta(epsilon1, k, got)))
    whole = -math.expm1(math.log1p(-delta) / k)
    if got >= k * acc.single_epsilon(release, whole):  # (the theorem's first case: all of δ to the releases)
        totals.append(1 - (1 - mpf(whole)) ** k)
    assert min(totals) <= delta * (1 + 1e-12)
