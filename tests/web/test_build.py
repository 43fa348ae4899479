"""``python -m dpviz build`` at install: a page's frames on its defaults are in the cache afterwards
(webui.install_build.build), so a fresh install's first visitor drags at frame rate. The run's warm cache
makes its frames part with that very command for one page (tests/warm_cache.py: BUILT_PAGE); this
reads what it left, and checks that the command's jobs cover every page with a slider. The
command's own refusals are checked without any work."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from dpviz import papers, registry, tools

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.server  # waits for the warm cache the servers' tests make
def test_after_dpviz_build_a_pages_frames_on_its_defaults_are_in_the_cache(warm_frames, monkeypatch):
    """The command builds the page it is given (the warm cache's frames part ran ``dpviz build
    --pages BUILT_PAGE``): every set of frames of that page's defaults is on disk, and none of a
    setting nobody built. That the command without ``--pages`` covers every page with a slider is
    :func:`test_the_builds_jobs_cover_every_page_with_a_slider` (building them all here cost three
    CPU-minutes of every run; the hosted warm-up computes the same charts without frames)."""
    from warm_cache import BUILT_PAGE

    from webui import frames_store, warmup

    said = (warm_frames.parent / "frames.log").read_text()
    made = re.search(r"computed (\d+) charts and (\d+) sets of frames in \d+ s", said)
    assert made, said[-2000:]
    assert "could not be computed" not in said, said[-2000:]
    jobs = [job for job in warmup.frame_jobs() if job[0].key == BUILT_PAGE]
    assert int(made.group(2)) == len(jobs) >= 4  # σ and α, each for the individuals' chart and the frontier
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(warm_frames))
    missing = [(getattr(w, "id", None), p.name) for _, values, w, p in jobs if not frames_store.on_disk(w, values, p)]
    assert not missing
    # and a setting nobody built is not (the check reads the disk, it does not compute)
    _, values, spec, p = jobs[0]
    other = next(q for q in spec.params if q.name != p.name and q.kind in ("int", "float"))
    elsewhere = other.max if values[other.name] != other.max else other.min
    assert not frames_store.on_disk(spec, {**values, other.name: elsewhere}, p)
    # the build kept each chart's seconds a position, which a server's workers order their tasks by
    from dpviz import registry as charts
    from webui import frames_schedule

    monkeypatch.setattr(frames_schedule, "_RATES", {})
    monkeypatch.setattr(frames_schedule, "_BUILT", [])
    timed = [(w.id, p.name) for _, _, w, p in jobs if isinstance(w, charts.FigureSpec)]
    assert timed and all(frames_schedule.estimate(figure, slider, 10) > 0 for figure, slider in timed)


def test_the_builds_jobs_cover_every_page_with_a_slider():
    """``dpviz build`` (no ``--pages``) computes :func:`webui.warmup.frame_jobs`: a set for every live
    chart and HTML panel along each slider it follows and that plays a part on the defaults, on
    every page that has a slider; the privacy budget's σ among them, its ε₀ and q not."""
    from dpviz.panels import Panel
    from webui import warmup

    jobs = warmup.frame_jobs()
    assert warmup._selected(None) == jobs
    charts = [what for _, _, what, _ in jobs if not isinstance(what, Panel)]
    assert len(jobs) >= 25
    with_sliders = {p.key for p in papers.all_papers() if any(q.slider for q in registry.page_params(p.key))}
    assert {spec.page for spec in charts} == with_sliders  # every page with a slider has its frames
    assert {"adept", "metric", "hoho", "partial"} <= with_sliders
    budget = {p.name for _, _, what, p in jobs if getattr(what, "page", "") == "budget"}
    assert budget == {"k", "delta", "sigma", "prior"}
    from dpviz.params import applies

    for paper in papers.all_papers():  # every live chart of a page, along every slider it follows
        defaults = {q.name: q.default for q in registry.page_params(paper.key)}
        # (a slider that plays no part on the defaults, the privacy budget's ε₀ and q beside the
        # Gaussian, is disabled there: no frames along it)
        sliders = {q.name for q in registry.page_params(paper.key) if q.slider and applies(q, defaults)}
        for spec in registry.paper_figures(paper.key):
            wanted = set() if spec.on_demand else sliders & {q.name for q in spec.params}
            assert {p.name for _, _, w, p in jobs if w is spec} == wanted, spec.id


def test_build_refuses_an_unknown_page_before_any_work():
    out = subprocess.run(
        [sys.executable, "-m", "dpviz", "build", "--pages", "adept,nope"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 2
    assert "nope is not a page; the pages are adept, metric" in out.stderr
    assert "compiled" not in out.stderr and "Traceback" not in out.stderr


def test_every_compiled_loop_is_declared_by_a_page_and_each_declaration_runs():
    """Each module of dpviz with numba loops is compiled by some page's ``Paper.compiled`` (its own
    module's function, or one in its package that runs it, as the metric engine's), so that `dpviz
    build` and the frames workers load them all; and every declared entry runs."""
    root = Path(__file__).resolve().parents[2]
    with_loops = {
        ".".join(path.relative_to(root).with_suffix("").parts)
        for path in (root / "dpviz").rglob("*.py")
        if "numba.njit" in path.read_text(encoding="utf-8")
    }
    assert with_loops  # (the scan found the kernels)
    entries = [entry for paper in papers.all_papers() for entry in paper.compiled]
    declared = {entry.split(":")[0] for entry in entries}
    for module in with_loops:
        assert any(module == d or module.rsplit(".", 1)[0] == d.rsplit(".", 1)[0] for d in declared), module
    for paper in papers.all_papers():
        paper.compile_kernels()  # no error: each entry names a real module and function


WARMED = """
import sys
sys.path.insert(0, {root!r})
from dpviz import registry
from webui import frames_worker
frames_worker.ready()
frames_worker.warm("adept", {{p.name: p.default for p in registry.page_params("adept")}})
from dpviz.frames import Drawer
from webui import frames_store
live = [s for s in registry.paper_figures("adept") if s.live and not s.on_demand]
checked = [Drawer(s, frames_store.frame_json, remember=True).fast is True for s in live]
print(len(live), sum(checked))
from dpviz.papers.adept import loss_kernels
print(len(loss_kernels.walk_binned.signatures), len(loss_kernels.bound_sums.signatures))
"""


def test_a_frames_worker_loads_a_pages_compiled_loops_when_it_warms_to_the_page():
    """In a fresh process, warming to the ADePT page leaves its privacy loss's loops compiled (loaded
    from numba's cache), before any set of frames asks for them (no prepared state of the page
    runs them), and every live chart's fast drawing checked against Plotly's (its first set draws
    no frame by Plotly)."""
    root = str(Path(__file__).resolve().parents[2])
    out = subprocess.run(
        [sys.executable, "-c", WARMED.format(root=root)], capture_output=True, text=True, timeout=600, check=True
    )
    live, checked, walk, bounds = (int(n) for n in out.stdout.split()[-4:])
    assert live >= 5 and checked == live, out.stderr
    assert walk >= 1 and bounds >= 1, out.stderr


@pytest.fixture
def quick_build(tmp_path, monkeypatch):
    """``webui.install_build.build`` into a cache of its own with every chart, panel, lesson and set of
    frames a no-op (each set reports its progress as the real ones do); what the bar is told."""
    from dpviz import sandbox
    from dpviz.page_report import timing
    from webui import install_build, views, warmup

    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(timing, "TYPICAL", tmp_path / "no-typical.json")
    monkeypatch.setattr(sandbox, "WALL_SECONDS", sandbox.WALL_SECONDS)  # (the build raises it)
    monkeypatch.setattr(views, "prefill", lambda spec, values: 1)
    monkeypatch.setattr(views, "prefill_panel", lambda panel, values: None)
    monkeypatch.setattr(warmup, "warm_lessons", lambda: 0)

    def frames(progress=None, pages=None, workers=1, ahead=False):
        for k in range(4):
            progress(k / 4, f"set {k + 1} of 4")
        return 4

    monkeypatch.setattr(warmup, "warm_frames", frames)

    def run():
        seen = []
        said = install_build.build(lambda f, m: seen.append((f, m)))
        return said, seen

    return run


def _start_of_frames(seen):
    return next(f for f, m in seen if m == "set 1 of 4")


def test_the_builds_bar_moves_through_every_chart_then_the_frames_and_never_back(quick_build):
    """The charts on their defaults (the build's first 45 s of 73) move the bar chart by chart,
    where it sat at 0 % and its first time left said over an hour; then the frames take the rest."""
    said, seen = quick_build()
    assert said.startswith(f"computed {len(registry.all_figures())} charts and 4 sets of frames in ")
    fractions = [f for f, _ in seen]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert fractions == sorted(fractions)  # never backwards
    charts = [m for _, m in seen if m.startswith("chart ")]
    assert len(charts) == len(registry.all_figures())
    panels = sum(len(page.panels) for page in [*papers.all_papers(), *tools.all_tools()])
    total = len(charts) + panels + 1  # and the lessons, one step
    assert charts[0].endswith(f"(1 of {total})") and charts[-1].endswith(f"({len(charts)} of {total})")
    assert [m for _, m in seen if m.startswith("the lessons")] == [f"the lessons ({total} of {total})"]
    assert 0.0 < fractions[len(charts)] < _start_of_frames(seen)  # the charts' part moved the bar


def test_a_first_build_gives_the_frames_two_fifths_of_the_bar_and_the_next_their_measured_share(quick_build):
    """Before any build on the machine, the measured shares of 2026-12-03 (45 s of charts, 28 s of
    frames: 0.6 and 0.4); afterwards, the last build's seconds (:mod:`dpviz.page_report.timing`)."""
    from dpviz.page_report import timing
    from webui import install_build

    _, seen = quick_build()
    assert _start_of_frames(seen) == pytest.approx(install_build.BUILD_SHARES[0])
    known = timing.load()
    assert {"build:charts:all", "build:frames:all"} <= set(known)
    timing.record({"build:charts:all": 10.0, "build:frames:all": 30.0})
    _, seen = quick_build()
    assert _start_of_frames(seen) == pytest.approx(0.25, abs=1e-3)  # (the clock moves it a hair: within)
