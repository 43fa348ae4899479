"""Cache builds shared by server processes (dpviz.build_once): built once, into a path of each
builder's own, published whole by a rename; a second process waits for the first and reuses its
build. The real case: two processes training the local fastText vectors on an empty cache."""

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from dpviz.build_once import build_once, file_lock, temporary_path


def _build_folder(target: str, log: str, delay: float, fail: bool) -> None:
    def build(tmp: Path) -> None:
        with open(log, "a") as f:
            f.write(f"{os.getpid()} {tmp.name}\n")
        tmp.mkdir()
        (tmp / "part1").write_text("one")
        time.sleep(delay)  # a reader that looked now must not see a half-built folder
        if fail:
            raise RuntimeError("the build failed")
        (tmp / "part2").write_text("two")

    try:
        out = build_once(Path(target), build, ready=lambda p: (p / "part2").exists())
        with open(f"{log}.read", "a") as f:
            f.write(f"{sorted(x.name for x in out.iterdir())}\n")
    except RuntimeError:
        with open(f"{log}.failed", "a") as f:
            f.write("failed\n")
    os._exit(0)  # leave without the interpreter's teardown (see test_shared_cache)


def _run(n, target, log, delay=1.0, fail=False):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_build_folder, args=(str(target), str(log), delay, fail)) for _ in range(n)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    return [p.exitcode for p in procs]


def test_three_processes_building_one_folder_build_it_once(tmp_path):
    target, log = tmp_path / "model", tmp_path / "built.txt"
    assert _run(3, target, log) == [0, 0, 0]
    builders = log.read_text().splitlines()
    assert len(builders) == 1  # one built it; the others waited for it and read it
    assert log.with_name("built.txt.read").read_text().splitlines() == ["['part1', 'part2']"] * 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["built.txt", "built.txt.read", "model", "model.lock"]


def test_a_failed_build_leaves_nothing_and_the_next_caller_builds_again(tmp_path):
    target, log = tmp_path / "model", tmp_path / "built.txt"
    assert _run(2, target, log, delay=0.2, fail=True) == [0, 0]
    assert len(log.read_text().splitlines()) == 2  # each tried in turn, neither found a finished build
    assert not target.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert _run(1, target, log, delay=0.0) == [0]
    assert (target / "part2").read_text() == "two"


def test_a_stale_folder_is_replaced_whole(tmp_path):
    target = tmp_path / "model"
    target.mkdir()
    (target / "half").write_text("left by a build that died before this version published atomically")
    out = build_once(
        target, lambda tmp: (tmp.mkdir(), (tmp / "done").write_text("1")), ready=lambda p: (p / "done").exists()
    )
    assert sorted(x.name for x in out.iterdir()) == ["done"]


def test_a_file_target_is_replaced_in_one_rename(tmp_path):
    target = tmp_path / "table.bin"
    build_once(target, lambda tmp: tmp.write_bytes(b"x" * 10))
    assert target.read_bytes() == b"x" * 10
    build_once(target, lambda tmp: pytest.fail("a ready target is not built again"))


def test_temporary_paths_differ_within_one_process(tmp_path):
    names = {temporary_path(tmp_path / "t").name for _ in range(50)}
    assert len(names) == 50 and all(n.startswith(".t.") and n.endswith(".tmp") for n in names)


def test_a_lock_that_cannot_be_made_does_not_stop_the_build(tmp_path):
    """A cache where no lock file can be made (here its folder's place is taken by a file, which
    fails for root too, unlike a read-only folder) still builds, without the lock."""
    (tmp_path / "cache").write_text("a file where a folder should be")
    with file_lock(tmp_path / "cache" / "x.lock") as held:
        assert held is False
    target = tmp_path / "elsewhere" / "t.bin"
    target.parent.mkdir()
    assert build_once(target, lambda tmp: tmp.write_bytes(b"1")).read_bytes() == b"1"


def _load_fasttext(cache: str, log: str) -> None:
    os.environ["DPVIZ_CACHE_DIR"] = cache
    from dpviz.data import fasttext_local
    from dpviz.data.fasttext_local import load_fasttext_local

    # the lock is under test, not the model: one epoch on the smallest of the three corpora (the
    # stand-in's real training is done once per run, for every cache, by the first test or warm-cache
    # builder that needs it: tests/shared_models.py), 25 -> a few CPU-seconds
    fasttext_local.SETTINGS = {**fasttext_local.SETTINGS, "epochs": 1}
    lee = fasttext_local.gensim_test_data() / "lee.cor"
    fasttext_local.corpus_sentences = lambda: [
        line.split() for line in lee.read_text(errors="ignore").splitlines() if line.strip()
    ]

    trained, fractions = [], [0.0]

    def progress(fraction, msg):
        fractions.append(fraction)
        if "epoch" in msg:
            trained.append(msg)

    emb = load_fasttext_local(progress=progress)
    with open(log, "a") as f:
        f.write(
            f"{os.getpid()} trained={bool(trained)} words={len(emb.vocab)} dim={emb.vectors.shape[1]}"
            f" progress={max(fractions):g}\n"
        )
    os._exit(0)


def test_two_processes_on_an_empty_cache_train_fasttext_once(tmp_path):
    """The fault seen on every fresh hosted start: both processes trained into one .tmp folder and
    one failed with a traceback. Now one trains, the other waits and loads the same vectors."""
    pytest.importorskip("gensim")
    log = tmp_path / "loaded.txt"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_load_fasttext, args=(str(tmp_path / "cache"), str(log))) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
    assert [p.exitcode for p in procs] == [0, 0]
    lines = sorted(line.split(" ", 1)[1] for line in log.read_text().splitlines())
    assert len(lines) == 2
    assert [line.split()[0] for line in lines] == ["trained=False", "trained=True"]
    assert lines[0].split()[1:3] == lines[1].split()[1:3]  # the same vectors
    assert lines[1].split()[3] == "progress=1"  # the trainer's bar reached its end
    folder = tmp_path / "cache" / "embeddings"
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
