"""``python -m dpviz build`` at install: every page's frames on its defaults are in the cache
afterwards (webui.warmup.build), so a fresh install's first visitor drags at frame rate. The run's
warm cache makes its frames part with that very command (tests/warm_cache.py); this reads what it
left. The command's own refusals are checked without any work."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from dpviz import papers, registry

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.server  # waits for the warm cache the servers' tests make
def test_after_dpviz_build_every_pages_frames_on_its_defaults_are_in_the_cache(warm_frames, monkeypatch):
    from dpviz.panels import Panel
    from webui import frames_store, warmup

    said = (warm_frames.parent / "frames.log").read_text()
    made = re.search(r"computed (\d+) charts and (\d+) sets of frames in \d+ s", said)
    assert made, said[-2000:]
    assert "could not be computed" not in said, said[-2000:]
    jobs = warmup.frame_jobs()
    charts = [what for _, _, what, _ in jobs if not isinstance(what, Panel)]
    assert int(made.group(2)) == len(jobs) and len(jobs) >= 25
    with_sliders = {p.key for p in papers.all_papers() if any(q.slider for q in registry.page_params(p.key))}
    assert {spec.page for spec in charts} == with_sliders  # every page with a slider has its frames
    assert {"adept", "metric", "hoho", "partial"} <= with_sliders

    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(warm_frames))
    missing = [(getattr(w, "id", None), p.name) for _, values, w, p in jobs if not frames_store.on_disk(w, values, p)]
    assert not missing
    # and a setting nobody built is not (the check reads the disk, it does not compute)
    _, values, spec, p = jobs[0]
    other = next(q for q in spec.params if q.name != p.name and q.kind in ("int", "float"))
    elsewhere = other.max if values[other.name] != other.max else other.min
    assert not frames_store.on_disk(spec, {**values, other.name: elsewhere}, p)


def test_build_refuses_an_unknown_page_before_any_work():
    out = subprocess.run(
        [sys.executable, "-m", "dpviz", "build", "--pages", "adept,nope"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 2
    assert "nope is not a page; the pages are adept, metric" in out.stderr
    assert "compiled" not in out.stderr and "Traceback" not in out.stderr
