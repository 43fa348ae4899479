"""Benchmark: one numeric thread against the default (every core) for a server computation
while other work holds the cores, as on a loaded dashboard server. Same run, same inputs.

The computation is the metric page's try-it box (dpviz.papers.metric.pipeline.try_it: rewrites of a sentence
and each word's N_w/S_w over 300 draws, exact searches over all 400,000 GloVe words), at a new ε
each time so nothing is cached. The other work: --busy processes spinning on the CPU (default: one
per core, standing in for other sessions and the server's own work).

    python benchmarks/bench_threads.py
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import time


def _spin(stop) -> None:
    while not stop.is_set():
        pass


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--busy", type=int, default=os.cpu_count())
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    from threadpoolctl import threadpool_info, threadpool_limits

    from dpviz.data.embeddings import get
    from dpviz.papers.metric import params as metric_params
    from dpviz.papers.metric import pipeline as metric

    emb = get("glove-6b-50d")
    v = {"embedding": "glove-6b-50d", "sentence": metric_params.SENTENCE.default, "rewrites": 5, "seed": 0}
    default_threads = max((p["num_threads"] for p in threadpool_info()), default=1)
    stop = mp.Event()
    hogs = [mp.Process(target=_spin, args=(stop,), daemon=True) for _ in range(args.busy)]
    for h in hogs:
        h.start()
    eps = 1.0
    results: dict[int, list[tuple[float, float]]] = {1: [], default_threads: []}
    try:
        for _ in range(args.repeats):
            for threads in results:
                eps += 1.0
                with threadpool_limits(threads):
                    cpu, wall = time.process_time(), time.perf_counter()
                    metric.try_it(emb, dict(v, try_epsilon=eps))
                    results[threads].append((time.perf_counter() - wall, time.process_time() - cpu))
    finally:
        stop.set()
        for h in hogs:
            h.join()
    print(f"try-it box (11 words), {args.busy} busy processes on {os.cpu_count()} cores, median of {args.repeats}")
    med = {t: sorted(r)[len(r) // 2] for t, r in results.items()}
    for t, (wall, cpu) in med.items():
        print(f"  {t} thread(s): wall {wall:6.2f} s, CPU {cpu:6.2f} s")
    one, many = med[1], med[default_threads]
    print(f"  {default_threads} threads / 1 thread: wall {many[0] / one[0]:.1f}x, CPU {many[1] / one[1]:.1f}x")


if __name__ == "__main__":
    main()
