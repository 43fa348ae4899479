import numpy as np
import pytest
from scipy import stats

from dpviz.stats import stream, wilson_interval


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (10, 10), (5000, 10000), (1, 10000), (9999, 10000)])
def test_wilson_matches_scipy(k, n):
    lo, hi = wilson_interval(k, n)
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert lo == pytest.approx(ref.low, abs=1e-12)
    assert hi == pytest.approx(ref.high, abs=1e-12)


def test_wilson_rejects_impossible_counts():
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_streams_are_independent_and_repeatable():
    a = stream(1, 0).random(5)
    assert np.array_equal(a, stream(1, 0).random(5))
    assert not np.array_equal(a, stream(1, 1).random(5))
    assert not np.array_equal(a, stream(2, 0).random(5))
