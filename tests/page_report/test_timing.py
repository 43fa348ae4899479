"""The report's progress bar is cut by the parts' measured seconds (dpviz.page_report.timing),
so the command line's time left is right when a report costs what the last one did."""

import io
import json
import re

import pytest

from dpviz import page_report
from dpviz.page_report import timing
from dpviz.progress import Printer


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("DPVIZ_REPORT_SHARES", raising=False)
    monkeypatch.setattr(timing, "TYPICAL", tmp_path / "no-typical.json")
    return tmp_path


def test_recorded_seconds_come_back_newest_first_and_a_broken_file_is_ignored(cache):
    timing.record({"a": 2.0, "b": 1.0})
    timing.record({"a": 3.0})
    assert timing.load() == {"b": 1.0, "a": 3.0}
    (cache / timing.FILE).write_text("{not json")
    assert timing.load() == {}
    timing.record({"c": 1.5})  # a broken file is replaced, not a traceback
    assert timing.load() == {"c": 1.5}


def test_this_machines_timings_override_the_shipped_ones_and_equal_shares_can_be_asked_for(cache, monkeypatch):
    typical = cache / "typical.json"
    typical.write_text(json.dumps({"a": 1.0, "b": 9.0}))
    monkeypatch.setattr(timing, "TYPICAL", typical)
    timing.record({"a": 3.0})
    assert timing.load() == {"a": 3.0, "b": 9.0}
    assert json.loads((cache / timing.FILE).read_text()) == {"a": 3.0}  # the shipped ones are not copied
    monkeypatch.setenv("DPVIZ_REPORT_SHARES", "equal")
    assert [size for _, size, _ in timing.shares(["a", "b"])] == [0.5, 0.5]


def test_shares_follow_the_recorded_seconds_and_a_new_part_gets_their_mean():
    known = {"a": 3.0, "b": 1.0, "tiny": 0.0}
    spans = timing.shares(["a", "b", "new", "tiny"], known)
    mean = (3.0 + 1.0 + timing.FLOOR) / 3  # the measured parts, each at least the floor
    weights = [3.0, 1.0, mean, timing.FLOOR]
    total = sum(weights)
    assert [size for _, size, _ in spans] == pytest.approx([w / total for w in weights])
    assert [start for start, _, _ in spans] == pytest.approx([0, 3 / total, 4 / total, (4 + mean) / total])
    assert [expected for *_, expected in spans] == [3.0, 1.0, None, 0.0]
    assert [size for _, size, _ in timing.shares(["x", "y"], {}, prior=(0.8, 0.2))] == pytest.approx([0.8, 0.2])
    assert [size for _, size, _ in timing.shares(["x", "y"], {})] == [0.5, 0.5]


def test_a_part_that_reports_late_moves_with_the_clock_up_to_ninety_percent():
    now = [0.0]
    seen = []
    part = timing.within(lambda f, m: seen.append(f), 0.5, 0.25, expected=4.0, clock=lambda: now[0])
    now[0] = 1.0
    part(0.0, "loading")  # a quarter of the expected time spent, nothing reported done yet
    now[0] = 2.0
    part(0.1, "step 1")  # the clock says more than the step count
    now[0] = 10.0
    part(0.95, "step 9")  # far over time: the clock alone never claims more than 90 %
    part(0.5, "a late, lower report")  # never backwards
    assert seen == pytest.approx([0.5 + 0.25 * 0.25, 0.5 + 0.25 * 0.5, 0.5 + 0.25 * 0.95, 0.5 + 0.25 * 0.95])


def test_with_parts_that_take_their_recorded_time_the_time_left_is_exact():
    """Three parts of 1, 6 and 3 s (one reporting nothing until its end): every estimate the
    printer draws after the first second equals the time really left."""
    durations = {"a": 1.0, "b": 6.0, "c": 3.0}
    now = [0.0]
    out = io.StringIO()
    printer = Printer(out, clock=lambda: now[0])
    shown = []
    for (start, size, expected), (key, d) in zip(timing.shares(durations, durations), durations.items()):
        part = timing.within(printer, start, size, expected, clock=lambda: now[0])
        began = now[0]
        for step in range(1, 4):
            now[0] = began + d * step / 3
            part(step / 3 if key != "b" or step == 3 else 0.0, key)  # b reports nothing done until its end
            m = re.findall(r"~([\d,.]+) s left", out.getvalue())
            if m and 0 < now[0] < 10:
                shown.append((float(m[-1]), 10 - now[0]))
    assert shown and all(abs(est - real) <= 0.5 for est, real in shown)  # the printer rounds to whole seconds


def test_a_report_records_its_charts_and_its_halves_and_the_next_bar_is_cut_by_them(cache, tmp_path):
    page_report.write("partial", {}, tmp_path / "r.ipynb")
    known = timing.load()
    ids = [spec.id for spec in page_report.registry.paper_figures("partial")]
    assert set(ids) <= set(known) and {"compute:partial.ipynb", "write:partial.ipynb"} <= set(known)
    starts = []
    page_report.write(
        "partial", {}, tmp_path / "r.ipynb", progress=lambda f, m: starts.append(f) if m.startswith("chart ") else None
    )
    computing = timing.shares(["compute:partial.ipynb", "write:partial.ipynb"], known)[0][1]
    expected = [start * computing for start, _, _ in timing.shares(ids, known)]
    assert starts == pytest.approx(expected)


def test_the_time_left_is_counted_from_the_bar_starting_to_move_not_from_a_long_setup_at_zero():
    """``dpviz build`` sat at 0 % for its first 45 s and then said ~4,428 s left at 1 % of a build of
    73 s. A setup at 0 % (any number of reports) is not counted in the rate: 1 % one second after
    the last 0 % is 99 s left; a bar that never reported 0 % counts from its start, as before."""
    now = [0.0]
    out = io.StringIO()
    printer = Printer(out, clock=lambda: now[0])
    printer(0.0, "charts")
    now[0] = 45.0
    printer(0.0, "frames")
    now[0] = 46.0
    printer(0.01, "one set")
    assert re.findall(r"~([\d,.]+) s left", out.getvalue()) == ["99"]
    now[0] = 56.0
    printer(0.5, "half")  # 11 s since the last 0 % for half: 11 s left
    assert re.findall(r"~([\d,.]+) s left", out.getvalue())[-1] == "11"
    plain = io.StringIO()
    now[0] = 0.0
    never_at_zero = Printer(plain, clock=lambda: now[0])
    now[0] = 30.0
    never_at_zero(0.25, "a quarter")
    assert re.findall(r"~([\d,.]+) s left", plain.getvalue()) == ["90"]
