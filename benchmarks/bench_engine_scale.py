"""Benchmark: the exact metric-DP engine at the papers' scale, against the bare matrix multiply.

For each embedding (GloVe 6B 50d, and a synthetic 2,000,000 x 300 matrix of seeded Gaussian
vectors written once to the cache directory and memory-mapped, the size of fastText's crawl
vectors), in a fresh process per engine so that its peak memory is its own:

- the bare blocked matrix multiply (draws x d)(d x V) that any exact method needs, per word
  (the baseline, same process);
- the engine's time per word (``draw_envelopes``; 100 draws per word), and with ``--old`` the
  distance-sorted route it replaced (``reference.nearest_words_direct``: an argsort of the
  vocabulary per word, rows gathered in that order);
- peak resident memory (ru_maxrss) against the float32 matrix;
- the outputs against float64 brute force over the whole vocabulary on a sample of draws;
- the live-slider prepare stage (``word_envelopes`` for ``--prepare-words`` words, 1000 draws).

    python benchmarks/bench_engine_scale.py                     # both sizes, new engine
    python benchmarks/bench_engine_scale.py --old --sizes glove  # with the old engine (needs ~4.5x the matrix)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SYNTH_ROWS, SYNTH_DIM = 2_000_000, 300
SWEEP_EPSILONS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40)  # the sweep's default list


def synthetic_path(rows: int, dim: int) -> Path:
    from dpviz.storage import cache_dir

    return cache_dir() / "bench" / f"gaussian-{rows}x{dim}-seed0.npy"


def write_synthetic(rows: int, dim: int) -> Path:
    """Seeded Gaussian vectors (scaled like word vectors), written once in blocks."""
    path = synthetic_path(rows, dim)
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npy")
    out = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float32, shape=(rows, dim))
    for k, s in enumerate(range(0, rows, 100_000)):
        rng = np.random.default_rng([0, k])
        out[s : s + 100_000] = (0.4 * rng.standard_normal((min(100_000, rows - s), dim))).astype(np.float32)
    out.flush()
    del out
    os.replace(tmp, path)
    return path


def load(which: str):
    from dpviz.data.embeddings import Embedding, get

    if which == "glove":
        return get("glove-6b-50d")
    rows, dim = (int(x) for x in which.split("x"))
    vectors = np.load(write_synthetic(rows, dim), mmap_mode="r")
    return Embedding(f"synthetic {rows:,} x {dim}", "seeded Gaussian", [f"w{i}" for i in range(rows)], vectors)


def bare_matmul(emb, u) -> float:
    from dpviz.papers.metric import mechanism as mdp

    u32 = u.astype(np.float32)
    buf = np.empty((len(u), mdp.CHUNK), dtype=np.float32)
    start = time.perf_counter()
    for s in range(0, emb.size, mdp.CHUNK):
        block = np.asarray(emb.vectors[s : s + mdp.CHUNK])
        if len(block) == mdp.CHUNK:
            np.matmul(u32, block.T, out=buf)
        else:
            u32 @ block.T
    return time.perf_counter() - start


def brute_force_check(emb, wid, u, g, eps, draws: int) -> tuple[int, int]:
    """Exact float64 nearest word for the first ``draws`` draws at each ε, over the whole matrix."""
    from dpviz.papers.metric import mechanism as mdp

    w = emb.row64(wid)
    pts = np.concatenate([w[None, :] + (g[:draws, None] / e) * u[:draws] for e in eps])  # (draws*E, d)
    best_d = np.full(len(pts), np.inf)
    best_i = np.zeros(len(pts), dtype=np.int64)
    pp = np.einsum("ij,ij->i", pts, pts)
    for s in range(0, emb.size, 65536):
        x = np.asarray(emb.vectors[s : s + 65536], dtype=np.float64)
        d2 = np.einsum("ij,ij->i", x, x)[None, :] - 2 * pts @ x.T + pp[:, None]
        k = d2.argmin(axis=1)
        better = d2[np.arange(len(pts)), k] < best_d
        best_d[better], best_i[better] = d2[np.arange(len(pts)), k][better], k[better] + s
    engine = mdp.draw_envelopes(emb, w, u[:draws], g[:draws], self_id=wid).outputs(eps)  # (draws, E)
    expected = best_i.reshape(len(eps), draws).T
    return int((engine == expected).sum()), int(expected.size)


def run_one(which: str, engine: str, words: int, draws: int, prepare_words: int) -> dict:
    """In this (fresh) process: per-word times, peak memory, brute-force agreement."""
    from threadpoolctl import threadpool_limits

    from dpviz.data.embeddings import Embedding
    from dpviz.papers.metric import mechanism as mdp

    threadpool_limits(1)
    emb = load(which)
    start = time.perf_counter()
    emb.sq_norms, emb.max_norm  # noqa: B018 - once per embedding (part of loading), reported separately
    norms_s = time.perf_counter() - start
    toy = Embedding("toy", "", ["a"] * 300, np.random.default_rng(0).normal(size=(300, emb.dim)).astype(np.float32))
    mdp.draw_envelopes(
        toy, toy.row64(0), *mdp.sample_directions_and_radii(emb.dim, 4, np.random.default_rng(0)), self_id=0
    )
    # (the engine's compiled loops are loaded from numba's cache, or compiled on a first run: not timed)
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    ids = np.linspace(1, emb.size - 1, words).astype(int)
    rows = []
    for wid in ids:
        u, g = mdp.sample_directions_and_radii(emb.dim, draws, mdp.word_stream(0, int(wid)))
        bare = bare_matmul(emb, u)
        start = time.perf_counter()
        if engine == "new":
            mdp.draw_envelopes(emb, emb.row64(int(wid)), u, g, self_id=int(wid))
        else:
            from dpviz.papers.metric import reference

            reference.nearest_words_direct(emb, int(wid), u, g, [1.0, 10.0])
        rows.append({"word": int(wid), "engine_s": time.perf_counter() - start, "bare_s": bare})
    peak_engine = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    prep = stats = None
    if engine == "new" and prepare_words:
        start = time.perf_counter()
        envs = mdp.word_envelopes(emb, ids[:prepare_words], 1000, 0, workers=1)
        prep = time.perf_counter() - start
        start = time.perf_counter()
        mdp.stats_at(emb, envs, SWEEP_EPSILONS, 0.05)  # what a sweep adds per word: its statistics at 14 ε
        stats = time.perf_counter() - start
    peak_prepare = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    agree = total = 0  # last: its float64 blocks are the benchmark's own memory, not the engine's
    if engine == "new":
        for wid in ids[:2]:
            u, g = mdp.sample_directions_and_radii(emb.dim, draws, mdp.word_stream(0, int(wid)))
            a, t = brute_force_check(emb, int(wid), u, g, [0.5, 5.0, 50.0], 8)
            agree, total = agree + a, total + t
    return {
        "which": which,
        "engine": engine,
        "matrix_bytes": int(emb.size * emb.dim * 4),
        "norms_s": norms_s,
        "rows": rows,
        "peak_rss": peak_engine,
        "peak_prepare": peak_prepare,
        "rss_after_load": base_rss,
        "brute_force": [agree, total],
        "prepare_s": prep,
        "stats_s": stats,
        "prepare_words": prepare_words,
        "words": emb.size,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default=f"glove,{SYNTH_ROWS}x{SYNTH_DIM}")
    ap.add_argument("--words", type=int, default=3)
    ap.add_argument("--draws", type=int, default=100)
    ap.add_argument("--prepare-words", type=int, default=2)
    ap.add_argument("--old", action="store_true", help="also the distance-sorted route it replaced")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        which, engine = args.one.split(":")
        print(json.dumps(run_one(which, engine, args.words, args.draws, args.prepare_words)))
        return
    print(
        f"{'embedding':<28} {'engine':<6} {'s/word':>8} {'bare s':>8} {'ratio':>6} {'peak GB':>8} {'x matrix':>9} "
        f"{'+ over load':>11} "
        f"{'brute force':>12} {'prepare':>18}"
    )
    for which in args.sizes.split(","):
        if which != "glove":
            write_synthetic(*(int(x) for x in which.split("x")))
        for engine in ("new", "old") if args.old else ("new",):
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--one",
                    f"{which}:{engine}",
                    "--words",
                    str(args.words),
                    "--draws",
                    str(args.draws),
                    "--prepare-words",
                    str(args.prepare_words),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            eng = np.median([x["engine_s"] for x in r["rows"]])
            bare = np.median([x["bare_s"] for x in r["rows"]])
            prep = f"{r['prepare_s']:.1f} s / {r['prepare_words']} words" if r["prepare_s"] is not None else "-"
            agree, total = r["brute_force"]
            extra = (r["peak_rss"] - r["rss_after_load"]) / r["matrix_bytes"]  # the engine's own memory
            print(
                f"{which:<28} {engine:<6} {eng:8.3f} {bare:8.3f} {eng / bare:6.2f} {r['peak_rss'] / 1e9:8.2f} "
                f"{r['peak_rss'] / r['matrix_bytes']:9.2f} {extra:10.2f}x "
                f"{f'{agree}/{total}' if total else '-':>12} {prep:>18}"
            )
            ratios = " ".join(f"{x['engine_s'] / x['bare_s']:.2f}" for x in r["rows"])
            print(f"    per word: {ratios}; loaded process {r['rss_after_load'] / 1e9:.2f} GB", end="")
            print(f"; prepare peak {r['peak_prepare'] / 1e9:.2f} GB" if r["prepare_s"] is not None else "")
            if r["prepare_s"] is not None:
                per_word = (r["prepare_s"] + r["stats_s"]) / r["prepare_words"]
                print(
                    f"    sweep at 1000 draws, 14 ε: {per_word:.1f} core-seconds per word ({3600 / per_word:,.0f} "
                    "words per "
                    f"core-hour); all {r['words']:,} words: {r['words'] * per_word / 3600:,.0f} core-hours"
                )


if __name__ == "__main__":
    main()
