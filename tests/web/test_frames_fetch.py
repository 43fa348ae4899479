"""Frames published as files for the browser to fetch (webui/frames_fetch.py): keyed names, whole
files only, a bounded folder, and nothing published where nothing is served. The browser's side
is tests/browser/test_browser_frames.py (the frames of a key step arrive as files, no run)."""

from __future__ import annotations

import json
import os

import pytest

from dpviz.memo import ProcessMemo
from webui import frames_fetch


@pytest.fixture
def folder(tmp_path, monkeypatch):
    out = tmp_path / "static" / "frames"
    out.mkdir(parents=True)
    monkeypatch.setattr(frames_fetch, "folder", lambda: out)
    monkeypatch.setattr(frames_fetch, "_secret", lambda: b"s" * 32)
    return out


def test_a_files_name_is_a_keyed_hash_of_the_key(monkeypatch):
    monkeypatch.setattr(frames_fetch, "_secret", lambda: b"a" * 32)
    one, same, other = frames_fetch.name("k1"), frames_fetch.name("k1"), frames_fetch.name("k2")
    assert one == same != other
    assert "k1" not in one and one.endswith(".bin") and len(one) == 36
    monkeypatch.setattr(frames_fetch, "_secret", lambda: b"b" * 32)
    assert frames_fetch.name("k1") != one  # another server's secret: another name


def test_the_secret_is_made_once_and_shared_by_processes_of_one_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path / "cache"))
    frames_fetch._secret.cache_clear()
    try:
        first = frames_fetch._secret()
        assert len(first) == 32
        assert (tmp_path / "cache" / frames_fetch.SECRET_FILE).read_bytes() == first
        assert oct((tmp_path / "cache" / frames_fetch.SECRET_FILE).stat().st_mode & 0o777) == "0o600"
        frames_fetch._secret.cache_clear()  # another process on the same cache reads the same
        assert frames_fetch._secret() == first
        assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [frames_fetch.SECRET_FILE]
    finally:
        frames_fetch._secret.cache_clear()


def test_publish_writes_the_bytes_whole_under_the_name(folder):
    assert frames_fetch.publish("key", b"frames")
    path = folder / frames_fetch.name("key")
    assert path.read_bytes() == b"frames"
    assert [p.name for p in folder.iterdir()] == [path.name]  # no temporary file left
    assert frames_fetch.publish("key", b"other")  # there already: left as it is
    assert path.read_bytes() == b"frames"


def test_addresses_name_the_route_streamlit_serves(folder):
    where = frames_fetch.addresses("key", "key-near")
    assert where == {
        "whole": f"app/static/frames/{frames_fetch.name('key')}",
        "near": f"app/static/frames/{frames_fetch.name('key-near')}",
    }
    assert frames_fetch.addresses("key", None) == {"whole": f"app/static/frames/{frames_fetch.name('key')}"}


def test_an_address_handed_out_is_an_empty_file_until_the_frames_replace_it(folder):
    """The tab asks for a pending set's files until they are there: each ask for a file not yet
    written was a 404 (a red line in the browser's console). An address handed out is an empty file
    from then on; publishing writes the bytes over it, and handing the address out again, or an
    empty file made after the frames came (another process), never empties them."""
    whole, near = folder / frames_fetch.name("key"), folder / frames_fetch.name("key-near")
    frames_fetch.addresses("key", "key-near")
    assert whole.read_bytes() == b"" and near.read_bytes() == b""
    assert not frames_fetch.published("key") and not frames_fetch.published("key-near")
    assert frames_fetch.publish("key-near", b"near frames")
    assert near.read_bytes() == b"near frames" and frames_fetch.published("key-near")
    assert whole.read_bytes() == b""  # (the whole set: still computed)
    frames_fetch.addresses("key", "key-near")  # a run hands the addresses out again
    assert near.read_bytes() == b"near frames"
    frames_fetch._reserve(near)
    assert near.read_bytes() == b"near frames"
    assert frames_fetch.publish("key", b"whole frames") and whole.read_bytes() == b"whole frames"
    assert sorted(p.name for p in folder.iterdir()) == sorted([whole.name, near.name])  # no temporary file


def test_the_folder_keeps_the_newest_files(folder, monkeypatch):
    monkeypatch.setattr(frames_fetch, "SWEEP_EVERY", 1)
    for i in range(12):
        frames_fetch.publish(f"k{i}", b"x")
        os.utime(folder / frames_fetch.name(f"k{i}"), (1000 + i, 1000 + i))
    frames_fetch._sweep(folder, keep=5)
    left = {p.name for p in folder.iterdir()}
    assert left == {frames_fetch.name(f"k{i}") for i in range(7, 12)}


def test_nothing_is_published_where_nothing_is_served(monkeypatch):
    monkeypatch.setattr(frames_fetch, "folder", lambda: None)
    assert frames_fetch.addresses("key", "key-near") is None
    assert frames_fetch.publish("key", b"frames") is False


def test_the_folder_is_found_only_when_streamlit_serves_it_and_it_can_be_written(tmp_path, monkeypatch):
    import streamlit as st

    (tmp_path / "static").mkdir()
    monkeypatch.setattr("sys.argv", [str(tmp_path / "app.py")])
    served = {"server.enableStaticServing": True}
    monkeypatch.setattr(st, "get_option", lambda name: served[name])
    try:
        frames_fetch.folder.cache_clear()
        assert frames_fetch.folder() == tmp_path / "static" / "frames"
        assert (tmp_path / "static" / "frames").is_dir() and not list((tmp_path / "static" / "frames").iterdir())
        frames_fetch.folder.cache_clear()
        monkeypatch.setenv("DPVIZ_FRAMES_FETCH", "0")  # the operator's switch
        assert frames_fetch.folder() is None
        monkeypatch.delenv("DPVIZ_FRAMES_FETCH")
        frames_fetch.folder.cache_clear()
        served["server.enableStaticServing"] = False
        assert frames_fetch.folder() is None
        served["server.enableStaticServing"] = True
        frames_fetch.folder.cache_clear()
        monkeypatch.setattr("sys.argv", [str(tmp_path / "elsewhere" / "app.py")])  # no static folder there
        assert frames_fetch.folder() is None
        if os.geteuid() != 0:  # root writes anywhere
            frames_fetch.folder.cache_clear()
            monkeypatch.setattr("sys.argv", [str(tmp_path / "app.py")])
            (tmp_path / "static" / "frames").chmod(0o500)
            assert frames_fetch.folder() is None
    finally:
        (tmp_path / "static" / "frames").chmod(0o700)
        frames_fetch.folder.cache_clear()


def test_the_app_serves_its_static_folder():
    """The setting and the folder the fetch needs are in the repository (and the wheel's data)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    assert "enableStaticServing = true" in (root / ".streamlit" / "config.toml").read_text()
    assert (root / "static").is_dir()
    assert '"share/dpviz/static"' in (root / "pyproject.toml").read_text()


def test_a_sessions_news_lists_the_files_published_for_it(folder, monkeypatch):
    """Each file published for a set is added to the news of the sessions that asked for it (the
    tab reads that one file and fetches what it names): the newest NEWS_KEPT names, once each,
    under a name of its own per session, and the addresses of a pending set name it."""
    monkeypatch.setattr(frames_fetch, "NEWS_KEPT", 3)
    news_memo = ProcessMemo(maxsize=8)
    monkeypatch.setattr(frames_fetch, "_news", lambda: news_memo)
    news = {t: folder / frames_fetch.news_name(t) for t in ("tab-a", "tab-b")}
    assert news["tab-a"].name != news["tab-b"].name and "tab-a" not in news["tab-a"].name
    assert frames_fetch.addresses("k", "k-near", "tab-a")["news"] == f"app/static/frames/{news['tab-a'].name}"
    assert "news" not in frames_fetch.addresses("k", "k-near")

    frames_fetch.tell({"tab-a", "tab-b"}, "k1-near")
    frames_fetch.tell({"tab-a"}, "k1")
    frames_fetch.tell({"tab-a"}, "k1")  # told twice: listed once
    read = lambda t: json.loads(news[t].read_bytes())  # noqa: E731
    assert read("tab-a") == [frames_fetch.name("k1-near"), frames_fetch.name("k1")]
    assert read("tab-b") == [frames_fetch.name("k1-near")]
    for k in ("k2", "k3"):
        frames_fetch.tell({"tab-a"}, k)
    assert read("tab-a") == [frames_fetch.name(k) for k in ("k1", "k2", "k3")]  # the newest three
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temporary file left
    frames_fetch.tell(set(), "k4")  # nobody asked (the warm-up): no news file
    reserved = {frames_fetch.name(k) for k in ("k", "k-near")}  # (the pending set's empty files)
    assert sorted(p.name for p in folder.iterdir()) == sorted({p.name for p in news.values()} | reserved)


def test_a_sessions_news_is_there_empty_once_its_address_is_handed_out(folder, monkeypatch):
    """The tab reads its news from the first pending set on: the file is there, an empty list,
    before any set is told (each read was a 404 in the console), and handing the address out again
    does not empty a news that was told meanwhile."""
    news_memo = ProcessMemo(maxsize=8)
    monkeypatch.setattr(frames_fetch, "_news", lambda: news_memo)
    path = folder / frames_fetch.news_name("tab")
    assert not path.exists()
    frames_fetch.addresses("k", "k-near", "tab")
    assert json.loads(path.read_bytes()) == []
    frames_fetch.tell({"tab"}, "k-near")
    frames_fetch.addresses("k2", "k2-near", "tab")
    assert json.loads(path.read_bytes()) == [frames_fetch.name("k-near")]
    frames_fetch.addresses("k", "k-near")  # no session: no news file
    news = [p.name for p in folder.iterdir() if p.stat().st_size]
    assert news == [path.name]


def test_the_news_of_the_least_recently_told_sessions_is_forgotten(folder, monkeypatch):
    news_memo = ProcessMemo(maxsize=2)  # the declared cache "web.news" holds 2,000 sessions
    monkeypatch.setattr(frames_fetch, "_news", lambda: news_memo)
    for t in ("a", "b", "a", "c"):
        frames_fetch.tell({t}, f"k-{t}")
    assert sorted(news_memo.keys()) == ["a", "c"]
    frames_fetch.tell({"b"}, "k-b2")  # b's news starts again (its file: only what came since)
    assert json.loads((folder / frames_fetch.news_name("b")).read_bytes()) == [frames_fetch.name("k-b2")]


def test_no_news_where_nothing_is_served(monkeypatch):
    monkeypatch.setattr(frames_fetch, "folder", lambda: None)
    frames_fetch.tell({"tab"}, "key")  # nothing to write to, and no error


def test_the_operators_switch_writes_no_news(folder, monkeypatch):
    monkeypatch.setenv("DPVIZ_FRAMES_NEWS", "0")
    assert "news" not in frames_fetch.addresses("k", "k-near", "tab")
    frames_fetch.tell({"tab"}, "k")
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        frames_fetch.name(k) for k in ("k", "k-near")
    )  # (reserved)
