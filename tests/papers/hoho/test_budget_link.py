"""The HoHo page's link to the privacy-budget page: it carries the sliders' (ε, λ) as the budget
page's promise (randomized response at ε₀ = ε, one release) and the attack to draw over it, and
where that page cannot draw the promise it says why instead of linking."""

from urllib.parse import parse_qs, urlsplit

from dpviz import papers, registry
from dpviz.papers.hoho.budget_link import BUDGET_PAGE, budget_link
from dpviz.params import validate
from webui.panels.budget_link import as_html


def test_the_link_carries_the_sliders_setting_as_the_budget_pages_own():
    link = budget_link({"epsilon": 0.7, "lambda_": 250.0})
    path, query = link.href.split("?")
    assert path == BUDGET_PAGE
    got = {k: v[0] for k, v in parse_qs(query).items()}
    assert got == {"mechanism": "rr", "epsilon0": "0.7", "k": "1", "hoho_epsilon": "0.7", "hoho_lambda": "250"}
    # every value is one the budget page's own validator accepts, and reads back as sent
    params = registry.get("budget-attacker").params
    values, errors = validate(params, got)
    assert not errors
    assert (values["epsilon0"], values["hoho_epsilon"], values["hoho_lambda"], values["k"]) == (0.7, 0.7, 250.0, 1)


def test_the_budget_page_is_where_the_link_says():
    page = papers.get("budget").page  # pages/7_Privacy_budget.py: Streamlit serves it at /Privacy_budget
    assert page.split("/")[-1].split("_", 1)[1].removesuffix(".py") == BUDGET_PAGE


def test_outside_the_budget_pages_range_there_is_a_sentence_not_a_link():
    for eps in (5e-3, 11.0, 1000.0):
        link = budget_link({"epsilon": eps, "lambda_": 10.0})
        assert link.href is None
        text = as_html(link, None)
        assert "<a " not in text and "from 0.01 to 10" in text


def test_the_html_is_escaped_and_opens_in_the_same_tab():
    text = as_html(budget_link({"epsilon": 1.0, "lambda_": 10.0}), None)
    href = text.split("href='")[1].split("'")[0]
    assert "&amp;" in href and "<" not in href  # the query's & written as an entity inside the attribute
    assert urlsplit(href.replace("&amp;", "&")).path == BUDGET_PAGE
    assert "target='_self'" in text and "λ = 10" in text
