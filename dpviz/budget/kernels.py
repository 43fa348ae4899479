"""The compiled inner loops of the privacy-budget page: the optimal composition's pass
(:func:`dpviz.budget.releases.pure_composition_epsilon`), the trade-off curve's search
(:func:`monotone_max`, for :func:`dpviz.budget.releases.tradeoff_from_deltas`) and a composed
PLD's sums from the top (:func:`top_sums`, :func:`top_stops`, for :mod:`dpviz.budget.pld`) and
its transform's power (:func:`power_kept`).

δ(ε) of k ε₀-DP releases is A_m − e^ε·B_m on the loss segment [L_{m−1}, L_m), with A_m = P(L ≥ L_m)
and B_m = E[e^{−L}; L ≥ L_m] summed from the top of the binomial down. δ falls with ε, so one
pass from the top down finds the crossing of a target δ: at each loss value the sums of the terms
above it give δ there, and the pass stops at the first loss where δ is above the target, the
crossing being the segment just above it; the terms below it are never read. The same sums in the
same order as the array route (:func:`dpviz.budget.releases._tails`, ``cumsum`` and
``logaddexp.accumulate`` from the top), so the same answer up to the last bits of ``exp`` and
``log1p``, which NumPy may take from vector instructions (tested to 10⁻¹³).

Written with numba because the pass stops where the crossing is: at 10⁵ releases and δ = 10⁻⁵
it reads some 700 of a window of 2,000 terms, each needing its log-pmf, and NumPy's route read
the window whole a dozen times (one array operation each).
"""

from __future__ import annotations

import math

import numba
import numpy as np

_JIT = dict(cache=True, nogil=True)  # compiled once per installation (python -m dpviz build does it)


@numba.njit(**_JIT)
def _logaddexp(x, y):
    """NumPy's ``logaddexp`` (npy_logaddexp), operation for operation."""
    if x == y:
        return x + math.log(2.0)
    tmp = x - y
    if tmp > 0:
        return x + math.log1p(math.exp(-tmp))
    if tmp <= 0:
        return y + math.log1p(math.exp(tmp))
    return tmp  # NaN


@numba.njit(**_JIT)
def crossing(epsilon0, k, delta, coefficients, low, start, top, trimmed):
    """The optimal composition's ε at ``delta`` from the terms j = ``start`` … ``top`` of the
    binomial (log C(k, j) in ``coefficients`` from j = ``low``): the ε of the loss segment where δ
    crosses ``delta``, 0 where δ(0) already meets it; NaN when ``trimmed`` (the terms begin above
    the lowest positive loss) and the crossing may lie below them."""
    p = 1.0 / (1.0 + math.exp(-epsilon0))
    log_p = math.log(p)
    log_q = math.log1p(-p)
    tail = 0.0  # A over the terms above the current one
    log_b = -math.inf  # log B over the same terms
    upper = epsilon0 * (2 * top - k)  # L_m of the segment found so far
    i = top
    while i >= start:
        loss = epsilon0 * (2 * i - k)
        x = loss if loss > 0.0 else 0.0
        if i < top:
            d = min(tail, 1.0) - math.exp(x + log_b)
            d = min(max(d, 0.0), 1.0)
        else:
            d = 0.0  # above the highest loss: no mass left
        if d > delta:  # δ at L_i is above the target: the crossing is the segment (L_i, L_{i+1}]
            eps = math.log(max(min(tail, 1.0) - delta, 1e-300)) - log_b
            return min(max(eps, x), upper)
        if loss <= 0.0:  # δ(0) itself meets the target
            return 0.0
        upper = loss
        j = float(i)
        logp = coefficients[i - low]
        if i > 0:
            logp += j * log_p
        if k - i > 0:
            logp += (k - j) * log_q
        tail += math.exp(logp)
        log_b = logp - loss if log_b == -math.inf else _logaddexp(log_b, logp - loss)
        i -= 1
    # δ met at every loss read, all of them positive: the terms begin above the lowest positive loss
    if trimmed:
        return math.nan
    d0 = min(max(min(tail, 1.0) - math.exp(log_b), 0.0), 1.0)  # δ(0), the first term's segment
    if d0 <= delta:
        return 0.0
    eps = math.log(max(min(tail, 1.0) - delta, 1e-300)) - log_b
    return min(max(eps, 0.0), upper)


@numba.njit(**_JIT)
def _log_pmf(coefficients, low, k, j, log_p, log_q):
    """log Binomial(k, p)(j) from log C(k, j) (kept from j = ``low``): SciPy's xlogy and xlog1py terms
    (each 0 where its count is 0), as :func:`crossing` sums them."""
    out = coefficients[j - low]
    if j > 0:
        out += j * log_p
    if k - j > 0:
        out += (k - j) * log_q
    return out


@numba.njit(**_JIT)
def mass_window(epsilon0, k, low, delta, coefficients, below_mode, delta_cut, mass_cut):
    """(start, top): the j of the binomial :func:`crossing` reads at ``delta``
    (:func:`dpviz.budget.releases._mass_window`, whose steps these are, compiled: its log-pmf's
    scalar SciPy calls were half of an optimal composition's ε at k ≥ 1,000)."""
    p = 1.0 / (1.0 + math.exp(-epsilon0))
    log_p, log_q = math.log(p), math.log1p(-p)
    mode = min(k, int(math.floor((k + 1) * p)))
    spread = math.sqrt(k * p * (1.0 - p))
    cut = max(math.log(delta) - delta_cut if delta > 0 else -math.inf, -mass_cut) - math.log(k + 1.0)
    drop = max(_log_pmf(coefficients, low, k, mode, log_p, log_q) - cut, 1.0)
    top = min(k, mode + int(math.ceil(1.2 * math.sqrt(2.0 * drop) * spread)) + 2)
    while top < k and _log_pmf(coefficients, low, k, top, log_p, log_q) >= cut:
        top = min(k, mode + 2 * (top - mode))
    start = max(low, mode - int(below_mode * spread) - 2)
    return start, top


@numba.njit(**_JIT)
def monotone_max(intercept, slope, alpha, rising):
    """max over i of intercept_i − slope_i·α at each α of ``alpha`` (ascending), NaN lines never
    the maximum, where the slopes rise with i (``rising``: the maximiser falls as α grows) or fall
    (it rises): divide and conquer on α, each α's maximiser sought between those of its
    neighbours. The search of :func:`dpviz.budget.releases._monotone_max_numpy` step for step (the
    same lines read, the same arithmetic: the same maxima to the bit, tested), without a NumPy
    call per α (5 ms a curve of 145 α's, most of it calls)."""
    n = alpha.size
    out = np.full(n, -np.inf)
    stack = np.empty((2 * n + 2, 4), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, n - 1, 0, intercept.size - 1
    depth = 1
    while depth > 0:
        depth -= 1
        lo, hi, first, last = stack[depth, 0], stack[depth, 1], stack[depth, 2], stack[depth, 3]
        if lo > hi:
            continue
        mid = (lo + hi) // 2
        top = -np.inf
        low_i, high_i = -1, -1
        for j in range(first, last + 1):
            v = intercept[j] - slope[j] * alpha[mid]
            if v != v:  # NaN: never the maximum
                v = -np.inf
            if v > top:
                top, low_i, high_i = v, j, j
            elif v == top:
                if low_i < 0:
                    low_i = j
                high_i = j
        out[mid] = top
        if low_i < 0:  # (no line at all)
            low_i, high_i = first, last
        # a smaller α's maximiser is at or above this one's where the slopes rise, at or below where they fall
        left_first, left_last = (low_i, last) if rising else (first, high_i)
        right_first, right_last = (first, high_i) if rising else (low_i, last)
        stack[depth, 0], stack[depth, 1], stack[depth, 2], stack[depth, 3] = lo, mid - 1, left_first, left_last
        stack[depth + 1, 0], stack[depth + 1, 1] = mid + 1, hi
        stack[depth + 1, 2], stack[depth + 1, 3] = right_first, right_last
        depth += 2
    return out


BLOCK = 64
"""Losses per block of the sums from the top (:func:`top_sums`, :func:`top_stops`,
:func:`scan_from_top`): e^{∓ℓ} at a block's losses is e^{∓ℓ₀}, ℓ₀ its top loss, times e^{±i·h}."""
IN_RANGE = 600.0
"""A block whose losses all lie within ±this has e^{∓ℓ} by the block's product; outside (e^{±ℓ}
near overflow or below the normal numbers) by an exponential per loss, as NumPy's route had it."""


@numba.njit(**_JIT)
def _steps(interval):
    """e^{i·h} and e^{−i·h} for i = 0 … BLOCK − 1."""
    up = np.empty(BLOCK)
    down = np.empty(BLOCK)
    for i in range(BLOCK):
        up[i] = math.exp(i * interval)
        down[i] = math.exp(-i * interval)
    return up, down


@numba.njit(**_JIT)
def _loss(lower, n, interval, j):
    """The j-th loss from the top, ℓ_j = (lower + n − 1 − j)·h (``LossPmf.losses[::-1]``)."""
    return (lower + n - 1 - j) * interval


@numba.njit(**_JIT)
def _block(lower, n, interval, j0):
    """The block of losses j0 … j0 + BLOCK − 1 from the top: whether they all lie within
    ±IN_RANGE, and e^{−ℓ₀} and e^{ℓ₀} at its top loss ℓ₀ (the latter 0 outside the range)."""
    top = _loss(lower, n, interval, j0)
    bottom = _loss(lower, n, interval, min(j0 + BLOCK, n) - 1)
    blocked = top <= IN_RANGE and bottom >= -IN_RANGE
    return blocked, math.exp(-top), math.exp(top) if blocked else 0.0


@numba.njit(**_JIT)
def _exp_minus(blocked, base_down, up, i, loss):
    """e^{−ℓ} at the i-th loss of a block: the block's product, else an exponential of its own."""
    return base_down * up[i] if blocked else math.exp(-loss)


@numba.njit(**_JIT)
def _delta_at(u, w, blocked, base_up, down, i, loss):
    """δ(ℓ) = U − e^{ℓ}·W at the i-th loss of a block (W > 0): e^{ℓ} the block's product, else
    e^{ℓ + log W} (no overflow where e^{ℓ} alone would)."""
    return u - base_up * down[i] * w if blocked else u - math.exp(loss + math.log(w))


@numba.njit(**_JIT)
def top_sums(probs, lower, interval, infinity):
    """A PLD's U_j and W_j (:class:`dpviz.budget.pld.LossPmf`): p_∞ plus the masses of the j top
    losses, and the sum of p_i·e^{−ℓ_i} over them. The sums of NumPy's ``cumsum`` in the same
    order (from p_∞, the top loss first) in one pass, e^{−ℓ} by blocks (:data:`BLOCK`: e^{−ℓ₀}
    times e^{i·h}, the same to a unit or two in the last place) where the array route made four
    arrays of the window and an exponential per loss (a composed PLD holds some 50,000 losses,
    and a chart along k reads 91 of them, twice each with the tilted tail: the arithmetic 1.8 →
    0.1 ms, and the two arrays' first use of fresh memory as much again or more)."""
    n = probs.size
    u = np.empty(n + 1)
    w = np.empty(n + 1)
    u[0] = infinity
    w[0] = 0.0
    up, _ = _steps(interval)
    for j0 in range(0, n, BLOCK):
        blocked, base_down, _ = _block(lower, n, interval, j0)
        for j in range(j0, min(j0 + BLOCK, n)):
            p = probs[n - 1 - j]
            u[j + 1] = u[j] + p
            w[j + 1] = w[j] + p * _exp_minus(blocked, base_down, up, j - j0, _loss(lower, n, interval, j))
    return u, w


@numba.njit(**_JIT)
def top_stops(lower, interval, u, w):
    """For a PLD's ε(δ) (:meth:`dpviz.budget.pld.LossPmf.epsilon`): the running maxima from the top
    of δ(ℓ_j) = U_j − e^{ℓ_j}·W_j where W_j > 0 (−∞ elsewhere; :func:`_delta_at`), and of U_{j+1}
    where W_{j+1} = 0 (−∞ elsewhere); NumPy's ``maximum.accumulate`` of the same values in one pass."""
    n = u.size - 1
    reached = np.empty(n)
    flat = np.empty(n)
    most, most_flat = -np.inf, -np.inf
    _, down = _steps(interval)
    for j0 in range(0, n, BLOCK):
        blocked, _, base_up = _block(lower, n, interval, j0)
        for j in range(j0, min(j0 + BLOCK, n)):
            if w[j] > 0:
                at_loss = _delta_at(u[j], w[j], blocked, base_up, down, j - j0, _loss(lower, n, interval, j))
                if at_loss > most:
                    most = at_loss
            reached[j] = most
            if w[j + 1] == 0 and u[j + 1] > most_flat:
                most_flat = u[j + 1]
            flat[j] = most_flat
    return reached, flat


@numba.njit(**_JIT)
def scan_from_top(probs, lower, interval, infinity, delta):
    """One ε(δ) reading without the arrays (:meth:`dpviz.budget.pld.LossPmf.epsilon`): from the top
    loss down, U_j and W_j summed as :func:`top_sums` sums them, stopping at the first j where
    δ(ℓ_j) ≥ δ (W_j > 0, δ(ℓ_j) as :func:`top_stops` has it), or where U_{j+1} ≥ δ with W_{j+1} = 0
    (the flat stop), whichever comes first: the indices ``searchsorted`` finds in
    :func:`top_stops`'s running maxima, from the same values. Returns (j, flat, U_j, W_j, ℓ_j):
    ``flat`` 1 for a flat stop, and j = N with U_N, W_N where neither comes. It reads only the
    losses above the answer (a quarter of a window at δ = 10⁻⁵), where the arrays cost the whole
    window."""
    n = probs.size
    u = infinity
    w = 0.0
    up, down = _steps(interval)
    for j0 in range(0, n, BLOCK):
        blocked, base_down, base_up = _block(lower, n, interval, j0)
        for j in range(j0, min(j0 + BLOCK, n)):
            loss = _loss(lower, n, interval, j)
            if w > 0 and _delta_at(u, w, blocked, base_up, down, j - j0, loss) >= delta:
                return j, 0, u, w, loss
            p = probs[n - 1 - j]
            u = u + p
            w = w + p * _exp_minus(blocked, base_down, up, j - j0, loss)
            if w == 0 and u >= delta:
                return j, 1, u, w, loss
    return n, 0, u, w, 0.0


@numba.njit(**_JIT)
def rdp_epsilon(orders, rdp, delta):
    """:func:`dpviz.budget.accountants.rdp_to_epsilon` in one pass over the orders: 0 where some
    order's divergence is negative or meets the KL bound (δ² + e^{−ε_α} − 1 > 0), else the least over
    the orders α > 1.01 of ε_α + log(1 − 1/α) − log(δ·α)/(α − 1), never below 0; an order whose
    bound is NaN is passed over. The array route made a dozen arrays of the 155 orders for each
    answer (88 µs; the δ chart along k asks for 2,000)."""
    n = orders.size
    for i in range(n):
        if rdp[i] < 0 or delta * delta + math.expm1(-rdp[i]) > 0:
            return 0.0
    best = np.inf
    for i in range(n):
        a = orders[i]
        if a > 1.01:
            bound = rdp[i] + math.log1p(-1 / a) - math.log(delta * a) / (a - 1)
            if bound < best:
                best = bound
    return max(0.0, best)


@numba.njit(**_JIT)
def power_kept(spectrum, k, threshold):
    """z^k for each value z of ``spectrum`` with |z|² ≥ ``threshold``, 0 elsewhere, in one pass: the
    power by binary exponentiation (squarings and products, the route NumPy takes below k = 100),
    where NumPy's power of a complex array from k = 100 on takes exp(k·log z) a value (15 ms for
    40,000 values: a Laplace composition's transform, all of whose values count up to some hundreds
    of releases). The relative rounding of either route is about k·10⁻¹⁶ (each squaring doubles the
    base's; tested against extended precision)."""
    out = np.zeros_like(spectrum)
    for i in range(spectrum.size):
        z = spectrum[i]
        if z.real * z.real + z.imag * z.imag >= threshold:
            result = 1.0 + 0.0j
            base = z
            n = k
            while n > 0:
                if n & 1:
                    result = result * base
                n >>= 1
                if n:
                    base = base * base
            out[i] = result
    return out


@numba.njit(**_JIT)
def tail_merge(probs, tilted, start, length, k_log_m, theta):
    """The composed masses ``probs`` (at the indices start, start + 1, …) with the tilted
    composition's taken where its rounding is smaller (:meth:`dpviz.budget.pld.LossPmf._upper_tail`):
    at index j the tilted mass is ``tilted[j mod length]``·e^{f_j}, f_j = k·log M(θ) − θ·j the tilt
    undone, and it is taken where f_j + log max|tilted| < log max|probs| (each composition's rounding
    is about the same share of its own largest mass). The gather, the comparison and the product in
    one pass, where NumPy made five arrays of the window."""
    n = probs.size
    top_tilted = 0.0
    top_plain = 0.0
    for i in range(n):
        a = abs(tilted[(start + i) % length])
        if a > top_tilted:
            top_tilted = a
        b = abs(probs[i])
        if b > top_plain:
            top_plain = b
    if top_tilted == 0.0 or top_plain == 0.0:  # (nothing to compare: the masses as they are)
        return probs.copy()
    log_tilted, log_plain = math.log(top_tilted), math.log(top_plain)
    out = np.empty(n)
    for i in range(n):
        f = k_log_m - theta * (start + i)
        if f + log_tilted < log_plain:
            out[i] = tilted[(start + i) % length] * math.exp(f)
        else:
            out[i] = probs[i]
    return out


def compile_now() -> None:
    """Compile (or load from numba's cache) by running once on a small case."""
    monotone_max(np.zeros(2), np.ones(2), np.zeros(2), True)
    coefficients = np.zeros(3)
    crossing(0.5, 2, 1e-5, coefficients, 0, 0, 2, False)
    mass_window(0.5, 2, 0, 1e-5, coefficients, 5.0, 69.1, 690.8)
    u, w = top_sums(np.array([0.5, 0.5]), 0, 1.0, 0.0)
    top_stops(0, 1.0, u, w)
    scan_from_top(np.array([0.5, 0.5]), -1, 1.0, 0.0, 0.1)
    rdp_epsilon(np.array([2.0, 3.0]), np.array([0.1, 0.2]), 1e-5)
    power_kept(np.ones(2, dtype=complex), 3, 0.5)
    tail_merge(np.array([0.5, 0.5]), np.array([0.5, 0.5]), 0, 2, 0.0, 0.1)
