"""The models a test run trains, shared by all its caches: the fastText stand-in
(dpviz.data.fasttext_local, about 15-30 s of training and 800 MB) is trained once per run, not once
per test process, warm-cache builder and from-scratch run; the quick tier keeps it between runs
(``$DPVIZ_TEST_MODELS``, a folder in the venv per version of its training code).

A cache's ``embeddings`` folder is a symbolic link to the run's one folder (``$DPVIZ_TEST_SHARED_MODELS``,
set by tests/conftest.py). The product's build-once lock (dpviz.build_once) sits in that folder, so
processes that reach it at once still train once and the others read the result. The tests that
are about training (a cold cache, two processes training once) use caches of their own and train."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ENV = "DPVIZ_TEST_SHARED_MODELS"  # the run's folder, set by tests/conftest.py for every process
KEPT = "DPVIZ_TEST_MODELS"  # a folder kept between runs (scripts/test.sh quick), when given


def share_models(cache: Path) -> None:
    """Give the cache folder ``cache`` the run's shared ``embeddings`` (nothing when the run has no
    shared folder, or the cache already has its own)."""
    shared = os.environ.get(ENV)
    if not shared:
        return
    Path(shared).mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    link = cache / "embeddings"
    if not link.exists() and not link.is_symlink():
        link.symlink_to(shared, target_is_directory=True)


def _trained(folder: Path) -> list[Path]:
    """The whole fastText stand-in models in ``folder`` (the last file written is settings.json)."""
    return [m for m in folder.glob("fasttext-local-v*") if m.is_dir() and (m / "settings.json").exists()]


def link_or_copy(src: str, dst: str) -> None:
    """The file ``src`` hard-linked at ``dst`` (the same file system), else copied."""
    try:
        os.link(src, dst)
    except OSError:  # another file system
        shutil.copy2(src, dst)


def _link_tree(src: Path, dst: Path) -> None:
    """``src`` copied to ``dst`` as hard links where it can be."""
    shutil.copytree(src, dst, copy_function=link_or_copy)


def bring_kept(run_models: Path) -> None:
    """Models the quick tier kept (``$DPVIZ_TEST_MODELS``) placed in the run's folder, as the
    build-once lock's finished result: nothing is trained that is there."""
    kept = os.environ.get(KEPT)
    if not kept or not Path(kept).is_dir():
        return
    run_models.mkdir(parents=True, exist_ok=True)
    for model in _trained(Path(kept)):
        if not (run_models / model.name).exists():
            _link_tree(model, run_models / model.name)


def keep(run_models: Path) -> None:
    """The models this run trained kept in ``$DPVIZ_TEST_MODELS`` for the next quick run (only the
    fastText stand-in: converted gensim models and uploads stay out of it)."""
    kept = os.environ.get(KEPT)
    if not kept or not run_models.is_dir():
        return
    Path(kept).mkdir(parents=True, exist_ok=True)
    for model in _trained(run_models):
        if not (Path(kept) / model.name).exists():
            tmp = Path(kept) / f".{model.name}.tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            _link_tree(model, tmp)
            tmp.rename(Path(kept) / model.name)
