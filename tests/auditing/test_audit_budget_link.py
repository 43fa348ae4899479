"""The Audit page's link to the privacy-budget page: it carries the audit's certified attack (the
event's true-positive rate at least, its false-positive rate at most) and the claim's ε-DP promise
(randomized response at ε₀ = the claimed loss, one release); the budget page draws the point and
says whether the promise holds, in agreement with the audit's own verdict."""

from __future__ import annotations

import dataclasses
import math
from urllib.parse import parse_qs

import pytest

from dpviz import registry
from dpviz.auditing import audit_samples
from dpviz.auditing.examples import example
from dpviz.params import validate
from dpviz.tools.audit.budget_link import BUDGET_PAGE, audit_budget_link
from webui.panels.audit import budget_link_html


def _audit(key: str, samples: int = 20_000, **claim):
    ex = example(key, seed=3, samples=samples)
    kw = {"claimed": ex.claimed, "delta": ex.delta, "distance": ex.distance, **claim}
    return audit_samples(ex.a, ex.b, confidence=0.95, seed=3, **kw)


def _query(link) -> dict[str, str]:
    path, query = link.href.split("?")
    assert path == BUDGET_PAGE
    return {k: v[0] for k, v in parse_qs(query).items()}


@pytest.mark.parametrize("key", ["adept", "laplace"])
def test_the_link_draws_the_audits_attack_and_agrees_with_its_verdict(key):
    """ADePT's worst pair breaks its ε = 1 claim, a correct Laplace mechanism does not: the budget
    page's attacker chart, opened by the link, draws the audit's point and says so the same way."""
    r = _audit(key)
    link = audit_budget_link(r)
    got = _query(link)
    values, errors = validate(registry.get("budget-attacker").params, got)  # the page's own validator
    assert not errors
    assert values["mechanism"] == "rr" and values["k"] == 1 and values["epsilon0"] == pytest.approx(r.claimed_loss)
    # carried to six digits, each the way that can only weaken the attack
    pb = r.probability_bounds
    assert pb["numerator_lower"] - 1e-5 * pb["numerator_lower"] <= values["audit_tpr"] <= pb["numerator_lower"]
    assert pb["denominator_upper"] <= values["audit_fpr"] <= pb["denominator_upper"] * (1 + 1e-5)
    _, table, fig = registry.run("budget-attacker", got)
    point = table[table["curve"] == "audit"]
    assert (float(point["fpr"].iloc[0]), float(point["tpr"].iloc[0])) == (values["audit_fpr"], values["audit_tpr"])
    # the ε-DP edge, in closed form: TPR ≤ min(1, e^ε·FPR, 1 − e^(−ε)(1 − FPR))
    eps, fpr, tpr = values["epsilon0"], values["audit_fpr"], values["audit_tpr"]
    edge = min(1.0, math.exp(eps) * fpr, 1 - math.exp(-eps) * (1 - fpr))
    said = fig.layout.title.text
    assert r.violated == (key == "adept")
    if r.violated:  # the audit's bound ln(TPR/FPR) > ε puts the point above e^ε·FPR, so above the edge
        assert tpr > edge and "the audit's attack" in said and "the promise does not hold" in said.split("audit")[-1]
    else:
        assert tpr <= edge + 1e-6 and "within the promise" in said
    assert any(t.name and t.name.startswith("an audit's certified attack") for t in fig.data)


def test_without_an_audit_no_point_is_drawn():
    _, table, fig = registry.run("budget-attacker", {"mechanism": "rr", "epsilon0": "1", "k": "1"})
    assert (table["curve"] != "audit").all()
    assert "audit" not in fig.layout.title.text


def test_a_claim_the_budget_page_cannot_draw_gets_a_sentence():
    """δ > 0 (the page draws one release's pure ε-DP promise) or a claimed loss outside 0.01-10."""
    with_delta = _audit("laplace", samples=5_000, delta=1e-6)
    link = audit_budget_link(with_delta)
    assert link.href is None and "pure ε-DP claim (δ = 0)" in budget_link_html(link)
    r = _audit("laplace", samples=5_000)
    for claimed in (0.005, 20.0):  # (an audit of ε = 20 needs billions of samples: the same result, re-claimed)
        outside = audit_budget_link(dataclasses.replace(r, claimed=claimed))
        assert outside.href is None and "from 0.01 to 10" in budget_link_html(outside)
        assert "<a " not in budget_link_html(outside)


def test_the_html_is_escaped_and_opens_in_the_same_tab():
    text = budget_link_html(audit_budget_link(_audit("adept", samples=5_000)))
    href = text.split("href='")[1].split("'")[0]
    assert "&amp;" in href and "<" not in href and href.startswith(BUDGET_PAGE)
    assert "target='_self'" in text and "against the promise of ε = 1" in text
