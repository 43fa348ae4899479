"""The command line: listing, every output format, and bad input (one line, exit 2)."""

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_support import cli, python

from dpviz import registry
from dpviz.export import find_chromium

ROOT = Path(__file__).resolve().parents[2]
needs_chromium = pytest.mark.skipif(
    find_chromium() is None and not os.environ.get("DPVIZ_REQUIRE_BROWSER"),
    reason="no Chromium here (CI installs it and sets DPVIZ_REQUIRE_BROWSER=1)",
)


def test_list_names_every_figure_with_parameters_and_ranges():
    out = cli("figure", "--list")
    assert out.returncode == 0
    for spec in registry.all_figures():
        assert spec.id in out.stdout
    assert "--set dim=...  default 64; a whole number from 1 to 1024" in out.stdout
    assert "metric-stats  (metric page)" in out.stdout and "earlier id: mdp-stats (still accepted)" in out.stdout


def test_csv_matches_compute(tmp_path):
    out = cli(
        "figure",
        "adept-violations",
        "--set",
        "dims=2,10,20",
        "--set",
        "pairs=1000",
        "--set",
        "seed=4",
        "--out",
        str(tmp_path / "v.csv"),
    )
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "v.csv")
    assert list(df.columns) == ["dim", "distribution", "violation_rate", "ci_low", "ci_high"]
    ref = registry.run("adept-violations", {"dims": "2,10,20", "pairs": "1000", "seed": "4"})[1]
    pd.testing.assert_frame_equal(df, ref.reset_index(drop=True), check_dtype=False)
    assert df.violation_rate.between(0, 1).all()


def test_json_and_html(tmp_path):
    assert cli("figure", "adept-epsilon", "--set", "epsilon=2", "--out", str(tmp_path / "e.json")).returncode == 0
    fig = json.loads((tmp_path / "e.json").read_text())
    assert fig["data"] and "ADePT claims ε = 2" in fig["layout"]["title"]["text"]
    assert cli("figure", "adept-geometry", "--out", str(tmp_path / "g.html")).returncode == 0
    html = (tmp_path / "g.html").read_text()
    assert "<html>" in html and "plotly" in html.lower()
    assert (
        re.search(r"<script[^>]+src=\"https?://", html) is None and len(html) > 1_000_000
    )  # plotly.js inlined: opens offline


@needs_chromium
@pytest.mark.parametrize("suffix, magic", [("png", b"\x89PNG\r\n\x1a\n"), ("svg", b"<svg"), ("pdf", b"%PDF")])
def test_images_through_kaleido_and_system_chromium(tmp_path, suffix, magic):
    out = cli("figure", "adept-sensitivity", "--set", "dim=16", "--out", str(tmp_path / f"s.{suffix}"))
    assert out.returncode == 0, out.stderr
    data = (tmp_path / f"s.{suffix}").read_bytes()
    assert magic in data[:200]
    if suffix == "png":
        from PIL import Image

        with Image.open(tmp_path / "s.png") as im:
            assert im.size[0] >= 900 and im.size[1] >= 400


@needs_chromium
def test_an_image_of_a_frontier_ends_at_its_legend(tmp_path):
    """The frontier sizes its bottom margin for one legend row an entry (the page's narrow column);
    its image, 900 px wide, holds the legend in two rows, and ended in a white band of 136 px under
    it (273 rows of the image at its scale of 2). Now the image's last non-white row (the legend's
    border) is within 20 px of its bottom, and the legend's border is whole (its lowest grey line
    spans most of the legend)."""
    from PIL import Image

    out = cli("figure", "budget-frontier", "--out", str(tmp_path / "f.png"))
    assert out.returncode == 0, out.stderr
    with Image.open(tmp_path / "f.png") as im:
        grey = np.asarray(im.convert("L"), dtype=float)
    scale = grey.shape[1] / 900  # (the image's pixels per layout pixel)
    inked = np.flatnonzero((grey < 250).any(axis=1))
    assert grey.shape[0] - 1 - inked[-1] < 20 * scale, f"{grey.shape[0] - 1 - inked[-1]} white rows at the bottom"
    assert (grey[inked[-1]] < 250).sum() > 300 * scale  # the legend's lower border, not a stray pixel


@pytest.mark.parametrize(
    "args, fragment",
    [
        (("figure", "nope", "--out", "x.csv"), "Unknown figure 'nope'"),
        (("figure", "adept-sensitivity", "--set", "dim=0", "--out", "x.csv"), "dim = '0' is not allowed"),
        (("figure", "adept-sensitivity", "--set", "dim=abc", "--out", "x.csv"), "not a number"),
        (("figure", "adept-sensitivity", "--set", "colour=red", "--out", "x.csv"), "Unknown parameter 'colour'"),
        (("figure", "adept-sensitivity", "--set", "dim", "--out", "x.csv"), "not of the form key=value"),
        (("figure", "adept-sensitivity", "--set", "dim=3", "--set", "dim=4", "--out", "x.csv"), "given twice"),
        (("figure", "adept-sensitivity", "--out", "x.docx"), "not supported"),
        (("figure", "adept-sensitivity"), "--out FILE is required"),
        (("figure",), "name a figure id"),
        (("figure", "adept-violations", "--set", "dims=1-99999", "--out", "x.csv"), "out of range"),
        (("figure", "adept-violations", "--set", "distributions=cauchy", "--out", "x.csv"), "unknown choice"),
        (("plot",), "invalid choice"),
    ],
)
def test_bad_input_one_line_exit_2(args, fragment):
    out = cli(*args)
    assert out.returncode == 2
    assert fragment in out.stderr
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_hosted_caps_apply_on_the_command_line_too(tmp_path):
    env = dict(os.environ, DPVIZ_HOSTED="1")
    out = cli("figure", "adept-violations", "--set", "pairs=50000", "--out", str(tmp_path / "x.csv"), env=env)
    assert out.returncode == 2 and "hosted demo" in out.stderr


def test_no_chromium_says_how_to_install(tmp_path):
    env = dict(os.environ, BROWSER_PATH=str(tmp_path / "no-such-browser"))
    out = cli("figure", "adept-sensitivity", "--out", str(tmp_path / "x.png"), env=env)
    assert out.returncode == 2
    assert "apt-get install -y chromium" in out.stderr and "BROWSER_PATH" in out.stderr
    assert not (tmp_path / "x.png").exists()


def test_unwritable_output_is_a_clean_error(tmp_path):
    target = tmp_path / "file"
    target.write_text("")
    out = cli("figure", "adept-sensitivity", "--out", str(target / "sub" / "x.csv"))
    assert out.returncode == 2 and "cannot write" in out.stderr and "Traceback" not in out.stderr


def test_ps_query_csv_has_the_global_sensitivity_and_maximiser(tmp_path):
    out = cli("figure", "partial-query", "--out", str(tmp_path / "q.csv"))
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "q.csv").set_index("attribute")
    assert df["global_sensitivity"].iloc[0] == pytest.approx(66.19446391885754, abs=1e-4)
    assert df.loc["a", "argmax"] == pytest.approx(1.0) and df.loc["b", "argmax"] == pytest.approx(3.0)


@pytest.mark.parametrize(
    "expr, fragment",
    [("__import__('os')", "Unknown function"), ("a.real", "Attribute access"), ("9**9**9", "too large")],
)
def test_ps_query_refuses_hostile_formulas(tmp_path, expr, fragment):
    out = cli("figure", "partial-query", "--set", f"expr={expr}", "--out", str(tmp_path / "q.csv"))
    assert out.returncode == 2 and fragment in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_ps_dpsgd_csv(tmp_path):
    out = cli(
        "figure",
        "partial-dpsgd",
        "--set",
        "per_class=100",
        "--set",
        "sgd_steps=100",
        "--set",
        "dpsgd_steps=100",
        "--set",
        "eval_per_class=50",
        "--out",
        str(tmp_path / "d.csv"),
    )
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "d.csv")
    assert {"optimizer", "pixel_row", "pixel_col", "max_partial_sensitivity"} <= set(df.columns)
    assert set(df.optimizer) == {"SGD", "DP-SGD"} and len(df) == 2 * 3 * 25


def test_mdp_stats_csv_and_bad_embedding(tmp_path):
    out = cli(
        "figure",
        "metric-stats",
        "--set",
        "word_list=privacy,hospital",
        "--set",
        "samples=100",
        "--set",
        "epsilons=1,10,1000",
        "--out",
        str(tmp_path / "m.csv"),
    )
    assert out.returncode == 0, out.stderr
    df = pd.read_csv(tmp_path / "m.csv")
    assert list(df.columns) == ["word", "epsilon", "n_w", "s_w", "s_w_eta"]
    assert set(df.word) == {"privacy", "hospital"} and (df[df.epsilon == 1000].n_w == 100).all()
    bad = cli("figure", "metric-stats", "--set", "embedding=/no/such/file.vec", "--out", str(tmp_path / "x.csv"))
    assert bad.returncode == 2 and "No embedding file" in bad.stderr and "Traceback" not in bad.stderr
    unknown = cli("figure", "metric-stats", "--set", "word_list=qzxqzx", "--out", str(tmp_path / "x.csv"))
    assert unknown.returncode == 2 and "Not in the glove-6b-50d vocabulary: qzxqzx" in unknown.stderr


@needs_chromium
@pytest.mark.slow
def test_figures_quick_regenerates_every_paper_figure(tmp_path):
    out = cli("figures", "--out", str(tmp_path / "r"), "--quick")
    assert out.returncode == 0, out.stderr
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["quick"] and manifest["dpviz_version"]
    ids = {f["id"] for f in manifest["figures"]}
    assert {
        "adept-violations",
        "metric-figure3",
        "metric-histograms",
        "metric-knn-distances",
        "hoho-linking",
        "hoho-audit",
        "partial-query-surface",
        "partial-dpsgd",
    } <= ids
    for f in manifest["figures"]:
        assert "seed" in f["parameters"] or f["id"] == "partial-query-surface"
        for name in f["files"]:
            data = (tmp_path / "r" / name).read_bytes()
            assert len(data) > 100  # every file written and non-trivial
        assert (tmp_path / "r" / f["files"][1]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert pd.read_csv(tmp_path / "r" / f["files"][0]).shape[0] > 0


def test_a_command_that_hangs_fails_with_where_it_stood_and_leaves_nothing_running(tmp_path):
    """The tests' command runner: a run past its time fails the test with its last output and the
    stack of each of its threads, and what it started is stopped with it."""
    started = tmp_path / "started"
    code = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        f"open({str(started)!r}, 'w').write(str(child.pid))\n"
        "print('\\r[###  ] 3/11 computing the slow one', end='', file=sys.stderr, flush=True)\n"
        "def stuck_here():\n"
        "    time.sleep(120)\n"
        "stuck_here()\n"
    )
    with pytest.raises(AssertionError) as failed:
        python("-c", code, timeout=3)
    said = str(failed.value)
    assert "was not done in 3 s" in said
    assert "3/11 computing the slow one" in said  # the last progress line
    assert "stuck_here" in said  # the stack: where it stood
    pid = int(started.read_text())  # the process the run started: stopped with it
    for _ in range(50):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            break
        if state == "Z":
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the process the run started ({pid}) still runs")


def test_a_bug_keeps_its_traceback_while_bad_input_exits_2(monkeypatch, capsys, tmp_path):
    """Only an InputError is the user's mistake (exit 2, one line); a ValueError from a bug propagates."""
    from dpviz import cli as C
    from dpviz.errors import InputError

    def buggy(*args, **kwargs):
        raise ValueError("operands could not be broadcast together")

    monkeypatch.setattr(registry, "run", buggy)
    with pytest.raises(ValueError, match="broadcast"):
        C.main(["figure", "adept-sensitivity", "--out", str(tmp_path / "x.csv"), "--quiet"])

    def refused(*args, **kwargs):
        raise InputError("dims must hold at least one dimension")

    monkeypatch.setattr(registry, "run", refused)
    assert C.main(["figure", "adept-sensitivity", "--out", str(tmp_path / "x.csv"), "--quiet"]) == 2
    assert capsys.readouterr().err == "dpviz: dims must hold at least one dimension\n"


def test_every_specific_error_is_an_input_error():
    from dpviz.data.corpora import CorpusError
    from dpviz.data.embeddings import EmbeddingError
    from dpviz.errors import InputError
    from dpviz.export import ExportError
    from dpviz.papers.partial.expr_program import ProgramError
    from dpviz.papers.partial.safe_expr import FormulaError
    from dpviz.params import ParamError
    from dpviz.sandbox import LimitExceeded, WorkerError

    for err in (
        CorpusError,
        EmbeddingError,
        ExportError,
        ProgramError,
        FormulaError,
        ParamError,
        LimitExceeded,
        WorkerError,
    ):
        assert issubclass(err, InputError), err


def test_an_unwritable_output_is_one_line(tmp_path):
    (tmp_path / "a-file").write_text("")
    out = cli(
        "figure", "adept-sensitivity", "--out", str(tmp_path / "a-file" / "x.csv"), "--quiet"
    )  # a file is no folder
    assert (
        out.returncode == 2
        and out.stderr.startswith("dpviz: cannot write the output")
        and "Traceback" not in out.stderr
    )


HEAVY = ("plotly", "scipy", "sklearn", "sympy", "gensim", "faiss", "numba", "dask", "streamlit")


@pytest.mark.parametrize(
    "argv",
    [["figure", "--list"], ["figure", "adept-violations", "--set", "dims=1-20", "--set", "pairs=200", "--quiet"]],
)
def test_the_command_line_imports_only_what_it_uses(argv, tmp_path):
    """--list and a CSV of a figure that needs no heavy library import none (the fast start
    benchmarks/bench_cli.py measures); an image of the same figure does import Plotly."""
    code = (
        "import sys; from dpviz import cli; argv = sys.argv[1:]; rc = cli.main(argv); "
        f"print(rc, sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    csv = argv + (["--out", str(tmp_path / "f.csv")] if len(argv) > 2 else [])
    out = subprocess.run([sys.executable, "-c", code, *csv], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "0 []"
    if len(argv) > 2:
        html = argv + ["--out", str(tmp_path / "f.html")]
        out = subprocess.run([sys.executable, "-c", code, *html], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert out.stdout.strip().splitlines()[-1] == "0 ['plotly']"
