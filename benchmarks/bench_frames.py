"""Benchmark: one live chart's frames along one slider, on one core (dpviz.frames.compute_frames:
the figure's table, its drawing and its JSON at every position of the slider's grid), per chart
and slider of the paper pages on their defaults.

Three routes in the same run, alternating chart by chart (every in-process memo emptied before
each, then the page's prepared state computed again outside the timing); all give the same frames
(checked here, and in tests/core/test_theme.py and tests/core/test_plotly_paths.py):

- *before* (the baseline): the house template set by name (``update_layout(template="dpviz")``,
  which Plotly deep-copies and validates for every figure) and Plotly parsing every property path
  at every use, as every frame was drawn before the two changes below;
- *direct*: ``dpviz.theme.style`` sets the validated template directly; paths still parsed each time;
- *now*: both that and Plotly's path parses remembered (:mod:`dpviz.plotly_paths`).

    python benchmarks/bench_frames.py
    python benchmarks/bench_frames.py --pages adept,hoho
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from plotly import basedatatypes  # noqa: E402

from dpviz import caches, papers, plotly_paths, registry, theme  # noqa: E402
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


def _route(name: str, direct_code, parse) -> None:
    """Set the drawing up as route ``name`` (see the module docstring)."""
    theme.style.__code__ = _by_name.__code__ if name == "before" else direct_code
    basedatatypes._str_to_dict_path_full = plotly_paths.remembering(parse) if name == "now" else parse


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", default=",".join(p.key for p in papers.all_papers()))
    args = ap.parse_args()
    direct = theme.style.__code__  # the figure modules hold the function itself: its body is swapped
    theme.go.Figure  # noqa: B018 - loads Plotly (and installs the remembered parse, taken off below)
    parse = getattr(basedatatypes._str_to_dict_path_full, "__wrapped__", basedatatypes._str_to_dict_path_full)
    routes = ("before", "direct", "now")
    totals: dict[str, dict[str, float]] = {}
    print(f"{'chart':28s} {'slider':10s} {'frames':>6s} {'before':>8s} {'direct':>8s} {'now':>8s} {'ratio':>6s}")
    for key in args.pages.split(","):
        values = {p.name: p.default for p in registry.page_params(key)}
        sliders = [p for p in registry.page_params(key) if p.slider]
        for spec in registry.paper_figures(key):
            for p in sliders:
                if spec.on_demand or p.name not in {q.name for q in spec.params}:
                    continue
                spec.table(values)  # the prepared state, outside the timing
                took, made = {}, {}
                try:
                    for route in routes:
                        _route(route, direct, parse)
                        took[route], made[route] = _timed(spec, values, p.name)
                finally:
                    _route("now", direct, parse)
                blobs = {made[r].encoded() for r in routes}
                assert len(blobs) == 1, f"{spec.id} along {p.name}: the frames differ"
                page = totals.setdefault(key, dict.fromkeys(routes, 0.0))
                for r in routes:
                    page[r] += took[r]
                n = len(slider_grid(p))
                cells = " ".join(f"{took[r]:7.2f}s" for r in routes)
                print(f"{spec.id:28s} {p.name:10s} {n:6d} {cells} {took['before'] / took['now']:5.2f}x", flush=True)
    for key, t in totals.items():
        print(
            f"page {key:8s} CPU-s before {t['before']:6.1f}, direct {t['direct']:6.1f}, now {t['now']:6.1f}:"
            f" {t['before'] / t['now']:.2f}x (paths alone {t['direct'] / t['now']:.2f}x)"
        )


if __name__ == "__main__":
    main()
