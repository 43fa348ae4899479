"""The Audit page's link to the privacy-budget page: the audit's certified attack drawn over the
ε-DP promise its claim makes (randomized response at ε₀ = the claimed loss ε·d, one release: the
extremal ε-DP mechanism, whose trade-off curve is the edge of what any ε-DP mechanism allows).

An audit's event S is a membership test: say 'used' when the output falls in S. The audit bounds
its probabilities with the audit's confidence (:mod:`dpviz.auditing.bounds`): Pr[M(D) ∈ S] ≥ the
numerator's lower bound, its true-positive rate, and Pr[M(D′) ∈ S] ≤ the denominator's upper
bound, its false-positive rate (D the input the event favours). A pure ε-DP claim allows at most
TPR ≤ e^ε·FPR there, so a point above the promise's curve is the audit's verdict, drawn."""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import urlencode

from dpviz.papers.budget.figures import BUDGET_PAGE, why_no_promise


@dataclass(frozen=True)
class AuditBudgetLink:
    """Where the link goes (None when the budget page cannot draw that promise) and why not."""

    epsilon: float
    tpr: float
    fpr: float
    href: str | None
    why_not: str = ""


def audit_budget_link(result) -> AuditBudgetLink:
    """The link for an audit's result (:class:`dpviz.auditing.AuditResult`), or the sentence saying
    why there is none: a claim with δ > 0 (the page draws pure ε-DP promises for one release), or a
    claimed loss outside the budget page's ε₀ range."""
    eps = float(result.claimed_loss)
    tpr = float(result.probability_bounds["numerator_lower"])
    fpr = float(result.probability_bounds["denominator_upper"])
    if result.delta > 0:
        return AuditBudgetLink(
            eps, tpr, fpr, None, "the privacy-budget page draws the promise of a pure ε-DP claim (δ = 0)"
        )
    why = why_no_promise(eps)
    if why:
        return AuditBudgetLink(eps, tpr, fpr, None, why)
    if tpr <= 0:
        return AuditBudgetLink(eps, tpr, fpr, None, "the audit's event proves no true positives at all")
    # six digits, each rounded the way that can only weaken the attack (TPR down, FPR up): the link never
    # draws the audit stronger than it proved
    query = {
        "mechanism": "rr",
        "epsilon0": f"{eps:g}",
        "k": "1",
        "audit_tpr": _six_digits(tpr, math.floor),
        "audit_fpr": _six_digits(fpr, math.ceil),
    }
    return AuditBudgetLink(eps, tpr, fpr, f"{BUDGET_PAGE}?{urlencode(query)}")


def _six_digits(x: float, way) -> str:
    """``x`` in [0, 1] to six significant digits, rounded by ``way`` (math.floor or math.ceil)."""
    if x <= 0:
        return "0"
    scale = 10.0 ** (5 - math.floor(math.log10(x)))
    return f"{min(1.0, way(x * scale) / scale):.6g}"
