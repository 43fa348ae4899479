"""Benchmark: one live chart's frames along one slider, on one core, per chart and slider of the
paper pages and the privacy-budget page on their defaults: the figure's table, its drawing and its
JSON at every position of the slider's grid.

Two routes in the same run, chart by chart (every in-process memo emptied before each, then the
page's prepared state computed again outside the timing; no table read from the disk cache):

- *Plotly* (the baseline): every frame drawn by Plotly's figure objects, as every frame was
  before 2026-11-29;
- *now*: :func:`dpviz.frames.compute_frames`, which draws the frames by the fast drawing
  (:mod:`dpviz.fast_figure`) once its first frame equals Plotly's.

Both give the same frames (checked here to the last bit, and in tests/core/test_frames.py and
tests/core/test_fast_figure.py). The *table* column is the part of the baseline spent computing
the figure's tables (``spec.table`` at each position); the *tables* column is the now route's
tables alone (shared along the slider where the figure's draws are: ``FigureSpec.along``). A
chart under the issue's goal of 20x is named with its reason: its tables (what no drawing can
take off: the largest ratio they allow is printed) or its figure code past the table (the
render, with what it computes itself, the drawing and the JSON: ms a frame).

    python benchmarks/bench_frames.py
    python benchmarks/bench_frames.py --pages adept,hoho
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import plotly.io as pio  # noqa: E402

from dpviz import caches, papers, registry  # noqa: E402
from dpviz import tables as dpviz_tables  # noqa: E402
from dpviz.frames import close, compute_frames, slider_grid, typed_arrays  # noqa: E402
from dpviz.params import applies, parse_value  # noqa: E402


def _to_json(fig_dict) -> str:
    return pio.to_json(fig_dict, validate=False)


def _fresh(spec, values) -> None:
    """Every in-process memo emptied, then the chart at the page's setting (its prepared state)."""
    caches.empty_all()
    spec.table(values)


def _plotly_loop(spec, values, slider) -> tuple[float, float, list]:
    """(CPU-s of the whole loop, CPU-s of its tables, the frames): Plotly at every position."""
    figures, tables = [], 0.0
    start = time.process_time()
    for v in slider_grid(spec.param(slider)):
        at = {q.name: values[q.name] for q in spec.params}
        at[slider] = v
        t0 = time.process_time()
        df = spec.table(at)
        tables += time.process_time() - t0
        figures.append(typed_arrays(json.loads(_to_json(spec.figure_dict(df, at)))))
    return time.process_time() - start, tables, figures


def main() -> None:
    # every table computed, none read from the disk cache: a figure kept on disk
    # (adept-privacy-loss) would otherwise be read back by whichever route runs second
    dpviz_tables.cached_table = lambda figure_id, canonical, compute: compute()
    dpviz_tables.read_shared = lambda kind, canonical: None  # the frontiers' points too (dpviz.frontier)
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", default=",".join(p.key for p in papers.all_papers()))
    ap.add_argument("--set", action="append", default=[], help="name=value: another setting than the default")
    ap.add_argument("--no-freeze", action="store_true", help="leave the loaded objects to the collector's full passes")
    args = ap.parse_args()
    chosen = dict(kv.split("=", 1) for kv in args.set)
    if not args.no_freeze:  # set up, loaded and frozen as a frame worker once ready: both routes alike
        from webui import frames_worker

        frames_worker.start()  # (the pool's initializer: one BLAS thread, freed memory kept, nice 19)
        frames_worker.ready()
    totals: dict[str, list[float]] = {}
    print(
        f"{'chart':24s} {'slider':8s} {'frames':>6s} {'Plotly':>8s} {'table':>8s} {'now':>8s} {'tables':>8s}"
        f" {'ratio':>6s}"
    )
    for key in args.pages.split(","):
        values = {p.name: p.default for p in registry.page_params(key)}
        values.update({p.name: parse_value(p, chosen[p.name]) for p in registry.page_params(key) if p.name in chosen})
        sliders = [p for p in registry.page_params(key) if p.slider and applies(p, values)]
        for spec in registry.paper_figures(key):
            for p in sliders:
                if spec.on_demand or p.name not in {q.name for q in spec.params}:
                    continue
                _fresh(spec, values)
                before, tables, reference = _plotly_loop(spec, values, p.name)
                _fresh(spec, values)
                start = time.process_time()
                made = compute_frames(spec, values, p.name, _to_json)
                now = time.process_time() - start
                assert len(made.figures) == len(reference)
                for a, b in zip(made.figures, reference):
                    assert close(a, b, tol=0.0), f"{spec.id} along {p.name}: the frames differ"
                _fresh(spec, values)
                own = _tables_now(spec, values, p.name)
                page = totals.setdefault(key, [0.0, 0.0, 0.0, 0.0])
                page[0] += before
                page[1] += tables
                page[2] += now
                page[3] += own
                print(
                    f"{spec.id:24s} {p.name:8s} {len(reference):6d} {before:7.2f}s {tables:7.2f}s {now:7.2f}s"
                    f" {own:7.2f}s {before / now:5.1f}x  {_why(before, now, own, len(reference))}",
                    flush=True,
                )
    for key, (before, tables, now, own) in totals.items():
        print(
            f"page {key:8s} CPU-s Plotly {before:6.1f} (tables {tables:5.1f}), now {now:6.1f} (tables {own:5.1f}):"
            f" {before / now:.2f}x, {before / max(own, 1e-9):.1f}x at most with the tables now computed and no"
            f" drawing at all; drawing alone {before - tables:5.1f} -> {max(now - own, 0.0):5.1f}"
        )


def _tables_now(spec, values, slider) -> float:
    """CPU-s of the *now* route's tables alone (``spec.tables_along``: all positions from one
    computation where the figure shares its draws along the slider, else one by one)."""
    start = time.process_time()
    spec.tables_along(values, slider, slider_grid(spec.param(slider)))
    return time.process_time() - start


GOAL = 20.0
"""The ratio the issue set as a goal, per page (a chart under it is named with its reason)."""


def _why(before: float, now: float, own: float, frames: int) -> str:
    """Why a chart's ratio is under :data:`GOAL`: its tables (computed at every position, by both
    routes, unless shared along the slider) or its drawing (what a frame costs beyond its table)."""
    if before / now >= GOAL:
        return ""
    if own >= 0.5 * now:
        return f"under {GOAL:g}x: its tables, {own:.2f} of {now:.2f} s ({before / max(own, 1e-9):.0f}x at most)"
    return f"under {GOAL:g}x: its figure code past the table, {1000 * (now - own) / frames:.1f} ms a frame"


if __name__ == "__main__":
    main()
