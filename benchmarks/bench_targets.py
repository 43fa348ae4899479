"""How long choosing a setting from a target takes (dpviz/targets.py), per page and target, at the
page's default settings, against the page's own evaluation at one slider position (the work a
slider move does; the baseline, same run): the ratio says how many moves a solve is worth.
Each page's heavy state (draws, attack counts, the query's table) is prepared once first, as the
page has it when a target is typed.

    python benchmarks/bench_targets.py
"""

from __future__ import annotations

import statistics
import time

from dpviz.params import validate  # noqa: E402
from dpviz.targets import PAGES, calibrate_page  # noqa: E402

CASES = [
    ("adept", "epsilon_actual", 4.0),
    ("adept", "rms_error_relative", 0.75),
    ("adept", "cosine", 0.8),
    ("hoho", "auc_mean", 0.6),
    ("hoho", "reconstruction_mean", 0.6),
    ("metric", "n_w", 20.0),
    ("metric", "mean_cosine", 0.8),
    ("partial", "rdp_epsilon", 1.0),
]


def one_position(page: str) -> float:
    """Seconds of the page's own evaluation of every mechanism at the default slider value."""
    p = PAGES[page]
    values, _ = validate(list(p.params()), {})
    states = {m: p.prepare(values, m) for m in p.mechanisms_for(values)}
    start = time.perf_counter()
    for m in p.mechanisms_for(values):
        dict(p.evaluate(states[m], values, m, float(values[p.slider])).items())
    return time.perf_counter() - start


def main() -> None:
    print(f"{'page':8s} {'target':20s} {'solve':>9s} {'one position':>13s} {'ratio':>7s}")
    for page, target, value in CASES:
        calibrate_page(page, {target: value})  # the page's state, prepared as it is when a target is typed
        solve = statistics.median(_timed(calibrate_page, page, {target: value}) for _ in range(3))
        base = statistics.median(one_position(page) for _ in range(3))
        print(f"{page:8s} {target:20s} {solve:8.2f}s {base:12.3f}s {solve / base:6.0f}x")


def _timed(f, *args) -> float:
    start = time.perf_counter()
    f(*args)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
