"""Audits of mechanisms whose privacy loss is known in closed form: never above it, close to it."""

import math
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from dpviz.auditing import audit_samples
from dpviz.auditing.examples import TITLES, built_ins, claim_of, example


def gaussian_delta(epsilon: float, sigma: float, sensitivity: float = 1.0) -> float:
    """The exact δ(ε) of the Gaussian mechanism (Balle & Wang, ICML 2018, Theorem 8)."""
    a, b = sensitivity / (2 * sigma), epsilon * sigma / sensitivity
    return float(stats.norm.cdf(a - b) - math.exp(epsilon) * stats.norm.cdf(-a - b))


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_laplace_bound_is_below_and_near_the_true_loss(eps):
    rng = np.random.default_rng(int(eps * 10))
    a, b = rng.laplace(0, 1 / eps, 200_000), rng.laplace(1, 1 / eps, 200_000)
    r = audit_samples(a, b, claimed=eps, seed=1)
    assert 0.85 * eps <= r.epsilon_lower_bound <= eps
    assert not r.violated


def test_gaussian_delta_bound_is_below_and_near_the_exact_delta():
    sigma, eps = 1.0, 1.0
    exact = gaussian_delta(eps, sigma)
    rng = np.random.default_rng(9)
    a, b = rng.normal(0, sigma, 400_000), rng.normal(1, sigma, 400_000)
    r = audit_samples(a, b, claimed=eps, delta=exact, seed=2)
    assert not r.violated
    assert 0.8 * exact <= r.delta_lower_bound <= exact
    # a δ ten times too small is caught
    r = audit_samples(a, b, claimed=eps, delta=exact / 10, seed=2)
    assert r.violated and r.epsilon_lower_bound > eps


def test_categorical_bound_against_the_enumerated_true_loss():
    """The true loss of a finite mechanism is the max over all output sets S of ln P(S)/Q(S) (both
    orders), enumerated here; the audit's bound is below it and within sampling error of it."""
    p = np.array([0.5, 0.3, 0.15, 0.05])
    q = np.array([0.1, 0.2, 0.3, 0.4])
    truth = max(
        abs(math.log(p[list(s)].sum() / q[list(s)].sum())) for r in range(1, 5) for s in combinations(range(4), r)
    )
    assert truth == pytest.approx(math.log(8))  # the single output 3: 0.4 / 0.05
    rng = np.random.default_rng(1)
    words = np.array(["w0", "w1", "w2", "w3"])
    r = audit_samples(list(rng.choice(words, 200_000, p=p)), list(rng.choice(words, 200_000, p=q)), claimed=1.0)
    assert truth - 0.15 <= r.epsilon_lower_bound <= truth
    assert r.violated and "'w3'" in r.event


def test_metric_claim_is_epsilon_times_distance():
    rng = np.random.default_rng(3)
    a, b = rng.laplace(0, 1, 100_000), rng.laplace(2, 1, 100_000)  # loss 2 = ε d with ε = 1, d = 2
    assert not audit_samples(a, b, claimed=1.0, distance=2.0).violated
    r = audit_samples(a, b, claimed=1.0, distance=1.0)
    assert r.violated and r.claimed_loss == 1.0 and "per unit distance" not in r.verdict


@pytest.mark.parametrize("key", list(TITLES))
def test_built_in_examples_reach_the_expected_verdict(key):
    ex = example(key, seed=0)
    r = audit_samples(ex.a, ex.b, claimed=ex.claimed, delta=ex.delta, distance=ex.distance)
    assert r.violated == built_ins()[key].violated  # what each paper proves (its audit_examples.py)
    assert claim_of(key) == (ex.claimed, ex.delta, ex.distance)  # the button's claim, without drawing
    if key == "adept":
        assert 1.0 < r.epsilon_lower_bound <= 4.0  # true loss ε√n = 4
