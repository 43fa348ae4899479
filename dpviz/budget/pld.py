"""Privacy-loss distributions (PLDs) on a grid of losses: built by connecting the dots, composed by
FFT, read as δ(ε) and ε(δ). The route of Google's ``dp-accounting`` (its ``pld`` package: the same
masses, the same pessimistic rounding), with changes that make a composed PLD of 10⁵ releases
about ten times cheaper to compose, every reading of it cheap, and its far upper tail accurate;
the library itself is the reference in the tests (``tests/budget/test_pld.py``: every reading
against its own, on a grid of mechanisms, k, ε and δ, and the Gaussian against its exact curve).
The step of the loss grid is chosen per composition by :func:`dpviz.budget.accountants.pld_interval`.

One adjacency's PLD (:class:`LossPmf`) holds masses p_i at the losses ℓ_i = (lower + i)·h and a
mass p_∞ at +∞. Its hockey-stick divergence is

    δ(ε) = p_∞ + Σ_{ℓ_i > ε} p_i·(1 − e^{ε − ℓ_i}) = p_∞ + U(ε) − e^ε·W(ε),

U and W the sums of p_i and p_i·e^{−ℓ_i} over the losses above ε; a mechanism with add and remove
adjacency (the subsampled Gaussian) is read as the larger of the two (:class:`Pld`).

- **Connect the dots** (Doroshenko, Ghazi, Kamath, Kumar and Manurangsi 2022, Alg. 1): from the
  mechanism's own δ(ε) at ε_j = j·h, j = lower … upper: p_lower = 1 − δ_1 + (δ_2 − δ_1)/(e^h − 1),
  p_j = ((δ_{j+1} − δ_j) − e^h(δ_j − δ_{j−1}))/(e^h − 1), p_upper = (δ_n − δ_{n−1})/(e^{−h} − 1),
  p_∞ = δ_n (negative masses set to 0): an upper bound on the mechanism's δ at every ε.
- **Composition**: k releases' losses add up, so their masses are the k-fold convolution, by FFT:
  the masses' (real) transform raised to the k-th power, leaving at 0 the values whose power is
  below 10⁻³⁰ (:func:`spectrum_power`: each mass moves by at most that; after some hundreds of
  releases a few dozen values are powered, of tens of thousands). The window kept is where the
  composed mass can be: outside [a, b] at most τ = 10⁻¹⁵ (added to p_∞, pessimistic), by the
  Chernoff bound P(S ≥ b) ≤ e^{k·log M(t) − t·b} and its mirror, M the masses' moment generating
  function. ``dp-accounting`` tries t = ±1/N … ±20/N only (N the masses' count); here also smaller
  t, which the bound needs at large k: at 10⁵ Laplace releases its window held 2·10⁶ losses, this
  one 2.7·10⁵ (the mass between them is below τ, so either answer is as pessimistic).
- **The upper tail, tilted**: the FFT's rounding leaves every composed mass uncertain by about
  10⁻¹⁶·k of the largest one, and δ = 10⁻¹² after 20,000 releases sums a tail of thousands of such
  masses (the library's ε there moved by 5% between discretizations). So the masses are composed
  a second time under an exponential tilt (the masses p_i·e^{θi}/M(θ), composed, times
  M(θ)^k·e^{−θj} at the composed index j: the same masses, exactly, but rounded relative to the
  tail's own size), θ the Chernoff order for a tail of 10⁻¹³; each composed mass is taken from the
  composition whose rounding is smaller there. Tested against the Gaussian's exact δ(ε) at 10⁻¹².
  It is composed only when a reading needs it: a δ below :data:`TAIL_MARGIN` times the plain
  composition's estimated rounding (on the settings measured, none at the page's default δ = 10⁻⁵).
- **Readings**: U and W summed once from the top loss down (the library's order of summation, in
  one compiled pass: :func:`dpviz.budget.kernels.top_sums`), so δ at any ε is one lookup, and
  ε(δ) the library's rule (the first loss, from the top, below the ε that the masses above it
  would give) over arrays; the library walks the losses in Python at each reading (0.3 s at 10⁵
  releases)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import fft

from dpviz.budget import kernels
from dpviz.processes import one_numpy_blas_thread

TAIL_MASS = 1e-15
"""The composed mass a composition may leave out of its window (``dp-accounting``'s default)."""
SMALL_COMPOSITION = 1 << 12
"""A composition whose whole range of losses is shorter than this keeps it all. (It was 65,536, when
the bound's moment generating functions were computed per composition; they are kept per release
(:meth:`LossPmf._mgf`), and a composition of a few hundred releases whose window is a tenth of its
range of losses paid a transform of the whole range, 0.2 s of the 0.9 s of the budget frontier's
frames along σ.)"""


@dataclass(frozen=True, eq=False)
class LossPmf:
    """One adjacency's discretized privacy-loss distribution: ``probs[i]`` at loss
    (lower + i)·interval, ``infinity`` at +∞ (module docstring)."""

    interval: float
    lower: int
    probs: np.ndarray
    infinity: float
    _kept: dict = field(default_factory=dict, repr=False)

    @property
    def losses(self) -> np.ndarray:
        """The losses ℓ_i, ascending."""
        return (np.arange(self.probs.size) + self.lower) * self.interval

    def _from_top(self):
        """The losses from the top down, and U_j, W_j: p_∞ plus the masses of the j top losses, and
        the same for p_i·e^{−ℓ_i} (U_0 = p_∞, W_0 = 0); kept."""
        if "top" not in self._kept:
            top = self.losses[::-1]
            # (running sums in the library's order: from p_∞, adding the top loss's mass first)
            probs = np.ascontiguousarray(self.probs, dtype=float)
            u, w = kernels.top_sums(probs, self.lower, self.interval, self.infinity)
            self._kept.update(top=top, u=u, w=w)
        return self._kept["top"], self._kept["u"], self._kept["w"]

    def _stops(self):
        """For ε(δ): the running maxima from the top of δ(ℓ_j) = U_j − e^{ℓ_j}·W_j where W_j > 0,
        and of U_{j+1} where W_{j+1} = 0; kept (a chart that reads only δ(ε) never makes them)."""
        if "reached" not in self._kept:
            _, u, w = self._from_top()
            reached, flat = kernels.top_stops(self.lower, self.interval, u, w)
            self._kept.update(reached=reached, flat=flat)
        return self._kept["reached"], self._kept["flat"]

    def tail_view(self) -> "LossPmf":
        """The same distribution with its upper tail composed under the tilt (:meth:`_upper_tail`),
        made when first asked for; itself where the plain composition's rounding is quiet."""
        if "tail" not in self._kept:
            return self
        if "tail_view" not in self._kept:
            _, make = self._kept["tail"]
            self._kept["tail_view"] = LossPmf(self.interval, self.lower, make(), self.infinity)
        return self._kept["tail_view"]

    def delta(self, epsilon):
        """δ(ε) for one ε or an ascending array (the library's readings: the scalar one sums
        p_i(1 − e^{ε − ℓ_i}) over the losses above ε, the array one U − e^ε·W); a δ the plain
        masses read below the composition's rounding margin is read from :meth:`tail_view`."""
        out = self._delta(epsilon)
        if "tail" in self._kept:
            below = np.asarray(out) < self._kept["tail"][0]
            if below.any():
                tail = self.tail_view()._delta(epsilon)
                out = float(tail) if np.ndim(epsilon) == 0 else np.where(below, tail, out)
        return out

    def _delta(self, epsilon):
        if np.ndim(epsilon) == 0:
            above = self.losses > epsilon
            return float(self.infinity + np.dot(-np.expm1(epsilon - self.losses[above]), self.probs[above]))
        eps = np.asarray(epsilon, dtype=float)
        if np.any(np.diff(eps) < 0):
            raise ValueError("the ε's of a PLD reading must be in ascending order")
        top, u, w = self._from_top()
        above = np.searchsorted(-top, -eps, side="left")  # how many losses are above each ε
        with np.errstate(over="ignore", invalid="ignore"):
            out = u[above] - np.exp(eps) * w[above]
        return np.where(np.isposinf(eps), self.infinity, out)

    def epsilon(self, delta: float) -> float:
        """The smallest ε with δ(ε) ≤ δ (``dp-accounting``'s ``_get_epsilon_for_delta``): walking down
        from the top loss, stop at the first loss ℓ_j where the masses above it already give δ
        (δ(ℓ_j) = U_j − e^{ℓ_j}·W_j ≥ δ, the library's log((U_j − δ)/W_j) ≥ ℓ_j), and answer
        log((U_j − δ)/W_j); inf if p_∞ > δ. The first such loss is found by bisection on the running
        maximum of δ(ℓ_j) (the library walks the losses in Python). A δ below the composition's
        rounding margin is read from :meth:`tail_view`."""
        if self.infinity > delta:
            return math.inf
        if "tail" in self._kept and delta < self._kept["tail"][0]:
            return self.tail_view().epsilon(delta)
        if "reached" not in self._kept and self._kept.get("scans", 0) < SCANS:
            # (a PLD read at one or two δ's: the compiled scan reads only the losses above the answer)
            self._kept["scans"] = self._kept.get("scans", 0) + 1
            probs = np.ascontiguousarray(self.probs, dtype=float)
            _, flat_stop, upper, lower, loss = kernels.scan_from_top(
                probs, self.lower, self.interval, self.infinity, delta
            )
            return max(0.0, float(loss)) if flat_stop else _from_sums(upper, lower, delta)
        reached, flat = self._stops()
        return self._at_stops(
            delta, int(np.searchsorted(reached, delta, side="left")), int(np.searchsorted(flat, delta, side="left"))
        )

    def _at_stops(self, delta: float, first_stop: int, first_flat: int) -> float:
        """ε at δ from the searches of the running maxima: the first stop, and the first flat stop
        (the library returns max(0, ℓ) at once where the masses so far reach δ with W still 0: the
        losses so large that e^{−ℓ} underflows)."""
        top, u, w = self._from_top()
        if first_flat < min(first_stop, top.size):
            return max(0.0, float(top[first_flat]))
        return _from_sums(float(u[first_stop]), float(w[first_stop]), delta)

    def epsilons(self, deltas) -> list[float]:
        """:meth:`epsilon` at each of ``deltas``, the same numbers to the bit: inf where p_∞ > δ; the
        δ's below the rounding margin read from :meth:`tail_view` together, the others from the
        running maxima, both searches made for all of them at once and each answer finished by the
        same :meth:`_at_stops` (the compiled scan, where the maxima are not made yet and these δ's
        are within its first :data:`SCANS` readings). The advanced composition reads one release's
        PLD at six δ's for every k and δ it answers, and the δ chart a composed one at 23 δ's."""
        values = [float(d) for d in deltas]
        out: list[float] = [math.inf] * len(values)
        margin = self._kept["tail"][0] if "tail" in self._kept else -math.inf
        plain = [i for i, d in enumerate(values) if not self.infinity > d and d >= margin]
        tail = [i for i, d in enumerate(values) if not self.infinity > d and d < margin]
        if tail:
            for i, e in zip(tail, self.tail_view().epsilons([values[i] for i in tail])):
                out[i] = e
        if plain and "reached" not in self._kept and self._kept.get("scans", 0) + len(plain) <= SCANS:
            for i in plain:
                out[i] = self.epsilon(values[i])
        elif plain:
            reached, flat = self._stops()
            at = np.array([values[i] for i in plain])
            stops = np.searchsorted(reached, at, side="left").tolist()
            flats = np.searchsorted(flat, at, side="left").tolist()
            for i, first_stop, first_flat in zip(plain, stops, flats):
                out[i] = self._at_stops(values[i], first_stop, first_flat)
        return out

    def _mgf(self) -> tuple[np.ndarray, np.ndarray]:
        """:func:`_log_mgf` of the masses, kept: the same for every k (a release's PLD is composed
        for many k, and each composition's window and tilt read it)."""
        if "log_mgf" not in self._kept:
            self._kept["log_mgf"] = _log_mgf(self.probs)
        return self._kept["log_mgf"]

    def window(self, k: int, tail_mass: float = TAIL_MASS) -> tuple[int, int]:
        """The indices [a, b] of the k-fold composition's losses that :meth:`self_compose` keeps."""
        return _window(self.probs, k, tail_mass, self._mgf())

    def self_compose(self, k: int, tail_mass: float = TAIL_MASS) -> "LossPmf":
        """The k-fold composition (module docstring)."""
        if k <= 0:
            raise ValueError(f"k should be at least 1, got {k}")
        if k == 1:
            return self
        a, b = self.window(k, tail_mass)
        size = b - a + 1
        length = fft.next_fast_len(max(size, self.probs.size), real=True)
        # (real masses: the half spectrum, where the library transforms the whole; 2.3x, the same
        # masses to 10⁻¹⁹ at 10⁵ releases)
        composed = fft.irfft(spectrum_power(fft.rfft(self.probs, length), k), length)
        probs = _circular_slice(composed, a, size)
        left_out = tail_mass if size < (self.probs.size - 1) * k + 1 else 0.0  # (the window's tails, pessimistically)
        infinity = left_out - math.expm1(k * math.log1p(-self.infinity))
        out = LossPmf(self.interval, self.lower * k + a, probs, infinity)
        rounding = ROUNDING * k * max(float(probs.max()), -float(probs.min())) * math.sqrt(probs.size)
        if rounding >= QUIET_TAIL:  # (the tilted tail, for the readings that need it: a second composition)
            out._kept["tail"] = (TAIL_MARGIN * rounding, lambda: self._upper_tail(k, probs, np.arange(a, a + size)))
        return out

    def _upper_tail(self, k: int, probs: np.ndarray, at: np.ndarray) -> np.ndarray:
        """The composed masses ``probs`` (at the indices ``at``), their upper tail composed again
        under an exponential tilt (module docstring): p_i·e^{θi}/M(θ) composed k times, then times
        M(θ)^k·e^{−θj}; each mass taken from whichever composition's rounding is smaller there. The
        tilted composition's buffer reaches where its own tail is below 10⁻²⁰ (the Chernoff bound
        of the tilted masses, whose generating function is M(θ + s)/M(θ)); where that is more than
        four windows, the plain masses are kept."""
        t, mgf = self._mgf()
        up = np.flatnonzero(t > 0)
        up = up[np.argsort(t[up])]
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            bound = (k * mgf[up[:-1]] + math.log(1 / TILT_AT)) / t[up[:-1]]
        if not np.isfinite(bound).any():
            return probs
        pick = int(np.nanargmin(np.where(np.isfinite(bound), bound, np.nan)))
        theta, log_m = float(t[up][pick]), float(mgf[up][pick])
        above = up[pick + 1 :]  # orders s = t − θ > 0 of the tilted masses
        with np.errstate(over="ignore", invalid="ignore"):
            reach = (k * (mgf[above] - log_m) + math.log(2 / TILTED_TAIL)) / (t[above] - theta)
        reach = reach[np.isfinite(reach)]
        if not reach.size:
            return probs
        start, top = int(at[0]), min(int(math.ceil(reach.min())), (self.probs.size - 1) * k)
        if top - start + 1 > 4 * at.size:
            return probs
        length = fft.next_fast_len(max(top - start + 1, at.size, self.probs.size), real=True)
        tilted_one = np.maximum(self.probs, 0.0) * np.exp(theta * np.arange(self.probs.size) - log_m)
        tilted = fft.irfft(spectrum_power(fft.rfft(tilted_one, length), k), length)
        # the tilt undone, e^{k·log M(θ) − θj}, where the tilted composition's rounding is the smaller
        return kernels.tail_merge(np.ascontiguousarray(probs), tilted, int(at[0]), length, k * log_m, theta)


def _circular_slice(values: np.ndarray, start: int, size: int) -> np.ndarray:
    """values[(start + i) mod L] for i < ``size`` ≤ L, as one or two slices (a window of the
    composition's indices read from its circular convolution; ``take`` of the indices modulo L
    was a tenth of a composition's time beside its transforms)."""
    first = start % values.size
    if first + size <= values.size:
        return values[first : first + size].copy()
    return np.concatenate([values[first:], values[: first + size - values.size]])


def _from_sums(upper: float, lower: float, delta: float) -> float:
    """ε = log((U − δ)/W) at the stop's sums U and W, 0 where U − W ≤ δ (the ε(δ) readings' last step)."""
    return 0.0 if upper <= lower + delta else math.log((upper - delta) / lower)


SCANS = 2
"""A PLD's first readings of ε(δ) scan its losses from the top
(:func:`dpviz.budget.kernels.scan_from_top`); from the next on, the running maxima are made once
and searched (the δ chart reads 23 δ's of each PLD)."""
ROUNDING = 1e-16
"""An FFT's rounding, relative to the largest value it transforms, per power of the spectrum."""
TAIL_MARGIN = 1e7
"""A δ read below this many times the estimated rounding is read from the tilted tail. The
estimate runs about 40 times below the rounding measured (20,000 Laplace releases, 10⁵ DP-SGD
steps), so a δ read from the plain masses is within about 4·10⁻⁶ of itself. (It was 10⁵, and the
tail was composed only past an estimate of 10⁻¹⁵: on an AVX2 machine the composed Gaussian's ε at
σ = 4, k = 1,000 then read 1.6·10⁻⁴ below the exact one at δ = 10⁻¹², and 10⁻⁶-10⁻⁷ below it at
10⁻⁹-10⁻¹⁰ (σ = 2, 4, 8): the plain masses' rounding, of either sign, larger than the fine step's
own pessimism of about 10⁻⁷; the same code on the machine before read above it.)"""
QUIET_TAIL = 1e-12 / TAIL_MARGIN
"""Below this estimated rounding over a window (ROUNDING·k·max mass·√losses: rounding errors of
either sign), no reading reaches the tilted tail (the smallest δ read is 10⁻¹²): none is kept."""
TILTED_TAIL = 1e-20
"""The tilted masses' composed tail left beyond the tilted composition's buffer."""
TILT_AT = 1e-13
"""The upper tail's tilt θ is the Chernoff bound's best order for this much composed mass beyond
it: the composed masses are then accurate to about 10⁻¹⁶ of themselves around where δ ≈ 10⁻¹² is
read, where the plain FFT's rounding (about 10⁻¹⁶·k of the largest mass, summed over thousands of
losses) reached 10⁻¹² itself."""
ORDERS = np.concatenate([[1.0, 2.0, 5.0, 10.0, 20.0], np.geomspace(1e-7, 0.5, 28)])
"""The Chernoff bound's orders t, times the number of losses N (both signs are used): some of
``dp-accounting``'s 1 … 20, and the smaller ones large k needs. Any order gives a valid bound; these
give windows within 5% of the narrowest over 440 orders (tested)."""


SPECTRUM_FLOOR = 1e-30
"""A transform value whose k-th power is smaller than this (the masses sum to at most 1, so the
transform is at most 1) is left at 0 (:func:`spectrum_power`)."""


def spectrum_power(spectrum: np.ndarray, k: int) -> np.ndarray:
    """The half spectrum of masses summing to at most 1, raised to the k-th power, with every value
    whose power is below :data:`SPECTRUM_FLOOR` in magnitude left at 0 (|z|² < floor^{2/k}: no
    power taken there). The inverse transform averages the spectrum, x_j = (X_0 + 2·Σ Re(X_m·
    e^{2πimj/L}))/L, so each composed mass moves by at most the floor, 10¹⁴ below the transform's
    own rounding; and after some hundreds of releases all but a few dozen values are below it (the
    composed distribution is smooth and wide, so its transform is narrow). The powers are taken in
    one compiled pass by squarings (:func:`dpviz.budget.kernels.power_kept`): NumPy's complex power,
    exp(k·log z) per value from k = 100 on, was most of a composition's time where many values count
    (Laplace, whose two end atoms give the transform slowly falling peaks)."""
    return kernels.power_kept(
        np.ascontiguousarray(spectrum, dtype=complex), int(k), math.exp(2 * math.log(SPECTRUM_FLOOR) / k)
    )


def _log_mgf(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The orders t (:data:`ORDERS`/N, both signs) and the masses' log moment generating function
    log Σ_i p_i·e^{t·i} at each (|t·i| ≤ 20: no overflow, so summed directly). The index is split
    into blocks of w ≈ √N, i = a·w + b, and e^{t·i} = e^{t·a·w}·e^{t·b}: Σ_a e^{t·a·w} Σ_b p_{a·w+b}
    e^{t·b}, some 2√N exponentials an order where e^{t·i} took N (a subsampled Gaussian's 56,000
    masses: 48 → 0.8 ms for the 66 orders; the same logarithms to 3·10⁻¹⁵, tested)."""
    t = ORDERS / probs.size
    t = np.concatenate([t, -t])
    n = probs.size
    width = max(1, math.isqrt(n))
    rows = -(-n // width)
    blocks = np.zeros(rows * width)
    blocks[:n] = np.maximum(probs, 0.0)
    inner = np.exp(t[:, None] * np.arange(width, dtype=float)[None, :])  # e^{t·b}
    outer = np.exp(t[:, None] * (np.arange(rows, dtype=float) * width)[None, :])  # e^{t·a·w}
    with one_numpy_blas_thread():  # (a matrix product: one thread, wherever it is called from)
        sums = inner @ blocks.reshape(rows, width).T  # Σ_b p_{a·w+b}·e^{t·b}: an order a row, a block a column
    with np.errstate(divide="ignore"):
        return t, np.log(np.einsum("ta,ta->t", sums, outer))


def _window(probs: np.ndarray, k: int, tail_mass: float, log_mgf=None) -> tuple[int, int]:
    """[a, b]: the indices (of the k-fold sum of indices 0 … N−1) outside which the composed mass
    is at most ``tail_mass`` (the Chernoff bound, module docstring), within [0, k(N − 1)].
    ``log_mgf``: :func:`_log_mgf` of ``probs``, if kept."""
    n = probs.size
    upper, lower = (n - 1) * k, 0
    if tail_mass == 0 or upper < SMALL_COMPOSITION:
        return lower, upper
    t, mgf = log_mgf if log_mgf is not None else _log_mgf(probs)
    with np.errstate(over="ignore", invalid="ignore"):
        bound = (k * mgf + math.log(2 / tail_mass)) / t
    ok = np.isfinite(bound)
    if (ok & (t > 0)).any():
        upper = min(upper, math.ceil(bound[ok & (t > 0)].min()))
    if (ok & (t < 0)).any():
        lower = max(lower, math.floor(bound[ok & (t < 0)].max()))
    return lower, upper


def connect_dots(interval: float, lower: int, upper: int, deltas) -> LossPmf:
    """The pessimistic connect-the-dots masses on the losses lower·h … upper·h from δ(ε) read there
    (module docstring; ``dp-accounting``'s ``create_pmf_pessimistic_connect_dots_fixed_gap``)."""
    deltas = np.asarray(deltas, dtype=float)
    if deltas.size != upper - lower + 1:
        raise ValueError(f"{deltas.size} δ's for {upper - lower + 1} losses")
    if lower == upper:
        return LossPmf(interval, lower, np.array([1 - deltas[0]]), float(deltas[0]))
    deltas = np.minimum.accumulate(deltas)
    diffs = np.diff(deltas)
    probs = np.zeros_like(deltas)
    probs[0] = 1 - deltas[0] + diffs[0] / math.expm1(interval)
    probs[1:-1] = (diffs[1:] - diffs[:-1] * math.exp(interval)) / math.expm1(interval)
    probs[-1] = diffs[-1] / math.expm1(-interval)
    return LossPmf(interval, lower, np.maximum(0.0, probs), float(deltas[-1]))


def from_bounds(interval: float, epsilon_lower: float, epsilon_upper: float, delta_of) -> LossPmf:
    """A mechanism's PLD by connecting the dots between its loss bounds, ``delta_of`` its δ(ε) over
    an array of ε."""
    lower, upper = math.floor(epsilon_lower / interval), math.ceil(epsilon_upper / interval)
    return connect_dots(interval, lower, upper, delta_of(np.arange(lower, upper + 1) * interval))


@dataclass(frozen=True, eq=False)
class Pld:
    """A mechanism's PLD: ``remove`` and, where it differs (subsampling), ``add`` adjacency; read as
    the larger of the two. The method names are ``dp-accounting``'s ``PrivacyLossDistribution``'s."""

    remove: LossPmf
    add: LossPmf | None = None

    def _both(self):
        return (self.remove,) if self.add is None else (self.remove, self.add)

    def losses_spanned(self) -> int:
        """How many losses one release's masses span (the larger adjacency's)."""
        return max(pmf.probs.size for pmf in self._both())

    def window_losses(self, k: int) -> int:
        """How many losses the k-fold composition keeps (the larger adjacency's window)."""
        return max(b - a + 1 for a, b in (pmf.window(k) for pmf in self._both()))

    def self_compose(self, k: int) -> "Pld":
        """k releases of the mechanism."""
        return Pld(*(pmf.self_compose(k) for pmf in self._both()))

    def get_delta_for_epsilon(self, epsilon):
        """δ(ε) for one ε or an ascending array."""
        readings = [pmf.delta(epsilon) for pmf in self._both()]
        return readings[0] if len(readings) == 1 else np.maximum(*readings)

    def get_epsilon_for_delta(self, delta: float) -> float:
        """The smallest ε with δ(ε) ≤ δ."""
        return max(pmf.epsilon(delta) for pmf in self._both())

    def get_epsilons_for_deltas(self, deltas) -> list[float]:
        """:meth:`get_epsilon_for_delta` at each of ``deltas`` (:meth:`LossPmf.epsilons`)."""
        readings = [pmf.epsilons(deltas) for pmf in self._both()]
        return readings[0] if len(readings) == 1 else [max(a, b) for a, b in zip(*readings)]


def laplace_delta(epsilon0: float, epsilon) -> np.ndarray:
    """The Laplace mechanism's δ(ε) (scale b = Δ/ε₀) over an array of ε: its losses lie in
    [−ε₀, ε₀], and there δ(ε) = F(x + Δ) − e^ε·F(x) = 1 − e^{(ε − ε₀)/2} at the loss's inverse
    x = −(Δ + εb)/2, F the Laplace CDF (F(y) = e^{y/b}/2 below 0, 1 − e^{−y/b}/2 above); above ε₀
    no loss exceeds ε, so δ = 0, and below −ε₀ every loss does, so δ = 1 − e^ε (the library's
    reading at x = ∓∞). The grid's end points lie outside [−ε₀, ε₀] unless ε₀ is a whole number
    of steps: the formula read there gave a negative δ at the top, so a negative mass at +∞, and
    a composed ε below the exact one (ε₀ = 0.0599, 3 releases, δ = 10⁻¹²: 0.17896 where no ε
    below 3ε₀ = 0.17974 holds)."""
    eps = np.asarray(epsilon, dtype=float)
    inside = 1 - np.exp((eps - epsilon0) / 2)
    return np.where(eps > epsilon0, 0.0, np.where(eps < -epsilon0, -np.expm1(eps), inside))


def laplace_step(epsilon0: float, interval: float) -> float:
    """The grid step of :func:`laplace_pld`: ``interval``, or where ε₀ is not a whole number of its
    steps the largest step below it that is, ε₀/⌈ε₀/interval⌉, so that the grid holds the losses ±ε₀
    themselves. The Laplace loss has atoms there (each of mass ½: the noise on the far side of both
    inputs), and a grid between them rounds the top one up a step: one release read ε₀ + h at
    δ = 10⁻¹² and k releases up to k(ε₀ + h), above basic composition's kε₀ (at ε₀ = 0.025 and
    h = 10⁻³, 4% above it)."""
    steps = math.ceil(epsilon0 / interval - 1e-9)
    return interval if abs(steps * interval - epsilon0) <= 1e-12 * epsilon0 else epsilon0 / steps


def laplace_pld(epsilon0: float, interval: float) -> Pld:
    """The Laplace mechanism of scale b = Δ/ε₀ (:func:`laplace_delta`) on the grid of
    :func:`laplace_step`; the same for add and remove."""
    most = 1 / (1 / epsilon0)  # (the loss bound as dp-accounting computes it: Δ / scale)
    step = laplace_step(epsilon0, interval)
    return Pld(from_bounds(step, -most, most, lambda eps: laplace_delta(epsilon0, eps)))
