"""The sample auditor (dpviz.auditing) measured: soundness, power and speed.

- Soundness: a correct mechanism audited at its true claim ``--runs`` times with different seeds;
  the rate at which the bound exceeds the truth must be at most 1 - confidence (5%). Reported
  with its exact 95% interval. Laplace (true ε = 1, claim 1, 10^5 samples a side) and Gaussian
  (σ = 1, sensitivity 1: the exact δ(ε = 1) of Balle & Wang 2018 as the claimed δ).
- Power: Laplace mechanisms whose bound is known (true ε = 0.5, 2 and 4); ADePT's worst-case pair
  at n = 16 (claimed 1, true ε√n = 4, 10^5); OME on one float at λ = 10. The baseline in the same
  run: the same samples with the event search at the audit's own level (strictness 1) beside the
  stricter level the auditor uses (``SELECTION_STRICTNESS``), over four draws.
- Speed: 10^6 samples a side, one column, 16 columns and words; the baseline in the same run is
  drawing those samples (the ratio is reported).

    python benchmarks/bench_audit.py [--runs 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
from scipy import stats

from dpviz.auditing import audit_samples, mechanisms  # noqa: E402
from dpviz.auditing.bounds import clopper_pearson  # noqa: E402
from dpviz.papers.adept import sensitivity as adept  # noqa: E402
from dpviz.papers.hoho import ome  # noqa: E402


def gaussian_delta(epsilon: float, sigma: float, sensitivity: float = 1.0) -> float:
    """Exact δ(ε) of the Gaussian mechanism (Balle & Wang, ICML 2018, Theorem 8)."""
    a, b = sensitivity / (2 * sigma), epsilon * sigma / sensitivity
    return float(stats.norm.cdf(a - b) - math.exp(epsilon) * stats.norm.cdf(-a - b))


def soundness(runs: int, n: int) -> dict:
    out = {}
    delta = gaussian_delta(1.0, 1.0)
    for name, draw, claim in (
        ("laplace", lambda g: (g.laplace(0, 1, n), g.laplace(1, 1, n)), dict(claimed=1.0)),
        ("gaussian", lambda g: (g.normal(0, 1, n), g.normal(1, 1, n)), dict(claimed=1.0, delta=delta)),
    ):
        over, bounds, start = 0, [], time.perf_counter()
        for seed in range(runs):
            a, b = draw(np.random.default_rng(10_000 + seed))
            r = audit_samples(a, b, seed=seed, **claim)
            over += r.epsilon_lower_bound > 1.0
            bounds.append(r.epsilon_lower_bound)
        lo, hi = clopper_pearson(over, runs, 0.95)
        out[name] = {
            "runs": runs,
            "samples_per_side": n,
            "claim": claim,
            "exceeded": over,
            "rate": over / runs,
            "rate_interval_95": [lo, hi],
            "bound_median": float(np.median(bounds)),
            "bound_max": float(np.max(bounds)),
            "seconds_per_audit": (time.perf_counter() - start) / runs,
        }
        print(
            f"soundness {name}: bound > 1 in {over}/{runs} = {over / runs:.3f} (95% CI {lo:.3f}-{hi:.3f}); "
            f"median bound {np.median(bounds):.3f}, max {np.max(bounds):.3f}"
        )
    return out


def strictness_pair(mech, x, xp, n: int, claimed: float, seeds: int = 4) -> dict:
    """The same samples audited with the event search at the audit's own level (strictness 1, the
    baseline) and at the stricter level dpviz uses (SELECTION_STRICTNESS), over ``seeds`` draws."""
    import dpviz.auditing as auditing

    out = {"baseline_strictness_1": [], f"strictness_{auditing.SELECTION_STRICTNESS:g}": []}
    for seed in range(seeds):
        g = np.random.default_rng(300 + seed)
        a, b = mech.sample(x, n, g), mech.sample(xp, n, g)
        for key, level in zip(out, (1.0, auditing.SELECTION_STRICTNESS)):
            saved, auditing.SELECTION_STRICTNESS = auditing.SELECTION_STRICTNESS, level
            try:
                out[key].append(audit_samples(a, b, claimed=claimed, seed=seed).epsilon_lower_bound)
            finally:
                auditing.SELECTION_STRICTNESS = saved
    return out


def power() -> dict:
    out = {}
    x16, xp16 = adept.worst_case_pair(16, 1.0)
    cases = (
        ("laplace_half", mechanisms.Laplace(2.0), 0.0, 1.0, 0.5, 0.25, 10**5),
        ("laplace_twice", mechanisms.Laplace(1 / 2.0), 0.0, 1.0, 2.0, 1.0, 10**6),
        ("laplace_true4", mechanisms.Laplace(1 / 4.0), 0.0, 1.0, 4.0, 1.0, 10**6),
        ("adept_n16", mechanisms.Laplace(adept.sensitivity_claimed(1.0)), x16, xp16, 4.0, 1.0, 10**5),
        ("ome_lambda10", ome.OMEFloat(10.0, 1.0), -10.0, 10.0, None, 1.0, 10**5),
    )
    for k, (name, mech, x, xp, true, claimed, n) in enumerate(cases):
        g = np.random.default_rng(100 + k)
        r = audit_samples(mech.sample(x, n, g), mech.sample(xp, n, g), claimed=claimed, seed=k)
        row = {
            "true": true,
            "claimed": claimed,
            "samples_per_side": n,
            "bound": r.epsilon_lower_bound,
            "bound_over_true": r.epsilon_lower_bound / true if true else None,
            "violated": r.violated,
            "selection": strictness_pair(mech, x, xp, min(n, 10**5), claimed),
        }
        if name == "ome_lambda10":
            row["exact_worst_case_over_the_domain"] = ome.exact_worst_case(10.0, 1.0, np.arange(-320, 321) / 32)
        out[name] = row
        sel = "; ".join(f"{key}: {' '.join(f'{v:.2f}' for v in vals)}" for key, vals in row["selection"].items())
        print(
            f"power {name}: {n:,} a side: bound {r.epsilon_lower_bound:.3f} (true {true}), violated {r.violated}; "
            f"event search over 4 draws of {min(n, 10**5):,}: {sel}"
        )
    return out


WORDS = np.array([f"w{i}" for i in range(500)])


def speed() -> dict:
    """Seconds per audit of 10^6 samples a side; the baseline in the same run is drawing those
    samples (numpy's Laplace, or choosing words), and the ratio is reported."""
    out = {}
    n = 10**6
    vocab = np.array([f"w{i}" for i in range(500)])
    draws = {
        "one_column": lambda g: (g.laplace(0, 1, n), g.laplace(1, 1, n)),
        "sixteen_columns": lambda g: (g.laplace(0, 2, (n, 16)), g.laplace(0.25, 2, (n, 16))),
        "words": lambda g: (g.choice(vocab, n), g.choice(vocab, n)),
    }
    for name, draw in draws.items():
        t = time.perf_counter()
        a, b = draw(np.random.default_rng(2))
        drawing = time.perf_counter() - t
        t = time.perf_counter()
        audit_samples(a, b, claimed=1.0)
        seconds = time.perf_counter() - t
        out[name] = {"samples_per_side": n, "seconds": seconds, "drawing_seconds": drawing, "ratio": seconds / drawing}
        print(
            f"speed {name}: {seconds:.2f} s for 10^6 a side "
            f"(drawing them: {drawing:.2f} s; ratio {seconds / drawing:.1f})"
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--samples", type=int, default=100_000, help="samples a side in the soundness runs")
    ap.add_argument("--json")
    ap.add_argument("--only", choices=("speed", "power", "soundness"), help="run one part")
    args = ap.parse_args()
    parts = {"speed": speed, "power": power, "soundness": lambda: soundness(args.runs, args.samples)}
    result = {name: run() for name, run in parts.items() if args.only in (None, name)}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
