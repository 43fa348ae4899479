"""The privacy loss of ADePT's worst-case pair, simulated and exact (Habernal 2021, Sec. 5).

At x = (C/√n)(1, …, 1) and x′ = −x, a release y = x + Z, Z ~ Laplace(b)ⁿ with ADePT's b = 2C/ε,
has the privacy loss L(y) = (‖y − x′‖₁ − ‖y − x‖₁)/b. With c₂ = 2C/√n and a = c₂/b = ε/√n,
each coordinate adds (|Z + c₂| − |Z|)/b: +a if Z ≥ 0 (probability ½), and for Z < 0, where
E = −Z/b is a standard exponential, a − 2E if E ≤ a (the *middle* region) and −a if E > a.
So with P coordinates of Z ≥ 0, m = n − P of Z < 0 and K of them in the middle, S the sum of
their E,

    L/a = P − (m − K) + Σ_{E ≤ a} (1 − 2E/a) = d + middle,  d = P − m + K,  middle = K − 2S/a.

**One set of draws for every ε.** A release's P and its m exponentials do not depend on ε: only
which of them fall below a does. The m exponentials are drawn in ascending order (Rényi's
representation: E₍ᵣ₎ = Σ_{i ≤ r} Xᵢ/(m − i + 1), the Xᵢ standard exponentials), row r for every
release of a block at once, until every release's next one lies above a; K is then how many lie
at or below a and S their running sum at the K-th. Rows are drawn from each block's own stream in
the same chunks whatever a is, so a larger a only draws further rows of the same streams: the
releases simulated at ε and at ε′ are the same releases, and :func:`privacy_loss_histograms`
(every position of the ε slider from one set of draws, reading K and S at each) gives each
position's histogram bit for bit as :func:`privacy_loss_histogram` does there (tested). Along
the slider the histogram changes only as the releases' losses do, not by fresh sampling noise.

**One set of draws for every n.** P is the number of heads among a release's first n fair coins
(Binomial(n, ½)), the coins being the bits of 64-bit words from a stream of the block's own for
them (``stream(base, block, 1)``), apart from its exponentials (``stream(base, block)``). A
Binomial(n, ½) drawn first from the exponentials' stream (as before 2026-12-02) used as many of
the stream's numbers as n made it, which shifted every exponential after it with n. Now the coins
and the rows of Xᵢ are the same at every n: at n a release reads its first n coins and the first
m of its Xᵢ (m = n − P its own), and at n + 1 it has one coin more. So
:func:`privacy_loss_histograms_along_dim` (every position of the n slider) draws them once per
block, for the n that reads the most, where drawing them again at each n (the binomials above
all) was two thirds of that slider's frames; along n the releases grow a coordinate at a time
instead of being drawn afresh. Each position's histogram is still bit for bit what
:func:`privacy_loss_histogram` gives at that n alone (tested).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from dpviz.errors import InputError
from dpviz.papers.adept.sensitivity import _check_dim, _check_positive, epsilon_actual, sensitivity_claimed
from dpviz.stats import stream, wilson_interval

LOSS_BLOCK = 8192
"""Releases simulated together, each block from its own stream (its rows of exponentials stay in
tens of megabytes at n = 1024)."""
ROWS = 4
"""Rows of exponentials drawn at a time, for every release of a block. The rows are the same
whatever this is (a block's stream gives them in order), so it sets only how many are drawn past
the last one a block needs: 16 drew up to 45% more than needed at n = 1024 (a block needs some 33
rows at ε = 1 there), and the frames along n took 1.89 s of tables against 1.32 s with 4."""


def privacy_loss_mean(dim: int, clip: float, epsilon: float) -> float:
    """E[L] for y ~ M(x) at the worst-case pair with Laplace scale b = 2C/epsilon.

    Per coordinate, with c = C/sqrt(n) and Z ~ Laplace(b), the loss is
    l(Z) = (|Z + 2c| - |Z|)/b, and E|Z + m| = |m| + b exp(-|m|/b), so
    E[L] = n (2c + b exp(-2c/b) - b) / b  (the KL divergence of the two outputs).
    """
    _check_dim(dim)
    b = sensitivity_claimed(clip) / epsilon
    c2 = 2 * clip / np.sqrt(dim)
    return float(dim * (c2 + b * np.exp(-c2 / b) - b) / b)


class _Rows:
    """A block's rows of draws (``draw(count)``: the next ``count`` rows, each one value per
    release, from the block's stream), drawn in order and kept, so that every n and every a of a
    set of frames reads the same rows: row r is the same values however many rows were drawn
    before it, in whatever chunks."""

    def __init__(self, draw, size: int, dtype=np.float64):
        self.draw, self.size = draw, size
        self.held = np.empty((0, size), dtype=dtype)
        self.drawn = 0

    def rows(self, start: int, count: int) -> np.ndarray:
        """Rows ``start`` … ``start + count − 1`` (drawn from the stream where not yet drawn)."""
        end = start + count
        if end > self.drawn:
            if end > self.held.shape[0]:  # room for twice as many rows: each drawn once, copied rarely
                grown = np.empty((max(end, 2 * self.held.shape[0]), self.size), dtype=self.held.dtype)
                grown[: self.drawn] = self.held[: self.drawn]
                self.held = grown
            self.held[self.drawn : end] = self.draw(end - self.drawn)
            self.drawn = end
        return self.held[start:end]


def _exponentials(base: int, block: int, size: int) -> _Rows:
    """A block's rows of standard exponentials Xᵢ (row i: every release's Xᵢ), from ``stream(base, block)``."""
    gen = stream(base, block)
    return _Rows(lambda count: gen.standard_exponential((count, size)), size)


def _coins(base: int, block: int, size: int) -> _Rows:
    """A block's coins, whether each coordinate's Z is ≥ 0 (a fair coin), as the bits of 64-bit
    words from ``stream(base, block, 1)``: row w holds every release's coordinates 64w … 64w + 63,
    lowest bit first. Kept apart from the exponentials' stream, so that these do not depend on n."""
    gen = stream(base, block, 1)
    return _Rows(lambda count: gen.bit_generator.random_raw((count, size)), size, np.uint64)


def _plus(coins: _Rows, dim: int) -> np.ndarray:
    """P, each release's coordinates with Z ≥ 0: heads among its first n coins, Binomial(n, ½).
    At n + 1 a release has its n coins and one more, so P moves by 0 or 1 along n."""
    whole, rest = divmod(int(dim), 64)
    words = coins.rows(0, whole + (rest > 0))
    plus = np.bitwise_count(words[:whole]).sum(axis=0, dtype=np.int64)
    if rest:
        plus += np.bitwise_count(words[whole] & np.uint64((1 << rest) - 1))
    return plus


def _walked(rows: _Rows, plus: np.ndarray, dim: int, a: np.ndarray):
    """One block of releases: m = n − P per release, then the block's rows of exponentials in
    order, until every release's ascending exponentials have passed the largest of the ascending
    ``a`` (or run out); m, and K and S at each a (releases × a). The same walk, with the same
    arithmetic, as the page's compiled one (:func:`_walked_binned`), written with NumPy, a row of
    every release still open at a time: for the sampler and the tests, which keep K and S."""
    size = plus.size
    m = dim - plus
    out_k = np.zeros((size, a.size), dtype=np.int64)
    out_s = np.zeros((size, a.size))
    last, total = np.zeros(size), np.zeros(size)
    nxt = np.zeros(size, dtype=np.int64)
    for r in range(int(m.max()) + 1):
        open_ = nxt < a.size
        _settle(open_ & (m <= r), a.size, r, total, nxt, out_k, out_s)  # every exponential read: K = m
        now = np.flatnonzero(open_ & (m > r))
        if now.size == 0:
            break
        e = last[now] + rows.rows(r, 1)[0, now] / (m[now] - r)
        while True:  # the a's each release's E_r has passed, one at a time (the kernel's inner loop)
            passed = nxt[now] < a.size
            passed[passed] = e[passed] > a[nxt[now[passed]]]
            if not passed.any():
                break
            j = now[passed]
            out_k[j, nxt[j]], out_s[j, nxt[j]] = r, total[j]
            nxt[j] += 1
        going = nxt[now] < a.size
        total[now[going]] += e[going]
        last[now[going]] = e[going]
    return m, out_k, out_s


def _settle(which: np.ndarray, count: int, r: int, total, nxt, out_k, out_s) -> None:
    """Releases ``which`` (a mask) have read all their exponentials: K = r and S their sum at every a still open."""
    j = np.flatnonzero(which)
    if j.size:
        still = np.arange(count) >= nxt[j, None]
        out_k[j] = np.where(still, r, out_k[j])
        out_s[j] = np.where(still, total[j, None], out_s[j])
        nxt[j] = count


def _walked_binned(rows: _Rows, plus: np.ndarray, dim: int, a: np.ndarray, edges, sizes, below, counts) -> None:
    """:func:`_walked` with each release's loss at each a binned into ``counts`` (a × bins) as the
    walk finds it (:func:`dpviz.papers.adept.loss_kernels.walk_binned`), not kept: the same
    releases, the same rows, the same counts as binning :func:`_walked`'s K and S (tested). The
    block's rows :data:`ROWS` at a time (fewer where the block's largest m ends first)."""
    from dpviz.papers.adept import loss_kernels as kernels  # (lazy: numba, for this chart's tables only)

    size = plus.size
    m = dim - plus
    last, total = np.zeros(size), np.zeros(size)
    taken, nxt = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    root = float(np.sqrt(dim))
    single = a.size == 1  # (one a: K and S kept, binned after the walk; many: K = 0 noted as runs of a's)
    runs = np.zeros((0, 0) if single else (a.size + 1, 2 * dim + 1), dtype=np.int64)
    kept = np.zeros((2, size) if single else (2, 0))
    row0, most = 0, int(m.max())
    while True:  # (no row past the largest m: every release has run out there)
        count = max(1, min(max(ROWS, rows.drawn - row0), most - row0))  # (every row already drawn at once)
        chunk = rows.rows(row0, count)
        if not kernels.walk_binned(
            chunk, row0, plus, m, last, total, taken, nxt, a, root, dim, edges, sizes, below, counts, runs, kept
        ):
            break
        row0 += count
    if single:
        kernels.bin_kept(kept, plus, m, a, root, dim, edges, sizes, below, counts)
    else:
        kernels.bin_runs(runs, a, root, dim, edges, sizes, below, counts)


def _blocks(samples: int, rng: np.random.Generator):
    """(stream base, block, size) of each block of the releases: a block's exponentials come from
    ``stream(base, block)`` (:func:`_exponentials`), its coins from ``stream(base, block, 1)``
    (:func:`_coins`)."""
    base = int(rng.integers(2**63))
    for b, start in enumerate(range(0, int(samples), LOSS_BLOCK)):
        yield base, b, min(LOSS_BLOCK, int(samples) - start)


def _checked(dim: int, epsilon: float, samples: int) -> None:
    _check_dim(dim)
    _check_positive("epsilon", epsilon)
    if int(samples) != samples or samples < 1:
        raise InputError(f"samples must be a whole number >= 1, got {samples}")


def _privacy_loss_units(
    dim: int, clip: float, epsilon: float, samples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Samples of the worst-case privacy loss in units of a = epsilon/sqrt(n), in parts (module
    docstring): d (integers), k (the middle coordinates) and middle (in (-k, k)); L = a (d + middle)."""
    _checked(dim, epsilon, samples)
    a = np.array([epsilon / np.sqrt(dim)])
    parts = []
    for base, b, size in _blocks(samples, rng):
        plus = _plus(_coins(base, b, size), int(dim))
        m, k, total = _walked(_exponentials(base, b, size), plus, int(dim), a)
        parts.append((plus - m + k[:, 0], k[:, 0], k[:, 0] - 2.0 * total[:, 0] / a[0]))
    d, k, middle = (np.concatenate(x) for x in zip(*parts))
    return d, k, middle


def privacy_loss_samples(dim: int, clip: float, epsilon: float, samples: int, rng: np.random.Generator) -> np.ndarray:
    """Samples of the privacy loss L(y) = (||y - x'||_1 - ||y - x||_1)/b, y ~ x + Lap(b)^n,
    at the worst-case pair x = (C/sqrt n) 1, x' = -x, with ADePT's b = 2C/epsilon, drawn without n
    Laplace values per sample (module docstring)."""
    d, _, middle = _privacy_loss_units(dim, clip, epsilon, samples, rng)
    return (epsilon / np.sqrt(dim)) * (d + middle)


def _bins(dim: int, epsilon: float, bins: int) -> tuple[np.ndarray, int]:
    """The histogram's edges from -eps*sqrt(n) to eps*sqrt(n), one of them at eps, and how many
    bins lie below it."""
    top = float(epsilon_actual(epsilon, dim))
    below = max(2, int(round(bins * (epsilon + top) / (2 * top))))
    edges = np.linspace(-top, epsilon, below + 1)
    if top > epsilon * (1 + 1e-12):
        edges = np.concatenate([edges, np.linspace(epsilon, top, max(2, bins - below) + 1)[1:]])
    return edges, below


def _table(edges: np.ndarray, below: int, count: np.ndarray, samples: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "loss_low": edges[:-1],
            "loss_high": edges[1:],
            "count": count,
            "probability": count / samples,
            "above_claim": np.arange(len(edges) - 1) >= below,
        }
    )


def _rng(seed: int) -> np.random.Generator:
    return stream(seed, 101)


def privacy_loss_histogram(
    dim: int, clip: float, epsilon: float, samples: int, seed: int, bins: int = 60
) -> pd.DataFrame:
    """Histogram of the worst-case privacy loss, bins right-closed (low, high], with a bin
    edge at the claimed epsilon so that P[L > epsilon] is the sum of the bins above it.

    Whether a release lies above the claim is decided exactly (where no coordinate is in the
    middle region, L = a·d: the integers d > 0 and d² > n; elsewhere ties have probability 0), so
    the atom L = epsilon of square n stays in the bin that ends at epsilon.
    Columns: loss_low, loss_high, count, probability, above_claim.
    """
    return privacy_loss_histograms(dim, clip, [epsilon], samples, seed, bins)[0]


def privacy_loss_histograms(
    dim: int, clip: float, epsilons: Sequence[float], samples: int, seed: int, bins: int = 60
) -> list[pd.DataFrame]:
    """:func:`privacy_loss_histogram` at each of ``epsilons``, from one set of draws (module
    docstring): each the same table, bit for bit, as computed at its epsilon alone, for the cost
    of the largest epsilon's draws."""
    return _histograms([(dim, e) for e in epsilons], samples, seed, bins)


def privacy_loss_histograms_along_dim(
    dims: Sequence[int], clip: float, epsilon: float, samples: int, seed: int, bins: int = 60
) -> list[pd.DataFrame]:
    """:func:`privacy_loss_histogram` at each of ``dims``, from one set of exponentials (module
    docstring): each the same table, bit for bit, as computed at its n alone; every n reads the
    same rows of each block, so the rows are drawn once, for the n that needs the most."""
    return _histograms([(n, epsilon) for n in dims], samples, seed, bins)


def _histograms(settings: Sequence[tuple[int, float]], samples: int, seed: int, bins: int) -> list[pd.DataFrame]:
    """The histogram at each (n, ε) of ``settings``: block by block, the block's rows of
    exponentials and its coins drawn once and read by every n, each n's ε walked together in
    ascending order."""
    for n, eps in settings:
        _checked(n, eps, samples)
    by_dim: dict[int, list[int]] = {}
    for i, (n, _) in enumerate(settings):
        by_dim.setdefault(int(n), []).append(i)
    plans = []
    for n, where in by_dim.items():
        epsilons = np.array([float(settings[i][1]) for i in where])
        order = np.argsort(epsilons, kind="stable")
        a = epsilons[order] / np.sqrt(n)
        shapes = [_bins(n, float(epsilons[g]), bins) for g in order]
        edges = np.full((len(order), max(e.size for e, _ in shapes)), np.inf)
        for g, (e, _) in enumerate(shapes):
            edges[g, : e.size] = e
        sizes = np.array([e.size for e, _ in shapes])
        below = np.array([b for _, b in shapes])
        counts = np.zeros((len(order), edges.shape[1] - 1), dtype=np.int64)
        plans.append((n, [where[g] for g in order], a, shapes, edges, sizes, below, counts))
    for base, b, size in _blocks(samples, _rng(seed)):
        rows, coins = _exponentials(base, b, size), _coins(base, b, size)
        for n, _, a, _, edges, sizes, below, counts in plans:
            _walked_binned(rows, _plus(coins, n), n, a, edges, sizes, below, counts)
    out: list[pd.DataFrame] = [pd.DataFrame()] * len(settings)
    for _, where, _, shapes, _, _, _, counts in plans:
        for g, i in enumerate(where):
            e, below_g = shapes[g]
            out[i] = _table(e, below_g, counts[g, : e.size - 1], int(samples))
    return out


def exceed_probability(hist: pd.DataFrame, confidence: float = 0.95) -> tuple[float, float, float]:
    """P[L > claimed epsilon] from :func:`privacy_loss_histogram`, with a Wilson interval."""
    count = hist["count"].to_numpy(dtype=np.int64)
    total = int(count.sum())
    k = int(count[hist["above_claim"].to_numpy(dtype=bool)].sum())
    low, high = wilson_interval(k, total, confidence)
    return k / total, float(low), float(high)


def exceed_probability_exact(dim: int, epsilon: float, digits: int = 60) -> float:
    """Exact P[L > epsilon] at the worst-case pair (independent of C), by summation.

    With a = epsilon/sqrt(n), each coordinate is +a (prob 1/2), -a (prob e^(-a)/2) or
    a(2W - 1) with W on [0, 1) of (unnormalised) density (a/2) e^(-a) e^(a W). Given k0 plus,
    k1 minus and k middle coordinates, L > epsilon iff the sum S of the k W's exceeds
    tau = (sqrt(n) + k - k0 + k1)/2. The joint density of the W's is (a/2)^k e^(-ka) e^(a S),
    so P[S > tau] = (a/2)^k e^(-ka) int_tau^k e^(a s) f_k(s) ds with the Irwin-Hall density
    f_k(s) = sum_j (-1)^j C(k, j) (s - j)_+^(k-1) / (k-1)!, integrated in closed form:
    int u^m e^(a u) du = e^(a u) sum_i (-1)^i m!/(m-i)! u^(m-i) / a^(i+1).
    For k = 0 the comparison k0 - k1 > sqrt(n) is made in integers. Arbitrary precision
    (mpmath) absorbs the alternating sums; cost grows like n^4, meant for n up to ~30.
    """
    import mpmath as mp

    _check_dim(dim)
    _check_positive("epsilon", epsilon)
    n = int(dim)
    with mp.workdps(digits + 2 * n):
        a = mp.mpf(epsilon) / mp.sqrt(n)
        root = mp.sqrt(n)
        p_plus, p_minus = mp.mpf(1) / 2, mp.exp(-a) / 2

        def antiderivative(u, m):
            return mp.exp(a * u) * mp.fsum(
                (-1) ** i * mp.factorial(m) / mp.factorial(m - i) * u ** (m - i) / a ** (i + 1) for i in range(m + 1)
            )

        def middle_tail(k, tau):
            if tau >= k:
                return mp.mpf(0)
            tau = max(tau, mp.mpf(0))
            total = mp.mpf(0)
            for j in range(k):
                lo = max(tau, mp.mpf(j))
                if lo >= k:
                    continue
                # int_lo^k e^(a s) (s - j)^(k-1) ds = e^(a j) int_{lo-j}^{k-j} e^(a u) u^(k-1) du
                piece = mp.exp(a * j) * (antiderivative(k - j, k - 1) - antiderivative(lo - j, k - 1))
                total += (-1) ** j * mp.binomial(k, j) * piece
            return (a / 2) ** k * mp.exp(-k * a) * total / mp.factorial(k - 1)

        prob = mp.mpf(0)
        for k0 in range(n + 1):
            for k1 in range(n - k0 + 1):
                k = n - k0 - k1
                weight = mp.factorial(n) / (mp.factorial(k0) * mp.factorial(k1) * mp.factorial(k))
                weight *= p_plus**k0 * p_minus**k1
                if k == 0:
                    dd = k0 - k1
                    prob += weight if (dd > 0 and dd * dd > n) else 0
                else:
                    prob += weight * middle_tail(k, (root + k - k0 + k1) / 2)
        return float(prob)
