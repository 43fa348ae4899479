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


# the quota after every table's write, walking the folder only when it may be needed --------------


def _counting_walks(monkeypatch):
    walks = []
    real = storage._files
    monkeypatch.setattr(storage, "_files", lambda folder: walks.append(folder) or real(folder))
    return walks


def test_the_walk_finds_what_pathlib_finds(tmp_path):
    for k, rel in enumerate(["a", "b/c", "b/d/e", "b/d/f", ".hidden", "b/.lock"]):
        _file(tmp_path / rel, 10 * (k + 1), k)
    (tmp_path / "empty").mkdir()
    expected = {(p.stat().st_size, str(p), p.stat().st_mtime) for p in tmp_path.rglob("*") if p.is_file()}
    assert {(size, path, mtime) for mtime, size, path in storage._files(tmp_path)} == expected
    assert storage._files(tmp_path / "missing") == []


def test_writes_under_the_margin_do_not_walk_the_folder(tmp_path, monkeypatch):
    walks = _counting_walks(monkeypatch)
    first = _file(tmp_path / "t" / "first", 100, 1)
    assert storage.keep_within_quota(tmp_path, 10_000, first) == []
    assert len(walks) == 1  # a process's first write walks: it knows nothing of the folder yet
    for k in range(20):  # 100 + 20 * 100 bytes: under 90% of 10,000
        assert storage.keep_within_quota(tmp_path, 10_000, _file(tmp_path / "t" / f"f{k}", 100, 2 + k)) == []
    assert len(walks) == 1


def test_a_write_that_may_pass_the_quota_walks_and_deletes_the_oldest(tmp_path, monkeypatch):
    walks = _counting_walks(monkeypatch)
    files = [_file(tmp_path / f"f{k}", 1000, k) for k in range(4)]
    storage.keep_within_quota(tmp_path, 5000, files[-1])  # 4,000 bytes: under the quota
    assert len(walks) == 1 and all(f.exists() for f in files)
    big = _file(tmp_path / "big", 2000, 100)  # 6,000 bytes estimated: above 90% of 5,000
    assert storage.keep_within_quota(tmp_path, 5000, big) == [files[0]]
    assert len(walks) == 2 and big.exists()


def test_another_process_s_writes_are_seen_after_so_many_writes_or_seconds(tmp_path, monkeypatch):
    walks = _counting_walks(monkeypatch)
    monkeypatch.setattr(storage, "QUOTA_WALK_EVERY", 3)
    mine = _file(tmp_path / "mine", 10, 1000)
    storage.keep_within_quota(tmp_path, 5000, mine)
    theirs = [_file(tmp_path / f"theirs{k}", 1000, k) for k in range(6)]  # written by another process
    for k in range(3):
        assert storage.keep_within_quota(tmp_path, 5000, _file(tmp_path / f"m{k}", 10, 1001 + k)) == []
    assert len(walks) == 1
    deleted = storage.keep_within_quota(tmp_path, 5000, _file(tmp_path / "m3", 10, 1004))
    assert len(walks) == 2 and deleted == theirs[:2]  # 6,050 bytes: the two oldest go
    monkeypatch.setattr(storage, "QUOTA_WALK_EVERY", 1000)
    monkeypatch.setattr(storage, "QUOTA_WALK_AFTER_S", 0.0)
    storage.keep_within_quota(tmp_path, 5000, _file(tmp_path / "m4", 10, 1005))
    assert len(walks) == 3  # the last walk is older than QUOTA_WALK_AFTER_S
