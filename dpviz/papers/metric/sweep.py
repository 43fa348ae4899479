"""Whole-vocabulary metric-DP sweeps on Dask distributed (issue: "beyond one machine").

Words are split into fixed partitions (by position in the word list, ``partition_size`` each);
each partition is one task that loads the embedding once per worker process (memory-mapped,
cached by :func:`dpviz.data.embeddings.get`) and runs the exact engine of
:mod:`dpviz.papers.metric.mechanism`. Each word's draws come from a seed derived from (seed, word id), so
the result does not depend on the partitioning or on the number of workers. Results go to
``DIR/part-NNNNN.parquet``, each with a check beside it (:mod:`dpviz.integrity`: hash, rows,
file name and a hash of its word ids), with ``DIR/manifest.json`` holding the parameters, seed,
code version and timings. Rerunning with the same parameters skips the partitions that verify
(resume) and recomputes any other (killed, truncated, emptied, swapped, edited); a directory
holding a sweep with other parameters is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from dpviz import __version__, integrity
from dpviz.data.embeddings import resolve
from dpviz.errors import InputError
from dpviz.papers.metric import mechanism as mdp
from dpviz.progress import Printer

MANIFEST = "manifest.json"


def _params(embedding, words, epsilons, samples, eta, seed, vocab, partition_size) -> dict:
    return {
        "embedding": str(embedding),
        "words": words if words == "all" else int(words),
        "vocab": int(vocab),
        "epsilons": [float(e) for e in epsilons],
        "samples": int(samples),
        "eta": float(eta),
        "seed": int(seed),
        "partition_size": int(partition_size),
    }


def word_list(emb, words, vocab: int, seed: int) -> np.ndarray:
    """The ids a sweep covers: every word for ``words == 'all'``, else a seeded sample from the top ``vocab``."""
    if words == "all":
        return np.arange(emb.size)
    return mdp.sample_word_ids(emb, int(words), vocab, seed)


def part_path(out: Path, k: int) -> Path:
    """The Parquet file of partition ``k`` in the sweep directory ``out``."""
    return out / f"part-{k:05d}.parquet"


def partition_meta(path, ids) -> dict:
    """What a partition file must hold: its file name (so a swapped file does not verify), how
    many words and a hash of exactly which."""
    ids = np.unique(np.asarray(ids, dtype=np.int64))
    return {
        "partition": Path(path).name,
        "words": int(len(ids)),
        "word_ids_sha256": hashlib.sha256(ids.tobytes()).hexdigest(),
    }


def finished(out: Path, k: int, ids) -> bool:
    """Partition k is done only if its file verifies against the words it must hold (hash, row
    count, file name, words); anything else is removed and recomputed."""
    path = part_path(out, k)
    if integrity.read_table(path, partition_meta(path, ids)) is not None:
        return True
    if path.exists() or integrity.sidecar(path).exists():
        integrity.remove(path)
    return False


def run_partition(embedding: str, ids: Sequence[int], epsilons, samples: int, eta: float, seed: int, path: str) -> dict:
    """One task: statistics of ``ids`` written to ``path``. Runs on a worker (or in-process)."""
    from threadpoolctl import threadpool_limits

    start = time.perf_counter()
    emb = resolve(embedding)
    with threadpool_limits(1):  # one core per task: workers, not BLAS threads, share the machine
        df = mdp.mdp_stats(emb, ids, epsilons, samples, eta, seed, workers=1)
    df.insert(0, "word_id", np.repeat(np.asarray(ids, dtype=np.int64), len(epsilons)))
    integrity.write_table(df, Path(path), partition_meta(path, ids))
    worker = "local"
    try:
        from distributed import get_worker

        worker = get_worker().address
    except (ImportError, ValueError):
        pass
    return {"path": path, "words": len(ids), "seconds": time.perf_counter() - start, "worker": worker}


class _PartitionProgress:
    """Partitions done overall and per worker, reported to a :class:`dpviz.progress.Printer`."""

    def __init__(self, total: int, done: int, show: Printer):
        self.total, self.done, self.show = total, done, show
        self.per_worker: dict[str, int] = {}

    def update(self, info: dict) -> None:
        self.done += 1
        self.per_worker[info["worker"]] = self.per_worker.get(info["worker"], 0) + 1
        workers = " ".join(f"{w.rsplit(':', 1)[-1]}:{n}" for w, n in sorted(self.per_worker.items()))
        self.show(self.done / max(self.total, 1), f"{self.done}/{self.total} partitions; per worker {workers}")

    def close(self) -> None:
        self.show.close()


def sweep(
    embedding: str,
    words,
    epsilons,
    samples: int,
    out: str | Path,
    *,
    eta: float = 0.05,
    seed: int = 0,
    vocab: int = 10_000,
    partition_size: int = 50,
    scheduler: str | None = None,
    n_workers: int | None = None,
    local: bool = False,
    on_progress: Callable[[dict], None] | None = None,
    quiet: bool = False,
) -> dict:
    """Run (or resume) a sweep; returns the manifest.

    ``scheduler``: address of a running Dask scheduler; None starts a LocalCluster with
    ``n_workers`` processes (default: the machine's cores). ``local=True`` runs every
    partition in this process, without Dask (the reference route for tests).
    """

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    params = _params(embedding, words, epsilons, samples, eta, seed, vocab, partition_size)
    mpath = out / MANIFEST
    if mpath.exists():
        old = json.loads(mpath.read_text())
        if old.get("parameters") != params:
            raise InputError(
                f"{out} holds a sweep with other parameters ({old.get('parameters')}); use a new directory."
            )
    emb = resolve(embedding)  # train or load once here, before any worker starts
    ids = word_list(emb, words, vocab, seed)
    parts = [ids[i : i + partition_size] for i in range(0, len(ids), partition_size)]
    todo = [k for k in range(len(parts)) if not finished(out, k, parts[k])]
    manifest = {
        "parameters": params,
        "dpviz_version": __version__,
        "embedding_size": emb.size,
        "embedding_dim": emb.dim,
        "partitions": len(parts),
        "words_total": int(len(ids)),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "seed_rule": "each word's draws: SeedSequence(seed, spawn_key=(2020, word_id))",
    }
    mpath.write_text(json.dumps({**manifest, "status": "running"}, indent=2))
    progress = _PartitionProgress(
        len(parts), len(parts) - len(todo), Printer(open(os.devnull, "w") if quiet else sys.stderr)
    )
    start = time.perf_counter()
    infos = []

    def args(k: int) -> tuple:
        return (embedding, [int(i) for i in parts[k]], params["epsilons"], samples, eta, seed, str(part_path(out, k)))

    if local or not todo:
        for k in todo:
            info = run_partition(*args(k))
            infos.append(info)
            progress.update(info)
            if on_progress:
                on_progress(info)
    else:
        from distributed import Client, LocalCluster, as_completed

        cluster = None
        if scheduler is None:
            cluster = LocalCluster(
                n_workers=n_workers or os.cpu_count() or 1, threads_per_worker=1, processes=True, dashboard_address=None
            )
        client = Client(scheduler or cluster)
        try:
            futures = [
                client.submit(run_partition, *args(k), key=f"dpviz-part-{k}-{os.getpid()}", retries=2, pure=False)
                for k in todo
            ]
            for fut in as_completed(futures):
                info = fut.result()
                infos.append(info)
                progress.update(info)
                if on_progress:
                    on_progress(info)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    progress.close()
    elapsed = time.perf_counter() - start
    words_done = sum(i["words"] for i in infos)
    manifest.update(
        {
            "status": "complete",
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "seconds_this_run": elapsed,
            "partitions_this_run": len(infos),
            "words_per_second_this_run": words_done / elapsed if elapsed > 0 and words_done else None,
        }
    )
    mpath.write_text(json.dumps(manifest, indent=2))
    return manifest


def load(out: str | Path) -> pd.DataFrame:
    """All finished partitions of a sweep directory, in word order (columns of mdp_stats + word_id)."""
    out = Path(out)
    if not (out / MANIFEST).is_file():
        raise InputError(f"{str(out)[:200]!r} is not a dpviz sweep directory (no {MANIFEST}).")
    files = sorted(out.glob("part-*.parquet"))
    if not files:
        raise InputError(f"The sweep in {str(out)[:200]!r} has no finished partitions yet.")
    tables = []
    for f in files:
        meta = integrity.read_meta(f)
        df = integrity.read_table(f, meta) if meta and meta.get("partition") == f.name else None
        if df is None or len(df) == 0 or meta != partition_meta(f, df["word_id"].to_numpy()):
            raise InputError(
                f"The sweep partition {f.name} in {str(out)[:200]!r} is damaged (its check does not match): "
                "run the same sweep command again to recompute it."
            )
        tables.append(df)
    return pd.concat(tables, ignore_index=True).sort_values(["word_id", "epsilon"], ignore_index=True)
