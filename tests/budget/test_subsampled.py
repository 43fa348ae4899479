"""DP-SGD's subsampled Gaussian, and Laplace's Rényi divergence, computed over arrays here, against
the routes ``dp-accounting`` computes one reading at a time: the same privacy-loss distribution
(every mass) and the same Rényi divergences, on a grid of σ and q that includes q = 1, a rate whose
fractional orders do not converge (q = 0.5) and noise small enough for series of hundreds of terms."""

from __future__ import annotations

import itertools
import logging

import numpy as np
import pytest
from dp_accounting import GaussianDpEvent, LaplaceDpEvent, PoissonSampledDpEvent, SelfComposedDpEvent
from dp_accounting.pld import privacy_loss_distribution as pld
from dp_accounting.rdp import rdp_privacy_accountant as rdp

from dpviz.budget import accountants as acc
from dpviz.budget.releases import Release
from dpviz.budget.subsampled_pld import ArrayGaussianLoss, subsampled_gaussian_pld
from dpviz.budget.subsampled_rdp import subsampled_gaussian_rdp

SIGMAS = (0.3, 0.7, 1.0, 4.0, 40.0)
RATES = (1e-4, 0.01, 0.2, 0.5, 1.0)


def _library_masses(pmf):
    """The library's masses of one adjacency (its private fields: it has no public reader; the
    version is pinned in requirements.txt)."""
    dense = pmf.to_dense_pmf()
    return dense._lower_loss, np.asarray(dense._probs), dense._infinity_mass


@pytest.mark.parametrize("sigma,q", list(itertools.product(SIGMAS, RATES)))
def test_the_subsampled_gaussians_pld_is_dp_accountings_mass_for_mass(sigma, q):
    """Every mass of both adjacencies equal to the library's ``from_gaussian_mechanism`` (the same
    grid of losses, the same infinity mass), and so the ε of 100 composed steps."""
    interval = 1e-3
    library = pld.from_gaussian_mechanism(sigma, sampling_prob=q, value_discretization_interval=interval)
    mine = subsampled_gaussian_pld(sigma, q, interval)
    pairs = [(library._pmf_remove, mine.remove)]
    if q < 1:
        pairs.append((library._pmf_add, mine.add))
    else:
        assert mine.add is None
    for theirs, ours in pairs:
        lower, probs, infinity = _library_masses(theirs)
        assert ours.lower == lower and ours.probs.shape == probs.shape
        np.testing.assert_allclose(ours.probs, probs, rtol=1e-12, atol=1e-16)
        assert ours.infinity == pytest.approx(infinity, rel=1e-12, abs=1e-16)
    assert mine.self_compose(100).get_epsilon_for_delta(1e-5) == pytest.approx(
        library.self_compose(100).get_epsilon_for_delta(1e-5),
        rel=1e-8,  # (the two FFTs' rounding)
    )


@pytest.mark.parametrize("adjacency", ["ADD", "REMOVE"])
def test_the_array_readings_of_delta_are_the_librarys_one_by_one(adjacency):
    """δ(ε) over an array, across both special points (log(1 − q) and −log(1 − q)), equal to the
    library's own reading at each ε, and a scalar in gives a scalar out."""
    from dp_accounting.pld.privacy_loss_mechanism import AdjacencyType, GaussianPrivacyLoss

    kind = AdjacencyType[adjacency]
    q = 0.2
    eps = np.concatenate([np.linspace(-1, 1, 201), [np.log1p(-q), -np.log1p(-q), 0.0]])
    ours = ArrayGaussianLoss(1.3, q, kind)
    theirs = GaussianPrivacyLoss(1.3, sampling_prob=q, adjacency_type=kind)
    want = np.array([theirs.get_delta_for_epsilon(float(e)) for e in eps])
    np.testing.assert_allclose(ours.get_delta_for_epsilon(eps), want, rtol=1e-12, atol=1e-16)
    assert isinstance(ours.get_delta_for_epsilon(0.5), float)


@pytest.mark.parametrize(
    "sigma,q", list(itertools.product((0.3, 0.5, 1.0, 2.5, 8.0, 100.0), (1e-4, 0.003, 0.2, 0.5, 0.99)))
)
def test_the_subsampled_gaussians_renyi_divergence_is_dp_accountings_at_every_order(sigma, q, caplog):
    """At each of the page's 163 orders, the library's divergence (its sums one term at a time);
    the orders whose series does not stop (q = 0.5) are infinite in both."""
    with caplog.at_level(logging.ERROR):  # (the library logs each order it leaves out)
        want = rdp._compute_rdp_poisson_subsampled_gaussian(q, sigma, acc.ORDERS)
    got = subsampled_gaussian_rdp(q, sigma, acc.ORDERS)
    finite = np.isfinite(want)
    assert (np.isfinite(got) == finite).all()
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-13, atol=0)
    if q == 0.5 and sigma >= 2.5:
        assert not finite.all()  # (the case is exercised: some orders are left out)


def test_the_subsampled_rdp_at_the_rates_ends():
    """q = 0 composes nothing; q = 1 is the Gaussian's α/(2σ²)."""
    orders = np.array(acc.ORDERS)
    assert (subsampled_gaussian_rdp(0.0, 2.0, orders) == 0).all()
    np.testing.assert_array_equal(subsampled_gaussian_rdp(1.0, 2.0, orders), orders / 8)


@pytest.mark.parametrize(
    "release,k",
    [
        (Release("subsampled", sigma=1.1, q=256 / 60000), 14_063),
        (Release("subsampled", sigma=0.6, q=0.01), 1000),
        (Release("subsampled", sigma=8.0, q=0.5), 30),
        (Release("laplace", epsilon0=0.5), 100),
        (Release("laplace", epsilon0=0.01), 100_000),
        (Release("laplace", epsilon0=10.0), 3),
    ],
)
def test_the_rdp_accountants_epsilon_is_dp_accountings_for_laplace_and_dp_sgd(release, k, caplog):
    """The page's RDP ε (one release's divergence over the orders at once, times k, converted here)
    equals the library's RdpAccountant composing k events and converting in its own loop."""
    event = (
        LaplaceDpEvent(1 / release.epsilon0)
        if release.kind == "laplace"
        else PoissonSampledDpEvent(release.q, GaussianDpEvent(release.sigma))
    )
    library = rdp.RdpAccountant(list(acc.ORDERS))
    with caplog.at_level(logging.ERROR):
        library.compose(SelfComposedDpEvent(event, k))
    for delta in (1e-12, 1e-5, 0.1):
        assert acc.epsilon("rdp", release, k, delta) == pytest.approx(library.get_epsilon(delta), rel=1e-13), delta


def test_laplaces_renyi_divergence_refuses_orders_below_its_formulas_range():
    with pytest.raises(ValueError, match="1.1"):
        acc.laplace_rdp(0.5, [1.05, 2.0])
