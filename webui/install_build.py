"""What ``python -m dpviz build`` adds at install to the compiled engine: every page's charts
on its defaults and every live chart's frames, into the cache (the hosted warm-up's code,
:mod:`webui.warmup`), with one progress bar over both parts, cut by their measured seconds."""

from __future__ import annotations

import time

from dpviz.progress import report
from webui import warmup
from webui.failure_lines import failures_as_lines

BUILD_SHARES = (0.6, 0.4)
"""The build's two parts, the charts on their defaults and the frames, as shares of its progress
bar before a machine's first build has measured them: 45 s and 28 s of 73 on 2 cores
(2026-12-03). Later builds cut the bar by the last build's seconds
(:mod:`dpviz.page_report.timing`), so the time left is right when a build costs what the last did."""


def build(progress=None, pages: set[str] | None = None, workers: int = 1) -> str:
    """What ``python -m dpviz build`` adds to the compiled engine (``scripts/start.sh`` runs it at
    install): every page's charts and panels on its defaults, every lesson, and every live
    chart's frames along each of its sliders, into the cache, so that the first visitor of a
    fresh install finds every page's first view and drags at frame rate at once (``pages``:
    only these pages', no lesson). The same code as the hosted warm-up
    (:func:`webui.warmup.warm_defaults`), the frames computed in ``workers`` processes, with
    ``progress`` (fraction, message) told both parts; returns a sentence for the command line."""

    from dpviz.page_report import timing  # (lazy: the build's bar alone; a server never needs it)

    start = time.monotonic()
    warmup.patient()
    which = "all" if pages is None else ",".join(sorted(pages))
    keys = (f"build:charts:{which}", f"build:frames:{which}")
    (c_start, c_size, c_expected), (f_start, f_size, f_expected) = timing.shares(keys, prior=BUILD_SHARES)
    with failures_as_lines(warmup.log) as failed:
        report(progress, 0.0, "every page's charts on its defaults")
        began = time.monotonic()
        charts = warmup.warm_defaults(
            frames=False, pages=pages, progress=timing.within(progress, c_start, c_size, c_expected)
        )
        charts_took, began = time.monotonic() - began, time.monotonic()
        sets = warmup.warm_frames(
            timing.within(progress, f_start, f_size, f_expected), pages=pages, workers=workers, ahead=True
        )
        timing.record({keys[0]: charts_took, keys[1]: time.monotonic() - began})
        report(progress, 1.0, "done")
    said = f"computed {charts} charts and {sets} sets of frames in {time.monotonic() - start:.0f} s"
    if failed.lines:
        said += f"; {len(failed.lines)} could not be computed (a visitor's page computes them):\n" + "\n".join(
            f"  {line}" for line in failed.lines
        )
    return said
