"""How long each part of a report took last time, so that its progress bar moves with time.

A report's progress was one equal share per chart (and 80 % for computing, 20 % for writing the
file), while the charts' costs differ a hundredfold: on a cold metric page the first chart loads
the embedding and samples every word, and the command line's time left, elapsed x (1 - f) / f,
said minutes for a report of seconds. Now every part's share is its measured seconds from the last
report that made it (``report-timings.json`` in the cache directory), so the fraction done tracks
the time spent and the estimate holds whenever this report costs what the last one did (or any
fixed multiple of it). A part never measured gets the mean of the measured parts (1 s if none);
before a machine's first report, the shipped :data:`TYPICAL` timings stand in. ``python -m
dpviz build`` cuts its bar between its two parts the same way (:mod:`webui.install_build`).

The file is shared by processes: it is read whole, updated and replaced atomically (a lost
update costs one estimate, never a report); unreadable, it is ignored.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterable, Mapping

from dpviz.progress import Progress
from dpviz.storage import cache_dir

FILE = "report-timings.json"
TYPICAL = Path(__file__).with_name("typical_timings.json")
"""Every part's seconds in a cold run of each page's HTML, PDF and notebook report on defaults
(2-core machine; remade by ``python benchmarks/bench_report_estimate.py --remake-typical``)."""
FLOOR = 0.05
"""The least share weight, in seconds: a part cached now still takes a moment to draw."""
MAX_ENTRIES = 512


def _path() -> Path:
    return cache_dir() / FILE


def _read(path: Path) -> dict[str, float]:
    try:
        raw = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    return {str(k): float(v) for k, v in raw.items() if isinstance(v, (int, float)) and v >= 0}


def load() -> dict[str, float]:
    """Seconds per part (figure id; ``compute:REPORT.FORMAT`` and ``write:REPORT.FORMAT``, the
    two halves of writing a report, REPORT a page, ``lesson-NAME`` or ``comparison-PAGE``;
    ``build:charts:PAGES`` and ``build:frames:PAGES``, the two parts of ``dpviz build``): this machine's last
    measurements over :data:`TYPICAL` (a cold run of every page's report, shipped so that the
    first report's estimate is right too). ``$DPVIZ_REPORT_SHARES=equal`` gives every part an
    equal share (what reports did before; the benchmark's baseline)."""
    if os.environ.get("DPVIZ_REPORT_SHARES") == "equal":
        return {}
    return {**_read(TYPICAL), **_read(_path())}


def record(seconds: Mapping[str, float]) -> None:
    """Remember these parts' seconds (the newest measurement of each part wins)."""
    if not seconds:
        return
    known = _read(_path())
    for key in seconds:
        known.pop(key, None)  # re-inserted last: the newest entries are kept when trimming
    known.update({k: float(v) for k, v in seconds.items()})
    keep = dict(list(known.items())[-MAX_ENTRIES:])
    try:
        path = _path()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".report-timings-")
        with os.fdopen(fd, "w") as f:
            json.dump(keep, f)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache directory: the next report estimates from equal shares


def weights(
    keys: Iterable[str], known: Mapping[str, float] | None = None, prior: Iterable[float] | None = None
) -> list[float]:
    """Each part's share weight: its recorded seconds (at least :data:`FLOOR`), or the mean of
    the recorded ones among ``keys`` for a part never measured; when none is, ``prior`` (or equal
    weights)."""
    keys = list(keys)
    known = load() if known is None else known
    measured = [max(known[k], FLOOR) for k in keys if k in known]
    if not measured:
        return list(prior) if prior is not None else [1.0] * len(keys)
    default = sum(measured) / len(measured)
    return [max(known[k], FLOOR) if k in known else default for k in keys]


def shares(
    keys: Iterable[str], known: Mapping[str, float] | None = None, prior: Iterable[float] | None = None
) -> list[tuple[float, float, float | None]]:
    """(start, size, expected seconds or None) of each part's span of the progress bar, in
    order, the sizes summing to 1."""
    keys = list(keys)
    known = load() if known is None else known
    w = weights(keys, known, prior)
    total = sum(w)
    out, start = [], 0.0
    for key, x in zip(keys, w):
        out.append((start, x / total, known.get(key)))
        start += x / total
    return out


def within(
    progress: Progress | None,
    start: float,
    size: float,
    expected: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Progress | None:
    """A part's own progress (0 to 1) as its span [start, start + size] of ``progress``. With
    the part's ``expected`` seconds (its last measurement), its fraction is at least the share of
    that time spent (up to 90 %): a part that spends its first second loading an embedding before
    it reports anything then moves with the clock instead of sitting at 0 and jumping."""
    if progress is None:
        return None
    began, last = clock(), [0.0]

    def inner(fraction: float, message: str) -> None:
        f = min(max(fraction, 0.0), 1.0)
        if expected:
            f = max(f, min(0.9, (clock() - began) / expected))
        last[0] = max(last[0], f)
        progress(start + size * last[0], message)

    return inner
