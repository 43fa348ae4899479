"""One warm cache for the servers the tests start: every page's defaults computed once per run
(each chart's table and JSON, the panels, every lesson's charts and answers, the fastText stand-in:
:func:`webui.warmup.warm_defaults`, what a hosted server's warm-up computes; and each live chart's
frames along its sliders, by ``python -m dpviz build``), and the same at the reduced settings
the browser tests open the paper pages at (``browser_support.WARM_QUERIES``), into folders that
each server gets a copy of (:func:`copy_into`). A server on it opens every page on its defaults at once; the tests
that are about a cold start start on an empty cache.

It is made in the background while the tests that need no server run (tests/conftest.py starts it
when the run has a test that needs it, and runs those tests last), by two processes of its own, one
per core, each into a folder of its own: ``charts`` (the charts, panels and lessons: what every
warm server gets, ready first) and ``frames`` (the frames, with the prepared states they need: only
the frames tests' server waits for them, and gets both folders). Each part says it is done by a
file beside its folder (``<part>.done``, or ``<part>.failed`` with its output), so that every
process of a run (pytest-xdist's workers too) waits on the same files; the first to take the lock
starts the parts."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from shared_models import link_or_copy, share_models

ROOT = Path(__file__).resolve().parents[1]

_WARM = """
import sys, traceback
from pathlib import Path
sys.path.insert(0, "tests")
import warm_cache
part, root = sys.argv[1], Path(sys.argv[2])
try:
    done = warm_cache.compute(part)
except BaseException:
    (root / f"{part}.failed").write_text(traceback.format_exc())
    raise
print(f"{part}: {done} computed", flush=True)
(root / f"{part}.done").write_text(str(done))
"""


def _page_values(key: str, query: str) -> dict:
    """A paper page's parameters at a link's query (the rest at their defaults)."""
    from dpviz import registry
    from dpviz.params import validate

    values, errors = validate(registry.page_params(key), dict(kv.split("=", 1) for kv in query.split("&") if kv))
    assert not errors, errors
    return values


def compute(part: str) -> int:
    """What the part ``charts`` or ``frames`` holds, computed into ``$DPVIZ_CACHE_DIR``: the pages'
    defaults as a hosted warm-up computes them, and the same at each of the browser tests' reduced
    settings (browser_support.WARM_QUERIES); how many were computed."""
    from browser_support import WARM_QUERIES

    from dpviz import papers, registry
    from dpviz.processes import die_with_parent
    from webui import views, warmup

    share_models(Path(os.environ["DPVIZ_CACHE_DIR"]))
    if part == "charts":
        done = warmup.warm_defaults(frames=False)
        for key, query in WARM_QUERIES:
            values = _page_values(key, query)
            done += sum(views.prefill(spec, values) for spec in registry.paper_figures(key) if not spec.on_demand)
        return done
    # the pages' defaults by the install's own command, `dpviz build` (its output, in frames.log, is
    # read by tests/web/test_build.py)
    out = subprocess.run(
        [sys.executable, "-m", "dpviz", "build", "--quiet", "--pages", BUILT_PAGE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        preexec_fn=die_with_parent,  # (stop() ends the builder by its pid: its build, and the build's pool, with it)
    )
    print(out.stderr, flush=True)
    if out.returncode != 0:
        raise RuntimeError(f"dpviz build failed ({out.returncode})")
    done = 0
    for key, query in WARM_QUERIES:
        done += warmup.warm_page_frames(papers.get(key), _page_values(key, query))
    return done


BUILT_PAGE = "partial"
"""The page whose defaults the frames part builds with ``dpviz build`` (test_build reads what it left):
one page, two sliders, a frontier and an HTML panel, 18 CPU-s; every page's cost 215 CPU-s of each
full run. The other pages' frames are no longer computed whole on their defaults in the run (the
tests' servers, the hosted warm-up's among them, run with frames off): each live chart's frames are
checked at its quick settings (tests/core/test_frames.py) and at the browser tests' reduced settings
(the frames part below, tests/browser/test_browser_frames.py)."""

PARTS = ("charts", "frames")
NICE = {"charts": 0, "frames": 19}
"""The builders' priorities. ``charts`` at the tests' own: every server test waits for it, and at the
lowest priority it got next to no CPU while both test processes ran the tests that need no server,
so the first server test then waited 90 s for it (full run 19). ``frames`` (the frames tests' server
only, later in the run) at the lowest: it uses what the tests leave."""
LINK_FROM = 1 << 20
"""Files of this many bytes or more are hard-linked into a server's copy, not copied (the fastText
stand-in's 800 MB of n-gram vectors): the cache writes a file once and publishes it by a rename,
so a server never changes a file in place and the copies cannot reach each other."""


class WarmCache:
    """The warm cache under ``root`` (a folder per part, made by :meth:`start`): :meth:`wait` for a part."""

    def __init__(self, root: Path):
        self.root = root
        self.procs: dict[str, subprocess.Popen] = {}

    def start(self) -> WarmCache:
        """Start the parts, unless a process of this run already did (the lock and its ``started`` file)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / "start.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if (self.root / "started").exists():
                return self
            for part in PARTS:
                (self.root / part).mkdir(exist_ok=True)
                env = dict(
                    os.environ,
                    DPVIZ_CACHE_DIR=str(self.root / part),
                    DPVIZ_FRAMES="1",
                    OMP_NUM_THREADS="1",
                    OPENBLAS_NUM_THREADS="1",
                    MKL_NUM_THREADS="1",
                )
                env.pop("DPVIZ_HOSTED", None)
                self.procs[part] = subprocess.Popen(
                    [sys.executable, "-c", _WARM, part, str(self.root)],
                    cwd=ROOT,
                    env=env,
                    # (NICE; a pool's workers inherit it). Both at the tests' own priority once
                    # starved the formula sandbox's niced children in the servers' tests, which gave
                    # up as "busy" after 20 s; the charts part is done before any server test runs
                    preexec_fn=lambda part=part: os.nice(NICE[part]),
                    stdout=open(self.root / f"{part}.log", "w"),
                    stderr=subprocess.STDOUT,
                )
                (self.root / f"{part}.pid").write_text(str(self.procs[part].pid))
            (self.root / "started").write_text(str(time.time()))
        return self

    def _builder(self, part: str) -> int | None:
        """The process id of ``part``'s builder while it runs (whichever of the run's processes
        started it), else None: its pid file, checked against the process's command line."""
        try:
            pid = int((self.root / f"{part}.pid").read_text())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, ValueError, IndexError):
            return None
        return pid if str(self.root).encode() in cmdline and state != "Z" else None

    def wait(self, part: str, seconds: float = 1800) -> Path:
        """The folder of ``part`` once it is whole; RuntimeError with its output if it failed."""
        deadline = time.monotonic() + seconds
        while not (self.root / f"{part}.done").exists():
            failed = self.root / f"{part}.failed"
            for proc in self.procs.values():
                proc.poll()  # (a builder this process started and that ended is no zombie)
            # failed, or ended without saying so (killed: once by the end of the test process that
            # had started it, while the other waited 30 min on it)
            if failed.exists() or (self._builder(part) is None and not (self.root / f"{part}.done").exists()):
                log = (self.root / f"{part}.log").read_text(errors="replace")
                raise RuntimeError(f"the warm cache's {part} failed or was ended:\n{log[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the warm cache's {part} was not ready in {seconds:.0f} s")
            time.sleep(0.5)
        started = float((self.root / "started").read_text())
        print(f"\nwarm cache: {part} ready {time.time() - started:.0f} s after it was started", file=sys.stderr)
        return self.root / part

    def stop(self) -> None:
        """End the builders that still run, by their pids (a run that ended before it needed
        them): called by the run's last process only, since another test process may still be
        waiting on a builder this one started."""
        for part in PARTS:
            pid = self._builder(part)
            if pid is not None:
                os.kill(pid, signal.SIGTERM)
        for proc in self.procs.values():
            proc.wait(timeout=30)


def copy_into(warm: Path, cache: Path) -> None:
    """``warm`` (a part of the warm cache) copied into ``cache``, over what it holds (large files
    hard-linked, see :data:`LINK_FROM`)."""

    def place(src: str, dst: str) -> None:
        (link_or_copy if os.path.getsize(src) >= LINK_FROM else shutil.copy2)(src, dst)

    def linked(folder: str, names: list[str]) -> list[str]:  # the run's shared models: linked below
        return [n for n in names if os.path.islink(os.path.join(folder, n))]

    shutil.copytree(warm, cache, dirs_exist_ok=True, copy_function=place, ignore=linked)
    share_models(cache)
