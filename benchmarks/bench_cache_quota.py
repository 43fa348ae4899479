"""Benchmark: the disk cache's quota kept after every table written, against the route it replaced
(CPU time a write, ratio, same run).

Every table a figure computes is written to the cache, and the tables folder is then kept under
its quota. The route replaced walked the whole folder at every write (``Path.rglob`` and a
``stat`` per file, as ``dpviz.storage.enforce_quota`` did), so a write cost more as the cache
grew: 2,000 files after ``dpviz build``, tens of thousands on a hosted demo after a few classes.
A simulated chart's frames along a slider write a table per position (ADePT's privacy loss along
ε: 97). Now (:func:`dpviz.storage.keep_within_quota`) a process walks the folder only when its
estimate of the folder's size may pass the quota, every 256 writes, or after 60 s.

Per cache size: a folder of N small files like the cache's (a table and its check), then 200
writes of a new file each, timed with the quota step of each route; and the simulated chart itself
(``adept-privacy-loss`` at 10 positions along ε, its tables written to that folder) with each route.

    python benchmarks/bench_cache_quota.py [--files 2000 20000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from dpviz import storage, tables  # noqa: E402


def walk_every_write(folder: Path, max_bytes: int, written: Path) -> list[Path]:
    """The route replaced: every write walks the folder with pathlib (enforce_quota before 2026-11-29's change)."""
    files = []
    for path in folder.rglob("*"):
        try:
            info = path.stat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            files.append((info.st_mtime, info.st_size, path))
    total = sum(size for _, size, _ in files)
    deleted = []
    for _, size, path in sorted(files, key=lambda f: f[0]):
        if total <= max_bytes:
            break
        if path == written:
            continue
        path.unlink()
        total -= size
        deleted.append(path)
    return deleted


def fill(folder: Path, n: int) -> None:
    for k in range(n):
        sub = folder / "tables" / f"fig{k % 40}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"{k:08d}.parquet").write_bytes(b"x" * 2000)


def writes(folder: Path, route, count: int = 200) -> float:
    """CPU seconds a write spends in the quota step (the file's own write not counted)."""
    spent = 0.0
    out = folder / "tables" / "new"
    out.mkdir(parents=True, exist_ok=True)
    for k in range(count):
        path = out / f"{time.perf_counter_ns()}-{k}.parquet"
        path.write_bytes(b"y" * 2000)
        start = time.process_time()
        route(folder / "tables", storage.quota_bytes("DPVIZ_CACHE_QUOTA_MB", storage.TABLES_QUOTA_MB), path)
        spent += time.process_time() - start
    return spent / count


def chart(folder: Path, route) -> float:
    """CPU seconds for adept-privacy-loss at 10 positions along ε, its tables written under ``folder``."""
    from dpviz import caches, registry

    caches.empty_all()  # every table computed and written, not read from the last route's memory
    spec = registry.get("adept-privacy-loss")
    values = spec.defaults()
    os.environ["DPVIZ_CACHE_DIR"] = str(folder)
    saved = tables.keep_within_quota
    tables.keep_within_quota = route
    try:
        start = time.process_time()
        for k in range(10):
            spec.table(dict(values, epsilon=0.5 + 0.137 * k))
        return time.process_time() - start
    finally:
        tables.keep_within_quota = saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, nargs="+", default=[2000, 20000])
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    print("files | quota step a write: walk every write / keep_within_quota | adept-privacy-loss, 10 positions")
    with threadpool_limits(1):
        for n in args.files:
            row = []
            for route in (walk_every_write, storage.keep_within_quota):
                folder = Path(tempfile.mkdtemp(prefix="bench-quota-"))
                try:
                    fill(folder, n)
                    storage._ACCOUNTS.clear()
                    row.append((writes(folder, route), chart(folder, route)))
                finally:
                    shutil.rmtree(folder, ignore_errors=True)
            (w0, c0), (w1, c1) = row
            print(
                f"{n:7d} files | {w0 * 1000:7.2f} / {w1 * 1000:6.3f} ms ({w0 / max(w1, 1e-9):6.0f}x)"
                f" | {c0:5.2f} / {c1:5.2f} CPU-s ({c0 / c1:4.2f}x)",
                flush=True,
            )


if __name__ == "__main__":
    main()
