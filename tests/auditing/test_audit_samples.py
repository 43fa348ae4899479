"""Reading samples and refusing what cannot be audited: one sentence each, never a traceback."""

import io
import json

import numpy as np
import pandas as pd
import pytest

import dpviz
from dpviz import cli
from dpviz.auditing import audit_samples, samples
from dpviz.errors import InputError


def _bytes_csv(arr) -> bytes:
    return pd.DataFrame(arr, columns=[f"c{i}" for i in range(arr.shape[1])]).to_csv(index=False).encode()


def _bytes_parquet(arr) -> bytes:
    buf = io.BytesIO()
    pd.DataFrame(arr, columns=[f"c{i}" for i in range(arr.shape[1])]).to_parquet(buf)
    return buf.getvalue()


def _bytes_npy(arr) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


@pytest.mark.parametrize("suffix, writer", [("csv", _bytes_csv), ("parquet", _bytes_parquet), ("npy", _bytes_npy)])
def test_numeric_formats_read_the_same_values(suffix, writer):
    arr = np.random.default_rng(0).normal(size=(50, 3))
    s = samples.read_bytes(writer(arr), f"x.{suffix}")
    assert s.kind == "numeric" and s.values.shape == (50, 3)
    np.testing.assert_allclose(s.values, arr, rtol=1e-15 if suffix != "csv" else 1e-12)


def test_text_is_one_categorical_output_per_line():
    s = samples.read_bytes("good\nbetter\n\ngood\r\nbest\n".encode(), "w.txt")
    assert s.kind == "categorical" and list(s.values) == ["good", "better", "", "good", "best"]


@pytest.mark.parametrize(
    "data, name, says",
    [
        (b"a,b\n1,x\n2,y\n", "t.csv", "column 'b' is not numeric"),
        (b"a\n1\nnan\n", "t.csv", "row 2, column 1 is nan"),
        (_bytes_npy(np.array([1.0, np.inf])), "t.npy", "row 2, column 1 is inf"),
        (_bytes_npy(np.array([{"a": 1}], dtype=object)), "t.npy", "not a readable .npy"),
        (_bytes_npy(np.zeros((2, 2, 2))), "t.npy", "3 dimensions"),
        (b"\xff\xfe\x00bad", "t.txt", "not UTF-8"),
        (b"not parquet", "t.parquet", "not a readable .parquet"),
        (b"1,2", "t.xlsx", "unknown format"),
        (b"", "t.csv", "not a readable .csv"),
        (("x" * 1001).encode(), "t.txt", "more than 1,000 characters"),
    ],
)
def test_bad_files_get_a_sentence(data, name, says):
    with pytest.raises(InputError, match=says):
        samples.read_bytes(data, name)


def test_row_caps_local_and_hosted(monkeypatch):
    monkeypatch.setattr(samples, "HOSTED_MAX_ROWS", 10)
    arr = _bytes_npy(np.zeros(11))
    samples.read_bytes(arr, "a.npy")
    monkeypatch.setenv("DPVIZ_HOSTED", "1")
    with pytest.raises(InputError, match="at most 10 a side are audited on the hosted demo"):
        samples.read_bytes(arr, "a.npy")


@pytest.mark.parametrize(
    "a, b, kwargs, says",
    [
        (np.zeros(500), ["x"] * 500, {}, "both sides must be of one kind"),
        (np.zeros((500, 2)), np.zeros((500, 3)), {}, "2 columns and .* 3"),
        (np.zeros(500), np.zeros(500), {"claimed": -1}, "claimed ε is -1"),
        (np.zeros(500), np.zeros(500), {"claimed": float("nan")}, "claimed ε is nan"),
        (np.zeros(500), np.zeros(500), {"delta": 1.0}, "δ is 1.0"),
        (np.zeros(500), np.zeros(500), {"distance": 0}, "distance"),
        (np.zeros(500), np.zeros(500), {"confidence": 1.0}, "confidence is 1.0"),
        (np.zeros(10), np.zeros(10), {}, "fewer than any conclusion needs"),
        (np.zeros(500), np.zeros(500), {"claimed": 8.0}, "only from"),
    ],
)
def test_bad_audits_get_a_sentence(a, b, kwargs, says):
    kwargs = {"claimed": 1.0, **kwargs}
    with pytest.raises(InputError, match=says):
        audit_samples(a, b, **kwargs)


def test_notebook_api_takes_paths_arrays_and_lists(tmp_path):
    rng = np.random.default_rng(2)
    a, b = rng.laplace(0, 0.5, 20_000), rng.laplace(1, 0.5, 20_000)
    np.save(tmp_path / "a.npy", a)
    pd.DataFrame({"y": b}).to_csv(tmp_path / "b.csv", index=False)
    r1 = dpviz.audit(tmp_path / "a.npy", str(tmp_path / "b.csv"), claimed=1.0, seed=3)
    r2 = dpviz.audit(a, list(b), claimed=1.0, seed=3)
    assert r1.to_dict() == r2.to_dict()
    assert r1.violated and 1.0 < r1.epsilon_lower_bound <= 2.0  # true loss 2
    assert r1.verdict.startswith("The claim (ε = 1) is violated")


def test_command_line_writes_the_result(tmp_path, capsys):
    rng = np.random.default_rng(4)
    (tmp_path / "a.txt").write_text("\n".join(rng.choice(["yes", "no"], 3000, p=[0.75, 0.25])))
    (tmp_path / "b.txt").write_text("\n".join(rng.choice(["yes", "no"], 3000, p=[0.25, 0.75])))
    out = tmp_path / "r.json"
    code = cli.main(
        [
            "audit",
            str(tmp_path / "a.txt"),
            str(tmp_path / "b.txt"),
            "--claimed",
            "0.5",
            "--delta",
            "0.01",
            "--confidence",
            "0.9",
            "--seed",
            "7",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    r = json.loads(out.read_text())
    for key in ("claimed", "delta", "confidence", "epsilon_lower_bound", "violated", "samples", "event"):
        assert key in r
    assert r["samples"] == {"a": 3000, "b": 3000} and r["kind"] == "categorical"
    # randomised response with true loss ln 3 = 1.10 and δ = 0.01: violated, bound below the truth
    assert r["violated"] and 0.5 < r["epsilon_lower_bound"] < np.log(3)
    assert r["delta_lower_bound"] > 0.01  # at ε = 0.5 the true δ is 0.75 - e^0.5 0.25 = 0.34
    assert "is violated" in capsys.readouterr().out


def test_command_line_refuses_with_one_line(tmp_path, capsys):
    np.save(tmp_path / "a.npy", np.zeros(100))
    code = cli.main(
        [
            "audit",
            str(tmp_path / "a.npy"),
            str(tmp_path / "missing.npy"),
            "--claimed",
            "1",
            "--out",
            str(tmp_path / "r.json"),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("dpviz: ") and "no such file" in err and len(err.strip().splitlines()) == 1
    assert cli.main(["audit", "a", "b", "--claimed", "1", "--out", "r.csv"]) == 2
