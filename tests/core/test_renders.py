"""Renders that read their table's columns as arrays (a frame along a slider draws the figure at
every position): on tables in another order than the computation gives (rows shuffled, an
individual's number out of order, ties), each trace holds what pandas' own route picks, the route
these renders took before (drop_duplicates, groupby in the table's order, a stable descending sort)."""

import json

import numpy as np
import plotly.io as pio

from dpviz import registry
from dpviz.frames import _plain
from dpviz.params import validate


def _drawn(spec, df, values) -> list[dict]:
    """The figure's traces as Plotly's JSON gives them, typed arrays read out."""
    fig = json.loads(pio.to_json(spec.figure_dict(df, values), validate=False))
    return [{k: _plain(v) for k, v in trace.items()} for trace in fig["data"]]


def _quick(figure_id: str):
    spec = registry.get(figure_id)
    values, errors = validate(spec.params, dict(spec.quick))
    assert not errors
    return spec, values


def test_the_individuals_bars_are_pandas_first_rows_and_groups_on_a_shuffled_table():
    spec, values = _quick("partial-individuals")
    table = spec.table(values)
    rng = np.random.default_rng(5)
    df = table.sample(frac=1.0, random_state=5).reset_index(drop=True)  # rows in another order
    ids = df["individual"].unique()
    df["individual"] = df["individual"].map(dict(zip(ids, rng.permutation(len(ids)) * 7 + 3)))  # out of order
    traces = _drawn(spec, df, values)
    first = df.drop_duplicates("individual")
    assert traces[0]["x"] == first["individual"].astype(str).tolist()
    assert traces[0]["y"] == first["rdp_epsilon"].tolist()
    assert traces[0]["text"] == first["most_sensitive_attribute"].astype(str).tolist()
    groups = list(df.groupby("attribute", sort=False))
    assert [t["name"] for t in traces[1:]] == [f"from ∂f/∂{name}" for name, _ in groups]
    for trace, (_, part) in zip(traces[1:], groups):
        assert trace["x"] == part["individual"].astype(str).tolist()
        assert trace["y"] == (100 * part["share_of_loss"]).tolist()
        assert trace["customdata"] == np.c_[part["value"], part["partial_sensitivity"]].tolist()


def test_the_roc_is_pandas_stable_descending_sort_with_tied_thresholds():
    spec, values = _quick("hoho-live")
    table = spec.table(values)
    df = table.sample(frac=1.0, random_state=2).reset_index(drop=True)
    df.loc[df.index[::3], "threshold"] = df["threshold"].iloc[0]  # ties, in a shuffled order
    traces = _drawn(spec, df, values)
    roc = df.sort_values("threshold", ascending=False, kind="stable")
    assert traces[0]["x"] == roc["fpr"].tolist()
    assert traces[0]["y"] == roc["tpr"].tolist()
    assert traces[0]["customdata"] == roc["threshold"].tolist()
    assert traces[0]["name"] == f"attack: AUC {df['auc_mean'].iloc[0]:.3f}"


def test_a_table_of_one_individual_draws_one_bar_and_one_bar_per_attribute():
    spec, values = _quick("partial-individuals")
    table = spec.table(values)
    one = table[table["individual"] == table["individual"].iloc[0]].reset_index(drop=True)
    traces = _drawn(spec, one, values)
    assert len(traces[0]["x"]) == 1 and len(traces) == 1 + one["attribute"].nunique()
    assert all(len(t["x"]) == 1 for t in traces[1:])
