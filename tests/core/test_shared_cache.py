"""Server processes sharing one cache directory compute each table once (a file lock per table)."""

import multiprocessing
import os
import time

import pandas as pd

from dpviz import tables


def _compute_in_process(cache: str, log: str, delay: float) -> None:
    os.environ["DPVIZ_CACHE_DIR"] = cache

    def compute():
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")
        time.sleep(delay)
        return pd.DataFrame({"x": [1, 2, 3]})

    df = tables.cached_table("test-shared", {"n": "3"}, compute)
    with open(f"{log}.read", "a") as f:
        f.write(f"{df['x'].tolist()}\n")
    # the table is read; leave without the interpreter's teardown, where a library's worker thread
    # once aborted a child under a full suite's load ("terminate called without an active exception")
    os._exit(0)


def test_processes_asking_for_the_same_table_at_once_compute_it_once(tmp_path):
    log = tmp_path / "computed.txt"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_compute_in_process, args=(str(tmp_path), str(log), 1.0)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    assert log.with_name(log.name + ".read").read_text().splitlines() == ["[1, 2, 3]"] * 3  # each read it
    assert len(log.read_text().split()) == 1  # one computed it; the others waited and read it


def test_different_tables_are_computed_side_by_side(tmp_path, monkeypatch):
    """The lock is per table: another key never waits for this one."""
    import threading

    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    inside = threading.Event()
    release = threading.Event()

    def slow():
        inside.set()
        release.wait(30)
        return pd.DataFrame({"x": [0]})

    t = threading.Thread(target=tables.cached_table, args=("test-a", {"n": "1"}, slow))
    t.start()
    assert inside.wait(30)
    other = tables.cached_table("test-b", {"n": "1"}, lambda: pd.DataFrame({"x": [7]}))  # does not block
    assert other["x"].tolist() == [7]
    release.set()
    t.join(30)
    assert tables.is_cached("test-a", {"n": "1"})
