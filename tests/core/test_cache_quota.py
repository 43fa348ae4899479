"""Disk quotas: a hosted demo's visitors cannot fill the disk with uploads or cached tables."""

import os

import pandas as pd

from dpviz import storage, tables, uploads


def _file(path, size, age):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    t = 1_700_000_000 + age
    os.utime(path, (t, t))
    return path


def test_quota_deletes_least_recently_used_first_and_never_the_new_file(tmp_path):
    old = _file(tmp_path / "a" / "old", 400, 1)
    mid = _file(tmp_path / "b" / "mid", 400, 2)
    new = _file(tmp_path / "a" / "new", 400, 3)
    assert storage.enforce_quota(tmp_path, 1000, keep=new) == [old]  # 1200 -> 800 bytes
    assert mid.exists() and new.exists()
    huge = _file(tmp_path / "huge", 5000, 0)  # older than everything, but just written
    assert sorted(storage.enforce_quota(tmp_path, 1000, keep=huge)) == sorted([mid, new])
    assert huge.exists()
    assert storage.enforce_quota(tmp_path, 10_000) == []


def test_uploads_stay_under_their_quota(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("DPVIZ_UPLOAD_QUOTA_MB", str(2.5 / 1024))  # 2,560 bytes
    refs = []
    for k in range(5):
        refs.append(uploads.save_upload(bytes([k]) * 1000, f"s{k}.txt"))
        os.utime(uploads.upload_path(refs[-1]), (1_700_000_000 + k,) * 2)
    left = [r for r in refs if uploads.upload_path(r).exists()]
    assert left == refs[-2:]  # the two newest, 2,000 bytes
    assert sum(p.stat().st_size for p in (tmp_path / "uploads").iterdir()) <= 2560


def test_table_cache_stays_under_its_quota_and_reads_count_as_use(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    df = pd.DataFrame({"x": range(2000)})
    size = None
    for k in range(3):
        tables.cached_table("fig", {"k": str(k)}, lambda: df)
        path = tables.table_path("fig", {"k": str(k)})
        os.utime(path, (1_700_000_000 + k,) * 2)
        size = path.stat().st_size
    tables.cached_table("fig", {"k": "0"}, lambda: pd.DataFrame())  # a read: 0 is now the most recent
    assert tables.is_cached("fig", {"k": "0"})
    monkeypatch.setenv("DPVIZ_CACHE_QUOTA_MB", str(2.5 * size / 2**20))
    tables.cached_table("fig", {"k": "3"}, lambda: df)
    assert [tables.is_cached("fig", {"k": str(k)}) for k in range(4)] == [True, False, False, True]
