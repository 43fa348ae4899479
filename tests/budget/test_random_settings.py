"""The budget page's accountants at seeded random settings over the page's own ranges (ε₀ from 0.01
to 10, σ from 0.3 to 100, DP-SGD's q from 10⁻⁴ to 1, k from 1 to 100, δ from 10⁻¹² to 0.1, the ends
included), each against an independent route: zCDP's closed form, ``dp-accounting``'s RDP
accountant, the exact μ-GDP curve and the randomized response's binomial sum in 50-digit arithmetic
(``budget_exact``), and the ordering the accountants must keep. The curated grids of the other
tests sit on round values (ε₀ = 0.5, a whole number of PLD steps); a check on random ones found the
Laplace PLD below the exact ε where ε₀ was not, and advanced composition's δ 2·10⁻⁸ of itself
above the δ asked for."""

from __future__ import annotations

import logging
import math
import random

import pytest
from budget_exact import gaussian_delta, rr_delta

from dpviz.budget import accountants as acc
from dpviz.budget.releases import Release

RANGES = {"epsilon0": (0.01, 10.0), "sigma": (0.3, 100.0), "q": (1e-4, 1.0), "delta": (1e-12, 0.1)}


def _pick(rng: random.Random, name: str) -> float:
    """One of a range's two ends or a log-uniform value between them."""
    low, high = RANGES[name]
    return rng.choice([low, high, math.exp(rng.uniform(math.log(low), math.log(high)))])


def _settings(seed: int, count: int) -> list[tuple[Release, int, float]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        kind = rng.choice(["gaussian", "laplace", "rr"])
        release = Release(kind, epsilon0=_pick(rng, "epsilon0"), sigma=_pick(rng, "sigma"))
        out.append((release, rng.choice([1, 2, 3, rng.randint(4, 100)]), _pick(rng, "delta")))
    return out


SETTINGS = _settings(2026_12_04, 24)


def _meets(delta_of, eps: float, delta: float) -> bool:
    """Whether the exact least ε with δ(ε) ≤ δ lies within 10⁻¹² of ``eps`` (relative, and absolute
    below 1): δ(ε + tol) ≤ δ < δ(ε − tol), or ε − tol ≤ 0. (In ε, not in δ: near a loss atom δ(ε)
    falls by 10⁻¹⁶ over the last bit of an ε of 20, a millionth of a δ of 10⁻¹⁰.)"""
    tol = 1e-12 * max(1.0, eps)
    return delta_of(eps + tol) <= delta and (eps - tol <= 0 or delta_of(eps - tol) > delta)


def _library_rdp(event, k: int, delta: float, caplog) -> float:
    """``dp-accounting``'s RDP accountant on dpviz's orders: k of ``event`` read at δ."""
    from dp_accounting.rdp import rdp_privacy_accountant

    with caplog.at_level(logging.ERROR):
        return rdp_privacy_accountant.RdpAccountant(list(acc.ORDERS)).compose(event, k).get_epsilon(delta)


def _assert_order(value: dict[str, float], release: Release, k: int) -> None:
    """The PLD (tightest, pessimistic by its grid) ≤ advanced ≤ basic, and RDP not below the PLD."""
    step = k * acc.pld_interval(release, k)
    assert value["pld"] <= value["advanced"] + step and value["advanced"] <= value["basic"] * (1 + 1e-12)
    assert value["rdp"] >= value["pld"] - step


@pytest.mark.parametrize("release,k,delta", SETTINGS, ids=lambda x: x.label if isinstance(x, Release) else f"{x:g}")
def test_each_accountant_against_its_own_route(release, k, delta, caplog):
    found = {name: value for name, (value, _) in acc.epsilons(release, k, delta).items()}
    # zCDP: ρ = k/(2σ²) or kε₀²/2, ε = ρ + 2√(ρ log(1/δ))
    rho = k / (2 * release.sigma**2) if release.kind == "gaussian" else k * release.epsilon0**2 / 2
    assert found["zcdp"] == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1 / delta)), rel=1e-12)
    if release.kind != "rr":  # RDP: the library's accountant on the same orders
        import dp_accounting

        event = (
            dp_accounting.GaussianDpEvent(release.sigma)
            if release.kind == "gaussian"
            else dp_accounting.LaplaceDpEvent(1 / release.epsilon0)
        )
        assert found["rdp"] == pytest.approx(_library_rdp(event, k, delta, caplog), rel=1e-9, abs=1e-12)
    if release.kind == "gaussian":  # the PLD is μ-GDP's exact curve; basic composition k·ε₁(δ/k) from it
        mu = math.sqrt(k) / release.sigma
        assert _meets(lambda e: gaussian_delta(mu, e), found["pld"], delta)
        assert _meets(lambda e: gaussian_delta(1 / release.sigma, e), found["basic"] / k, delta / k)
    else:  # a pure release: basic is kε₀; advanced (and randomized response's PLD) the binomial sum's exact ε
        assert found["basic"] == pytest.approx(k * release.epsilon0, rel=1e-12)
        assert _meets(lambda e: rr_delta(release.epsilon0, k, e), found["advanced"], delta)
        if release.kind == "rr":
            assert found["pld"] == pytest.approx(found["advanced"], rel=1e-12, abs=1e-12)
        else:  # Laplace's pessimistic PLD: never above kε₀ (no loss is larger), nor below the exact ε
            assert found["pld"] <= k * release.epsilon0 * (1 + 1e-12)
            if 2.0**k * delta < 1:  # (each release at its atom ε₀ with probability ½: δ(ε) ≥ 2⁻ᵏ(1 − e^{ε − kε₀}))
                assert found["pld"] >= k * release.epsilon0 + math.log1p(-(2.0**k) * delta) - 1e-12
    _assert_order(found, release, k)


def _subsampled(seed: int, count: int) -> list[tuple[Release, int, float]]:
    rng = random.Random(seed)
    return [
        (Release("subsampled", sigma=_pick(rng, "sigma"), q=_pick(rng, "q")), rng.choice([1, 2, rng.randint(3, 100)]),
         _pick(rng, "delta"))
        for _ in range(count)
    ]  # fmt: skip


@pytest.mark.parametrize(
    "release,k,delta", _subsampled(2026_12_05, 8), ids=lambda x: x.label if isinstance(x, Release) else f"{x:g}"
)
def test_dp_sgd_against_the_librarys_rdp_and_the_accountants_order(release, k, delta, caplog):
    """DP-SGD's step (Poisson subsampling q, noise σ) at random settings: RDP equal to dp-accounting's
    accountant on the same orders, zCDP refused with its reason, and the order of the others."""
    import dp_accounting

    found = acc.epsilons(release, k, delta)
    assert math.isnan(found["zcdp"][0]) and "amplification" in found["zcdp"][1]
    event = dp_accounting.PoissonSampledDpEvent(release.q, dp_accounting.GaussianDpEvent(release.sigma))
    value = {name: v for name, (v, _) in found.items()}
    assert value["rdp"] == pytest.approx(_library_rdp(event, k, delta, caplog), rel=1e-9, abs=1e-12)
    _assert_order(value, release, k)
