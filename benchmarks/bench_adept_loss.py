"""Benchmark: ADePT's privacy-loss chart's simulation along its sliders, the middle draws made in
blocks (:data:`dpviz.papers.adept.sensitivity.MIDDLE_BLOCK`) against all at once (the route before,
the same numbers bit for bit), in the same run, one core.

The chart's table at every position of the ε slider (97) and of the n slider (53), the other
settings at the page's defaults (100,000 simulated releases): what its frames along each slider
cost in simulation. Each position's draws are made from its own seed stream, as the page does.

    python benchmarks/bench_adept_loss.py
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from dpviz import registry  # noqa: E402
from dpviz.frames import slider_grid  # noqa: E402
from dpviz.papers.adept import sensitivity as adept  # noqa: E402
from dpviz.stats import stream  # noqa: E402


def along(spec, values, slider: str, block: int) -> tuple[float, list]:
    """CPU seconds for the simulation at every position of ``slider``, and its results."""
    out = []
    start = time.process_time()
    for x in slider_grid(spec.param(slider)):
        v = dict(values, **{slider: x})
        out.append(
            adept._privacy_loss_units(v["dim"], v["clip"], v["epsilon"], v["samples"], stream(v["seed"], 101), block)
        )
    return time.process_time() - start, out


def main() -> None:
    from threadpoolctl import threadpool_limits

    import dpviz.papers.adept.figures  # noqa: F401 - registers the chart

    spec = registry.get("adept-privacy-loss")
    values = spec.defaults()
    print(f"adept-privacy-loss at {values['samples']:,} releases: seconds of one core, all at once / in blocks")
    with threadpool_limits(1):
        for slider in ("epsilon", "dim"):
            once, a = along(spec, values, slider, 1 << 62)
            blocks, b = along(spec, values, slider, adept.MIDDLE_BLOCK)
            same = all(np.array_equal(x, y) for p, q in zip(a, b) for x, y in zip(p, q))
            print(
                f"along {slider:8s} {len(a):3d} positions: {once:5.2f} / {blocks:5.2f} s ({once / blocks:.2f}x)", end=""
            )
            print(f", the same numbers: {same}")


if __name__ == "__main__":
    main()
