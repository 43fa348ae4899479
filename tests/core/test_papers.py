"""The papers' declarations drive the registry, the pages, the command line and `dpviz figures`;
adding a paper is one folder (tested with a toy paper found like the real ones)."""

import sys
import textwrap
from pathlib import Path

import pytest

import dpviz
from dpviz import paper_figures, papers, registry
from dpviz.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


def test_every_figure_is_declared_once_on_its_papers_page():
    registry.all_figures()  # loads every paper's figures
    declared = [fid for p in papers.all_papers() for fid in p.figures]
    assert len(declared) == len(set(declared)) == len(registry.REGISTRY)
    for paper in papers.all_papers():
        assert Path(ROOT / "dpviz" / "papers" / paper.key).is_dir()
        for fid in paper.figures:
            spec = registry.get(fid)
            assert spec.page == paper.key and fid.startswith(paper.key + "-")
        page = (ROOT / paper.page).read_text()
        # drawn from its declaration alone: panels, upload boxes and loading are declared, no hooks
        assert f'show_paper("{paper.key}")' in page and len(page.splitlines()) <= 6
        for old, new in paper.aliases.items():
            assert registry.get(old) is registry.get(new)
    assert [p.order for p in papers.all_papers()] == sorted(p.order for p in papers.all_papers())


def test_reproductions_name_declared_figures_and_valid_parameters():
    from dpviz.params import validate

    for rep in paper_figures.paper_figures():
        spec = registry.get(rep.figure)
        for params in (rep.full, rep.quick):
            assert validate(spec.params, params)[1] == []


def test_sidebar_groups_name_page_parameters():
    for paper in papers.all_papers():
        names = {p.name for p in registry.page_params(paper.key)}  # figures' and panels' parameters
        for group in paper.sidebar:
            assert set(group.params) <= names, (paper.key, group)


TOY_INIT = """
from dpviz.papers import Paper, Section, SidebarGroup

PAPER = Paper(
    key="toy", order=99, title="Toy", page="pages/9_Toy.py", citation="Nobody (2026).", claim="Lines are straight.",
    headline="Toy", summary="A toy.", sections=(Section(figures=("toy-line",)),), sidebar=(SidebarGroup("Settings"),),
    seed_note="", notes="", aliases={"old-line": "toy-line"},
)
"""
TOY_FIGURES = """
import pandas as pd

from dpviz.params import Param
from dpviz.registry import FigureSpec, register

SLOPE = Param("slope", "float", 2.0, "Slope", "The line's slope.", min=-10.0, max=10.0)


def _compute(v, progress=None):
    return pd.DataFrame({"x": [0.0, 1.0, 2.0], "y": [0.0, v["slope"], 2 * v["slope"]]})


def _render(df, v):
    import plotly.graph_objects as go

    return go.Figure(go.Scatter(x=df.x, y=df.y))


register(FigureSpec(id="toy-line", title="A line", page="toy", params=(SLOPE,), compute=_compute,
                    render=_render, caption="A line.", columns=("x", "y")))
"""


@pytest.fixture
def toy_paper(tmp_path, monkeypatch):
    folder = tmp_path / "toy"
    folder.mkdir()
    (folder / "__init__.py").write_text(textwrap.dedent(TOY_INIT))
    (folder / "figures.py").write_text(textwrap.dedent(TOY_FIGURES))
    registry.all_figures()  # the real papers first
    monkeypatch.setattr(papers, "__path__", [*papers.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    monkeypatch.setattr(registry, "_ALIASES", {})
    monkeypatch.setattr(registry, "_LOADED", False)
    papers.all_papers.cache_clear()
    yield
    papers.all_papers.cache_clear()
    for name in ("dpviz.papers.toy", "dpviz.papers.toy.figures"):
        sys.modules.pop(name, None)


def test_a_new_folder_is_a_new_paper_everywhere(toy_paper, capsys):
    from dpviz import cli

    assert papers.all_papers()[-1].key == "toy"
    assert [s.id for s in registry.paper_figures("toy")] == ["toy-line"]
    fig, table = dpviz.figure("toy-line", slope=3)
    assert list(table.y) == [0.0, 3.0, 6.0] and len(fig.data) == 1
    assert dpviz.figure("old-line")[1].equals(dpviz.figure("toy-line")[1])
    with pytest.raises(InputError, match="slope"):
        dpviz.figure("toy-line", slope=11)
    assert cli.main(["figure", "--list"]) == 0
    assert "toy-line  (toy page) A line" in capsys.readouterr().out


def test_a_figure_the_declaration_does_not_place_is_refused(toy_paper, tmp_path):
    (tmp_path / "toy" / "figures.py").write_text(
        textwrap.dedent(TOY_FIGURES) + "\nregister(FigureSpec(id='toy-hidden', title='t', page='toy', params=(SLOPE,),"
        " compute=_compute, render=_render, caption='c', columns=('x', 'y')))\n"
    )
    with pytest.raises(ValueError, match="declared figures"):
        registry.all_figures()


def test_listing_the_pages_imports_no_scipy():
    """Every page's sidebar lists the papers and tools (``webui.nav``) before its title: that must
    not import SciPy (scipy.stats and scipy.special took 1 s of a fresh server's first page, when
    the audit tool's declaration brought them through dpviz.auditing.bounds)."""
    import subprocess

    code = (
        "import sys\nfrom dpviz.papers import all_papers\nfrom dpviz.tools import all_tools\n"
        "all_papers(); all_tools()\nimport webui.nav\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout
