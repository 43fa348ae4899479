"""Benchmark: a chart's frames computed in parts, as the frame workers compute a set
(:mod:`webui.frames_pool`): the positions nearest the slider's value first, then the rest split
between the two workers, or, for a set asked for ahead, in parts of at most
:data:`webui.frames_schedule.AHEAD_PART` positions. Every part is one
:func:`dpviz.frames.compute_frames` call (``webui.frames_store.figures_at``).

Two routes in the same process, chart by chart and alternating (best of ``--rounds`` each), on
one core, every in-process memo emptied before each and the page's prepared state computed outside
the timing, no table read from the disk cache:

- *each part checked* (the baseline, as before 2026-12-03's thirty-ninth session): every part's
  drawer draws its first frame by Plotly as well and its second through the JSON text, to check
  the fast drawing (:class:`dpviz.frames.Drawer`), :func:`dpviz.frames.forget_checks` before each part;
- *checked once*: the process remembers a chart it has checked (``compute_frames``), so only its
  first part ever checks (a worker process computes hundreds of parts in a class).

Both give the same frames (checked here to the last bit). CPU-seconds of all parts of every
chart and slider of a page on its defaults, per way of splitting.

    python benchmarks/bench_frames_parts.py
    python benchmarks/bench_frames_parts.py --pages metric,hoho --rounds 3
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import plotly.io as pio  # noqa: E402

from dpviz import caches, frames, papers, registry  # noqa: E402
from dpviz import tables as dpviz_tables  # noqa: E402
from dpviz.frames import close, compute_frames, slider_grid  # noqa: E402
from dpviz.params import applies  # noqa: E402
from webui.frames_schedule import AHEAD_PART, NEAR, nearest  # noqa: E402

WORKERS = 2
"""The frame workers of the two-core machine (``webui.frames_pool.size``)."""


def _to_json(fig: dict) -> str:
    return pio.to_json(fig, validate=False)


def parts(grid: list, value, ahead: bool) -> list[list]:
    """The parts of a set as the pool splits it (``webui.frames_pool``): the nearest positions, then
    the rest spread over the workers (``_split``), in parts of at most AHEAD_PART when ahead."""
    first = nearest(grid, value)
    rest = [v for v in grid if v not in set(first)]
    n = max(WORKERS, -(-len(rest) // AHEAD_PART) if ahead else 0)
    return [first] + [rest[k::n] for k in range(n) if rest[k::n]]


def _run(spec, values, slider, split, checked_each) -> tuple[float, list]:
    caches.empty_all()
    frames.forget_checks()
    spec.table(values)
    made, seconds = [], 0.0
    for positions in split:
        if checked_each:
            frames.forget_checks()
        start = time.process_time()
        made += compute_frames(spec, values, slider, _to_json, grid=positions).figures
        seconds += time.process_time() - start
    return seconds, made


def main() -> None:
    dpviz_tables.cached_table = lambda figure_id, canonical, compute: compute()
    dpviz_tables.read_shared = lambda kind, canonical: None
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", default=",".join(p.key for p in papers.all_papers()))
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    from webui import frames_worker

    frames_worker.start()  # (as a worker: its pool's initializer, then ready)
    frames_worker.ready()
    print(f"parts: the {NEAR} nearest positions, then {WORKERS} parts (a set asked for by a step) or parts of at"
          f" most {AHEAD_PART} (a set asked for ahead); CPU-s, best of {args.rounds}")  # fmt: skip
    print(f"{'chart':24s} {'slider':8s} {'ways':>5s} {'checked each part':>18s} {'checked once':>13s} {'ratio':>6s}")
    for key in args.pages.split(","):
        values = {p.name: p.default for p in registry.page_params(key)}
        sliders = [p for p in registry.page_params(key) if p.slider and applies(p, values)]
        totals = {False: [0.0, 0.0], True: [0.0, 0.0]}
        for spec in registry.paper_figures(key):
            for p in sliders:
                if spec.on_demand or p.name not in {q.name for q in spec.params}:
                    continue
                grid = slider_grid(spec.param(p.name))
                for ahead in (False, True):
                    split = parts(grid, values[p.name], ahead)
                    best = {True: float("inf"), False: float("inf")}
                    for _ in range(args.rounds):
                        for each in (True, False):
                            seconds, made = _run(spec, values, p.name, split, each)
                            best[each] = min(best[each], seconds)
                            if each:
                                reference = made
                            else:
                                assert all(close(a, b, tol=0.0) for a, b in zip(made, reference)), spec.id
                    totals[ahead][0] += best[True]
                    totals[ahead][1] += best[False]
                    print(
                        f"{spec.id:24s} {p.name:8s} {len(split):5d} {best[True]:17.2f}s {best[False]:12.2f}s"
                        f" {best[True] / best[False]:5.2f}x",
                        flush=True,
                    )
        for ahead, (each, once) in totals.items():
            print(
                f"page {key:8s} {'ahead' if ahead else 'a step'}: checked each part {each:6.2f} CPU-s, once"
                f" {once:6.2f} CPU-s: {each / once:.2f}x"
            )


if __name__ == "__main__":
    main()
