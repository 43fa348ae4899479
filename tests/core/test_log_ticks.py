"""Labelled ticks on a log axis (dpviz.theme.log_ticks) at any range: a narrow range (a short
training's loss, 0.705 to 0.644) got none inside it, only 0.5 and 1 beyond the data."""

import numpy as np
import pytest

from dpviz.theme import log_ticks


def _inside(t, low, high):
    return [(v, s) for v, s in zip(t["tickvals"], t["ticktext"]) if low <= v <= high]


@pytest.mark.parametrize(
    "low, high", [(0.644, 0.705), (0.6999, 0.705), (1.316, 1.5), (120.0, 180.0), (3e-5, 3.2e-5), (9.5, 10.5)]
)
def test_a_narrow_range_gets_evenly_spaced_labels_that_read_as_their_values(low, high):
    shown = _inside(log_ticks(low, high), low, high)
    assert 3 <= len(shown) <= 6
    values = np.array([v for v, _ in shown])
    steps = np.diff(values)
    assert np.allclose(steps, steps[0], rtol=1e-6)
    mantissa = steps[0] / 10 ** np.floor(np.log10(steps[0]) + 1e-9)
    assert min(abs(mantissa - m) for m in (1, 2, 5)) < 1e-6  # a 1-2-5 step
    for v, text in shown:  # the label is the value, to its step's decimals
        assert float(text.replace(",", "")) == pytest.approx(v, rel=1e-9)
    assert len({s for _, s in shown}) == len(shown)


@pytest.mark.parametrize("low, high", [(0.02, 0.7), (1.0, 1000.0), (1e-6, 1e3)])
def test_a_range_of_decades_keeps_its_1_2_5_or_power_ticks(low, high):
    t = log_ticks(low, high)
    shown = _inside(t, low, high)
    assert len(shown) >= 2
    for v, _ in shown:
        mantissa = v / 10 ** np.floor(np.log10(v) + 1e-9)
        assert min(abs(mantissa - m) for m in (1, 2, 5)) < 1e-6


def test_one_value_is_labelled():
    assert _inside(log_ticks(0.5, 0.5), 0.5, 0.5) == [(0.5, "0.5")]
