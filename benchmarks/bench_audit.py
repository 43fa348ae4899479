"""The sample auditor (dpviz.auditing) measured: soundness, power and speed.

- Soundness: a correct mechanism audited at its true claim ``--runs`` times with different seeds;
  the rate at which the bound exceeds the truth must be at most 1 - confidence (5%). Reported
  with its exact 95% interval. Laplace (true ε = 1, claim 1, 10^5 samples a side) and Gaussian
  (σ = 1, sensitivity 1: the exact δ(ε = 1) of Balle & Wang 2018 as the claimed δ).
- Power: a Laplace mechanism whose true ε is twice its claim (10^6 samples a side); the bound on
  a Laplace mechanism with true ε = 4 (10^6); ADePT's worst-case pair at n = 16 (claimed 1, true
  ε√n = 4, 10^5); OME on one float at λ = 10. Beside each, in the same run, the existing
  DP-Sniper-style auditor (dpviz/auditor.py, used by the ADePT and OME pages) on the same
  mechanism and the same number of samples.
- Speed: 10^6 samples a side, one column, 16 columns and words; the baseline in the same run is
  the existing auditor on the same sample count (the ratio is reported).

    python benchmarks/bench_audit.py [--runs 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpviz import auditor  # noqa: E402
from dpviz.auditing import audit_samples  # noqa: E402
from dpviz.auditing.bounds import clopper_pearson  # noqa: E402
from dpviz.papers.adept import sensitivity as adept  # noqa: E402
from dpviz.papers.hoho import ome  # noqa: E402
from dpviz.stats import stream  # noqa: E402


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


def _old_laplace(scale, x, xp, n, seed):
    r = auditor.audit_pair(auditor.Laplace(scale), x, xp, n, stream(seed, 77), confidence=0.95)
    return r["epsilon_lower_bound"]


def power() -> dict:
    out = {}
    g = np.random.default_rng(1)
    for name, true_eps, claim, n in (("laplace_twice", 2.0, 1.0, 10**6), ("laplace_true4", 4.0, 1.0, 10**6)):
        a, b = g.laplace(0, 1 / true_eps, n), g.laplace(1, 1 / true_eps, n)
        r = audit_samples(a, b, claimed=claim, seed=1)
        old = _old_laplace(1 / true_eps, 0.0, 1.0, n, 1)
        out[name] = {
            "true": true_eps,
            "claimed": claim,
            "samples": n,
            "bound": r.epsilon_lower_bound,
            "violated": r.violated,
            "existing_auditor_bound": old,
        }
        print(
            f"power {name}: bound {r.epsilon_lower_bound:.3f} (true {true_eps}), violated {r.violated}; "
            f"existing auditor {old:.3f}"
        )
    x, xp = adept.worst_case_pair(16, 1.0)
    scale = adept.sensitivity_claimed(1.0) / 1.0
    n = 10**5
    a, b = x + g.laplace(0, scale, (n, 16)), xp + g.laplace(0, scale, (n, 16))
    r = audit_samples(a, b, claimed=1.0, seed=2)
    old = _old_laplace(scale, x, xp, n, 2)
    out["adept_n16"] = {
        "true": 4.0,
        "claimed": 1.0,
        "samples": n,
        "bound": r.epsilon_lower_bound,
        "violated": r.violated,
        "existing_auditor_bound": old,
    }
    print(f"power ADePT n=16: bound {r.epsilon_lower_bound:.3f} (true 4), violated {r.violated}; existing {old:.3f}")
    lam, eps, n = 10.0, 1.0, 10**5
    mech = ome.OMEFloat(lam, eps)
    a, b = mech.sample(-10.0, n, g), mech.sample(10.0, n, g)
    r = audit_samples(a, b, claimed=eps, seed=3)
    old = auditor.audit_pair(mech, -10.0, 10.0, n, stream(3, 78), confidence=0.95)["epsilon_lower_bound"]
    exact = ome.exact_worst_case(lam, eps, np.arange(-320, 321) / 32)
    out["ome_lambda10"] = {
        "exact_worst_case": exact,
        "claimed": eps,
        "samples": n,
        "bound": r.epsilon_lower_bound,
        "violated": r.violated,
        "existing_auditor_bound": old,
    }
    print(
        f"power OME λ=10 (-10 vs 10): bound {r.epsilon_lower_bound:.3f} (exact worst case {exact:.2f}), "
        f"existing auditor {old:.3f}"
    )
    return out


WORDS = np.array([f"w{i}" for i in range(500)])


def speed() -> dict:
    out = {}
    g = np.random.default_rng(2)
    n = 10**6
    cases = {
        "one_column": (g.laplace(0, 1, n), g.laplace(1, 1, n), auditor.Laplace(1.0), 0.0, 1.0),
        "sixteen_columns": (
            g.laplace(0, 2, (n, 16)),
            g.laplace(0.25, 2, (n, 16)),
            auditor.Laplace(2.0),
            np.zeros(16),
            np.full(16, 0.25),
        ),
        "words": (
            g.choice(np.array([f"w{i}" for i in range(500)]), n),
            g.choice(np.array([f"w{i}" for i in range(500)]), n),
            None,
            None,
            None,
        ),
    }
    for name, (a, b, mech, x, xp) in cases.items():
        t = time.perf_counter()
        audit_samples(a, b, claimed=1.0)
        new = time.perf_counter() - t
        row = {"samples_per_side": n, "seconds": new}
        if mech is not None:
            t = time.perf_counter()
            auditor.audit_pair(mech, x, xp, n, stream(0, 79))
            row["existing_auditor_seconds"] = time.perf_counter() - t  # it also draws its samples
            row["ratio"] = new / row["existing_auditor_seconds"]
        out[name] = row
        print(
            f"speed {name}: {new:.2f} s for 10^6 a side"
            + (
                f" (existing auditor, drawing included: {row['existing_auditor_seconds']:.2f} s; "
                f"ratio {row['ratio']:.2f})"
                if mech is not None
                else ""
            )
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--samples", type=int, default=100_000, help="samples a side in the soundness runs")
    ap.add_argument("--json")
    args = ap.parse_args()
    result = {"speed": speed(), "power": power(), "soundness": soundness(args.runs, args.samples)}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
