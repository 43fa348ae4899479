"""The subsampled Gaussian's privacy-loss distribution (DP-SGD's step), built as ``dp-accounting``
builds it, with its hockey-stick divergences computed over the whole grid of losses at once.

``dp-accounting``'s :func:`~dp_accounting.pld.privacy_loss_distribution.from_gaussian_mechanism`
with a sampling rate q < 1 discretizes each adjacency's loss by connecting the dots (Doroshenko et
al. 2022, Alg. 1): it reads δ(ε) at every ε = i·h of the loss's range and turns the readings into a
probability mass function. It reads them one at a time (a Python call for the inverse privacy loss
at each of about 3,700 ε at h = 10⁻³: 28 ms a distribution, most of a target's search for σ, which
builds one at each σ it tries). The readings are (the library's ``get_delta_for_epsilon``; Gaussian
noise N(0, σ²), sensitivity Δ = 1, Φ the normal CDF):

- **remove**, μ_upper = q·N(−Δ, σ²) + (1−q)·N(0, σ²), μ_lower = N(0, σ²): for ε ≤ log(1−q),
  δ = 1 − e^ε; above it, the loss without subsampling ℓ = log(1 + (e^ε − 1)/q) has the cutoff
  x = −Δ/2 − ℓσ²/Δ, and δ = μ_upper(X ≤ x) − e^ε·μ_lower(X ≤ x);
- **add**, μ_upper = N(0, σ²), μ_lower = q·N(Δ, σ²) + (1−q)·N(0, σ²): for ε ≥ −log(1−q), δ = 0;
  below it, ℓ = −log(1 + (e^{−ε} − 1)/q), x = Δ/2 − ℓσ²/Δ, and δ as above.

Here the same readings are made on the whole grid at once (NumPy's logarithms; the tests hold
every mass to the library's within 10⁻¹², and where measured they were equal to the bit), between
the bounds of the library's own loss (``connect_dots_bounds``), and the dots are connected by
:func:`dpviz.budget.pld.connect_dots`.
``tests/budget/test_subsampled.py`` holds the result to the library's ``from_gaussian_mechanism``
on a grid of σ and q."""

from __future__ import annotations

import functools
import math

import numpy as np
from dp_accounting.pld.privacy_loss_mechanism import AdjacencyType, GaussianPrivacyLoss
from scipy import special

from dpviz.budget.pld import LossPmf, Pld, from_bounds

SENSITIVITY = 1.0


def _isclose(a: np.ndarray, b: float) -> np.ndarray:
    """``math.isclose(a, b)`` elementwise (its default relative tolerance, 10⁻⁹)."""
    return np.abs(a - b) <= 1e-9 * np.maximum(np.abs(a), abs(b))


def _log_a_exp_b_plus_c(a: float, b: np.ndarray, c: float) -> np.ndarray:
    """log(a·e^b + c) for a > 0 and c < 0, elementwise, as ``dp_accounting.pld.common`` computes
    it for one b: log(a + c) where b = 0, else d + log1p(−e^{log(−c) − d}) with d = b + log a."""
    d = b + np.log(a)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = d + np.log1p(-np.exp(np.log(-c) - d))
    return np.where(b == 0, np.log(a + c), out)


class ArrayGaussianLoss(GaussianPrivacyLoss):
    """The Gaussian mechanism's privacy loss under Poisson subsampling (``GaussianPrivacyLoss``),
    its δ(ε) read over an array of ε at once (the module docstring's formulas)."""

    def __init__(self, sigma: float, q: float, adjacency: AdjacencyType):
        super().__init__(sigma, sensitivity=SENSITIVITY, sampling_prob=q, adjacency_type=adjacency)
        self.sigma = float(sigma)

    def _cutoffs(self, eps: np.ndarray) -> np.ndarray:
        """x = the largest point whose privacy loss is at least ε (``inverse_privacy_loss``)."""
        q, s, var = self.sampling_prob, self.sensitivity, self.sigma**2
        if self.adjacency_type == AdjacencyType.REMOVE:
            if q == 1.0:
                ell = eps
            else:
                ell = _log_a_exp_b_plus_c(1 / q, eps, 1 - 1 / q)
                ell = np.where(_isclose(eps, math.log(1 - q)), -np.inf, ell)
            return -0.5 * s - ell * var / s
        if q == 1.0:
            ell = eps
        else:
            ell = -_log_a_exp_b_plus_c(1 / q, -eps, 1 - 1 / q)
            ell = np.where(_isclose(eps, -math.log(1 - q)), np.inf, ell)
        return s + (-0.5 * s - ell * var / s)

    def noise_cdf(self, x):
        """Φ(x/σ): what the library's frozen ``scipy.stats.norm(scale=σ).cdf`` computes, ``ndtr`` of
        (x − 0)/σ, without its generic distribution machinery (argument checks and masks: most of a
        distribution's build at a fine grid)."""
        return special.ndtr(np.asarray(x, dtype=float) / self.sigma)

    def noise_log_cdf(self, x):
        """log Φ(x/σ), as ``scipy.stats.norm(scale=σ).logcdf`` (``log_ndtr``)."""
        return special.log_ndtr(np.asarray(x, dtype=float) / self.sigma)

    def get_delta_for_epsilon(self, epsilon):
        """δ(ε), the ε-hockey-stick divergence, for one ε or an array of them."""
        scalar = np.ndim(epsilon) == 0
        eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
        deltas = np.zeros_like(eps)
        q = self.sampling_prob
        if q == 1.0:
            inverse = np.ones(eps.shape, dtype=bool)
        elif self.adjacency_type == AdjacencyType.ADD:
            inverse = eps < -math.log1p(-q)
        else:
            inverse = eps > math.log1p(-q)
            deltas[~inverse] = -np.expm1(eps[~inverse])
        x = self._cutoffs(eps[inverse])
        deltas[inverse] = self.mu_upper_cdf(x) - np.exp(eps[inverse] + self.mu_lower_log_cdf(x))
        deltas = np.clip(deltas, 0, 1)
        return float(deltas[0]) if scalar else deltas


@functools.lru_cache(maxsize=64)
def _loss(sigma: float, q: float, adjacency: AdjacencyType) -> tuple[ArrayGaussianLoss, float, float]:
    """One adjacency's privacy loss and the bounds of its losses (``connect_dots_bounds``), kept per
    σ, q and adjacency: they do not depend on the grid, and a composition's grid is chosen per k
    (three or four grids a σ on the ε-against-k chart, each one built from them)."""
    loss = ArrayGaussianLoss(sigma, q, adjacency)
    bounds = loss.connect_dots_bounds()
    return loss, bounds.epsilon_lower, bounds.epsilon_upper


def _pmf(sigma: float, q: float, adjacency: AdjacencyType, interval: float) -> LossPmf:
    """One adjacency's connect-the-dots masses, pessimistic, on multiples of ``interval``."""
    loss, lower, upper = _loss(float(sigma), float(q), adjacency)
    return from_bounds(interval, lower, upper, loss.get_delta_for_epsilon)


def subsampled_gaussian_pld(sigma: float, q: float, interval: float) -> Pld:
    """The privacy-loss distribution of one Gaussian release of noise multiplier σ on a Poisson
    sample of rate q (q = 1: the Gaussian mechanism), add and remove adjacency: the masses of
    ``from_gaussian_mechanism(σ, sampling_prob=q, value_discretization_interval=interval)``."""
    remove = _pmf(sigma, q, AdjacencyType.REMOVE, interval)
    if q == 1.0:
        return Pld(remove)
    return Pld(remove, _pmf(sigma, q, AdjacencyType.ADD, interval))
