"""The HoHo page's link to the privacy-budget page: the attack at the sliders' (ε, λ) drawn over
the ε-DP promise OME makes (randomized response at ε₀ = the claimed ε, one release: the extremal
ε-DP mechanism, whose trade-off curve is the edge of what any ε-DP mechanism allows)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import urlencode

from dpviz.papers.budget.figures import BUDGET_PAGE, why_no_promise


@dataclass(frozen=True)
class BudgetLink:
    """Where the link goes (None when the budget page cannot draw that promise) and why not."""

    epsilon: float
    lam: float
    href: str | None
    why_not: str = ""


def budget_link(values: Mapping[str, Any], progress=None) -> BudgetLink:
    """The link for the sliders' (ε, λ), or the sentence saying why there is none (the budget page's
    ε₀ runs from 0.01 to 10)."""
    eps, lam = float(values["epsilon"]), float(values["lambda_"])
    why = why_no_promise(eps)
    if why:
        return BudgetLink(eps, lam, None, why)
    query = {"mechanism": "rr", "epsilon0": f"{eps:g}", "k": "1", "hoho_epsilon": f"{eps:g}", "hoho_lambda": f"{lam:g}"}
    return BudgetLink(eps, lam, f"{BUDGET_PAGE}?{urlencode(query)}")
