"""Optimized Multiple Encoding (OME; Lyu et al., SIGIR 2020) and the HoHo attack on it
(Salem & Zanella-Beguelin 2021; docs/formulas.md, section 3).

Encoding, exactly as the reference code (lingjuanlv/Differentially-Private-Text-Representations,
``float_to_binary``): k = round(x * 2^n) (Python's round: half to even), written with
``'{:0{w}b}'.format(k, m + n)`` and the minus sign replaced by '1'. So with m = 6, n = 5 (l = 11):
a value k >= 0 is its 11-bit binary; k < 0 is '1' followed by |k| in 10 bits; a positive value
with k >= 1024 (x >= 32) sets the leading bit too, so it reads back as negative (the quirk), and
k >= 2048 or k <= -1024 do not fit in 11 characters (the reference fails; dpviz refuses them).
One sentence vector of r = 50 values is r * l = 550 bits.

Perturbation of bit j (j the global index in the vector): a 1 stays 1 with p1 = lambda/(1+lambda)
if j is even, p2 = 1/(1+lambda^3) if j is odd; a 0 becomes 1 with q = 1/(1 + lambda e^(eps/(r l))).

HoHo: the even 1-bits survive with probability lambda/(1+lambda), so the even bits of an encoding
are a near copy of the plaintext's; the score of an encoding s against a plaintext t is the share
of even positions where s equals encode(t). The true privacy loss is at least r l ln(lambda)
(Sec. 3.2: worst-case ratio lambda^(r l) e^(eps/2)), not eps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpviz.errors import InputError
from dpviz.processes import one_numpy_blas_thread

M_BITS, N_BITS = 6, 5
L_BITS = M_BITS + N_BITS


def encode_values(x, m: int = M_BITS, n: int = N_BITS) -> np.ndarray:
    """Bits (uint8, last axis of length m+n) of each value, as the reference code writes them."""
    l = m + n
    k = np.round(np.asarray(x, dtype=np.float64) * 2**n).astype(np.int64)  # numpy rounds half to even, like Python
    if np.any(k >= 2**l) or np.any(k <= -(2 ** (l - 1))):
        bad = np.asarray(x).ravel()[np.flatnonzero((k >= 2**l) | (k <= -(2 ** (l - 1))))[0]]
        raise InputError(
            f"value {bad:g} does not fit OME's {l}-bit encoding: round(x * 2^{n}) must lie in "
            f"[{-(2 ** (l - 1)) + 1}, {2**l - 1}]"
        )
    mag = np.abs(k)
    bits = ((mag[..., None] >> np.arange(l - 1, -1, -1)) & 1).astype(np.uint8)
    bits[..., 0] |= (k < 0).astype(np.uint8)
    return bits


def decode_values(bits, n: int = N_BITS) -> np.ndarray:
    """Inverse of :func:`encode_values` as the format reads: a leading 1 means minus. Values with
    round(x 2^n) >= 2^(l-1) (the overflow) therefore decode as negative."""
    bits = np.asarray(bits, dtype=np.int64)
    l = bits.shape[-1]
    rest = (bits[..., 1:] << np.arange(l - 2, -1, -1)).sum(-1)
    return np.where(bits[..., 0] == 1, -rest, rest) / 2**n


def encode(vectors: np.ndarray) -> np.ndarray:
    """(N, r) real vectors -> (N, r*l) bits."""
    v = np.atleast_2d(vectors)
    return encode_values(v).reshape(v.shape[0], -1)


def ome_probabilities(lam: float, epsilon: float, total_bits: int) -> tuple[float, float, float]:
    """(p1, p2, q) of OME: p1 = lambda/(1+lambda), p2 = 1/(1+lambda^3), q = 1/(1+lambda e^(eps/(r l))).

    ``total_bits`` is r l. At lambda = 1 an even 1-bit survives with probability 1/2 whatever ε:

    >>> p1, p2, q = ome_probabilities(1.0, 1e-9, 11)
    >>> p1, p2, round(q, 6)
    (0.5, 0.5, 0.5)
    """
    if not lam > 0 or not epsilon > 0:
        raise InputError(f"lambda and epsilon must be > 0, got lambda={lam}, epsilon={epsilon}")
    p1, p2, q = _probabilities(lam, epsilon, total_bits)
    return float(p1), float(p2), float(q)


def _probabilities(lam, epsilon, total_bits: int):
    """(p1, p2, q) of :func:`ome_probabilities`, unchecked, for numbers or arrays (broadcast)."""
    return lam / (1 + lam), 1 / (1 + lam**3), 1 / (1 + lam * np.exp(epsilon / total_bits))


def perturb_ome(bits: np.ndarray, lam: float, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """OME perturbation of (N, L) bits, vectorised (parity by global bit index)."""
    bits = np.asarray(bits, dtype=np.uint8)
    p1, p2, q = ome_probabilities(lam, epsilon, bits.shape[-1])
    keep = np.where(np.arange(bits.shape[-1]) % 2 == 0, p1, p2)
    prob_one = np.where(bits == 1, keep, q)
    return (rng.random(bits.shape) < prob_one).astype(np.uint8)


def perturb_ome_loop(bits, lam: float, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """The reference code's per-bit loop (the benchmark's baseline; same probabilities)."""
    bits = np.asarray(bits, dtype=np.uint8)
    p1, p2, q = ome_probabilities(lam, epsilon, bits.shape[-1])
    out = np.zeros_like(bits)
    for i in range(bits.shape[0]):
        for j in range(bits.shape[1]):
            u = rng.random()
            if bits[i, j] == 1:
                out[i, j] = 1 if u < (p1 if j % 2 == 0 else p2) else 0
            else:
                out[i, j] = 1 if u < q else 0
    return out


# --- SUE / OUE baselines on a unary encoding ---------------------------------------------------


def unary_encode(vectors: np.ndarray, bins: int, low: float, high: float) -> np.ndarray:
    """Each of the r values, clipped to [low, high] and cut into ``bins`` equal bins, becomes a
    one-hot block of ``bins`` bits: (N, r) -> (N, r*bins)."""
    v = np.atleast_2d(vectors)
    idx = np.clip(((np.clip(v, low, high) - low) / (high - low) * bins).astype(np.int64), 0, bins - 1)
    out = np.zeros((v.shape[0], v.shape[1], bins), dtype=np.uint8)
    np.put_along_axis(out, idx[..., None], 1, axis=-1)
    return out.reshape(v.shape[0], -1)


def unary_probabilities(scheme: str, epsilon: float, r: int) -> tuple[float, float]:
    """(p, q) with the budget split over r dimensions (eps' = eps / r per one-hot block):
    SUE (basic RAPPOR): p = e^(eps'/2)/(1+e^(eps'/2)), q = 1/(1+e^(eps'/2));
    OUE (Wang et al. 2017): p = 1/2, q = 1/(1+e^eps')."""
    e = epsilon / r
    if scheme == "sue":
        return np.exp(e / 2) / (1 + np.exp(e / 2)), 1 / (1 + np.exp(e / 2))
    if scheme == "oue":
        return 0.5, 1 / (1 + np.exp(e))
    raise InputError(f"scheme must be sue or oue, got {scheme!r}")


def perturb_unary(bits: np.ndarray, p: float, q: float, rng: np.random.Generator) -> np.ndarray:
    """Unary-encoding perturbation (SUE/OUE, Wang et al. 2017): each 1-bit reported as 1 with
    probability ``p``, each 0-bit with probability ``q``; returns a uint8 array shaped like ``bits``."""
    return (rng.random(bits.shape) < np.where(bits == 1, p, q)).astype(np.uint8)


# --- the HoHo attack -------------------------------------------------------------------------------


def hoho_score(encodings: np.ndarray, plaintext_bits: np.ndarray) -> np.ndarray:
    """Share of even positions where an encoding equals the plaintext's encoding (Algorithm 1)."""
    enc = np.atleast_2d(encodings)
    even = slice(0, enc.shape[-1], 2)
    return (enc[..., even] == np.asarray(plaintext_bits)[..., even]).mean(-1)


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """ROC AUC = P(score_pos > score_neg) + P(tie)/2 (Mann-Whitney U / (n1 n2), ties averaged)."""
    from scipy.stats import rankdata

    ranks = rankdata(np.concatenate([pos, neg]))
    n1, n2 = len(pos), len(neg)
    return float((ranks[:n1].sum() - n1 * (n1 + 1) / 2) / (n1 * n2))


def reconstruction_accuracy(perturbed: np.ndarray, original: np.ndarray) -> np.ndarray:
    """Per encoding: the share of even bits taken as they are that equal the original's."""
    return (perturbed[..., ::2] == original[..., ::2]).mean(-1)


def expected_reconstruction(original: np.ndarray, lam: float, epsilon: float) -> float:
    """Closed form: an even 1 survives with p1, an even 0 stays 0 with 1 - q."""
    p1, _, q = ome_probabilities(lam, epsilon, original.shape[-1])
    ones = original[..., ::2].mean()
    return float(ones * p1 + (1 - ones) * (1 - q))


# --- bounds ------------------------------------------------------------------------------------------


def hoho_bound(lam: float, epsilon: float, r: int, l: int = L_BITS) -> float:
    """HoHo's corrected bound (Sec. 3.2): r l ln(lambda) + eps/2.

    >>> hoho_bound(1.0, 2.0, r=50)            # lambda = 1: only the claimed part, halved
    1.0
    >>> round(hoho_bound(10.0, 1.0, r=1), 4)  # one value (11 bits) at lambda = 10: 11 ln 10 + 1/2
    25.8284
    """
    return float(r * l * np.log(lam) + epsilon / 2)


def loss_patterns(domain: np.ndarray, m: int = M_BITS, n: int = N_BITS, every: bool = False) -> np.ndarray:
    """How two inputs of one float can differ, as (P, 2l) 0/1 rows: the first l columns mark bits
    where a has 1 and a' has 0, the last l where a has 0 and a' has 1, over all ordered pairs of
    encodings of the values in ``domain`` (the (ε, λ)-free part of :func:`exact_worst_case`).

    ``every``: all the distinct rows (a few thousand for a range of hundreds of values; 37,941 for
    the page's default range). Otherwise only the rows that can be the worst case, which give the
    same :func:`exact_worst_cases` at every (λ, ε): a row's loss is a sum of its bits' weights, and
    the weight of a bit depends only on its column's half (up or down) and parity (p1 or p2 is kept
    by the bit's parity), and is never negative (the larger of log(k/q) and log((1-k)/(1-q)) is at
    least 0 for any k and q in (0, 1)). So a row's loss is c · w for its four counts c (up bits in
    even columns, up odd, down even, down odd) and four weights w >= 0, and a row whose counts are
    all at most another's, one of them less, is never the unique worst: one row is kept for each
    count vector that no other row's counts dominate (tens of rows; tested against every row)."""
    if len(domain) == 0:
        raise InputError("the input domain is empty: give at least one value")
    enc = encode_values(np.asarray(domain, dtype=np.float64), m, n).reshape(len(domain), -1).astype(np.int64)
    l = enc.shape[1]
    code = enc @ (1 << np.arange(l - 1, -1, -1))  # each encoding as an l-bit integer
    full = (1 << l) - 1
    up = code[:, None] & (~code[None, :] & full)  # a_j = 1, a'_j = 0
    down = (~code[:, None] & full) & code[None, :]  # a_j = 0, a'_j = 1
    pairs = np.unique((up << l) | down)
    rows = ((pairs[:, None] >> np.arange(2 * l - 1, -1, -1)) & 1).astype(np.float64)
    if every:
        return rows
    halves = rows.reshape(len(rows), 2, l)
    counts = np.concatenate([halves[:, :, 0::2].sum(-1), halves[:, :, 1::2].sum(-1)], axis=1)  # (P, 4)
    distinct, first = np.unique(counts, axis=0, return_index=True)
    at_least = np.all(distinct[:, None, :] >= distinct[None, :, :], axis=-1)  # [i, j]: i's counts >= j's
    dominated = np.any(at_least & ~np.eye(len(distinct), dtype=bool), axis=0)  # distinct rows: >= means >
    return rows[np.sort(first[~dominated])]


def exact_worst_case(
    lam: float,
    epsilon: float,
    domain: np.ndarray,
    r: int = 1,
    m: int = M_BITS,
    n: int = N_BITS,
    patterns: np.ndarray | None = None,
) -> float:
    """Exact worst-case privacy loss of OME over inputs in ``domain``^r, bit by bit.

    Bits are independent, so for inputs a, a' and any output the log-ratio is a sum over the bits
    where a and a' differ; its maximum over outputs is the sum of each bit's largest log-ratio in
    the direction of that difference. For one float the maximum runs over all ordered pairs of
    encodings of the values in ``domain`` (:func:`loss_patterns`, which may be passed in when
    many (ε, λ) share a domain). A vector of r floats takes the product domain, so its
    worst case is the sum of the per-float worst cases, and these are not all alike: OME picks
    p1 or p2 by the *global* bit index, so float i (bits i*l .. i*l + l - 1) keeps its even
    positions with p1 when i*l is even and its odd positions with p1 when i*l is odd. With
    l = 11 that gives ceil(r/2) * W_even + floor(r/2) * W_odd, where W_even (W_odd) is the
    one-float worst case starting on an even (odd) bit.
    """
    if patterns is None:
        patterns = loss_patterns(domain, m, n)
    return float(exact_worst_cases(lam, epsilon, patterns, r)[()])


def exact_worst_cases(lams, epsilons, patterns: np.ndarray, r: int = 1) -> np.ndarray:
    """:func:`exact_worst_case` at many (λ, ε) at once (broadcast together; the result has their
    shape), over the same :func:`loss_patterns`: each bit's largest log-ratio per setting as one
    column, and one product of the patterns with all the columns (the HoHo bounds chart asks for
    32 λ per frame, its frames along a slider for thousands)."""
    if int(r) != r or r < 1:
        raise InputError(f"r must be a whole number >= 1, got {r}")
    r = int(r)
    lam, eps = np.broadcast_arrays(np.asarray(lams, dtype=np.float64), np.asarray(epsilons, dtype=np.float64))
    shape, lam, eps = lam.shape, lam.ravel(), eps.ravel()
    if not (np.all(lam > 0) and np.all(eps > 0)):
        bad = np.flatnonzero(~((lam > 0) & (eps > 0)))[0]
        raise InputError(f"lambda and epsilon must be > 0, got lambda={lam[bad]:g}, epsilon={eps[bad]:g}")
    l = patterns.shape[1] // 2
    p1, p2, q = _probabilities(lam, eps, r * l)  # (M,) each
    worst = []
    with one_numpy_blas_thread():  # small products; one thread rounds the same from every caller
        for offset in (0, 1):
            keep = np.where(((offset + np.arange(l)) % 2 == 0)[:, None], p1[None, :], p2[None, :])  # (l, M)
            up = np.maximum(np.log(keep / q), np.log((1 - keep) / (1 - q)))  # a_j = 1, a'_j = 0
            down = np.maximum(np.log(q / keep), np.log((1 - q) / (1 - keep)))  # a_j = 0, a'_j = 1
            worst.append((patterns @ np.concatenate([up, down])).max(axis=0))
    odd_starts = int(np.sum((np.arange(r) * l) % 2))
    return ((r - odd_starts) * worst[0] + odd_starts * worst[1]).reshape(shape)


# --- the attack over a corpus -------------------------------------------------------------------

MECHANISMS = ("ome", "sue", "oue")
UNARY_BINS = 16


def attack_corpus(
    vectors: np.ndarray,
    mechanism: str,
    lam: float,
    epsilon: float,
    target_share: float,
    repeats: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Linking AUCs (one per target) and reconstruction accuracies (one per sentence).

    Linking (HoHo Sec. 4): a target sentence encoded ``repeats`` times among one encoding of
    every other sentence; the score of an encoding is its agreement with the target's clean
    encoding (even positions for OME, every position for the unary baselines); AUC of
    target-vs-others. Reconstruction: the perturbed bits taken as they are (even bits for OME).
    SUE/OUE use a unary encoding: each value cut into UNARY_BINS equal bins over the corpus range.
    """
    n = len(vectors)
    if mechanism == "ome":
        clean = encode(vectors)
        perturb = lambda b: perturb_ome(b, lam, epsilon, rng)  # noqa: E731
        positions = slice(0, clean.shape[1], 2)
    else:
        clean = unary_encode(vectors, UNARY_BINS, float(vectors.min()), float(vectors.max()) + 1e-9)
        p, q = unary_probabilities(mechanism, epsilon, vectors.shape[1])
        perturb = lambda b: perturb_unary(b, p, q, rng)  # noqa: E731
        positions = slice(None)
    one = perturb(clean)
    recon = (one[:, positions] == clean[:, positions]).mean(1)
    k = max(1, int(round(target_share * n)))
    targets = rng.choice(n, size=k, replace=False)
    aucs = np.empty(k)
    for i, t in enumerate(targets):
        reps = perturb(np.repeat(clean[t : t + 1], repeats, axis=0))
        pos = (reps[:, positions] == clean[t, positions]).mean(1)
        others = np.delete(np.arange(n), t)
        neg = (one[others][:, positions] == clean[t, positions]).mean(1)
        aucs[i] = auc(pos, neg)
    return aucs, recon


@dataclass(frozen=True)
class OMEFloat:
    """OME of a single float: 11 output bits (r = 1)."""

    lam: float
    epsilon: float

    def sample(self, x, n, rng):
        """``n`` OME encodings of the float ``x`` (11 bits each), perturbed: an (n, 11) float array."""
        bits = np.repeat(encode_values(float(x))[None, :], n, axis=0)
        return perturb_ome(bits, self.lam, self.epsilon, rng).astype(np.float64)
