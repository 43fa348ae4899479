"""One warm cache for the servers the tests start: every page's defaults computed once per run
(each chart's table and JSON, the panels, every lesson's charts and answers, the fastText stand-in,
and each live chart's frames along its sliders: :func:`webui.warmup.warm_defaults`, what a hosted
server's warm-up computes) into a folder that each server gets a copy of (:func:`copy_into`). A
server on it opens every page on its defaults at once; the tests that are about a cold start
start on an empty cache.

It is made in the background while the tests that need no server run (tests/conftest.py starts it
when the run has a test that needs it, and runs those tests last), by two processes of its own
sharing the work: one computes the charts, panels and lessons, the other the frames, which read the
charts' prepared states the first writes or compute them (the cache's writes are atomic renames,
so two processes can share it)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_WARM = """
import sys
from webui import warmup
part = sys.argv[1]
done = warmup.warm_frames() if part == "frames" else warmup.warm_defaults(frames=False)
print(f"{part}: {done} computed", flush=True)
"""
PARTS = ("charts", "frames")
LINK_FROM = 1 << 20
"""Files of this many bytes or more are hard-linked into a server's copy, not copied (the fastText
stand-in's 800 MB of n-gram vectors): the cache writes a file once and publishes it by a rename,
so a server never changes a file in place and the copies cannot reach each other."""


class WarmCache:
    """The warm cache being made in ``folder``: :meth:`wait` until it is whole."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.started = time.monotonic()
        folder.mkdir(parents=True, exist_ok=True)
        env = dict(
            os.environ,
            DPVIZ_CACHE_DIR=str(folder),
            DPVIZ_FRAMES="1",
            OMP_NUM_THREADS="1",
            OPENBLAS_NUM_THREADS="1",
            MKL_NUM_THREADS="1",
        )
        env.pop("DPVIZ_HOSTED", None)
        self.logs = {part: folder.parent / f"warm-{part}.log" for part in PARTS}
        self.procs = {
            part: subprocess.Popen(
                [sys.executable, "-c", _WARM, part],
                cwd=ROOT,
                env=env,
                stdout=open(self.logs[part], "w"),
                stderr=subprocess.STDOUT,
            )
            for part in PARTS
        }
        self.seconds: float | None = None

    def wait(self) -> Path:
        """The folder, once both parts are done; RuntimeError with a part's output if it failed."""
        for part, proc in self.procs.items():
            code = proc.wait(timeout=1800)
            if code != 0:
                raise RuntimeError(
                    f"the warm cache's {part} failed (exit {code}):\n{self.logs[part].read_text()[-3000:]}"
                )
        if self.seconds is None:
            self.seconds = time.monotonic() - self.started
            print(f"\nwarm cache ready {self.seconds:.0f} s after it was started: {self.folder}", file=sys.stderr)
        return self.folder

    def stop(self) -> None:
        """End the parts still running (a run that ends before a server test needed the cache)."""
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=30)


def copy_into(warm: Path, cache: Path) -> None:
    """``cache`` made a copy of the warm cache ``warm`` (large files hard-linked, see :data:`LINK_FROM`)."""

    def place(src: str, dst: str) -> None:
        if os.path.getsize(src) >= LINK_FROM:
            try:
                os.link(src, dst)
                return
            except OSError:  # another file system
                pass
        shutil.copy2(src, dst)

    shutil.copytree(warm, cache, symlinks=True, dirs_exist_ok=True, copy_function=place)
