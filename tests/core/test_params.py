"""The one validator behind widgets, URL parameters and --set."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpviz.params import MAX_RAW_LENGTH, Param, ParamError, format_value, log_grid, parse_value, validate

N = Param("n", "int", 5, "n", "help", min=1, max=1024)
EPS = Param("epsilon", "float", 1.0, "eps", "help", min=0.001, max=1000.0)
DIMS = Param("dims", "int_list", (1, 2, 3), "dims", "help", min=1, max=1024, max_items=300)
DISTS = Param("dists", "choices", ("a", "b"), "d", "help", choices=("a", "b", "c"))
MODE = Param("mode", "choice", "x", "m", "help", choices=("x", "y"))
FLAG = Param("flag", "bool", False, "f", "help")
PAIRS = Param("pairs", "int", 10, "p", "help", min=1, max=10_000, hosted_max=100)


@pytest.mark.parametrize(
    "param, raw, expected",
    [
        (N, "7", 7),
        (N, 7, 7),
        (N, "7.0", 7),
        (N, "1024", 1024),
        (EPS, "0.5", 0.5),
        (EPS, 2, 2.0),
        (EPS, "1e2", 100.0),
        (DIMS, "1-5", (1, 2, 3, 4, 5)),
        (DIMS, "20,2,10", (2, 10, 20)),
        (DIMS, "1-3,3-4,9", (1, 2, 3, 4, 9)),
        (DIMS, ["2", "3"], (2, 3)),
        (DISTS, "c,a", ("a", "c")),
        (DISTS, ["b", "b"], ("b",)),
        (MODE, "y", "y"),
        (FLAG, "true", True),
        (FLAG, "0", False),
        (FLAG, True, True),
    ],
)
def test_parses_good_values(param, raw, expected):
    assert parse_value(param, raw) == expected


@pytest.mark.parametrize(
    "param, raw, fragment",
    [
        (N, "0", "out of range"),
        (N, "1025", "out of range"),
        (N, "2.5", "not a whole number"),
        (N, "abc", "not a number"),
        (N, "nan", "not a finite number"),
        (N, True, "n must be"),
        (EPS, "inf", "not a finite number"),
        (EPS, "-1", "out of range"),
        (EPS, "1e400", "not a finite number"),
        (DIMS, "5-1", "runs backwards"),
        (DIMS, "1-2000", "out of range"),
        (DIMS, "1-400", "too many"),
        (DIMS, "1,,2", "empty item"),
        (DIMS, "1-2-3", "cannot read"),
        (DIMS, "x", "not a number"),
        (DISTS, "a,zz", "unknown choice"),
        (DISTS, "", "unknown choice"),
        (MODE, "z", "mode must be one of x, y"),
        (FLAG, "maybe", "true or false"),
        (N, "9" * (MAX_RAW_LENGTH + 1), "longer than"),
    ],
)
def test_refuses_bad_values_with_a_sentence(param, raw, fragment):
    with pytest.raises(ParamError) as err:
        parse_value(param, raw)
    msg = str(err.value)
    assert fragment in msg
    assert msg.startswith(f"{param.name} = ")  # names the parameter and the value
    assert "must be" in msg  # says what is allowed
    assert "\n" not in msg and len(msg) < 400


@given(st.sets(st.integers(min_value=1, max_value=1024), min_size=1, max_size=300))
def test_int_list_round_trips_through_its_canonical_string(values):
    canonical = format_value(DIMS, tuple(sorted(values)))
    assert parse_value(DIMS, canonical) == tuple(sorted(values))


@given(st.floats(min_value=0.001, max_value=1000.0))
def test_float_round_trips(x):
    assert parse_value(EPS, format_value(EPS, x)) == x


def test_validate_keeps_defaults_for_bad_and_reports_unknown():
    values, errors = validate((N, EPS), {"n": "9999", "epsilon": "2", "bogus": "1"})
    assert values == {"n": 5, "epsilon": 2.0}
    assert len(errors) == 2
    assert any("Unknown parameter 'bogus'" in e and "epsilon, n" in e for e in errors)
    assert any(e.startswith("n = '9999'") for e in errors)


def test_hosted_cap_only_in_hosted_mode():
    assert validate((PAIRS,), {"pairs": "5000"})[0]["pairs"] == 5000
    values, errors = validate((PAIRS,), {"pairs": "5000"}, hosted=True)
    assert values["pairs"] == 10 and "hosted demo" in errors[0] and "100" in errors[0]


def test_a_spec_with_an_invalid_default_is_refused():
    with pytest.raises(ParamError):
        Param("x", "int", 0, "x", "h", min=1, max=2)


def test_a_slider_with_its_own_steps_offers_them_in_every_decade():
    """δ's slider on the privacy-budget page: 1, 2 and 5 in every decade from 10⁻¹² to 0.1 (34
    positions, not the 16 a decade of the other log sliders), as typed; the default on the grid."""
    from dpviz.frames import slider_grid
    from dpviz.papers.budget.figures import DELTA

    expected = sorted(float(f"{m}e{e}") for e in range(-12, 0) for m in (1, 2, 5) if float(f"{m}e{e}") <= 0.1)
    assert slider_grid(DELTA) == expected and len(expected) == 34
    assert DELTA.default in expected
    assert log_grid(1e-3, 1e-1, (1, 3)) == [0.001, 0.003, 0.01, 0.03, 0.1]
    assert len(log_grid(1e-3, 1e-1)) == 2 * 16 + 1  # the default steps unchanged
