"""The black-box auditor: never above the truth, close to it where the attack can see."""

import numpy as np
import pytest

from dpviz import auditor as A
from dpviz.papers.hoho import ome
from dpviz.stats import stream


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_laplace_lower_bound_is_close_to_and_below_the_true_epsilon(eps):
    r = A.audit_pair(A.Laplace(1 / eps), 0.0, 1.0, 200_000, stream(1, int(eps * 10)))
    assert r["epsilon_lower_bound"] <= eps
    assert r["epsilon_lower_bound"] >= 0.8 * eps


@pytest.mark.parametrize("eps", [0.5, 2.0, 4.0])
def test_randomized_response(eps):
    r = A.audit_pair(A.RandomizedResponse(eps), 1, 0, 200_000, stream(2, int(eps * 10)), c=0.005)
    assert 0.8 * min(eps, np.log(1 / 0.005)) <= r["epsilon_lower_bound"] <= eps


def test_never_above_the_exact_ome_loss_over_seeds():
    dom = np.arange(-320, 321) / 32
    for seed in range(3):
        for lam, eps in [(1.0, 1.0), (1.0, 0.001), (10.0, 1.0)]:
            r = A.audit(
                ome.OMEFloat(lam, eps), [(-10.0, 10.0), (0.0, 9.96875)], 20_000, stream(seed, 7), search_samples=2000
            )
            assert r["epsilon_lower_bound"] <= ome.exact_worst_case(lam, eps, dom) + 1e-9


def test_ome_with_large_lambda_is_caught_far_above_the_claim():
    r = A.audit(ome.OMEFloat(100.0, 0.001), [(-10.0, 10.0)], 100_000, stream(3, 0))
    assert r["epsilon_lower_bound"] > 3.0  # > 3,000 x the claim (the paper: about 4.6)


def test_clopper_pearson_covers_the_extremes():
    assert A.clopper_pearson(0, 100, 0.9)[0] == 0.0 and A.clopper_pearson(100, 100, 0.9)[1] == 1.0
    lo, hi = A.clopper_pearson(30, 100, 0.9)
    assert lo < 0.3 < hi
