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


class Replay:
    """A mechanism that hands out pre-drawn outputs, in order, per input: the existing auditor
    then consumes exactly the samples the new one is given."""

    def __init__(self, pools: list):
        self.pools = {self._key(x): (np.asarray(v), [0]) for x, v in pools}

    @staticmethod
    def _key(x) -> bytes:
        return np.atleast_1d(np.asarray(x, dtype=np.float64)).tobytes()

    def sample(self, x, n, rng):
        pool, at = self.pools[self._key(x)]
        out = pool[at[0] : at[0] + n]
        if len(out) < n:
            raise RuntimeError("the replay ran out of samples")
        at[0] += n
        return out.reshape(n, -1).astype(np.float64)


def same_samples(mech, x, xp, n: int, claimed: float, seed: int) -> dict:
    """Both auditors on one set of samples: the existing one draws max(2000, n/10) a side to train
    its classifier, as many again on D' to set its threshold, and n a side to count; the new one is
    given all of them and splits them itself."""
    g = np.random.default_rng(seed)
    n_train = max(2000, n // 10)
    pool_a, pool_b = mech.sample(x, n_train + n, g), mech.sample(xp, 2 * n_train + n, g)
    old = auditor.audit_pair(Replay([(x, pool_a), (xp, pool_b)]), x, xp, n, stream(seed, 77), confidence=0.95)
    new = audit_samples(pool_a, pool_b, claimed=claimed, seed=seed)
    return {
        "samples": [len(pool_a), len(pool_b)],
        "existing_auditor_bound": old["epsilon_lower_bound"],
        "new_auditor_bound": new.epsilon_lower_bound,
    }


def power() -> dict:
    out = {}
    x16, xp16 = adept.worst_case_pair(16, 1.0)
    cases = (
        ("laplace_twice", auditor.Laplace(1 / 2.0), 0.0, 1.0, 2.0, 1.0, 10**6),
        ("laplace_true4", auditor.Laplace(1 / 4.0), 0.0, 1.0, 4.0, 1.0, 10**6),
        ("adept_n16", auditor.Laplace(adept.sensitivity_claimed(1.0)), x16, xp16, 4.0, 1.0, 10**5),
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
            "violated": r.violated,
            "same_samples": same_samples(mech, x, xp, n, claimed, 200 + k),
        }
        if name == "ome_lambda10":
            row["exact_worst_case_over_the_domain"] = ome.exact_worst_case(10.0, 1.0, np.arange(-320, 321) / 32)
        out[name] = row
        c = row["same_samples"]
        print(
            f"power {name}: {n:,} a side: bound {r.epsilon_lower_bound:.3f} (true {true}), violated {r.violated}; "
            f"on the same {c['samples'][0]:,} + {c['samples'][1]:,} samples: existing auditor "
            f"{c['existing_auditor_bound']:.3f}, new {c['new_auditor_bound']:.3f}"
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
    ap.add_argument("--only", choices=("speed", "power", "soundness"), help="run one part")
    args = ap.parse_args()
    parts = {"speed": speed, "power": power, "soundness": lambda: soundness(args.runs, args.samples)}
    result = {name: run() for name, run in parts.items() if args.only in (None, name)}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
