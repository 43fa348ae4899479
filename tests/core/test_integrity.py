"""Fault injection on cached tables and sweep partitions: every corruption is detected and
recomputed, and the results equal a clean run (issue: no corrupt file served as data)."""

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpviz import integrity, tables
from dpviz.papers.metric import sweep as S


def _table(n=400, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": np.arange(n), "rate": rng.uniform(0, 1, n), "label": [f"w{i}" for i in range(n)]})


def _corruptions(data: bytes, offsets: int = 40):
    """(name, damaged bytes): one flipped bit at offsets spread over the file, truncations, emptied."""
    for off in np.unique(np.linspace(0, len(data) - 1, offsets).astype(int)):
        flipped = bytearray(data)
        flipped[off] ^= 1 << (off % 8)
        yield f"flip@{off}", bytes(flipped)
    for keep in (0, 8, len(data) // 2, len(data) - 1):
        yield f"cut@{keep}", data[:keep]


def test_every_flipped_byte_truncation_and_emptying_of_a_cached_table_is_recomputed(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    clean = _table()
    calls = []

    def compute():
        calls.append(1)
        return clean.copy()

    key = {"n": "400"}
    pd.testing.assert_frame_equal(tables.cached_table("fig", key, compute), clean)
    path = tables.table_path("fig", key)
    good = path.read_bytes()
    damaged = list(_corruptions(good))
    for name, data in damaged:
        path.write_bytes(data)
        calls.clear()
        pd.testing.assert_frame_equal(tables.cached_table("fig", key, compute), clean, obj=name)
        assert calls == [1], f"{name}: not recomputed"
        assert path.read_bytes() == good  # rewritten clean
    calls.clear()
    tables.cached_table("fig", key, compute)
    assert calls == []  # a clean file is read, not recomputed
    assert len(damaged) >= 40


def test_a_table_swapped_in_from_another_key_or_a_broken_check_is_recomputed(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    a, b = _table(seed=1), _table(seed=2)
    tables.cached_table("fig", {"s": "1"}, lambda: a)
    tables.cached_table("fig", {"s": "2"}, lambda: b)
    pa, pb = tables.table_path("fig", {"s": "1"}), tables.table_path("fig", {"s": "2"})
    for p in (pa, integrity.sidecar(pa)):  # both the data and its check copied over another key's
        shutil.copy(pb if p == pa else integrity.sidecar(pb), p)
    pd.testing.assert_frame_equal(tables.cached_table("fig", {"s": "1"}, lambda: a), a)
    for bad in (b"", b"{", b"[1, 2]", b'{"sha256": "0"}'):
        integrity.sidecar(pa).write_bytes(bad)
        pd.testing.assert_frame_equal(tables.cached_table("fig", {"s": "1"}, lambda: a.assign(x=-1)), a.assign(x=-1))
        tables.cached_table("fig", {"s": "1"}, lambda: a)  # put back for the next case


def test_the_issue_case_a_flip_that_still_parses_is_not_served(tmp_path, monkeypatch):
    """A flipped byte inside the numbers of an uncompressed column parses fine: only the hash sees it."""
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    clean = pd.DataFrame({"rate": np.ones(64)})
    tables.cached_table("v", {}, lambda: clean)
    path = tables.table_path("v", {})
    data = bytearray(path.read_bytes())
    at = bytes(data).find(np.float64(1.0).tobytes())
    assert at > 0
    data[at + 7] ^= 0x20  # 1.0 -> a tiny number, still valid parquet
    path.write_bytes(bytes(data))
    assert pd.read_parquet(path)["rate"].min() < 1e-10  # the damage parses
    assert (tables.cached_table("v", {}, lambda: clean)["rate"] == 1.0).all()


SMALL = dict(words=12, epsilons=[3.0, 30.0], samples=30, vocab=2000, seed=5, partition_size=3)


def _sweep(out):
    args = dict(SMALL)
    return S.sweep(
        "glove-6b-50d",
        args.pop("words"),
        args.pop("epsilons"),
        args.pop("samples"),
        out,
        quiet=True,
        local=True,
        **args,
    )


@pytest.fixture(scope="module")
def clean_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("clean")
    _sweep(out)
    return out, S.load(out)


def test_damaged_sweep_partitions_are_detected_and_recomputed_on_resume(tmp_path, clean_sweep):
    clean_dir, clean = clean_sweep
    parts = sorted(clean_dir.glob("part-*.parquet"))
    good = parts[1].read_bytes()
    cases = [(n, d) for n, d in _corruptions(good, offsets=12)]
    for name, data in cases:
        out = tmp_path / name
        shutil.copytree(clean_dir, out)
        (out / parts[1].name).write_bytes(data)
        with pytest.raises(ValueError, match="damaged"):
            S.load(out)
        m = _sweep(out)
        assert m["partitions_this_run"] == 1, name
        pd.testing.assert_frame_equal(S.load(out), clean, obj=name)


def test_swapped_emptied_and_unchecked_partitions_are_recomputed(tmp_path, clean_sweep):
    clean_dir, clean = clean_sweep
    p0, p1 = "part-00000.parquet", "part-00001.parquet"
    setups = {
        "swapped data and checks": lambda d: [
            shutil.copy(clean_dir / p1, d / p0),
            shutil.copy(integrity.sidecar(clean_dir / p1), integrity.sidecar(d / p0)),
            shutil.copy(clean_dir / p0, d / p1),
            shutil.copy(integrity.sidecar(clean_dir / p0), integrity.sidecar(d / p1)),
        ],
        "emptied": lambda d: (d / p0).write_bytes(b""),
        "check deleted": lambda d: integrity.sidecar(d / p0).unlink(),
        "other words": lambda d: integrity.write_table(
            pd.read_parquet(clean_dir / p1),
            d / p0,
            S.partition_meta(d / p0, pd.read_parquet(clean_dir / p1)["word_id"]),
        ),
    }
    for name, damage in setups.items():
        out = tmp_path / name.replace(" ", "_")
        shutil.copytree(clean_dir, out)
        damage(out)
        m = _sweep(out)
        assert m["partitions_this_run"] in (1, 2), name
        pd.testing.assert_frame_equal(S.load(out), clean, obj=name)
    assert Path(clean_dir / p0).exists()
