"""Exact binomial bounds, the loss they prove, the fewest samples and the power estimate."""

import math

import numpy as np
import pytest
from scipy import stats

from dpviz.auditing import bounds


@pytest.mark.parametrize("n", [1, 2, 7, 50, 1000])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.999])
def test_clopper_pearson_equals_scipys_exact_interval(n, confidence):
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="exact")
        lo, hi = bounds.clopper_pearson(k, n, confidence)
        assert lo == pytest.approx(ci.low, abs=1e-12) and hi == pytest.approx(ci.high, abs=1e-12)


def test_one_sided_bounds_cover_at_their_level():
    """The lower bound is below p in at least 1 - beta of binomial draws (checked exactly by summing the pmf)."""
    beta = 0.05
    for n, p in [(30, 0.1), (200, 0.5), (1000, 0.003)]:
        k = np.arange(n + 1)
        pmf = stats.binom.pmf(k, n, p)
        assert pmf[bounds.lower(k, n, beta) <= p].sum() >= 1 - beta - 1e-12
        assert pmf[bounds.upper(k, n, beta) >= p].sum() >= 1 - beta - 1e-12


def test_epsilon_and_delta_bounds_by_hand():
    ka, na, kb, nb, conf = 300, 1000, 40, 1000, 0.9
    lo = stats.beta.ppf(0.05, ka, na - ka + 1)
    hi = stats.beta.ppf(0.95, kb + 1, nb - kb)
    assert bounds.epsilon_bound(ka, na, kb, nb, conf) == pytest.approx(math.log(lo / hi))
    assert bounds.epsilon_bound(ka, na, kb, nb, conf, delta=0.1) == pytest.approx(math.log((lo - 0.1) / hi))
    assert bounds.epsilon_bound(ka, na, kb, nb, conf, delta=0.99) == -np.inf
    assert bounds.delta_bound(ka, na, kb, nb, conf, 1.0) == pytest.approx(lo - math.e * hi)


@pytest.mark.parametrize("claimed, delta, confidence", [(0.0, 0.0, 0.95), (1.0, 0.0, 0.95), (3.0, 1e-3, 0.99)])
def test_fewest_samples_is_the_first_size_a_perfect_event_proves_the_claim(claimed, delta, confidence):
    n = bounds.fewest_samples(claimed, delta, confidence)
    assert bounds.epsilon_bound(n, n, 0, n, confidence, delta) > claimed
    assert not bounds.epsilon_bound(n - 1, n - 1, 0, n - 1, confidence, delta) > claimed


def test_power_estimate_against_simulated_counts():
    """At the estimated size, binomial counts of the estimate's own best event certify about 80% of the time."""
    claimed, true_eps, conf = 1.0, 2.0, 0.95
    n = bounds.samples_for_power(claimed, true_eps, 0.0, conf, 0.8)
    rng = np.random.default_rng(0)
    best = 0.0
    for pb in np.logspace(-3, np.log10(0.5 * math.exp(-true_eps)), 30):
        ka = rng.binomial(n, math.exp(true_eps) * pb, 4000)
        kb = rng.binomial(n, pb, 4000)
        best = max(best, float(np.mean(bounds.epsilon_bound(ka, n, kb, n, conf) > claimed)))
    assert 0.7 <= best <= 0.95
    assert bounds.samples_for_power(claimed, 0.9, 0.0, conf) is None
    # more samples are needed for a smaller violation
    assert bounds.samples_for_power(claimed, 1.5, 0.0, conf) > n
