"""The pixel maps' cell numbers (paper's Figure 2A chart): each cell shows its value in the unit
that the colour bar names, 10^power with the largest value as two digits, rounded to the nearest
unit, so that a reader multiplying back gets the table's value to half a unit."""

import re

import numpy as np
import pandas as pd
import pytest

from dpviz.papers.partial import bars_network as bn
from dpviz.papers.partial import figures as pf


def _table(top: float, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for opt in ("SGD", "DP-SGD"):
        for cls in ("vertical", "horizontal", "all"):
            for r in range(bn.SIDE):
                for c in range(bn.SIDE):
                    rows.append((opt, cls, r, c, float(rng.uniform(0, top))))
    df = pd.DataFrame(rows, columns=["optimizer", "sample_class", "pixel_row", "pixel_col", "max_partial_sensitivity"])
    df.loc[
        (df.sample_class == "vertical") & (df.optimizer == "SGD") & (df.pixel_row == 0) & (df.pixel_col == 0),
        "max_partial_sensitivity",
    ] = top  # the largest value, exactly
    return df


@pytest.mark.parametrize("top, shown", [(0.035, "35"), (0.01, "10"), (0.0999, "100"), (3.2, "32"), (42.0, "42")])
def test_cells_show_values_in_the_colour_bars_unit(top, shown):
    df = _table(top)
    fig = pf._maps_render(df, {"eval_per_class": 50})
    maps = [t for t in fig.data if t.text is not None]  # the prototypes (first column) have no numbers
    assert len(maps) == 4
    bar = next(t for t in maps if t.showscale).colorbar.title.text
    found = re.search(r"×10<sup>(−?\d+)</sup>", bar)
    power = int(found.group(1).replace("−", "-")) if found else 0
    assert (found is None) == (power == 0)
    unit = 10.0**power
    for t in maps:
        z, text = np.asarray(t.z, float), np.asarray(t.text, float)
        assert np.all(text == np.round(text))  # whole numbers of the unit
        assert np.all(np.abs(text * unit - z) <= unit / 2 + 1e-12)
    first = next(t for t in maps if np.isclose(np.max(t.z), top))
    assert f"{np.max(first.text):.0f}" == shown
