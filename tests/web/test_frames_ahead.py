"""Frames asked for ahead of a reader's move (webui.live_frames.ask_ahead): once a chart holds its
frames along every live slider, its frames along each slider at the settings one key step of
another slider away, behind every other set, each (chart, slider, stepped slider, side) on behalf
of an asker of its own; none where they are on the disk, none past a grid's end, none without
frame worker processes."""

from __future__ import annotations

import pytest

from dpviz import registry, tables
from dpviz.params import applies
from webui import frames_fetch, frames_pool, frames_queue, frames_store, live_frames
from webui.widgets import slider_options


@pytest.fixture
def asked(monkeypatch):
    calls = []
    monkeypatch.setenv("DPVIZ_FRAMES", "1")
    monkeypatch.setenv("DPVIZ_FRAMES_AHEAD", "1")
    monkeypatch.setattr(frames_pool, "active", lambda: True)
    monkeypatch.setattr(frames_pool, "prestart", lambda page, values: None)
    monkeypatch.setattr(live_frames, "asker", lambda owner, slider: ("session", owner, slider))
    monkeypatch.setattr(frames_queue, "request", lambda key, job, by=None, ahead=False: calls.append((key, by, ahead)))
    monkeypatch.setattr(tables, "blob_cached", lambda kind, canonical: False)
    return calls


def _at(page: str, **moved):
    values = {p.name: p.default for p in registry.page_params(page)}
    values.update(moved)
    live = [p for p in registry.page_params(page) if p.slider]
    return values, live


def _neighbour(live, values, name: str, step: int):
    p = next(q for q in live if q.name == name)
    options = slider_options(p, values[name])
    return dict(values, **{name: options[options.index(values[name]) + step]})


def test_a_chart_with_two_sliders_asks_for_each_along_the_other_one_step_either_side(asked):
    spec = registry.get("adept-epsilon")
    values, live = _at("adept")
    assert live_frames.ask_ahead(spec, values, live) == 4
    want = set()
    for stepped, along in (("dim", "epsilon"), ("epsilon", "dim")):
        for step, side in ((-1, "left"), (1, "right")):
            moved = _neighbour(live, values, stepped, step)
            key = frames_store.frames_key(spec, {p.name: moved[p.name] for p in spec.params}, along)
            want.add((key, ("session", spec.id, f"{along} ahead of {stepped} {side}"), True))
    assert set(asked) == want
    # the keys are those the page asks for once the reader has made that step (not the current ones)
    here = {frames_store.frames_key(spec, {p.name: values[p.name] for p in spec.params}, s) for s in ("dim", "epsilon")}
    assert not here & {k for k, _, _ in asked}


def test_a_grids_end_has_one_side_and_a_chart_with_one_slider_asks_for_nothing(asked):
    spec = registry.get("adept-epsilon")
    values, live = _at("adept")
    top = slider_options(next(p for p in live if p.name == "dim"), values["dim"])[-1]
    values["dim"] = top
    assert live_frames.ask_ahead(spec, values, live) == 3  # n has no step to the right
    assert not any("ahead of dim right" in by[2] for _, by, _ in asked)
    asked.clear()
    one = registry.get("adept-sensitivity")  # follows n only
    assert live_frames.ask_ahead(one, *_at("adept")) == 0 and not asked


def test_frames_on_the_disk_are_not_asked_for_nor_read(asked, monkeypatch):
    read = []
    monkeypatch.setattr(tables, "blob_cached", lambda kind, canonical: True)
    monkeypatch.setattr(frames_store, "get", lambda *a, **k: read.append(a))
    spec = registry.get("adept-epsilon")
    assert live_frames.ask_ahead(spec, *_at("adept")) == 4  # (each looked up)
    assert not asked and not read


def test_without_frame_workers_or_when_turned_off_nothing_is_asked_ahead(asked, monkeypatch):
    monkeypatch.setenv("DPVIZ_FRAMES_AHEAD", "0")
    assert live_frames.ask_ahead(registry.get("adept-epsilon"), *_at("adept")) == 0
    monkeypatch.setenv("DPVIZ_FRAMES_AHEAD", "1")
    monkeypatch.setattr(frames_pool, "active", lambda: False)
    assert live_frames.ask_ahead(registry.get("adept-epsilon"), *_at("adept")) == 0
    assert not asked


def test_a_chart_that_follows_three_sliders_asks_for_each_sliders_frames_at_each_others_steps(asked):
    """The privacy-budget page's composition chart follows σ, k and δ (the Gaussian's): its
    frames along each slider at one key step of each of the two others, both sides, 3 x 2 x 2 =
    12 sets, each at a setting that differs from the page's by that one step."""
    values, live = _at("budget")
    spec = registry.get("budget-composition")
    own = [p.name for p in live if p.name in {q.name for q in spec.params} and applies(p, values)]
    assert sorted(own) == ["delta", "k", "sigma"]
    assert live_frames.ask_ahead(spec, values, live) == 12
    steps = frames_store.ahead_settings(spec, values, live)
    expected = {(slider, stepped, side) for slider in own for stepped in own if stepped != slider for side in (-1, 1)}
    got = set()
    for slider, moved, _ in steps:
        (stepped,) = [n for n in moved if moved[n] != values[n]]
        assert stepped != slider
        side = 1 if moved == _neighbour(live, values, stepped, 1) else -1
        assert moved == _neighbour(live, values, stepped, side)
        got.add((slider, stepped, side))
    assert got == expected
    assert len(asked) == 12 and all(ahead for _, _, ahead in asked)


def test_a_chart_that_follows_more_than_three_sliders_asks_for_nothing_ahead(asked, monkeypatch):
    """Four sliders would be 24 sets a chart (the limit, frames_store.AHEAD_MOST_SLIDERS): none.
    (With the limit at two, the budget page's three-slider charts ask for none either.)"""
    values, live = _at("budget")
    many = [
        s for s in registry.paper_figures("budget")
        if len([p for p in live if p.name in {q.name for q in s.params} and applies(p, values)]) > 2
    ]  # fmt: skip
    assert many
    monkeypatch.setattr(frames_store, "AHEAD_MOST_SLIDERS", 2)
    for spec in many:
        assert live_frames.ask_ahead(spec, values, live) == 0
    assert not asked


def test_the_build_computes_the_sets_of_a_readers_first_step_after_the_defaults(monkeypatch):
    """``dpviz build`` (webui.install_build.build: ``frame_jobs(ahead=True)``) adds, after every page's
    defaults, each two- or three-slider chart's sets one key step of another slider away: the first step
    of a fresh install's first reader finds them. Without ``ahead`` (the hosted warm-up at a
    class's setting) or with DPVIZ_FRAMES_AHEAD=0 (the tests' servers), only the defaults."""
    from webui import warmup

    monkeypatch.setenv("DPVIZ_FRAMES_AHEAD", "1")
    plain, both = warmup.frame_jobs(), warmup.frame_jobs(ahead=True)
    assert both[: len(plain)] == plain
    extra = both[len(plain) :]
    assert extra
    for paper, values, _, p in extra:
        defaults = {q.name: q.default for q in registry.page_params(paper.key)}
        moved = [name for name in defaults if values[name] != defaults[name]]
        assert len(moved) == 1 and moved[0] != p.name  # one other slider, one step
        live = [q for q in registry.page_params(paper.key) if q.slider]
        options = slider_options(next(q for q in live if q.name == moved[0]), defaults[moved[0]])
        assert abs(options.index(values[moved[0]]) - options.index(defaults[moved[0]])) == 1
    charts = {spec.id for _, _, spec, _ in extra}
    assert {"adept-privacy-loss", "hoho-live", "partial-individuals"} <= charts
    assert {"budget-delta", "budget-composition"} <= charts  # (three sliders: 12 sets each)
    assert len([j for j in extra if j[2].id == "budget-composition"]) == 12
    assert len([j for j in extra if j[2].id == "hoho-live"]) == 4
    monkeypatch.setenv("DPVIZ_FRAMES_AHEAD", "0")
    assert warmup.frame_jobs(ahead=True) == plain


@pytest.fixture
def published(tmp_path, monkeypatch):
    """Frames published into a folder of the test's own (as if Streamlit served it)."""
    out = tmp_path / "frames"
    out.mkdir()
    monkeypatch.setattr(frames_fetch, "folder", lambda: out)
    monkeypatch.setattr(frames_fetch, "_secret", lambda: b"s" * 32)
    return out


def _wait_for(path, seconds: float = 10.0) -> bool:
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if frames_fetch._there(path):  # (an empty file is reserved, not published)
            return True
        time.sleep(0.02)
    return frames_fetch._there(path)


def test_the_browser_is_told_each_set_ahead_by_the_other_sliders_value_with_its_file(asked, published):
    """webui.live_frames.ahead_for_browser: per slider label the chart follows, per label of the
    other slider, [its value one key step away, the set's key there, the file's address]: the same
    keys the page asks the workers for, at the grid's neighbours of the other slider's value."""
    from webui.widgets import widget_label

    spec = registry.get("adept-epsilon")
    values, live = _at("adept")
    told = live_frames.ahead_for_browser(spec, values, live)
    labels = {p.name: widget_label(p) for p in live}
    assert set(told) == {labels["dim"], labels["epsilon"]}
    for along, stepped in (("epsilon", "dim"), ("dim", "epsilon")):
        steps = told[labels[along]]
        assert set(steps) == {labels[stepped]}
        got = sorted(steps[labels[stepped]])
        want = []
        for step in (-1, 1):
            moved = _neighbour(live, values, stepped, step)
            key = frames_store.frames_key(spec, {p.name: moved[p.name] for p in spec.params}, along)
            want.append([moved[stepped], key, f"{frames_fetch.ROUTE}/{frames_fetch.name(key)}"])
        assert got == sorted(want)
    assert {k for k, _, _ in asked} == {step[1] for s in told.values() for v in s.values() for step in v}
    # nothing named for a chart that follows one slider, nor when frames are not published as files
    assert live_frames.ahead_for_browser(registry.get("adept-sensitivity"), values, live) == {}
    import webui.frames_fetch as ff

    ff_folder = ff.folder
    try:
        ff.folder = lambda: None
        assert live_frames.ahead_for_browser(spec, values, live) == {}
    finally:
        ff.folder = ff_folder


def test_a_set_ahead_on_the_disk_is_published_for_the_tab_to_fetch_at_the_step(asked, published, monkeypatch):
    """A set the build (or the workers, earlier) left on the disk is written where the tab fetches
    it, from the disk cache's bytes, in a thread of its own (not the page's run); once."""

    reads = []
    monkeypatch.setattr(tables, "blob_cached", lambda kind, canonical: True)
    monkeypatch.setattr(
        tables, "read_shared", lambda kind, canonical: reads.append(canonical) or b"set " + repr(canonical).encode()
    )
    spec = registry.get("adept-epsilon")
    values, live = _at("adept")
    told = live_frames.ahead_for_browser(spec, values, live)
    keys = [step[1] for s in told.values() for v in s.values() for step in v]
    assert len(keys) == 4 and not asked
    for key in keys:
        assert _wait_for(published / frames_fetch.name(key))
        assert (published / frames_fetch.name(key)).read_bytes().startswith(b"set ")
    n = len(reads)
    assert n == 4
    live_frames.ahead_for_browser(spec, values, live)  # published already: not read again
    import time

    time.sleep(0.2)
    assert len(reads) == n


def test_a_set_ahead_the_workers_computed_is_published_once_on_the_disk(asked, published, monkeypatch):
    """The queue's job for a set ahead: the workers put it on the disk, and the file the tab
    fetches is written from there; a pool that could not compute it publishes nothing."""

    jobs = []  # (the queue's requests, with their jobs; `asked` set the rest up)
    monkeypatch.setattr(frames_queue, "request", lambda key, job, by=None, ahead=False: jobs.append((key, job)))
    on_disk = {}
    monkeypatch.setattr(tables, "read_shared", lambda kind, canonical: on_disk.get(repr(sorted(canonical.items()))))

    def compute(task, key, progress, near=None, ahead=False):  # the workers: into the disk cache
        assert ahead and near is None
        on_disk[repr(sorted(frames_store.canonical(registry.get(task[1]), task[2], task[3]).items()))] = (
            b"computed " + key.encode()
        )
        return True

    monkeypatch.setattr(frames_pool, "compute", compute)
    spec = registry.get("hoho-live")
    values, live = _at("hoho")
    told = live_frames.ahead_for_browser(spec, values, live)
    assert len(jobs) == 4
    key, job = jobs[0]
    path = published / frames_fetch.name(key)
    assert not frames_fetch.published(key)
    job(lambda *a: None)
    assert _wait_for(path) and path.read_bytes() == b"computed " + key.encode()
    assert key in {step[1] for s in told.values() for v in s.values() for step in v}
    monkeypatch.setattr(frames_pool, "compute", lambda *a, **k: False)  # the pool broke: nothing on the disk
    key2, job2 = jobs[1]
    job2(lambda *a: None)
    import time

    time.sleep(0.2)
    assert not frames_fetch.published(key2)
