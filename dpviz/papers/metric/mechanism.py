"""Metric DP over word embeddings: the multivariate Laplace mechanism with nearest-word
decoding, and its plausible-deniability statistics (Feyisetan et al. 2020;
docs/formulas.md, section 2).

Mechanism: M(w) = the vocabulary word nearest to phi(w) + z, with noise density
p(z) ~ exp(-epsilon ||z||_2). Sampling: z = r u, u uniform on the unit sphere (a normalised
standard normal vector), r ~ Gamma(shape d, scale 1/epsilon). We draw G ~ Gamma(d, 1) once
per draw and use r = G / epsilon for every epsilon (common random numbers), so one draw
is a ray p(t) = phi(w) + t u with t = G / epsilon.

Exact engine. ||phi(v) - p(t)||^2 = a_v - 2 t b_v + t^2 + const with a_v = ||phi(v) - phi(w)||^2
and b_v = u . (phi(v) - phi(w)) (docs/formulas.md, section 2). For t > 0 the nearest word maximises
2 t b_v - a_v, so it is Pareto-optimal in (small a, large b): no word has both a smaller
(or equal) a and a larger (or equal) b; a draw has a few dozen such words among 400,000. Per
block of draws: one pass of blocked float32 matrix multiplies U . phi^T over the matrix as stored
(the product any exact method needs; memory-mapped, never copied or reordered), a compiled scan
of each block that keeps a word only if it beats the best b of words surely closer
(:mod:`dpviz.papers.metric.kernels`), and the upper envelope of the few candidates' lines in
float64, which gives the output at every epsilon at once. Results equal brute-force search on
the same draws (ties, which have probability zero, go to the smaller word id).

Statistics per word over N draws: N_w = #{M(w) = w}; S_w = number of distinct outputs;
S_w^eta = size of the smallest set of outputs holding at least 1 - eta of the draws.
"""

from __future__ import annotations

import os
import re
import threading
import weakref
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from dpviz.build_once import file_lock
from dpviz.data.embeddings import Embedding
from dpviz.errors import InputError
from dpviz.lazy import LazyModule
from dpviz.progress import Progress, Steps
from dpviz.stats import stream
from dpviz.storage import cache_dir

kernels = LazyModule("dpviz.papers.metric.kernels")  # numba is imported on the engine's first use, not by --list
CHUNK = 4096  # at most this many vocabulary rows per block of the product (see CACHE_BYTES)
DRAW_BLOCK = 256
_COMPILED = threading.Event()
_COMPILING = threading.Lock()


def loops_ready() -> None:
    """Before a process first runs the engine's loops (and as the page's ``Paper.compiled``, for
    ``dpviz build`` and a warming frames worker): compile them, or load them from numba's
    cache beside the code, under a lock shared by every process on the cache directory
    (:func:`dpviz.build_once.file_lock`), so that two server processes starting on an empty numba
    cache do not both compile and write it; the second waits and loads what the first wrote."""
    if _COMPILED.is_set():
        return
    with _COMPILING:
        if _COMPILED.is_set():
            return
        _COMPILED.set()  # first: compile_engine runs the engine, which comes back here

        with file_lock(cache_dir() / "locks" / "metric-kernels.lock"):
            compile_engine()


def sample_directions_and_radii(dim: int, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """u: (n, dim) uniform on the unit sphere; G: (n,) ~ Gamma(dim, 1), so r = G/epsilon."""
    u = rng.standard_normal((n, dim))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return u, rng.gamma(shape=dim, scale=1.0, size=n)


def word_stream(seed: int, word_id: int) -> np.random.Generator:
    """Each word's draws come from (seed, word id): independent of which words run with it."""
    return stream(seed, 2020, int(word_id))


def _check_epsilons(epsilons) -> np.ndarray:
    eps = np.asarray(epsilons, dtype=float)
    if eps.ndim != 1 or eps.size == 0 or np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise InputError(f"epsilons must be finite numbers > 0, got {list(np.atleast_1d(eps))[:5]}")
    return eps


def nearest_words(emb: Embedding, word_id: int, u: np.ndarray, g: np.ndarray, epsilons) -> np.ndarray:
    """Exact M(w) for every draw (rows) and epsilon (columns), as vocabulary ids."""
    return draw_envelopes(emb, emb.row64(word_id), u, g, self_id=word_id).outputs(epsilons)


def nearest_words_from_point(
    emb: Embedding, point: np.ndarray, u: np.ndarray, g: np.ndarray, epsilons, self_id: int | None = None
) -> np.ndarray:
    """Exact nearest vocabulary word to point + (G/epsilon) u for every draw and epsilon.
    ``point`` may be any vector (e.g. a fastText subword vector of an unknown word)."""
    return draw_envelopes(emb, point, u, g, self_id=self_id).outputs(epsilons)


@dataclass(frozen=True)
class Envelopes:
    """Each draw's output for every epsilon at once: along the ray point + t u (t = G/epsilon)
    the nearest word changes only at a few breakpoints. Row i: the word ``winners[i, j]`` is
    nearest for t between ``breaks[i, j-1]`` and ``breaks[i, j]`` (from t = 0 for j = 0;
    unused breakpoints are +inf). Evaluating any epsilon is a comparison per breakpoint."""

    g: np.ndarray  # (n,) Gamma(d, 1) radii: t = g / epsilon
    breaks: np.ndarray  # (n, B) ascending, +inf padded
    winners: np.ndarray  # (n, B + 1) vocabulary ids, -1 padded
    _cosines: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _local: list = field(default_factory=list, init=False, repr=False, compare=False)

    def distinct(self) -> tuple[np.ndarray, np.ndarray]:
        """The envelope's distinct winners in ascending order (the padding's −1 among them if any)
        and :attr:`winners` as indices into them: made once, kept with the envelope."""
        if not self._local:
            ids, inverse = np.unique(self.winners, return_inverse=True)
            self._local.append((ids, np.ascontiguousarray(inverse.reshape(self.winners.shape), dtype=np.int64)))
        return self._local[0]

    def pieces(self, epsilons) -> np.ndarray:
        """Which piece of each draw's envelope holds at each epsilon: (draws, epsilons) column
        indices into :attr:`winners`: the number of the draw's breakpoints below t = G/ε, counted
        one breakpoint column at a time (a (draws, epsilons) count, not a (draws, epsilons,
        breakpoints) table summed: 2 ms against 0.6 ms a word over a slider's 65 ε)."""
        eps = _check_epsilons(epsilons)
        t = self.g[:, None] / eps[None, :]
        out = np.zeros(t.shape, dtype=np.int64)
        for k in range(self.breaks.shape[1]):
            out += self.breaks[:, k : k + 1] < t
        return out

    def outputs(self, epsilons) -> np.ndarray:
        """M(w) for every draw (rows) and epsilon (columns)."""
        return np.take_along_axis(self.winners, self.pieces(epsilons), axis=1)

    def winner_cosines(self, emb: Embedding, word_id: int) -> np.ndarray:
        """cos(phi(w), phi(v)) for every winner v of the envelope (:attr:`winners`' shape; NaN on
        the padding), with w = ``word_id``: one gather of the envelope's distinct winners, kept
        with the envelope. The cosine of a release is then read, not recomputed, at any epsilon,
        and is the same number to the last bit whether one epsilon or a slider's whole grid is asked
        (a matrix product over the releases of several epsilons need not be)."""
        kept = self._cosines.get(word_id)
        if kept is not None and kept[0]() is emb:
            return kept[1]
        ids, inverse = self.distinct()
        real = ids >= 0
        norms = np.sqrt(emb.sq_norms[ids[real]])
        dots = emb.row64(ids[real]) @ emb.row64(word_id)
        cos = np.full(ids.shape, np.nan)
        cos[real] = dots / np.maximum(norms * np.sqrt(emb.sq_norms[word_id]), np.finfo(float).tiny)
        out = cos[inverse]
        # (the embedding by a weak reference: an envelope kept in a memo neither holds it alive nor
        # has its vocabulary counted in the memo's bytes)
        self._cosines[word_id] = (weakref.ref(emb), out)
        return out


def envelopes_table(states: Mapping[int, Envelopes]) -> pd.DataFrame:
    """Words' envelopes as one long table (word, draw, g, j, t, winner), for the disk cache that
    server processes share: row (word, draw, j) says the draw's output is ``winner`` up to
    ``t = breaks[draw, j]`` (+inf for the last piece). :func:`envelopes_from_table` inverts it exactly."""
    parts = []
    for word, env in states.items():
        n, pieces = env.winners.shape
        t = np.concatenate([env.breaks, np.full((n, 1), np.inf)], axis=1)
        parts.append(
            pd.DataFrame(
                {
                    "word": np.full(n * pieces, int(word), dtype=np.int64),
                    "draw": np.repeat(np.arange(n, dtype=np.int64), pieces),
                    "g": np.repeat(env.g, pieces),
                    "j": np.tile(np.arange(pieces, dtype=np.int64), n),
                    "t": t.ravel(),
                    "winner": env.winners.ravel().astype(np.int64),
                }
            )
        )
    columns = {"word": "int64", "draw": "int64", "g": "float64", "j": "int64", "t": "float64", "winner": "int64"}
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=d) for c, d in columns.items()})
    return pd.concat(parts, ignore_index=True)


def envelopes_from_table(df: pd.DataFrame) -> dict[int, Envelopes]:
    """The words' :class:`Envelopes` back from :func:`envelopes_table`'s table (in its row order)."""
    out: dict[int, Envelopes] = {}
    words = df["word"].to_numpy()
    starts = np.flatnonzero(np.r_[True, words[1:] != words[:-1]]) if len(words) else np.array([], dtype=int)
    ends = np.r_[starts[1:], len(words)]
    for a, b in zip(starts, ends):
        part = df.iloc[a:b]
        pieces = int(part["j"].max()) + 1
        t = part["t"].to_numpy().reshape(-1, pieces)
        winners = part["winner"].to_numpy().reshape(-1, pieces)
        out[int(words[a])] = Envelopes(
            g=np.ascontiguousarray(part["g"].to_numpy()[::pieces]),
            breaks=np.ascontiguousarray(t[:, :-1]),
            winners=np.ascontiguousarray(winners.astype(np.int64)),
        )
    return out


def draw_envelopes(
    emb: Embedding, point: np.ndarray, u: np.ndarray, g: np.ndarray, self_id: int | None = None
) -> Envelopes:
    """The exact output of every draw at every epsilon, as :class:`Envelopes` (the epsilon-free
    state of a word's draws). The candidates are each draw's Pareto-optimal words in (small a,
    large b), found by :func:`_front_candidates` in one pass of blocked float32 matrix multiplies
    over the matrix as stored (memory-mapped, never copied or reordered), keeping near-ties within
    float32 tolerances. Their upper envelope of lines 2 t b_v - a_v is computed in float64 from
    a_v = ||phi(v) - point||^2 and b_v = u . (phi(v) - point) (:func:`kernels.upper_envelopes`)."""
    loops_ready()
    w = np.asarray(point, dtype=np.float64)
    parts = []
    for s in range(0, len(u), DRAW_BLOCK):
        ub = np.asarray(u[s : s + DRAW_BLOCK], dtype=np.float64)
        offsets, words = _front_candidates(emb, w, ub, self_id)
        needed, pos = np.unique(words, return_inverse=True)
        vec64 = np.asarray(emb.vectors)[needed].astype(np.float64)  # only the candidates in float64
        breaks, winners = kernels.upper_envelopes(vec64, pos.ravel(), words, offsets, w, ub)
        used = int(np.isfinite(breaks).sum(axis=1).max())
        parts.append((breaks[:, :used], winners[:, : used + 1]))
    width = max(p[0].shape[1] for p in parts)
    breaks = np.concatenate([np.pad(b, ((0, 0), (0, width - b.shape[1])), constant_values=np.inf) for b, _ in parts])
    winners = np.concatenate([np.pad(c, ((0, 0), (0, width - c.shape[1] + 1)), constant_values=-1) for _, c in parts])
    return Envelopes(np.asarray(g, dtype=np.float64), breaks, winners)


PILOT = 4096
"""Words whose a and b seed the thresholds before the pass over the matrix."""
PILOT_RUNS = 16
"""The pilot is this many runs of consecutive rows, evenly spaced (memory-friendly, unlike single rows)."""
BANDS = 80
"""Distance bands: a word is tested against the best b of the words surely closer than its band."""
NEAR_EDGES = 28
"""Distance edges below the nearest pilot word, each NEAR_RATIO times the last (see :func:`_front_candidates`)."""
NEAR_RATIO = 0.95
GRID = 4096
"""Cells of the table that maps a distance to its band (a lookup instead of a search per word)."""
CACHE_BYTES = 2**19
"""A block of the product [U; w] . phi(block)^T is kept about this size, so it stays in cache."""


def _front_candidates(emb: Embedding, w: np.ndarray, ub: np.ndarray, self_id: int | None) -> tuple:
    """Per draw, word ids containing every Pareto-optimal word: no other word has both a smaller
    a = ||phi(v) - w||^2 and a larger b' = u . phi(v) (b' = b + u . w, the same order as b).
    Returns (offsets, words) as :func:`kernels.pareto_fronts` does.

    One pass over the vocabulary in stored order, in blocks of rows: phi(block) times [U; w]^T
    (float32 BLAS; the extra column gives phi(v) . w, hence a) -- the product any exact method
    needs -- then :func:`kernels.scan_block` keeps a word if its b' beats (within tolerances) the
    best b' of words known to be closer than every word of its distance band. The thresholds
    start from a pilot of PILOT words (PILOT_RUNS runs of consecutive rows, evenly spaced) and
    from w's own b' when w is a word, and rise as the pass finds words. Kept words
    are a small superset of the front (float32 errors are bounded by tol_a and tol_b: about
    8 d 2^-24 times the norms involved), which the float64 envelope then decides exactly."""
    x = np.asarray(emb.vectors, dtype=np.float32)  # a plain view of a memory-mapped matrix: slicing costs nothing
    size, d = x.shape
    m = len(ub)
    sq = emb.sq_norms
    ww = float(w @ w)
    scale = emb.max_norm
    eps32 = 8 * d * 2.0**-24
    tol_b = eps32 * scale  # |u| = 1
    tol_a = eps32 * 2 * scale * float(np.sqrt(ww)) + 1e-12 * (scale + np.sqrt(ww)) ** 2
    width = (m + 1 + 7) // 8 * 8  # m draws and w, padded for aligned rows
    rhs = np.zeros((d, width), dtype=np.float32)
    rhs[:, :m], rhs[:, m] = ub.T, w

    run = max(1, PILOT // PILOT_RUNS)  # the pilot: PILOT_RUNS runs of consecutive rows, evenly spaced
    pilot = np.unique(
        (np.linspace(0, max(0, size - run), PILOT_RUNS).astype(np.int64)[:, None] + np.arange(run)).ravel()
    )
    pilot = pilot[pilot < size]
    prod_p = x[pilot] @ rhs
    a_p = sq[pilot] - 2 * prod_p[:, m].astype(np.float64) + ww
    # quantile levels: geometric (fine among near words) and even (fine among the far majority)
    levels = np.unique(
        np.concatenate([[0.0], np.geomspace(1.0 / len(a_p), 1.0, BANDS // 2), np.linspace(0, 1, BANDS // 2 + 1)])
    )
    quantiles = np.sort(a_p)[np.round(levels * (len(a_p) - 1)).astype(np.int64)][1:-1]  # nearest-rank
    # below the nearest pilot word, edges at ratio NEAR_RATIO (the nearest few hundred words are met in the pass
    # and raise each other's thresholds) down to 2 tol_a, beyond which w itself is surely closer
    near = quantiles[0] * NEAR_RATIO ** np.arange(1, NEAR_EDGES + 1) if len(quantiles) else np.zeros(0)
    edges = np.unique(np.concatenate([[-np.inf, 2 * tol_a], near[near > 2 * tol_a], quantiles, [np.inf]]))
    # band j: edges[j] <= a < edges[j + 1]
    # best[j, k]: max b' of draw k over known words with a + tol_a < edges[j], i.e. first edge above <= j
    first = np.searchsorted(edges, a_p + tol_a, side="right")
    best = np.full((len(edges), m), -np.inf)
    kernels.raise_thresholds(first, prod_p, best)
    b_self = (ub @ w.astype(np.float32)).astype(np.float64)  # w's own b' (a = 0), as the pass would see it
    if self_id is not None:
        j = np.searchsorted(edges, tol_a, side="right")
        best[j] = np.maximum(best[j], b_self)
    best = np.maximum.accumulate(best, axis=0)
    floor = np.full((len(edges), width), np.inf, dtype=np.float32)  # columns m.. never hit
    kernels.fill_thresholds(best, tol_b, floor)
    lo, hi = (edges[1], edges[-2]) if len(edges) > 2 else (0.0, 0.0)
    inv = (GRID - 1) / (hi - lo) if hi > lo else 0.0
    starts = lo + (np.arange(GRID) - 0.5) / inv if inv else np.full(1, lo)  # half a cell low: rounding-safe
    grid_band = np.searchsorted(edges, starts, side="right") - 1

    rows = min(CHUNK, max(256, 1 << int(np.log2(max(1, CACHE_BYTES // (4 * width))))))
    prod = np.empty((rows, width), dtype=np.float32)
    out = np.empty((16 * m + 4096, 4))  # grown when full
    nout = 0
    for start in range(0, size, rows):
        n = min(rows, size - start)
        np.matmul(x[start : start + n], rhs, out=prod if n == rows else prod[:n])  # the matrix multiply
        done = 0
        while done < n:
            nout, done = kernels.scan_block(
                prod, done, n, start, m, sq, ww, lo, inv, grid_band, edges, tol_a, tol_b, best, floor, out, nout
            )
            if done < n:
                out = np.concatenate([out, np.empty_like(out)])
    hits = out[:nout]
    if self_id is not None:  # listed below with its exact a = 0
        hits = hits[hits[:, 1] != self_id]
    draw, word = hits[:, 0].astype(np.int64), hits[:, 1].astype(np.int64)
    a, b = np.ascontiguousarray(hits[:, 2]), np.ascontiguousarray(hits[:, 3])  # one compiled signature
    if self_id is not None:
        draw = np.concatenate([draw, np.arange(m)])
        word = np.concatenate([word, np.full(m, self_id)])
        a = np.concatenate([a, np.zeros(m)])
        b = np.concatenate([b, b_self])
    return kernels.pareto_fronts(m, draw, word, a, b, tol_a, tol_b)


def output_stats(outputs: np.ndarray, word_id: int, eta: float) -> tuple[int, int, int]:
    """(N_w, S_w, S_w^eta) of one column of outputs (the definitions, one column at a time: what
    :func:`column_stats` is tested against)."""
    _, counts = np.unique(outputs, return_counts=True)
    counts = np.sort(counts)[::-1]
    need = (1 - eta) * len(outputs)
    s_eta = int(np.searchsorted(np.cumsum(counts), need - 1e-9) + 1)
    return int((outputs == word_id).sum()), int(len(counts)), min(s_eta, len(counts))


def renyi_entropies(outputs: np.ndarray) -> dict[str, float]:
    """Renyi entropies (nats) of the empirical output distribution: alpha = 0, 1, 2, inf (the
    definitions, one column at a time: what :func:`column_stats` is tested against)."""
    _, counts = np.unique(outputs, return_counts=True)
    p = counts / counts.sum()
    return {
        "H_0": float(np.log(len(p))),
        "H_1": float(-(p * np.log(p)).sum()),
        "H_2": float(-np.log((p**2).sum())),
        "H_inf": float(-np.log(p.max())),
    }


def column_stats(outputs: np.ndarray, word_id: int, eta: float) -> dict[str, np.ndarray]:
    """:func:`output_stats` and :func:`renyi_entropies` of every column of ``outputs`` (draws x
    epsilons) at once: arrays n_w, s_w, s_w_eta, H_0, H_1, H_2, H_inf, one entry per column.

    Each column's numbers depend on that column alone: the counts are whole numbers, and each
    column's sums run over its own segment of the distinct outputs' shares (``reduceat``), so one
    epsilon and a slider's whole grid give the same bits. The shares are count / N, as
    count / (sum of counts) is (the counts add up to N)."""
    n, m = outputs.shape
    ordered = np.sort(outputs, axis=0).T  # (epsilons, draws): each column's outputs in value order
    starts_2d = np.ones(ordered.shape, dtype=bool)
    starts_2d[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    starts = np.flatnonzero(starts_2d.ravel())  # where each distinct output's run begins
    counts = np.diff(np.append(starts, n * m))  # its number of draws, column by column, value order
    column = starts // n
    s_w = np.bincount(column, minlength=m)
    first = np.concatenate([[0], np.cumsum(s_w)[:-1]])  # each column's first run
    # S_w^eta: the fewest outputs, most frequent first, that hold 1 - eta of the draws
    by_size = np.lexsort((-counts, column))  # column by column, the largest counts first
    sized = counts[by_size]
    total = np.cumsum(sized)
    held = total - np.repeat(total[first] - sized[first], s_w)  # the draws the column's first k outputs hold
    short = np.bincount(column[by_size], weights=held < (1 - eta) * n - 1e-9, minlength=m).astype(np.int64)
    p = counts / n
    return {
        "n_w": (outputs == word_id).sum(axis=0),
        "s_w": s_w,
        "s_w_eta": np.minimum(short + 1, s_w),
        "H_0": np.log(s_w),
        "H_1": -np.add.reduceat(p * np.log(p), first),
        "H_2": -np.log(np.add.reduceat(p**2, first)),
        "H_inf": -np.log(np.maximum.reduceat(p, first)),
    }


def envelope_column_stats(env: Envelopes, word_id: int, epsilons: np.ndarray, eta: float) -> tuple[np.ndarray, dict]:
    """:meth:`Envelopes.pieces` at ``epsilons`` and :func:`column_stats` of the releases they give,
    by one compiled pass per ε (:func:`dpviz.papers.metric.kernels.envelope_stats`: the pieces
    counted, the releases tallied per distinct winner, no sort; NumPy's passes were 2.5 ms a word over a slider's
    65 ε, three times per set of the page's frames). The counts are the same whole numbers; the
    entropies agree with :func:`column_stats` to rounding (tested), and each ε's are its own alone."""
    loops_ready()
    ids, local = env.distinct()
    at = int(np.searchsorted(ids, word_id))
    word_local = at if at < len(ids) and ids[at] == word_id else -1
    pieces, table = kernels.envelope_stats(
        env.g, env.breaks, local, ids, np.ascontiguousarray(epsilons, dtype=float), word_local,
        (1 - eta) * len(env.g) - 1e-9,
    )  # fmt: skip
    stats = {name: table[k].astype(np.int64) for k, name in enumerate(("n_w", "s_w", "s_w_eta"))}
    stats.update({name: table[k + 3] for k, name in enumerate(("H_0", "H_1", "H_2", "H_inf"))})
    return pieces, stats


STAT_COLUMNS = ("word", "epsilon", "n_w", "s_w", "s_w_eta", "H_0", "H_1", "H_2", "H_inf", "cosine", "samples")


def engine_workers() -> int:
    """Threads the engine splits its words over: $DPVIZ_THREADS if set (the server sets 1: its
    parallelism is its visitors), else every core. Each thread runs one BLAS thread."""
    try:
        return max(1, int(os.environ.get("DPVIZ_THREADS", "") or os.cpu_count() or 1))
    except ValueError:
        return 1


def word_envelopes(
    emb: Embedding,
    word_ids: Sequence[int],
    samples: int,
    seed: int,
    progress: Progress | None = None,
    workers: int | None = None,
) -> dict[int, Envelopes]:
    """The epsilon-free state of each word's ``samples`` draws (seeded by (seed, word)).

    Thread use is decided here, wherever the engine is called from: BLAS is limited to one
    thread (threadpoolctl; several BLAS threads spinning on busy cores made the many small
    matrix multiplies several times slower) and the words are split over ``workers`` threads
    (numpy releases the GIL in the matrix multiplies); progress is reported from the caller's
    thread, word by word."""
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_limits

    if samples < 1:
        raise InputError(f"samples must be >= 1, got {samples}")

    ids = [int(w) for w in word_ids]
    if progress:
        progress(0.0, f"{emb.name}: preparing {emb.size:,} word vectors")
    steps = Steps(progress, len(ids))
    emb.sq_norms, emb.max_norm  # noqa: B018 (computed once, before the threads share them)
    steps.setup_done()

    def one(wid: int) -> Envelopes:
        u, g = sample_directions_and_radii(emb.dim, samples, word_stream(seed, wid))
        return draw_envelopes(emb, emb.row64(wid), u, g, self_id=wid)

    out: dict[int, Envelopes] = {}
    workers = min(workers or engine_workers(), max(1, len(ids)))
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(max_workers=workers) as pool:
        for k, (wid, env) in enumerate(zip(ids, pool.map(one, ids))):
            out[wid] = env
            steps.step(
                k + 1,
                f"{emb.name}: word {k + 1} of {len(ids)} (“{emb.vocab[wid]}”), "
                f"{samples:,} releases, nearest word among {emb.size:,}",
            )
    return out


def _check_stats_args(epsilons, eta: float) -> np.ndarray:
    eps = _check_epsilons(epsilons)
    if not 0 <= eta < 1:
        raise InputError(f"eta must be in [0, 1), got {eta}")
    return eps


def stats_at(emb: Embedding, envelopes: dict[int, Envelopes], epsilons, eta: float) -> pd.DataFrame:
    """For each word and epsilon: N_w, S_w, S_w^eta, the Renyi entropies H_0/H_1/H_2/H_inf of
    the output distribution (nats), and the mean cosine similarity between phi(w) and
    phi(M(w)) (a utility measure), evaluated from prepared envelopes. Columns: STAT_COLUMNS,
    rows word by word, each word's epsilons in the order given.

    Every number of an epsilon's rows is computed from that epsilon's column alone (the cosines
    read from :meth:`Envelopes.winner_cosines`), so a call with a slider's whole grid gives, at
    each epsilon, the rows of a call with that epsilon alone, to the last bit
    (tests/papers/metric/test_metric_dp.py)."""
    eps = _check_stats_args(epsilons, eta)
    parts = []
    for wid, env in envelopes.items():
        pieces, stats = envelope_column_stats(env, wid, eps, eta)
        # each ε's mean cosine over its own contiguous row (the same sum whatever the other columns)
        cos = np.ascontiguousarray(np.take_along_axis(env.winner_cosines(emb, wid), pieces, axis=1).T)
        parts.append(
            {
                "word": [emb.vocab[wid]] * len(eps),
                "epsilon": eps,
                **{name: stats[name] for name in STAT_COLUMNS[2:9]},
                "cosine": cos.mean(axis=1),
                "samples": np.full(len(eps), len(env.g), dtype=np.int64),
            }
        )
    if not parts:
        return pd.DataFrame([], columns=list(STAT_COLUMNS))
    return pd.DataFrame(
        {name: np.concatenate([part[name] for part in parts]) for name in STAT_COLUMNS}, columns=list(STAT_COLUMNS)
    )


def stats_by_epsilon(df: pd.DataFrame, count: int) -> list[pd.DataFrame]:
    """A :func:`stats_at` table over ``count`` epsilons (rows word by word, each word's epsilons in
    order) split into one table per epsilon, each with a fresh index: what a call with that epsilon
    alone gives, to the last bit."""
    return [df.take(np.arange(j, len(df), count)).reset_index(drop=True) for j in range(count)]


def mdp_stats(
    emb: Embedding,
    word_ids: Sequence[int],
    epsilons,
    samples: int,
    eta: float,
    seed: int,
    progress: Progress | None = None,
    workers: int | None = None,
) -> pd.DataFrame:
    """:func:`stats_at` of :func:`word_envelopes`: N_w, S_w and the rest for every word and epsilon."""
    _check_stats_args(epsilons, eta)  # before the envelopes are computed
    return stats_at(emb, word_envelopes(emb, word_ids, samples, seed, progress, workers), epsilons, eta)


def sample_word_ids(emb: Embedding, words: int, vocab: int, seed: int) -> np.ndarray:
    """``words`` distinct word ids drawn uniformly from the ``vocab`` most frequent (seeded)."""
    vocab = min(vocab, emb.size)
    if words > vocab:
        raise InputError(f"cannot draw {words} distinct words from the top {vocab}")
    return np.sort(stream(seed, 2021).choice(vocab, size=words, replace=False))


_WORD = re.compile(r"(?:(?!\d)\w)+")
"""A word: a run of word characters that are not digits (letters, and the underscore), the
pattern of gensim's ``PAT_ALPHABETIC``."""


def simple_preprocess(text: str, min_len: int = 1, max_len: int = 40) -> list[str]:
    """gensim's ``simple_preprocess(text, min_len=..., max_len=...)`` without importing gensim
    (1.3 s of a fresh process's first try-it box): the lower-cased text's words (:data:`_WORD`),
    those of ``min_len`` to ``max_len`` characters that do not start with an underscore.
    tests/papers/metric/test_tokenize.py checks it against gensim's own."""
    return [t for t in _WORD.findall(text.lower()) if min_len <= len(t) <= max_len and not t.startswith("_")]


def tokenize(sentence: str, max_tokens: int = 40) -> list[str]:
    """Lower-cased word tokens of a sentence (gensim's simple_preprocess: :func:`simple_preprocess`),
    at most max_tokens."""
    if len(sentence) > 2000:
        raise InputError("The sentence is longer than 2,000 characters.")
    toks = simple_preprocess(sentence, min_len=1, max_len=40)
    if not toks:
        raise InputError("The sentence has no words to privatise.")
    if len(toks) > max_tokens:
        raise InputError(f"The sentence has {len(toks)} words; at most {max_tokens} are privatised here.")
    return toks


def rewrite_envelopes(
    emb: Embedding, tokens: Sequence[str], copies: int, seed: int
) -> tuple[list[Envelopes | None], list[str]]:
    """The ε-free state of ``copies`` privatised rewrites of a token list, and each token's
    status: 'in vocabulary', 'subword vector' (fastText builds a vector for an unknown word) or
    'unknown' (left as it is; no envelope). Known words use their own vector; a release is the
    nearest vocabulary word to vector + noise."""
    rng = stream(seed, 2023)
    status = token_status(emb, tokens)
    envs: list[Envelopes | None] = []
    for tok, said in zip(tokens, status):
        u, g = sample_directions_and_radii(emb.dim, copies, rng)  # drawn for every token: its place fixes its draws
        if said == "in vocabulary":
            envs.append(draw_envelopes(emb, emb.row64(emb.index[tok]), u, g, self_id=emb.index[tok]))
        elif said == "subword vector":
            envs.append(draw_envelopes(emb, np.asarray(emb.oov(tok), dtype=np.float64), u, g))
        else:
            envs.append(None)
    return envs, status


def token_status(emb: Embedding, tokens: Sequence[str]) -> list[str]:
    """Each token's status in a rewrite (:func:`rewrite_envelopes`): 'in vocabulary', 'subword
    vector' (an unknown word the embedding builds a vector for, as fastText does) or 'unknown'."""
    return [
        "in vocabulary" if tok in emb.index else "subword vector" if emb.oov is not None else "unknown"
        for tok in tokens
    ]


def rewrite_at(
    emb: Embedding, tokens: Sequence[str], envelopes: Sequence[Envelopes | None], epsilon: float, copies: int
) -> list[list[str]]:
    """The rewrites at one ε from :func:`rewrite_envelopes` (unknown tokens stay as they are)."""
    outs = [
        [tok] * copies if env is None else [emb.vocab[i] for i in env.outputs([epsilon])[:, 0]]
        for tok, env in zip(tokens, envelopes)
    ]
    return [list(r) for r in zip(*outs)]


def rewrite(
    emb: Embedding, tokens: Sequence[str], epsilon: float, copies: int, seed: int
) -> tuple[list[list[str]], list[str]]:
    """``copies`` privatised rewrites of a token list at one epsilon, and each token's status
    (see :func:`rewrite_envelopes`)."""
    envs, status = rewrite_envelopes(emb, tokens, copies, seed)
    return rewrite_at(emb, tokens, envs, epsilon, copies), status


def compile_engine() -> float:
    """Compile the engine's loops (numba, cached beside the code) by running it once on a small
    seeded vocabulary, so that no visitor's first view waits for the compiler (install and image
    build run this: ``python -m dpviz build``). Returns the seconds it took."""
    import time

    start = time.perf_counter()
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((6000, 16)).astype(np.float32)
    emb = Embedding("compile", "a seeded random vocabulary", [f"w{i}" for i in range(len(vectors))], vectors)
    states = word_envelopes(emb, [0, 5999], 64, 0)
    stats_at(emb, states, [1.0, 10.0], 0.05)
    return time.perf_counter() - start
