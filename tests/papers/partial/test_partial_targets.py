"""dpviz.papers.partial.targets: the frontier's curves (whose loss is counted) read each
individual's loss without building the page's table, and give the very numbers the table does."""

import random

import pytest

from dpviz import registry
from dpviz.papers.partial import targets


@pytest.mark.parametrize("who", ["worst", "median"])
def test_whose_loss_equals_the_tables_own_reading(who):
    """At random σ and α, on the page's defaults and a table of an even count of individuals (a
    median of two middle values): max or median of the table's first row per individual, exactly."""
    spec = registry.get("partial-individuals")
    rng = random.Random(who)
    for people in (None, "1,3; 1.5,0.5; 2,2; 1.2,1"):
        own = spec.defaults() if people is None else {**spec.defaults(), "people": people}
        state = targets._prepare(own, "gaussian")
        for _ in range(6):
            alpha, sigma = rng.uniform(1.1, 64.0), rng.uniform(0.3, 100.0)
            at = {**own, "alpha": alpha}
            losses = spec.table({**at, "sigma": sigma}).groupby("individual")["rdp_epsilon"].first()
            want = float(losses.max() if who == "worst" else losses.median())
            got = targets._whose((spec, at), at, who, sigma)
            assert got == {"rdp_epsilon": want, "sigma": sigma}
        assert state[0] is spec


def test_the_first_losses_are_kept_per_fixed_setting():
    spec = registry.get("partial-individuals")
    own = spec.defaults()
    first = targets._first_losses(spec, own)
    assert targets._first_losses(spec, {**own, "alpha": 3.0, "sigma": 7.0}) is first  # (live values: the same table)
    other = targets._first_losses(spec, {**own, "people": "1,3; 1.5,0.5"})
    assert other is not first and len(other) == 2
