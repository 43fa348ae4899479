"""Benchmark: one live chart's frames along one slider, on one core (dpviz.frames.compute_frames:
the figure's table, its drawing and its JSON at every position of the slider's grid), per chart
and slider of the paper pages on their defaults.

Baseline in the same run: the drawing with the house template set by name
(``update_layout(template="dpviz")``, which Plotly deep-copies and validates for every figure),
as every frame was drawn before ``dpviz.theme.style`` set the validated template directly. The
two routes alternate chart by chart (every in-process memo emptied before each, then the page's
prepared state computed again outside the timing), and both give the same frames (checked here,
and in tests/core/test_theme.py).

    python benchmarks/bench_frames.py
    python benchmarks/bench_frames.py --pages adept,hoho
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from dpviz import caches, papers, registry, theme  # noqa: E402
from dpviz.frames import compute_frames, slider_grid  # noqa: E402


def _by_name(fig, title, height):
    """The baseline's body, run as ``dpviz.theme.style``'s (its globals: pio, TEMPLATE_NAME)."""
    pio.templates  # noqa: B018, F821 - registers the template
    return fig.update_layout(template=TEMPLATE_NAME, title=title, height=height)  # noqa: F821


def _to_json(fig_dict) -> str:
    import plotly.io as pio

    return pio.to_json(fig_dict, validate=False)


def _timed(spec, values, slider) -> tuple[float, object]:
    """CPU-seconds of the frames from a process that holds only the page's prepared state (every
    in-process memo emptied, then the chart's table at the page's setting computed again)."""
    caches.empty_all()
    spec.table(values)
    start = time.process_time()
    made = compute_frames(spec, values, slider, _to_json)
    return time.process_time() - start, made


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", default=",".join(p.key for p in papers.all_papers()))
    args = ap.parse_args()
    direct = theme.style.__code__  # the figure modules hold the function itself: its body is swapped
    totals: dict[str, list[float]] = {}
    print(f"{'chart':28s} {'slider':10s} {'frames':>6s} {'by name':>9s} {'direct':>9s} {'ratio':>6s}")
    for key in args.pages.split(","):
        values = {p.name: p.default for p in registry.page_params(key)}
        sliders = [p for p in registry.page_params(key) if p.slider]
        for spec in registry.paper_figures(key):
            for p in sliders:
                if spec.on_demand or p.name not in {q.name for q in spec.params}:
                    continue
                spec.table(values)  # the prepared state, outside the timing
                theme.style.__code__ = _by_name.__code__
                try:
                    before, old = _timed(spec, values, p.name)
                finally:
                    theme.style.__code__ = direct
                after, new = _timed(spec, values, p.name)
                assert old.encoded() == new.encoded(), f"{spec.id} along {p.name}: the frames differ"
                totals.setdefault(key, [0.0, 0.0])
                totals[key][0] += before
                totals[key][1] += after
                n = len(slider_grid(p))
                print(
                    f"{spec.id:28s} {p.name:10s} {n:6d} {before:8.2f}s {after:8.2f}s {before / after:5.2f}x", flush=True
                )
    for key, (before, after) in totals.items():
        print(f"page {key:10s} CPU-s by name {before:7.1f}, direct {after:7.1f}: {before / after:.2f}x")


if __name__ == "__main__":
    main()
