"""Benchmark: a Figure-3 sweep on GloVe 6B 50d (full 400,000-word vocabulary), dpviz's exact
engine against brute-force faiss search per epsilon on the same draws, and against the one
matrix multiply (draws x d) . (d x vocabulary) that any exact method needs, in the same run, all
on one core (one BLAS and one faiss thread).

    python benchmarks/bench_metric_dp.py                  # 100 words x 1000 draws x 20 epsilons
    python benchmarks/bench_metric_dp.py --brute-words 100   # brute force on every word (~1 h here)

Brute force (faiss IndexFlatL2, one search per epsilon) costs ~35 s per word here, so by default
it runs on the first --brute-words words (same draws) and its full-sweep time is extrapolated
from the per-word mean; the engine and the matrix multiply run on all words. Outputs of the
engine and brute force are compared draw by draw; a disagreement is only accepted where the
two candidates are a float32 near-tie (float64 distance gap below 1e-4 relative).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from dpviz.data.embeddings import get  # noqa: E402
from dpviz.papers.metric import mechanism as mdp
from dpviz.papers.metric import reference


def blocked_matmul(u32: np.ndarray, x32: np.ndarray) -> None:
    """The product the engine computes, in the same blocks, without any search."""
    for s in range(0, len(u32), mdp.DRAW_BLOCK):
        ub = u32[s : s + mdp.DRAW_BLOCK]
        for c in range(0, x32.shape[0], mdp.CHUNK):
            ub @ x32[c : c + mdp.CHUNK].T


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--words", type=int, default=100)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--epsilons", type=int, default=20)
    ap.add_argument("--brute-words", type=int, default=5)
    args = ap.parse_args()
    import faiss
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)  # per core, as the page and the sweep run it: BLAS and faiss on one thread
    faiss.omp_set_num_threads(1)

    emb = get("glove-6b-50d")
    emb.vectors64, emb.sq_norms, emb.max_norm  # noqa: B018 - one-time preparation, not timed
    x32 = np.ascontiguousarray(emb.vectors, dtype=np.float32)
    index = faiss.IndexFlatL2(emb.dim)
    index.add(x32)
    eps = np.geomspace(1, 40, args.epsilons)
    ids = mdp.sample_word_ids(emb, args.words, 10_000, seed=0)
    t_fast = t_mm = t_brute = t_fast_bw = 0.0
    mismatches = near_ties = 0
    for k, wid in enumerate(ids):
        u, g = mdp.sample_directions_and_radii(emb.dim, args.samples, mdp.word_stream(0, wid))
        t = time.perf_counter()
        fast = mdp.nearest_words(emb, int(wid), u, g, eps)
        dt = time.perf_counter() - t
        t_fast += dt
        t = time.perf_counter()
        blocked_matmul(u.astype(np.float32), x32)
        t_mm += time.perf_counter() - t
        if k < args.brute_words:
            t_fast_bw += dt
            t = time.perf_counter()
            brute = reference.nearest_words_bruteforce(emb, int(wid), u, g, eps, index)
            t_brute += time.perf_counter() - t
            for i, j in np.argwhere(fast != brute):
                mismatches += 1
                p = emb.vectors64[wid] + (g[i] / eps[j]) * u[i]
                d1 = np.sum((emb.vectors64[fast[i, j]] - p) ** 2)
                d2 = np.sum((emb.vectors64[brute[i, j]] - p) ** 2)
                near_ties += bool(d1 <= d2 and d2 - d1 <= 1e-4 * d2)
        print(f"\r{k + 1}/{args.words} words", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    bw = min(args.brute_words, args.words)
    print(f"sweep: {args.words} words x {args.samples} draws x {args.epsilons} epsilons, vocabulary {emb.size:,}")
    print(f"dpviz engine            : {t_fast:8.1f} s  ({t_fast / args.words:.3f} s/word)")
    print(f"one matrix multiply     : {t_mm:8.1f} s  ({t_mm / args.words:.3f} s/word)")
    print(f"engine / matmul         : {t_fast / t_mm:8.2f} x")
    print(
        f"brute force (faiss)     : {t_brute:8.1f} s on {bw} words ({t_brute / bw:.2f} s/word; full sweep "
        f"~{t_brute / bw * args.words:,.0f} s)"
    )
    print(f"brute / engine          : {t_brute / t_fast_bw:8.1f} x  (same {bw} words, same draws)")
    print(
        f"outputs compared        : {bw * args.samples * args.epsilons:,}; differing {mismatches} (of which float32 "
        f"near-ties {near_ties})"
    )


if __name__ == "__main__":
    main()
