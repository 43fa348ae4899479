"""Adding a paper, walked as docs/design.md ("Adding a paper") and README's recipe say: a copy of
the project, one new folder ``dpviz/papers/toy/`` and its page file ``pages/9_Toy_Laplace.py``,
and nothing else changed. The toy paper is the Laplace mechanism on a count (sensitivity Δ): its
RMS error is √2·Δ/ε (the Laplace distribution's standard deviation), so every number the project
computes for it has a closed form to be checked against.

The copy runs in its own processes (the command line, and one script for the page and the
declarations), so the project here is left as it is."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

TOY_INIT = '''
"""A toy paper: the Laplace mechanism on a count of sensitivity Δ, ε-DP with RMS error √2·Δ/ε."""

from dpviz.frontier import target_panel
from dpviz.papers import Paper, Section, SidebarGroup
from dpviz.papers.toy.figures import FRONTIER_PARAMS

PAPER = Paper(
    key="toy",
    order=9,
    title="Toy Laplace",
    page="pages/9_Toy_Laplace.py",
    citation="Dwork, McSherry, Nissim, Smith (2006), Calibrating noise to sensitivity in private data analysis.",
    claim="Laplace noise of scale Δ/ε makes a count ε-DP, with RMS error √2·Δ/ε.",
    headline="The Laplace mechanism on a count",
    summary="A count released with Laplace noise: its error against ε.",
    sections=(
        Section(figures=("toy-error", "toy-frontier"), panels=(target_panel("toy", FRONTIER_PARAMS),)),
    ),
    sidebar=(SidebarGroup("Settings"), SidebarGroup("Choose from a target", ("target_measure", "target_value"))),
    seed_note="every random chart on this page is reproducible from it.",
    notes="**Notes.** The error is the Laplace distribution's standard deviation.",
)
'''

TOY_FIGURES = '''
"""The toy paper's figure: the RMS error √2·Δ/ε of the Laplace mechanism against ε."""

import math

import numpy as np
import pandas as pd

from dpviz.frontier import frontier_spec
from dpviz.params import SEED, Param
from dpviz.registry import FigureSpec, register
from dpviz.theme import go, log_axis, style

EPSILON = Param(
    "epsilon", "float", 1.0, "Privacy budget ε", "The Laplace scale is Δ/ε.", min=0.01, max=10.0, log=True,
    slider=True,
)
SENSITIVITY = Param("sensitivity", "float", 1.0, "Sensitivity Δ", "How much one person moves the count.",
                    min=0.1, max=10.0)


def rms_error(epsilon, sensitivity):
    """The Laplace mechanism's RMS error: the standard deviation √2·b of Laplace(b), b = Δ/ε."""
    return math.sqrt(2.0) * sensitivity / np.asarray(epsilon, dtype=float)


def _evaluate(state, v):
    eps = np.geomspace(0.01, 10.0, 31)
    return pd.DataFrame({"epsilon": eps, "rms_error": rms_error(eps, v["sensitivity"]),
                         "here": np.isclose(eps, v["epsilon"])})


def _render(df, v):
    fig = go.Figure(go.Scatter(x=df["epsilon"], y=df["rms_error"], name="RMS error √2·Δ/ε"))
    fig.add_trace(go.Scatter(x=[v["epsilon"]], y=[float(rms_error(v["epsilon"], v["sensitivity"]))],
                             mode="markers", name="the slider's ε"))
    log_axis(fig, "x", title="ε")
    log_axis(fig, "y", title="RMS error")
    return style(fig, "The Laplace mechanism's error against ε")


register(FigureSpec(
    id="toy-error", title="Error against ε", page="toy", params=(EPSILON, SENSITIVITY),
    prepare=lambda v, progress=None: None, evaluate=_evaluate, live=("epsilon",), render=_render,
    caption="The error falls as 1/ε.", columns=("epsilon", "rms_error", "here"),
))
FRONTIER_PARAMS = (EPSILON, SENSITIVITY, SEED)
register(frontier_spec("toy", FRONTIER_PARAMS))
'''

TOY_TARGETS = '''
"""What the toy page declares for targets and its frontier: ε-DP and the RMS error √2·Δ/ε."""

from dpviz.frontier import Axes
from dpviz.targets import Measure, Page, panel_answer


def _params():
    from dpviz import registry

    return registry.get("toy-frontier").params


def _evaluate(state, v, mechanism, epsilon):
    from dpviz.papers.toy.figures import rms_error

    return {"epsilon_dp": epsilon, "rms_error": float(rms_error(epsilon, v["sensitivity"]))}


TARGETS = Page(
    "toy", "epsilon", ("laplace",),
    (Measure("epsilon_dp", "at most", True, "the ε guaranteed", "privacy"),
     Measure("rms_error", "at most", True, "RMS error of the count", "utility")),
    _params, lambda v, mechanism: None, _evaluate,
)
FRONTIER = Axes("epsilon_dp", "ε guaranteed", "lower", "rms_error", "RMS error", "lower", "epsilon", "ε",
                default_target=1.0, label=lambda mechanism, v: "Laplace mechanism")


def answer(values, progress=None):
    """The toy page's "Choose from a target" panel."""
    return panel_answer("toy", values)
'''

TOY_AUDIT = '''
"""The toy paper's built-in audit example: Laplace(Δ/ε) on counts 0 and Δ, claiming ε/2, which the
mechanism (ε-DP) breaks."""

from dpviz.auditing.examples import BuiltIn, Example
from dpviz.stats import stream


def _make(n, seed):
    rng = stream(seed, 9901)
    return Example("toy", rng.laplace(0.0, 1.0, n), 1.0 + rng.laplace(0.0, 1.0, n), 0.5, 0.0, 1.0,
                   "Laplace(1) on counts 0 and 1, claiming ε = 0.5; its true ε is 1")


EXAMPLES = (BuiltIn("toy", "The toy count, over-claimed", 100_000, _make, lambda: (0.5, 0.0, 1.0), violated=True),)
'''

PAGE_FILE = '''
"""Toy Laplace page: drawn from its declaration (dpviz/papers/toy/)."""

from webui.page_entry import show_paper

show_paper("toy")
'''

CHECK = """
import json, sys
from pathlib import Path

from streamlit.testing.v1 import AppTest

sys.path.insert(0, sys.argv[2])  # the project's tests/, for the chart finder the app tests use
from paper_pages import charts

from dpviz import papers, registry
from dpviz.auditing.examples import TITLES, example
from dpviz.auditing import audit_samples

out = {"papers": [p.key for p in papers.all_papers()], "figures": [s.id for s in registry.paper_figures("toy")]}
home = AppTest.from_file("app.py", default_timeout=120).run()
out["home"] = " ".join(s.value for s in home.subheader)
at = AppTest.from_file("app.py", default_timeout=120)
at.switch_page("pages/9_Toy_Laplace.py")
at.run()
out["page_exception"] = [str(e.value) for e in at.exception]
out["page_charts"] = len(charts(at))
out["audit_titles"] = list(TITLES)
ex = example("toy", seed=1)
out["audit_violated"] = audit_samples(ex.a, ex.b, claimed=ex.claimed).violated
Path(sys.argv[1]).write_text(json.dumps(out))
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of the project with the toy paper added as the recipe says, and nothing else."""
    copy = tmp_path_factory.mktemp("with-toy")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("dpviz", "webui", "pages", ".streamlit"):
        shutil.copytree(ROOT / name, copy / name, ignore=ignore)
    shutil.copy(ROOT / "app.py", copy / "app.py")
    toy = copy / "dpviz" / "papers" / "toy"
    _write(toy / "__init__.py", TOY_INIT)
    _write(toy / "figures.py", TOY_FIGURES)
    _write(toy / "targets.py", TOY_TARGETS)
    _write(toy / "audit_examples.py", TOY_AUDIT)
    _write(copy / "pages" / "9_Toy_Laplace.py", PAGE_FILE)
    return copy


def _run(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(project), "DPVIZ_CACHE_DIR": str(project / "cache")}
    return subprocess.run(
        [sys.executable, *args], cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def test_the_recipe_adds_only_the_toy_folder_and_its_page_file(project):
    """The copy differs from the project by the toy's folder and its page file alone."""
    added = sorted(
        str(p.relative_to(project))
        for p in project.rglob("*.py")
        if not (ROOT / p.relative_to(project)).exists() and "__pycache__" not in p.parts
    )
    assert added == [
        "dpviz/papers/toy/__init__.py",
        "dpviz/papers/toy/audit_examples.py",
        "dpviz/papers/toy/figures.py",
        "dpviz/papers/toy/targets.py",
        "pages/9_Toy_Laplace.py",
    ]


def test_a_new_paper_gets_its_page_and_audit_example(project, tmp_path):
    """The home page lists it, its page draws both charts with no error, and its audit example is
    a button of the auditor's (the audit finds its over-claim broken)."""
    out = tmp_path / "check.json"
    run = _run(project, "-c", CHECK, str(out), str(ROOT / "tests"))
    assert run.returncode == 0, run.stderr[-3000:]
    found = json.loads(out.read_text())
    from dpviz import papers

    assert found["papers"] == [p.key for p in papers.all_papers()] + ["toy"]
    assert found["figures"] == ["toy-error", "toy-frontier"]
    assert "Toy Laplace" in found["home"]
    assert found["page_exception"] == []
    assert found["page_charts"] == 2
    assert found["audit_titles"][-1] == "toy" and found["audit_violated"] is True


def test_a_new_paper_gets_its_figure_on_the_command_line(project, tmp_path):
    """``dpviz figure --list`` names it; its table is √2·Δ/ε at every ε (the closed form)."""
    listed = _run(project, "-m", "dpviz", "figure", "--list")
    assert listed.returncode == 0 and "toy-error" in listed.stdout and "toy-frontier" in listed.stdout
    csv = tmp_path / "toy.csv"
    run = _run(project, "-m", "dpviz", "figure", "toy-error", "--set", "sensitivity=3", "--out", str(csv), "--quiet")
    assert run.returncode == 0, run.stderr[-3000:]
    import pandas as pd

    table = pd.read_csv(csv)
    assert len(table) == 31
    assert ((table.rms_error - math.sqrt(2) * 3 / table.epsilon).abs() <= 1e-12 * table.rms_error).all()


def test_a_new_paper_gets_its_targets(project):
    """``dpviz calibrate toy --target rms_error=2`` at Δ = 3: the ε where √2·3/ε = 2, ε = 3/√2
    (the solver's 1e-9 relative tolerance); an RMS error no ε of the slider reaches is said so."""
    run = _run(
        project, "-m", "dpviz", "calibrate", "toy", "--target", "rms_error=2", "--set", "sensitivity=3", "--json"
    )
    assert run.returncode == 0, run.stderr[-3000:]
    rows = json.loads(run.stdout)
    assert [r["mechanism"] for r in rows] == ["laplace"]
    assert rows[0]["epsilon"] == pytest.approx(3 / math.sqrt(2), rel=1e-8)
    assert rows[0]["side"].startswith("epsilon ≥")  # the error falls as ε grows: a larger ε meets it
    run = _run(project, "-m", "dpviz", "calibrate", "toy", "--target", "rms_error=0.001", "--json")
    assert run.returncode == 0, run.stderr[-3000:]
    assert [r["reachable"] for r in json.loads(run.stdout)] == [False]


def test_a_new_paper_gets_its_frontier_and_report(project, tmp_path):
    """The frontier's table is the curve (ε, √2·Δ/ε) along the slider; the report holds both charts."""
    csv = tmp_path / "frontier.csv"
    run = _run(project, "-m", "dpviz", "figure", "toy-frontier", "--out", str(csv), "--quiet")
    assert run.returncode == 0, run.stderr[-3000:]
    import pandas as pd

    table = pd.read_csv(csv)
    curve = table[table["kind"] == "curve"]
    assert len(curve) >= 10 and set(curve.label) == {"Laplace mechanism"}
    assert curve.setting.min() == pytest.approx(0.01) and curve.setting.max() == pytest.approx(10.0)
    assert (curve.privacy == curve.setting).all()  # the Laplace mechanism is ε-DP at its ε
    assert ((curve.utility - math.sqrt(2) / curve.setting).abs() <= 1e-12 * curve.utility).all()
    html = tmp_path / "toy.html"
    run = _run(project, "-m", "dpviz", "report", "toy", "--out", str(html), "--quiet")
    assert run.returncode == 0, run.stderr[-3000:]
    text = html.read_text()
    assert "The Laplace mechanism on a count" in text
    assert "Error against ε" in text and "Privacy against utility: the frontier" in text
