"""The privacy-budget page's figures (dpviz/papers/budget): their tables are the accountants'
answers, the attacker's curve is the exact one where it has a closed form, and bad settings get
the validator's sentence."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy import stats

from dpviz import registry
from dpviz.budget import accountants as acc
from dpviz.budget.releases import Release
from dpviz.errors import InputError


def _run(figure: str, **changed):
    spec = registry.get(figure)
    values = {**spec.defaults(), **changed}
    _, table, fig = registry.run(figure, {k: str(v) for k, v in values.items()})
    return table, fig, values


def test_the_composition_charts_row_at_the_sliders_k_is_every_accountants_answer():
    table, fig, v = _run("budget-composition", mechanism="laplace", epsilon0=0.3, k=37, delta=1e-6)
    here = table[table["here"]].set_index("accountant")["epsilon"]
    expected = acc.epsilons(Release("laplace", epsilon0=0.3), 37, 1e-6)
    for name, (eps, _) in expected.items():
        assert here[name] == pytest.approx(eps, rel=1e-12, nan_ok=True)
    assert here["basic"] == pytest.approx(37 * 0.3)  # kε₀, by hand
    assert "apart" in fig.layout.title.text  # the gap between loosest and tightest, said


def test_the_attackers_curve_for_the_gaussian_is_one_minus_g_mu():
    table, fig, v = _run("budget-attacker", mechanism="gaussian", sigma=3.0, k=25)
    mu = math.sqrt(25) / 3.0
    composed = table[table["curve"] == "composed"]
    direct = 1 - stats.norm.cdf(stats.norm.ppf(1 - composed["fpr"]) - mu)
    assert np.allclose(composed["tpr"], direct, atol=5e-4)  # the privacy curve's supremum over a fine grid
    gdp = table[table["curve"] == "gdp"]
    assert np.allclose(gdp["tpr"], 1 - stats.norm.cdf(stats.norm.ppf(1 - gdp["fpr"]) - mu), atol=1e-12)


def test_the_attackers_curve_for_one_randomized_response_is_its_two_point_roc():
    table, _, _ = _run("budget-attacker", mechanism="rr", epsilon0=1.0, k=1)
    p = math.e / (1 + math.e)
    fpr = table["fpr"].to_numpy()
    # reject on the answer "1": (FPR, TPR) = (1 − p, p); every other best test mixes the ends with it
    two_point = np.where(fpr <= 1 - p, fpr * p / (1 - p), p + (fpr - (1 - p)) * (1 - p) / p)
    assert np.allclose(table["tpr"], two_point, atol=1e-9)


def test_the_attackers_curve_for_many_laplace_releases_reaches_one_in_a_trillion():
    """20,000 Laplace releases at ε₀ = 0.01: dp-accounting's own composition reads an infinite ε at
    δ = 10⁻¹² here (its rounding puts 5.6·10⁻¹⁷ of each release's loss at +∞, and 20,000 releases
    compose that above 10⁻¹²; the chart's ε grid then ended at kε₀); dpviz's PLD has no such mass
    and reads a finite ε within the optimal composition of pure releases. The curve lies under the
    region each (ε, δ) of the same PLD allows, rises with the false-positive rate, and lies above
    the curve of fewer releases (more cannot help the defender)."""
    from dpviz.budget.releases import pure_composition_epsilon

    release = Release("laplace", epsilon0=0.01)
    assert 0 < acc.epsilon("pld", release, 20_000, 1e-12) < pure_composition_epsilon(0.01, 20_000, 1e-12)
    table, _, _ = _run("budget-attacker", mechanism="laplace", epsilon0=0.01, k=20_000)
    fewer, _, _ = _run("budget-attacker", mechanism="laplace", epsilon0=0.01, k=2_000)
    curve = table[table["curve"] == "composed"].sort_values("fpr")
    before = fewer[fewer["curve"] == "composed"].sort_values("fpr")
    assert np.isfinite(curve["tpr"]).all() and (np.diff(curve["tpr"]) >= -1e-12).all()
    assert (curve["tpr"].to_numpy() >= before["tpr"].to_numpy() - 1e-9).all()
    assert 0.05 < float(np.interp(0.01, curve["fpr"], curve["tpr"])) < 0.99  # a curve, not a corner
    for delta in (1e-5, 1e-3):
        eps = acc.epsilon("pld", release, 20_000, delta)
        bound = np.minimum(1.0, np.exp(eps) * curve["fpr"] + delta)
        assert (curve["tpr"] <= bound + 1e-9).all(), delta


@pytest.mark.parametrize(
    "changed,said",
    [
        ({"k": "0"}, "k = '0' is not allowed"),
        ({"delta": "1"}, "delta = '1' is not allowed"),
        ({"q": "1.5"}, "q = '1.5' is not allowed"),
        ({"sigma": "0"}, "sigma = '0' is not allowed"),
    ],
)
def test_bad_settings_get_a_sentence_not_a_traceback(changed, said):
    with pytest.raises(InputError) as err:
        registry.run("budget-composition", changed)
    assert said in str(err.value)


def test_the_largest_k_within_an_epsilon_is_the_closed_forms_whole_k():
    """The target "ε at most t": zCDP's largest k from its closed form (ρ = k/(2σ²), ε = ρ +
    2√(ρ log(1/δ)) solved for ρ), basic composition's for a pure release (⌊t/ε₀⌋), and for every
    accountant k meets the target and k + 1 does not."""
    from dpviz import calibrate

    sigma, delta, t = 8.0, 1e-5, 3.0
    table = calibrate("budget", epsilon=t, settings={"sigma": sigma, "delta": delta}).set_index("mechanism")
    log_term = math.log(1 / delta)
    rho = (math.sqrt(log_term + t) - math.sqrt(log_term)) ** 2
    assert table.loc["zcdp", "k"] == math.floor(2 * sigma**2 * rho)
    release = Release("gaussian", sigma=sigma)
    for name, row in table.iterrows():
        k = int(row["k"])
        assert acc.epsilon(name, release, k, delta) <= t < acc.epsilon(name, release, k + 1, delta), name
    assert table.loc["pld", "k"] > table.loc["rdp", "k"] > table.loc["basic", "k"]  # tighter allows more
    pure = calibrate("budget", epsilon=2.0, settings={"mechanism": "laplace", "epsilon0": 0.3}).set_index("mechanism")
    assert pure.loc["basic", "k"] == math.floor(2.0 / 0.3)


@pytest.mark.parametrize("k, t, delta", [(1, 1.0, 1e-5), (100, 3.0, 1e-5), (1000, 2.0, 1e-6), (7, 0.5, 1e-3)])
def test_the_smallest_sigma_within_an_epsilon_is_the_closed_forms(k, t, delta):
    """Solved for σ at k releases (Opacus's question): zCDP's σ from its closed form (ρ = k/(2σ²)
    and ε = ρ + 2√(ρ log(1/δ)) solved for σ); the PLD's σ (the Gaussian's PLD is its exact curve)
    is where Balle and Wang's δ(ε) of μ = √k/σ, computed here from the normal CDF, equals δ at ε = t;
    for every accountant 0.98σ misses the target and σ meets it (minimal)."""
    from dpviz import calibrate

    table = calibrate("budget", epsilon=t, solve="sigma", settings={"k": k, "delta": delta}).set_index("mechanism")
    assert table.attrs["solved"] == "sigma" and (table[table["reachable"]]["k"] == k).all()
    log_term = math.log(1 / delta)
    rho = (math.sqrt(log_term + t) - math.sqrt(log_term)) ** 2
    assert table.loc["zcdp", "sigma"] == pytest.approx(math.sqrt(k / (2 * rho)), rel=1e-8)
    mu = math.sqrt(k) / table.loc["pld", "sigma"]
    exact = stats.norm.cdf(-t / mu + mu / 2) - math.exp(t) * stats.norm.cdf(-t / mu - mu / 2)
    assert exact == pytest.approx(delta, rel=1e-6)
    for name, row in table.iterrows():
        if not row["reachable"]:
            assert name in ("basic", "advanced") and "not reachable" in row["note"]
            continue
        sigma = float(row["sigma"])
        assert acc.epsilon(name, Release("gaussian", sigma=sigma), k, delta) <= t * (1 + 1e-9), name
        assert acc.epsilon(name, Release("gaussian", sigma=0.98 * sigma), k, delta) > t, name
        assert row["side"].startswith("sigma ≥")


def test_the_smallest_sigma_for_dp_sgd_gives_back_the_tutorials_noise():
    """TensorFlow Privacy's MNIST setting (batch 256 of 60,000, 60 epochs; see
    tests/budget/test_accountants.py): solving for σ at the ε the RDP and PLD accountants give at
    σ = 1.12 returns 1.12 (the solver inverts the accountant), and 0.98x that σ misses the target."""
    from dpviz import calibrate

    q, steps = 256 / 60000, math.ceil(60 * 60000 / 256)
    release = Release("subsampled", q=q, sigma=1.12)
    for name in ("rdp", "pld"):
        t = acc.epsilon(name, release, steps, 1e-5)
        settings = {"mechanism": "subsampled", "q": q, "k": steps, "delta": 1e-5}
        row = calibrate("budget", epsilon=t, solve="sigma", settings=settings).set_index("mechanism").loc[name]
        assert row["sigma"] == pytest.approx(1.12, rel=1e-6), name
        assert acc.epsilon(name, Release("subsampled", q=q, sigma=0.98 * 1.12), steps, 1e-5) > t


def test_the_largest_epsilon0_within_an_attackers_rate_is_the_closed_forms():
    """Solved for ε₀ of one release: basic composition's ε₀ = t/k; for the attacker's target, the
    (ε, δ) region's TPR at 1% FPR is e^ε·α + δ while below 1/2, so basic composition's largest ε₀ is
    log((t − δ)/α)/k; 1.02x that ε₀ misses."""
    from dpviz import calibrate
    from dpviz.papers.budget.targets import tpr_bound

    eps = calibrate("budget", epsilon=2.0, solve="epsilon0", settings={"mechanism": "laplace", "k": 8})
    assert eps.set_index("mechanism").loc["basic", "epsilon0"] == pytest.approx(2.0 / 8, rel=1e-8)
    delta, t, k = 1e-5, 0.05, 10
    table = calibrate(
        "budget", tpr_at_1pct=t, solve="epsilon0", settings={"mechanism": "rr", "k": k, "delta": delta}
    ).set_index("mechanism")
    assert table.loc["basic", "epsilon0"] == pytest.approx(math.log((t - delta) / 0.01) / k, rel=1e-8)
    for name, row in table.iterrows():
        x = float(row["epsilon0"])
        assert row["side"].startswith("epsilon0 ≤")
        eps_more = acc.epsilon(name, Release("rr", epsilon0=1.02 * x), k, delta)
        assert tpr_bound(eps_more, delta) > t, name


@pytest.mark.parametrize(
    "solve, settings, said",
    [
        ("sigma", {"mechanism": "laplace"}, "sigma plays no part in a Laplace release"),
        ("epsilon0", {"mechanism": "gaussian"}, "epsilon0 plays no part in a Gaussian release"),
        ("q", {}, "'q' cannot be solved for on the budget page; it solves for k or sigma or epsilon0"),
    ],
)
def test_solving_for_a_setting_that_plays_no_part_is_refused_with_a_sentence(solve, settings, said):
    from dpviz import calibrate

    with pytest.raises(InputError, match=re.escape(said)):
        calibrate("budget", epsilon=1.0, solve=solve, settings=settings)
    from dpviz.targets import calibrate_page

    with pytest.raises(InputError, match="k is a setting, not a measure, when solving for sigma"):
        calibrate_page("budget", {"k": "10"}, {}, "sigma")  # (as --target k=10 --solve sigma gives it)
    with pytest.raises(InputError, match="give a target on the budget page"):
        calibrate("budget", k=10, solve="sigma")  # the notebook's keyword k is then the setting


def test_the_command_line_solves_for_sigma(capsys):
    from dpviz.cli import main

    assert main(["calibrate", "budget", "--target", "epsilon=3", "--solve", "sigma", "--set", "k=100"]) == 0
    out = capsys.readouterr().out
    assert "sigma ≥" in out and "pld" in out
    assert main(["calibrate", "budget", "--target", "epsilon=3", "--solve", "q"]) == 2
    assert "cannot be solved for" in capsys.readouterr().err


def test_the_attackers_target_reads_the_region_of_epsilon_delta():
    """The true-positive rate (ε, δ)-DP allows at 1% false positives equals, for one randomized
    response (δ = 0), its own best test's: e^ε·α while α ≤ 1 − p."""
    from dpviz.budget.releases import rr_tradeoff
    from dpviz.papers.budget.targets import tpr_bound

    for eps0 in (0.1, 1.0, 3.0):
        assert tpr_bound(eps0, 0.0) == pytest.approx(1 - float(rr_tradeoff(eps0, 0.01)), rel=1e-12)
    from dpviz import calibrate

    table = calibrate("budget", tpr_at_1pct=0.05, settings={"sigma": 8.0}).set_index("mechanism")
    assert (table["tpr_at_1pct"] <= 0.05).all() and (table["k"] >= 1).all()
    with pytest.raises(InputError, match=r"outside what .* can be: \[0, 1\]"):
        calibrate("budget", tpr_at_1pct=2)


@pytest.mark.parametrize("figure", ["budget-frontier", "adept-frontier"])
def test_the_frontier_names_the_slider_it_sweeps(figure):
    """The budget page's k is a slider (it was a number box): its frontier speaks of the slider's
    range and the sliders' setting, as the paper pages' do."""
    _, fig, _ = _run(figure, **({"draws": 100} if figure.startswith("adept") else {}))
    assert "over the slider's range" in fig.layout.title.text
    names = [t.name for t in fig.data if t.name]
    assert any(n.startswith("the sliders' setting (") for n in names), names
    assert "the box's range" not in fig.layout.title.text


def test_a_frontier_over_a_number_box_says_box():
    """A page whose swept setting is a number box, not a slider (the budget page's k was one): the
    frontier's words and the target's refusal name the box."""
    import dataclasses

    from dpviz.frontier import _words
    from dpviz.papers.budget.figures import FRONTIER_PARAMS
    from dpviz.targets import control_of

    boxed = tuple(dataclasses.replace(p, slider=False) if p.name == "k" else p for p in FRONTIER_PARAMS)
    assert _words("budget", boxed) == ("box's range", "page's setting")
    assert _words("budget", FRONTIER_PARAMS) == ("slider's range", "sliders' setting")
    assert control_of(next(p for p in boxed if p.name == "k")) == "box"


@pytest.mark.parametrize("eps0", [0.1, 1.0, 2.5])
@pytest.mark.parametrize("prior", [1e-4, 0.01, 0.5, 0.99])
def test_one_randomized_response_reaches_the_posterior_odds_bound(eps0, prior):
    """For one ε-DP release the posterior odds are at most e^ε times the prior's (Kasiviswanathan and
    Smith 2014); randomized response's test at any FPR ≤ 1 − p reaches it: π' = e^ε·π / (e^ε·π + 1 − π)."""
    table, _, _ = _run("budget-posterior", mechanism="rr", epsilon0=eps0, k=1, prior=prior)
    here = table[table["here"]]
    bound = math.exp(eps0) * prior / (math.exp(eps0) * prior + 1 - prior)
    p = math.exp(eps0) / (1 + math.exp(eps0))
    reachable = here[here["fpr"] <= 1 - p]
    assert len(reachable) >= 2
    assert np.allclose(reachable["posterior"], bound, rtol=1e-9)
    assert (here["posterior"] <= bound * (1 + 1e-9)).all()


def test_the_gaussians_posterior_is_bayes_rule_on_its_exact_tradeoff_curve():
    """Gaussian, k releases: TPR at each FPR is 1 − Φ(Φ⁻¹(1 − α) − μ) with μ = √k/σ (Dong, Roth and
    Su), and the posterior is Bayes' rule on it, computed here by hand."""
    sigma, k, prior = 3.0, 20, 0.05
    table, fig, _ = _run("budget-posterior", mechanism="gaussian", sigma=sigma, k=k, prior=prior)
    mu = math.sqrt(k) / sigma
    for _, row in table[table["here"]].iterrows():
        tpr = 1 - stats.norm.cdf(stats.norm.ppf(1 - row.fpr) - mu)
        assert row.tpr == pytest.approx(tpr, abs=2e-3)  # the composed curve: a PLD's discretization
        assert row.posterior == pytest.approx(prior * row.tpr / (prior * row.tpr + (1 - prior) * row.fpr), rel=1e-12)
    assert f"from a prior of {prior:g}" in fig.layout.title.text
    # more than no release, less than certainty, rising with the prior
    for _, part in table.groupby("fpr"):
        part = part.sort_values("prior")
        assert (part["posterior"] >= part["prior"]).all() and (part["posterior"] < 1).all()
        assert (np.diff(part["posterior"]) > 0).all()


def test_posterior_edges():
    """Bayes' rule at its edges: no true positives, no belief; no false positives, certainty; a
    test no better than guessing leaves the prior as it was."""
    from dpviz.papers.budget.figures import posterior

    assert posterior(0.3, 0.0, 0.1) == 0.0
    assert posterior(0.3, 0.5, 0.0) == pytest.approx(1.0)
    assert np.allclose(posterior(np.array([1e-6, 0.2, 0.99]), 0.25, 0.25), [1e-6, 0.2, 0.99])


@pytest.mark.parametrize("bad", ["0", "1", "-0.1", "abc"])
def test_a_bad_prior_is_a_sentence(bad):
    with pytest.raises(InputError, match="prior"):
        registry.run("budget-posterior", {"prior": bad})


def _edge(epsilon: float, fpr) -> np.ndarray:
    """The ε-DP promise, by hand: TPR ≤ min(1, e^ε·FPR, 1 − e^(−ε)·(1 − FPR)) (Kairouz, Oh and
    Viswanath 2015, Thm. 2.1 at δ = 0)."""
    fpr = np.asarray(fpr, float)
    return np.minimum.reduce([np.ones_like(fpr), math.exp(epsilon) * fpr, 1 - math.exp(-epsilon) * (1 - fpr)])


def _hoho_roc(mechanism: str, epsilon: float, lam: float = 10.0):
    spec = registry.get("hoho-live")
    at = {**spec.defaults(), "mechanism": mechanism, "epsilon": epsilon, "lambda_": lam, "targets": 0.05}
    return spec.table(at)


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
def test_a_sound_unary_encoding_stays_under_the_promise_ome_does_not(epsilon):
    """SUE is ε-LDP as it claims: the HoHo page's exact linking attack on it stays under the ε-DP edge at
    every threshold. OME at the same claimed ε (λ = 10) goes far above it, HoHo's finding."""
    sue = _hoho_roc("sue", epsilon)
    assert (sue["tpr"] <= _edge(epsilon, sue["fpr"]) + 1e-12).all()
    ome = _hoho_roc("ome", epsilon)
    assert (ome["tpr"] - _edge(epsilon, ome["fpr"])).max() > 0.5


def test_the_attackers_chart_draws_hohos_roc_and_says_the_promise_is_broken(monkeypatch):
    from dpviz.papers.budget import figures as budget

    # the HoHo page's table at its reduced setting (5% of sentences as targets), as the HoHo tests run it
    monkeypatch.setattr(budget, "hoho_roc", lambda e, lam: _hoho_roc("ome", e, lam))
    table, fig, v = _run("budget-attacker", mechanism="rr", epsilon0=1.0, k=1, hoho_epsilon=1.0, hoho_lambda=10.0)
    attack = table[table["curve"] == "hoho"]
    roc = _hoho_roc("ome", 1.0, 10.0).sort_values("threshold", ascending=False)
    assert np.array_equal(attack["fpr"].to_numpy(), roc["fpr"].to_numpy())
    assert np.array_equal(attack["tpr"].to_numpy(), roc["tpr"].to_numpy())
    (trace,) = [t for t in fig.data if t.name.startswith("HoHo's attack")]
    assert np.array_equal(np.asarray(trace.y), roc["tpr"].to_numpy())
    # the excess the title states, against the closed-form edge (the page reads its own curve,
    # which at randomized response, k = 1, is that edge: to the interpolation between its points)
    gap, fpr, tpr = budget.promise_excess(table[table["curve"] == "composed"], attack)
    by_hand = (roc["tpr"] - _edge(1.0, roc["fpr"])).max()
    assert gap == pytest.approx(by_hand, abs=1e-3) and gap > 0.5
    assert "the promise does not hold" in fig.layout.title.text and f"{tpr:.3g}" in fig.layout.title.text


def test_without_hohos_epsilon_no_attack_is_drawn_and_a_negative_one_is_refused():
    table, fig, _ = _run("budget-attacker", mechanism="rr", epsilon0=1.0, k=1)
    assert "hoho" not in set(table["curve"]) and "HoHo" not in fig.layout.title.text
    spec = registry.get("budget-attacker")
    with pytest.raises(InputError, match="hoho_epsilon must be a number from 0 to 1000"):
        registry.run("budget-attacker", {**{k: str(v) for k, v in spec.defaults().items()}, "hoho_epsilon": "-1"})


def _library_pld(release: Release, k: int):
    """dp-accounting's own PLD of k releases, on the page's discretization (riskcal reads its
    objects): the masses dpviz.budget.pld builds (tests/budget/test_pld.py)."""
    from dp_accounting.pld import privacy_loss_distribution as lib

    # (the Gaussian on the one-release grid: the page draws its exact curve, and a PLD this coarse
    # lies clearly below it; the page's own step for 100 releases is so fine that the two cross)
    interval = acc.PLD_INTERVAL if release.kind == "gaussian" else acc.pld_interval(release, k)
    if release.kind == "laplace":
        one = lib.from_laplace_mechanism(1 / release.epsilon0, value_discretization_interval=interval)
    else:
        q = release.q if release.kind == "subsampled" else 1.0
        one = lib.from_gaussian_mechanism(release.sigma, sampling_prob=q, value_discretization_interval=interval)
    return one.self_compose(k) if k > 1 else one


@pytest.mark.parametrize(
    "mechanism, setting, k",
    [
        ("subsampled", {"sigma": 1.0, "q": 0.01}, 100),
        ("laplace", {"epsilon0": 0.5}, 20),
        ("gaussian", {"sigma": 4.0}, 100),
    ],
)
def test_the_attackers_curve_equals_riskcals_from_the_same_privacy_loss_distribution(mechanism, setting, k):
    """riskcal (Kulynych, Gomez et al. 2024) reads the trade-off curve straight from the composed
    privacy-loss distribution (their Algorithm 1); the page takes it from the privacy curve δ(ε) on a
    grid of ε (Dong, Roth and Su 2019, Prop. 2.12). For Laplace and DP-SGD the page's δ(ε) is that
    same PLD's (dpviz builds the library's masses; riskcal is given the library's own), so its β may
    only lie under riskcal's (a finer ε grid raises it towards the exact
    curve); the Gaussian's δ(ε) is the exact one (Balle and Wang), above dp-accounting's pessimistic
    PLD, so there the order turns. Within 2e-5 everywhere."""
    from riskcal import analysis

    table, _, v = _run("budget-attacker", mechanism=mechanism, k=k, **setting)
    composed = table[table["curve"] == "composed"]
    alphas = np.array([0.001, 0.01, 0.1, 0.3])
    ours = 1 - np.interp(alphas, composed["fpr"], composed["tpr"])
    pld = _library_pld(Release(mechanism, **setting), k)
    theirs = np.array([float(np.squeeze(analysis.get_beta_from_pld(pld, alpha=a))) for a in alphas])
    low, high = (theirs, ours) if mechanism == "gaussian" else (ours, theirs)
    assert np.all(low <= high + 1e-9), (ours, theirs)
    assert np.allclose(ours, theirs, atol=2e-5), (ours, theirs)
