"""The HoHo attack's statistics computed exactly, with no sampling (Salem & Zanella-Beguelin
2021; docs/formulas.md, section 3).

(ε, λ) enter OME only through the flip probabilities: a clean 1 at an attacked position stays
1 with probability p (OME's even bits: p1 = λ/(1+λ); SUE/OUE: their p) and a clean 0 turns
into 1 with probability q. The HoHo score of one encoding of sentence s against target t is
the number of attacked positions where the encoding equals t's clean bit. Position by
position that agreement is a Bernoulli variable whose probability depends only on the pair
of clean bits (s_i, t_i):

    (1, 1): p     (0, 1): q     (1, 0): 1 - p     (0, 0): 1 - q,

so the score is a sum of four independent binomials whose sizes are the counts of the four
classes, fixed by the plaintexts. Those counts are the (ε, λ)-free state (:func:`attack_counts`);
for any (ε, λ) the score distribution of the target's own encodings (X, classes (1,1) and
(0,0) only) and of every other sentence's encoding (Y_j) follow exactly, and with them

- the expected linking AUC of a target, (1/N) sum_j P[X > Y_j] + P[X = Y_j]/2, which is what the
  simulated AUC (a Mann-Whitney statistic over the target's encodings and one encoding of every
  other sentence) estimates without bias;
- the ROC curve: TPR(θ) = P[X >= θ], FPR(θ) = (1/N) sum_j P[Y_j >= θ];
- the expected reconstruction accuracy of a sentence, (ones p + zeros (1 - q)) / positions.

Each pmf is the coefficient list of prod_c (1 - p_c + p_c z)^(n_c), known by its values on the
K = positions + 1 roots of unity (the support 0..positions fits, so there is no wrap-around): the
AUC is taken between those values (Parseval), the ROC's rates from one inverse FFT each, and no
pair's pmf is ever written out (the values, summed per target, come from the compiled pass of
:mod:`dpviz.papers.hoho.kernels`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from dpviz.errors import InputError
from dpviz.papers.hoho import ome
from dpviz.stats import stream


@dataclass(frozen=True)
class SumPlan:
    """The counts' part of :func:`dpviz.papers.hoho.kernels.attack_transforms`, the same at every
    (ε, λ): each class's counts that occur (its pairs', and for classes 11 and 00 the targets' own),
    sorted, one after another (``counts``, class c at ``starts[c]:starts[c + 1]``); the distinct
    halves of the pairs' transforms as two rows of those counts, classes (11, 01) in ``first`` and
    (10, 00) in ``second``; per target t the distinct pairs of halves of its sentences,
    ``halves[bounds[t]:bounds[t + 1]]`` ((first, second) indices, sorted), each with its number of
    sentences (``weight``: the sentences' order is not kept, as their sum does not need it); and
    per target its own rows, classes 11 and 00 (``own``, (T, 2))."""

    counts: np.ndarray
    starts: np.ndarray
    first: np.ndarray
    second: np.ndarray
    halves: np.ndarray
    weight: np.ndarray
    bounds: np.ndarray
    own: np.ndarray


@dataclass(frozen=True)
class AttackCounts:
    """The (ε, λ)-free part of the attack on one corpus and mechanism."""

    mechanism: str
    positions: int  # attacked positions per encoding
    targets: np.ndarray  # (T,) sentence indices used as targets
    target_ones: np.ndarray  # (T,) clean ones of each target at the attacked positions
    pair_counts: np.ndarray  # (T, N-1, 4) class counts (11, 01, 10, 00) of every other sentence vs the target
    ones: np.ndarray  # (N,) clean ones of every sentence (reconstruction)
    r: int  # values per sentence (OME's budget is split over r*l bits)
    plan: SumPlan | None = None
    """:func:`sum_plan` of the counts, made once with them (every (ε, λ) reads it)."""

    def sum_plan(self) -> SumPlan:
        """:class:`SumPlan` of the counts (the one made with them, or made now)."""
        return self.plan if self.plan is not None else sum_plan(self.pair_counts, self.target_ones, self.positions)

    def distinct_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct count vectors of the pairs and, per pair, which one is its own."""
        return _unique_rows(self.pair_counts)


def sum_plan(pair_counts: np.ndarray, target_ones: np.ndarray, positions: int) -> SumPlan:
    """:class:`SumPlan` of the pairs' class counts (T, N − 1, 4) and the targets' clean ones (T,)."""
    pair_counts = np.asarray(pair_counts, dtype=np.int64)
    target_ones = np.asarray(target_ones, dtype=np.int64)
    own_counts = {0: target_ones, 3: positions - target_ones}
    found, rows = [], np.empty(pair_counts.shape, dtype=np.int64)
    own = np.empty((len(target_ones), 2), dtype=np.int64)
    start = 0
    for c in range(4):
        values = np.unique(np.concatenate([pair_counts[..., c].ravel(), own_counts.get(c, [])]).astype(np.int64))
        rows[..., c] = start + np.searchsorted(values, pair_counts[..., c])
        if c in own_counts:
            own[:, 0 if c == 0 else 1] = start + np.searchsorted(values, own_counts[c])
        found.append(values)
        start += len(values)
    first, first_of = _unique_rows(rows[..., :2])
    second, second_of = _unique_rows(rows[..., 2:])
    n_targets, per = first_of.shape
    # each target's (first, second) pairs, distinct and counted, in order of target, first, second
    key = (np.arange(n_targets)[:, None] * len(first) + first_of) * len(second) + second_of
    key, weight = np.unique(key, return_counts=True)
    target, pair = np.divmod(key, len(first) * len(second))
    return SumPlan(
        np.concatenate(found), np.r_[0, np.cumsum([len(f) for f in found])].astype(np.int64),
        np.ascontiguousarray(first, dtype=np.int64), np.ascontiguousarray(second, dtype=np.int64),
        np.ascontiguousarray(np.stack(np.divmod(pair, len(second)), axis=1), dtype=np.int64),
        weight.astype(np.float64), np.searchsorted(target, np.arange(n_targets + 1)).astype(np.int64), own,
    )  # fmt: skip


def clean_bits(vectors: np.ndarray, mechanism: str) -> np.ndarray:
    """The clean bits the attack compares (N, positions): OME's even bits (by global index), or
    every bit of the unary encoding for SUE/OUE (16 bins over the corpus range, as simulated)."""
    if mechanism == "ome":
        return ome.encode(vectors)[:, ::2]
    if mechanism in ("sue", "oue"):
        return ome.unary_encode(vectors, ome.UNARY_BINS, float(vectors.min()), float(vectors.max()) + 1e-9)
    raise InputError(f"mechanism must be one of {ome.MECHANISMS}, got {mechanism!r}")


def choose_targets(n: int, share: float, seed: int) -> np.ndarray:
    """The target sentences: round(share * n) of them (at least 1), drawn without replacement."""
    if not 0 < share <= 1:
        raise InputError(f"the share of targets must be in (0, 1], got {share}")
    k = max(1, int(round(share * n)))
    return np.sort(stream(seed, 3150).choice(n, size=k, replace=False))


def attack_counts(vectors: np.ndarray, mechanism: str, targets: np.ndarray) -> AttackCounts:
    """Class counts of every (target, other sentence) pair: the state every (ε, λ) is evaluated from."""
    bits = clean_bits(np.asarray(vectors, dtype=np.float64), mechanism).astype(np.int32)
    n, positions = bits.shape
    if n < 2:
        raise InputError("the linking attack needs at least two sentences")
    ones = bits.sum(1)
    t_bits = bits[targets]  # (T, P)
    both = t_bits @ bits.T  # (T, N): s = 1 and t = 1
    t_ones = ones[targets][:, None]
    s_ones = ones[None, :]
    c11 = both
    c01 = t_ones - both  # s = 0, t = 1
    c10 = s_ones - both  # s = 1, t = 0
    c00 = positions - c11 - c01 - c10
    counts = np.stack([c11, c01, c10, c00], axis=-1)  # (T, N, 4)
    others = np.ones((len(targets), n), dtype=bool)
    others[np.arange(len(targets)), targets] = False
    pair_counts = counts[others].reshape(len(targets), n - 1, 4)
    return AttackCounts(
        mechanism, positions, np.asarray(targets), ones[targets], pair_counts, ones, vectors.shape[1],
        sum_plan(pair_counts, ones[targets], positions),
    )  # fmt: skip


def flip_probabilities(mechanism: str, lam: float, epsilon: float, r: int) -> tuple[float, float]:
    """(p, q) at the attacked positions: OME keeps an even 1 with p1 = λ/(1+λ) and sets a 0 with
    q = 1/(1 + λ e^(ε/(r l))); SUE/OUE as :func:`dpviz.papers.hoho.ome.unary_probabilities` (λ unused)."""
    if mechanism == "ome":
        p1, _, q = ome.ome_probabilities(lam, epsilon, r * ome.L_BITS)
        return float(p1), float(q)
    p, q = ome.unary_probabilities(mechanism, epsilon, r)
    return float(p), float(q)


def class_tables(counts: np.ndarray, agree: np.ndarray, positions: int) -> tuple[list[np.ndarray], np.ndarray]:
    """The factors of :func:`score_transforms`, by NumPy (the reference the compiled route,
    :mod:`dpviz.papers.hoho.kernels`, is tested against): per class c, the table of f_c(z)^n
    (L_c, K // 2 + 1) for each count n that occurs in the class (f_c(z) = 1 - agree_c + agree_c z
    at the K = positions + 1 roots of unity, numpy's sign, first half), and per row of ``counts``
    (U, C) its count's row in each table. A table is exp(n log f_c), the complex exponential taken
    apart into real exp, cos and sin."""
    k = positions + 1
    half = k // 2 + 1
    z = np.exp(-2j * np.pi * np.arange(half) / k)
    factor = (1 - agree)[:, None] + agree[:, None] * z[None, :]  # (C, half)
    logf = np.log(np.where(np.abs(factor) < 1e-300, 1e-300, factor))  # a zero factor: p = 1/2 at z = -1
    counts = np.asarray(counts)
    found, rows = [], np.empty(counts.shape, dtype=np.int64)
    for c in range(counts.shape[-1]):
        values, rows[:, c] = np.unique(counts[:, c], return_inverse=True)
        found.append(values)
    n = np.concatenate(found).astype(np.float64)[:, None]
    of = np.repeat(np.arange(len(found)), [len(f) for f in found])  # each level's class
    modulus, angle = np.exp(n * logf.real[of]), n * logf.imag[of]
    table = np.empty(angle.shape, dtype=np.complex128)  # factor_c ** n for each level n of each class
    np.multiply(modulus, np.cos(angle), out=table.real)
    np.multiply(modulus, np.sin(angle), out=table.imag)
    ends = np.cumsum([len(f) for f in found])
    return [table[end - len(f) : end] for f, end in zip(found, ends)], rows


def score_transforms(counts: np.ndarray, agree: np.ndarray, positions: int) -> np.ndarray:
    """The discrete Fourier transform (numpy's sign, first half: the pmf is real, the rest are
    conjugates) of the pmf over 0..positions of a sum of independent binomials, counts (U, C)
    trials with success probabilities agree (C,): the generating function at the K = positions + 1
    roots of unity z, prod_c f_c(z)^(n_c) with f_c(z) = 1 - agree_c + agree_c z, each row the
    product of its rows of the class tables (:func:`class_tables`), classes taken in order."""
    tables, levels = class_tables(counts, agree, positions)
    values = tables[0][levels[:, 0]]
    for c in range(1, len(tables)):
        values *= tables[c][levels[:, c]]
    return values


def score_pmfs(counts: np.ndarray, agree: np.ndarray, positions: int) -> np.ndarray:
    """pmf over 0..positions of a sum of independent binomials: counts (U, C) trials with
    success probabilities agree (C,), read off by one inverse FFT of :func:`score_transforms`
    (the support 0..positions fits: no wrap-around). Exact up to floating-point rounding (~1e-15).
    The NumPy route of one pmf per row; the attack's own route is :func:`_score_distributions`."""
    pmf = np.fft.irfft(score_transforms(counts, agree, positions), n=positions + 1, axis=-1)
    return np.maximum(pmf, 0.0, out=pmf)


def _unique_rows(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct count vectors of ``counts`` (..., C) and, per vector, its index among them: the
    pairs of a unary encoding (SUE, OUE) share a handful (their counts follow from the number of
    values in the same bin), so each pmf is computed once."""
    flat = np.asarray(counts).reshape(-1, counts.shape[-1])
    uniq, inverse = np.unique(flat, axis=0, return_inverse=True)
    return uniq, inverse.reshape(counts.shape[:-1])


def _score_distributions(counts: AttackCounts, lam: float, epsilon: float):
    """The flip probabilities (p, q), the roots of unity z (K // 2 + 1,), the transform X_t of each
    target's own score pmf (T, K // 2 + 1; numpy's sign, first half) and, per target, the sum S_t
    of the transforms of its N − 1 pairs' score pmfs (the same shape), both from
    :func:`dpviz.papers.hoho.kernels.attack_transforms`: what both the AUC alone and the whole
    attack start from."""
    from dpviz.papers.hoho import kernels  # (lazy: numba, which `dpviz figure --list` need not load)

    p, q = flip_probabilities(counts.mechanism, lam, epsilon, counts.r)
    z = _roots(counts.positions + 1)
    plan = counts.sum_plan()
    sums, own = kernels.attack_transforms(
        np.array([p, q, 1 - p, 1 - q]), z, plan.counts, plan.starts, plan.first, plan.second,
        plan.halves, plan.weight, plan.bounds, plan.own,
    )  # fmt: skip
    return p, q, z, own, sums


@functools.lru_cache(maxsize=8)
def _roots(k: int) -> np.ndarray:
    """z = e^(−2πi j/K), j = 0 … K // 2 (numpy's sign, first half), read-only."""
    z = np.exp(-2j * np.pi * np.arange(k // 2 + 1) / k)
    z.setflags(write=False)
    return z


@functools.lru_cache(maxsize=8)
def _dot_weights(k: int) -> np.ndarray:
    """Parseval over a real sequence's half spectrum: sum_y a(y) b(y) = (1/K) sum_k w_k Re(A_k
    conj(B_k)), w = 1 at frequency 0 (and at K/2 for an even K), 2 elsewhere."""
    w = np.full(k // 2 + 1, 2.0)
    w[0] = 1.0
    if k % 2 == 0:
        w[-1] = 1.0
    w /= k
    w.setflags(write=False)
    return w


def _auc_per_target(counts: AttackCounts, p: float, q: float, z: np.ndarray, own: np.ndarray, sums: np.ndarray):
    """mean_j P[X > Y_j] + P[X = Y_j]/2 per target: the mean of its pairs' pmfs dotted with one
    weight per score, w(y) = P[X > y] + P[X = y]/2, taken between the transforms (Parseval), with
    the sum S_t of the target's pair transforms, so no pmf is transformed back. The weights'
    transform follows from X's: P[X ≥ y] summed against z^y is Σ_x P[X = x]·(1 − z^(x+1))/(1 − z)
    = (1 − z·X(z))/(1 − z) at z ≠ 1, and 1 + E[X] at z = 1, E[X] = ones·p + zeros·(1 − q). Taken
    in the compiled loop (:func:`dpviz.papers.hoho.kernels.transform_aucs`) that :func:`exact_auc`
    runs too, so the two agree to the last bit."""
    from dpviz.papers.hoho import kernels  # (lazy: numba, which `dpviz figure --list` need not load)

    return kernels.transform_aucs(sums, own, z, p, q, *_auc_constants(counts))


def _auc_constants(counts: AttackCounts) -> tuple:
    """What every AUC of these counts shares: each target's clean ones, the positions, the pairs per
    target (N − 1) and Parseval's weights."""
    k = counts.positions + 1
    return (
        np.asarray(counts.target_ones, dtype=np.int64),
        counts.positions,
        float(counts.pair_counts.shape[1]),
        _dot_weights(k),
    )


def flips_along(counts: AttackCounts, lam: float, epsilons) -> tuple[np.ndarray, np.ndarray]:
    """(p, q) of :func:`flip_probabilities` at each ε of ``epsilons``, as two arrays (M,)."""
    flips = [flip_probabilities(counts.mechanism, lam, float(e), counts.r) for e in epsilons]
    return np.array([f[0] for f in flips], dtype=float), np.array([f[1] for f in flips], dtype=float)


def exact_auc(counts: AttackCounts, lam: float, epsilon: float) -> np.ndarray:
    """The expected AUC per target alone (what :func:`exact_attack` gives as ``auc``, without the
    ROC curve and the reconstruction), by the compiled pass that also takes its dot products
    (:func:`exact_auc_many` at one ε)."""
    return exact_auc_many(counts, lam, (epsilon,))[0]


def exact_auc_many(counts: AttackCounts, lam: float, epsilons) -> np.ndarray:
    """:func:`exact_auc` at each ε of ``epsilons`` (M,), (M, T): :func:`aucs_at` their flip probabilities."""
    return aucs_at(counts, *flips_along(counts, lam, epsilons))


def aucs_at(counts: AttackCounts, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The expected AUC per target (M, T) at the flip probabilities (p, q) (M,) each, in one
    compiled call (:func:`dpviz.papers.hoho.kernels.attack_aucs`): the same numbers as one setting
    at a time to the last bit, for a curve along ε (the frontier's, at each λ); its dot products
    are :func:`_auc_per_target`'s loop."""
    from dpviz.papers.hoho import kernels  # (lazy: numba, which `dpviz figure --list` need not load)

    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    plan = counts.sum_plan()
    return kernels.attack_aucs(
        np.stack([p, q, 1 - p, 1 - q], axis=1), _roots(counts.positions + 1), plan.counts, plan.starts, plan.first,
        plan.second, plan.halves, plan.weight, plan.bounds, plan.own, *_auc_constants(counts),
    )  # fmt: skip


def exact_attack(counts: AttackCounts, lam: float, epsilon: float) -> dict[str, np.ndarray | float]:
    """Expected AUC per target, expected reconstruction accuracy per sentence and the ROC curve
    averaged over targets at every score threshold, for one (ε, λ).

    The ROC's false-positive rate at θ, mean over targets t and their pairs j of P[Y_tj >= θ], is
    the survival function of one pmf, the mean of all (t, j) pairs' pmfs: its transform is the sum
    of the targets' S_t over T (N - 1), so no pmf is gathered per pair."""
    # (no BLAS product is taken here: the compiled pass, FFTs and elementwise NumPy round the same
    # from every caller, a visitor's run, a frames worker or the command line, whatever their threads)
    p, q, z, own, sums = _score_distributions(counts, lam, epsilon)
    auc = _auc_per_target(counts, p, q, z, own, sums)
    k = counts.positions + 1
    px = np.fft.irfft(own, n=k, axis=-1)  # (T, K): each target's own score pmf
    np.maximum(px, 0.0, out=px)
    pairs = counts.pair_counts.shape[1]
    mean_y = np.fft.irfft(sums.sum(axis=0) / (len(sums) * pairs), n=k)  # (K,): the pairs' mean pmf
    tpr = np.cumsum(px[:, ::-1], axis=1)[:, ::-1]  # P[X >= θ], θ = 0..positions
    fpr = np.cumsum(mean_y[::-1])[::-1]  # mean_tj P[Y_tj >= θ]
    recon = (counts.ones * p + (counts.positions - counts.ones) * (1 - q)) / counts.positions
    return {
        "auc": auc,
        "reconstruction": recon,
        "tpr": np.clip(tpr.mean(0), 0.0, 1.0),
        "fpr": np.clip(fpr, 0.0, 1.0),
        "p": p,
        "q": q,
    }
