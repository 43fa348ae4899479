"""dpviz.papers.adept.loss_bounds: the bounds on P[L > ε] in closed form, against the FFT of the
same lattice's masses written out (the route before) and against the exact sum."""

import numpy as np
import pytest

from dpviz.errors import InputError
from dpviz.papers.adept import privacy_loss as pl
from dpviz.papers.adept.loss_bounds import bounds_by_fft, exceed_probability_bounds


@pytest.mark.parametrize(
    "n, eps",
    [(1, 1.0), (2, 1.0), (4, 0.7), (9, 1.3), (16, 1.0), (64, 1.0), (64, 0.001), (65, 3.0), (100, 0.3)]
    + [(7, 5.0), (300, 2.0), (1024, 1.0), (1000, 0.001), (1024, 200.0), (3, 60.0)],
)
def test_closed_form_equals_the_fft_of_the_same_lattice(n, eps):
    low, high = exceed_probability_bounds(n, eps)
    ref_low, ref_high = bounds_by_fft(n, eps)
    assert low == pytest.approx(ref_low, abs=1e-12) and high == pytest.approx(ref_high, abs=1e-12)
    assert low <= high + 1e-12  # (both within rounding of 1 where the claim is almost always broken)


@pytest.mark.parametrize("n, eps", [(2, 1.0), (4, 0.7), (5, 0.5), (9, 1.3), (9, 3.0), (12, 1.0), (16, 0.2)])
def test_bounds_hold_the_exact_probability_between_them(n, eps):
    """Square n (an atom at L = ε, which does not count) and not; the bounds are close."""
    exact = pl.exceed_probability_exact(n, eps)
    low, high = exceed_probability_bounds(n, eps)
    assert low - 1e-12 <= exact <= high + 1e-12
    assert high - low < 1e-3


def test_bounds_tighten_with_the_lattice():
    gaps = [np.subtract(*exceed_probability_bounds(16, 1.0, points)[::-1]) for points in (2**12, 2**15, 2**18)]
    assert gaps[0] > gaps[1] > gaps[2] > 0


def test_one_dimension_and_large_epsilon():
    """n = 1: L <= ε always; ε far above: every release above the claim but those with no
    coordinate above it (probability 2^-n of... none at n = 3 and ε = 60 beyond 1e-12)."""
    assert exceed_probability_bounds(1, 3.0) == (0.0, 0.0)
    low, high = exceed_probability_bounds(4, 60.0)
    assert low == pytest.approx(pl.exceed_probability_exact(4, 60.0), abs=1e-9) and high <= 1.0


@pytest.mark.parametrize("dim, eps", [(0, 1.0), (2.5, 1.0), (4, 0.0), (4, -1.0), (4, float("nan"))])
def test_bad_input_is_named(dim, eps):
    with pytest.raises(InputError):
        exceed_probability_bounds(dim, eps)


@pytest.mark.parametrize(
    "size, twice_m, first",
    # one coarse step of 512 angles or less; several with a remainder; a first index past the middle
    [(17, 4, 5), (1025, 16, 700), (2 * 50 * 2621 + 1, 2 * 2621, 50 * 2621 + 18535), (2 * 7 * 9 + 1, 18, 120)],
)
def test_the_frequency_table_equals_its_angles_taken_one_by_one(size, twice_m, first):
    """The compiled table (cosines and sines by angle addition from two short tables, every angle
    reduced mod N) against NumPy's cos, sin and complex exponentials of each angle 2πj/N."""
    from dpviz.papers.adept.loss_kernels import frequency_table

    cos, sin, omc, ph_re, ph_im, tail_re, tail_im = frequency_table(size, twice_m, first)
    k = np.arange(1, (size - 1) // 2 + 1)
    theta = 2 * np.pi * k / size
    assert cos.shape == k.shape
    assert np.allclose(cos, np.cos(theta), rtol=0, atol=2e-15)
    assert np.allclose(sin, np.sin(theta), rtol=0, atol=2e-15)
    assert np.allclose(omc, 2 * np.sin(theta / 2) ** 2, rtol=1e-12, atol=0)  # (relative: no cancellation near 0)
    phi = 2 * np.pi * ((twice_m * k) % size) / size
    assert np.allclose(ph_re + 1j * ph_im, np.exp(-1j * phi), rtol=0, atol=2e-15)
    psi = 2 * np.pi * ((first * k) % size) / size
    want = (np.exp(1j * psi) - 1) / (1 - np.exp(1j * theta))
    assert np.allclose(tail_re + 1j * tail_im, want, rtol=1e-11, atol=1e-13)
