"""Audit a mechanism from its output samples: the privacy loss the samples prove, certified.

Given outputs of a mechanism M on two neighbouring inputs, ``a`` ~ M(D) and ``b`` ~ M(D'), and
a claim that M is (eps, delta)-DP (or eps d-DP for a metric-DP claim, d = d(D, D')):

1. each side is shuffled with the seed and split into a training part (``train_fraction``) and
   an evaluation part;
2. a distinguishing event is learned on the training part only (:mod:`dpviz.auditing.events`);
3. on the evaluation part its probabilities are bounded with exact one-sided binomial bounds, and
   the largest privacy loss they prove, ln((p_low - delta) / p'_high), holds with probability at
   least ``confidence`` (:mod:`dpviz.auditing.bounds`), whatever the mechanism;
4. the claim is violated when that bound exceeds the claimed eps (times d); otherwise the result
   says how many samples would detect a loss twice the claim, never that M is private.

:func:`audit_samples` is the one entry point; ``dpviz.audit`` and ``python -m dpviz audit`` call it.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from dpviz.auditing import bounds, events
from dpviz.auditing.samples import as_samples, check_pair
from dpviz.errors import InputError
from dpviz.progress import Progress, report
from dpviz.stats import stream

MAX_CLAIM = 100.0
SELECTION_STRICTNESS = 10.0
"""The event search scores its thousands of candidates with bounds at a 10 times smaller error
level than the audit's. The best of many training bounds is optimistic: at the audit's own level a
tail event with a handful of lucky counts can win and then prove nothing on the evaluation half
(Laplace, ε = 0.5, 10^5 samples a side: a bound of 0.02 in 1 of 4 seeds, 0.47-0.49 in the others).
The stricter level favours events whose counts are large enough to hold up (0.47-0.49 in 4 of 4;
``benchmarks/bench_audit.py`` measures power with it). It only chooses the event: the final
bound keeps the audit's confidence, so soundness is untouched."""
POWER = 0.8
"""The detection probability the power statement is made at."""


@dataclass
class AuditResult:
    """What an audit proved (see the module docstring); :meth:`to_dict` is ``result.json``."""

    claimed: float
    delta: float
    distance: float
    confidence: float
    seed: int
    kind: str
    samples: dict[str, int]
    evaluated: dict[str, int]
    epsilon_lower_bound: float
    epsilon_estimate: float | None
    violated: bool
    event: str
    event_numerator: str
    counts: dict[str, int]
    probability_bounds: dict[str, float]
    delta_lower_bound: float | None
    delta_event: str | None
    power: dict[str, Any]
    verdict: str
    chart: dict[str, Any] = field(repr=False)
    rule: events.Event | None = field(default=None, repr=False)
    """The event itself (``rule.contains(outputs)``), for a notebook; not in ``result.json``."""

    @property
    def claimed_loss(self) -> float:
        """The claimed bound on the privacy loss between the two inputs: eps d(D, D')."""
        return self.claimed * self.distance

    def to_dict(self) -> dict[str, Any]:
        """Everything but the chart's data, JSON-ready."""
        out = {f.name: copy.deepcopy(getattr(self, f.name)) for f in fields(self) if f.name not in ("chart", "rule")}
        out["claimed_loss"] = self.claimed_loss
        return out


def check_claim(claimed: float, delta: float, distance: float, confidence: float) -> None:
    """A claim and confidence the audit can test; InputError with a sentence otherwise."""
    for name, value, ok, allowed in (
        ("claimed ε", claimed, 0 <= claimed <= MAX_CLAIM, f"a number from 0 to {MAX_CLAIM:g}"),
        ("δ", delta, 0 <= delta < 1, "a number from 0 up to (not including) 1"),
        ("distance d(D, D')", distance, 0 < distance <= 1e6, "a number above 0 (1 for an ordinary DP claim)"),
        ("confidence", confidence, 0.5 <= confidence <= 0.9999, "a number from 0.5 to 0.9999"),
    ):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and ok):
            raise InputError(f"The {name} is {value!r}; it must be {allowed}.")
    if claimed * distance > MAX_CLAIM:
        raise InputError(
            f"The claimed loss ε·d = {claimed * distance:g} is above {MAX_CLAIM:g}, more than any sample size can test."
        )


def _check_share(train_fraction: float) -> None:
    if not 0.1 <= train_fraction <= 0.9:
        raise InputError(f"The training share is {train_fraction!r}; it must be from 0.1 to 0.9.")


def _split(values: np.ndarray, train_fraction: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    order = rng.permutation(len(values))
    cut = int(round(train_fraction * len(values)))
    return values[order[:cut]], values[order[cut:]]


def _numeric_chart(event: events.Event, sa: np.ndarray, sb: np.ndarray) -> dict[str, Any]:
    """Histograms of the event's score on the evaluation part (``sa``, ``sb``), the threshold a bin edge."""
    pool = np.concatenate([sa, sb])
    lo, hi = np.quantile(pool, [0.001, 0.999])
    lo, hi = min(lo, event.threshold), max(hi, event.threshold)
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.unique(np.r_[np.linspace(lo, hi, 61), event.threshold])
    ca = np.histogram(np.clip(sa, lo, hi), edges)[0]
    cb = np.histogram(np.clip(sb, lo, hi), edges)[0]
    return {
        "kind": "numeric",
        "axis": event.score_name,
        "left": edges[:-1].tolist(),
        "right": edges[1:].tolist(),
        "a": (ca / len(sa)).tolist(),
        "b": (cb / len(sb)).tolist(),
        "threshold": event.threshold,
        "above": event.above,
    }


def _categorical_chart(event: events.Event, ea: np.ndarray, eb: np.ndarray, shown: int = 30) -> dict[str, Any]:
    values, ca, cb = events.output_counts(ea, eb)
    member = np.isin(values, np.array(event.members, dtype=object))
    order = np.lexsort((values, -(ca + cb)))[:shown]  # the most frequent outputs, ties by name
    return {
        "kind": "categorical",
        "outputs": [str(values[i]) for i in order],
        "a": (ca[order] / len(ea)).tolist(),
        "b": (cb[order] / len(eb)).tolist(),
        "in_event": member[order].tolist(),
        "distinct": int(len(values)),
    }


def _find_event(kind: str, ta, tb, criterion: events.Criterion, rng) -> events.Event:
    """The event the training part favours, each candidate scored at the stricter level
    1 - (1 - confidence) / SELECTION_STRICTNESS (see :data:`SELECTION_STRICTNESS`)."""
    criterion = replace(criterion, confidence=1 - (1 - criterion.confidence) / SELECTION_STRICTNESS)
    if kind == "numeric":
        return events.numeric_event(ta, tb, criterion, rng)
    return events.categorical_event(ta, tb, criterion)


def _counts(event: events.Event, inside_a: np.ndarray, inside_b: np.ndarray) -> tuple[int, int, int, int]:
    """(k_num, n_num, k_den, n_den) of the event from which evaluation outputs it holds."""
    ka, kb = int(np.count_nonzero(inside_a)), int(np.count_nonzero(inside_b))
    if event.numerator == "a":
        return ka, len(inside_a), kb, len(inside_b)
    return kb, len(inside_b), ka, len(inside_a)


def _verdict(r: dict[str, Any], names: tuple[str, str]) -> str:
    conf = f"{r['confidence']:.0%}"
    claim = f"ε = {r['claimed']:g}"
    if r["distance"] != 1:
        claim += f" per unit distance at d = {r['distance']:.4g}, a loss of {r['claimed_loss']:.4g}"
    claim += f", δ = {r['delta']:g}" if r["delta"] else ""
    num, den = names if r["event_numerator"] == "a" else names[::-1]
    pb = r["probability_bounds"]
    if r["violated"]:
        return (
            f"The claim ({claim}) is violated: the samples prove a privacy loss of at least "
            f"{r['epsilon_lower_bound']:.3g} with {conf} confidence. The event that shows it is {r['event']}: "
            f"its probability is at least {pb['numerator_lower']:.3g} under {num} and at most "
            f"{pb['denominator_upper']:.3g} under {den}."
        )
    power = r["power"]
    need = (
        f"with about {power['samples_per_side']:,} samples a side, a Laplace-like mechanism whose loss is "
        f"{power['true_epsilon']:g} (twice the claim) would be caught {power['probability']:.0%} of the time"
        if power.get("samples_per_side")
        else "no feasible sample size would detect a loss twice the claim at this δ"
    )
    return (
        f"No violation found: the samples prove a privacy loss of at least {r['epsilon_lower_bound']:.3g} "
        f"({conf} confidence), not above the claim ({claim}). This does not show the mechanism is private: {need}."
    )


@dataclass
class _Proof:
    """The one event learned on the training part and what its evaluation counts prove."""

    event: events.Event
    training: tuple[np.ndarray, np.ndarray]
    evaluation: tuple[np.ndarray, np.ndarray]
    scores: tuple[np.ndarray, np.ndarray] | None
    counts: tuple[int, int, int, int]
    epsilon_lower_bound: float
    epsilon_estimate: float | None
    rng: np.random.Generator


def _prove(sa, sb, confidence: float, delta: float, train_fraction: float, seed: int, progress=None) -> _Proof:
    """Steps 1-3 of the module docstring on checked samples ``sa``, ``sb``."""
    rng = stream(seed, 4001)
    ta, ea = _split(sa.values, train_fraction, rng)
    tb, eb = _split(sb.values, train_fraction, rng)
    report(progress, 0.15, "learning a distinguishing event on the training part")
    event = _find_event(sa.kind, ta, tb, events.Criterion("epsilon", confidence, delta=delta), rng)
    report(progress, 0.7, "counting it on the evaluation part")
    scores = None
    if sa.kind == "numeric":  # the evaluation scores serve the counts and the chart
        scores = event.score(ea), event.score(eb)
        kn, nn, kd, nd = _counts(event, event.selects(scores[0]), event.selects(scores[1]))
    else:
        kn, nn, kd, nd = _counts(event, event.contains(ea), event.contains(eb))
    eps_lb = max(0.0, float(bounds.epsilon_bound(kn, nn, kd, nd, confidence, delta)))
    estimate = math.log(kn / nn) - math.log(kd / nd) if kn and kd else None
    return _Proof(event, (ta, tb), (ea, eb), scores, (kn, nn, kd, nd), eps_lb, estimate, rng)


def lower_bound(a, b, *, confidence: float = 0.9, seed: int = 0, train_fraction: float = 0.5) -> dict[str, Any]:
    """The privacy loss that samples ``a`` ~ M(D) and ``b`` ~ M(D') prove, with no claim to test:
    ``epsilon_lower_bound`` (holds with probability >= ``confidence``), the point
    ``epsilon_estimate`` of the same event (None when a side never falls in it), the ``event`` and
    the ``samples`` a side. The paper pages' audits call it on samples they draw."""
    check_claim(0.0, 0.0, 1.0, confidence)
    _check_share(train_fraction)
    sa, sb = as_samples(a, "the first samples (D)"), as_samples(b, "the second samples (D')")
    check_pair(sa, sb)
    proof = _prove(sa, sb, confidence, 0.0, train_fraction, seed)
    return {
        "epsilon_lower_bound": proof.epsilon_lower_bound,
        "epsilon_estimate": proof.epsilon_estimate,
        "event": proof.event.description,
        "samples": min(len(sa), len(sb)),
    }


def audit_samples(
    a,
    b,
    *,
    claimed: float,
    delta: float = 0.0,
    distance: float = 1.0,
    confidence: float = 0.95,
    seed: int = 0,
    train_fraction: float = 0.5,
    progress: Progress | None = None,
) -> AuditResult:
    """Audit the claim from samples ``a`` ~ M(D) and ``b`` ~ M(D') (paths, arrays or lists of strings)."""
    check_claim(claimed, delta, distance, confidence)
    _check_share(train_fraction)
    sa, sb = as_samples(a, "the first samples (D)"), as_samples(b, "the second samples (D')")
    check_pair(sa, sb)
    claimed_loss = claimed * distance
    fewest = bounds.fewest_samples(claimed_loss, delta, confidence)
    need = math.ceil(fewest / (1 - train_fraction))
    small = min(len(sa), len(sb))
    if small < need:
        raise InputError(
            f"{small:,} samples a side are fewer than any conclusion needs: even outputs that never overlap "
            f"would prove a loss above {claimed_loss:g} only from {need:,} samples a side "
            f"(at {confidence:.0%} confidence)."
        )
    report(progress, 0.05, "splitting the samples")
    proof = _prove(sa, sb, confidence, delta, train_fraction, seed, progress)
    event, (ta, tb), (ea, eb), rng = proof.event, proof.training, proof.evaluation, proof.rng
    kn, nn, kd, nd = proof.counts
    eps_lb, estimate = proof.epsilon_lower_bound, proof.epsilon_estimate
    beta = (1 - confidence) / 2
    delta_lb = delta_event = None
    if delta > 0:
        report(progress, 0.8, "learning an event for the δ bound")
        dev = _find_event(sa.kind, ta, tb, events.Criterion("delta", confidence, epsilon=claimed_loss), rng)
        dn, dnn, dd, dnd = _counts(dev, dev.contains(ea), dev.contains(eb))
        delta_lb = max(0.0, float(bounds.delta_bound(dn, dnn, dd, dnd, confidence, claimed_loss)))
        delta_event = dev.description
    true_eps = 2 * claimed_loss if claimed_loss > 0 else 1.0
    per_eval = bounds.samples_for_power(claimed_loss, true_eps, delta, confidence, POWER)
    report(progress, 0.9, "drawing the distributions")
    chart = _numeric_chart(event, *proof.scores) if sa.kind == "numeric" else _categorical_chart(event, ea, eb)
    values = dict(
        claimed=float(claimed),
        delta=float(delta),
        distance=float(distance),
        confidence=float(confidence),
        seed=int(seed),
        kind=sa.kind,
        samples={"a": len(sa), "b": len(sb)},
        evaluated={"a": len(ea), "b": len(eb)},
        epsilon_lower_bound=eps_lb,
        epsilon_estimate=estimate,
        violated=eps_lb > claimed_loss,
        event=event.description,
        event_numerator=event.numerator,
        counts={"numerator": kn, "numerator_of": nn, "denominator": kd, "denominator_of": nd},
        probability_bounds={
            "numerator_lower": float(bounds.lower(kn, nn, beta)),
            "denominator_upper": float(bounds.upper(kd, nd, beta)),
        },
        delta_lower_bound=delta_lb,
        delta_event=delta_event,
        power={
            "true_epsilon": true_eps,
            "probability": POWER,
            "samples_per_side": math.ceil(per_eval / (1 - train_fraction)) if per_eval else None,
        },
        verdict="",
        chart=chart,
        rule=event,
    )
    result = AuditResult(**values)
    result.verdict = _verdict(result.to_dict(), ("D", "D'"))
    report(progress, 1.0, "done")
    return result
