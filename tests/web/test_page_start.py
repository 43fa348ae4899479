"""webui.page_start and webui.page_entry: every page file sends the loader element (the charts' script, and plotly.js
starting to load) before it imports the page's code; a page file that does not still gets it,
once, from webui.nav.page_setup."""

import ast
from pathlib import Path

import pytest

from webui.plotly_element import LOADER_COMPONENT

ROOT = Path(__file__).resolve().parents[2]
PAGE_FILES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py"))


def _body(name: str) -> list:
    body = ast.parse((ROOT / name).read_text(encoding="utf-8")).body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return body


@pytest.mark.parametrize("name", PAGE_FILES)
def test_every_page_file_imports_only_page_entry_and_draws_its_page_through_it(name):
    """One import (webui.page_entry, whose show_paper or show_tool sends the loader before the
    page's code is imported) and one call."""
    imports, call = _body(name)
    assert isinstance(imports, ast.ImportFrom) and imports.module == "webui.page_entry", ast.unparse(imports)
    assert [a.name for a in imports.names] in (["show_paper"], ["show_tool"])
    assert isinstance(call, ast.Expr) and call.value.func.id == imports.names[0].name


def test_the_home_page_calls_start_before_importing_anything_else_of_dpviz():
    """The statements before ``start()`` import Streamlit and webui.page_start only."""
    body = _body("app.py")
    before = []
    for statement in body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "start":
            break
        before.append(statement)
    else:
        pytest.fail("app.py never calls start()")
    imported = set()
    for statement in before:
        assert isinstance(statement, (ast.Import, ast.ImportFrom)), f"{ast.unparse(statement)} before start()"
        if isinstance(statement, ast.ImportFrom):
            imported.add(statement.module)
        else:
            imported.update(a.name for a in statement.names)
    assert "webui.page_start" in imported and imported <= {"webui.page_start", "streamlit"}, imported


def _loaders(at) -> list:
    return [e for e in at.sidebar.get("bidi_component") if e.proto.component_name == LOADER_COMPONENT]


def _page(with_start: bool):
    """A page as dpviz's page files draw it (``start()`` first, as show_paper and show_tool do), or
    as the three-line recipe did (no ``start()``: page_setup sends the loader)."""
    import streamlit as st

    from webui.page_start import start

    if with_start:
        start()
    from webui.nav import page_setup

    page_setup("A page")
    st.slider("n", 1, 9, 2)


@pytest.mark.parametrize("with_start", [True, False], ids=["start", "no start"])
def test_the_loader_is_sent_once_a_run_first_in_the_sidebar_with_start_or_without(with_start, monkeypatch):
    """Once a run (Streamlit refuses a second element of the same key in a run), on the first run
    and after a widget's change, and first in the sidebar. (The page links are left out: they
    need the app's own files as the entry point, which the home page's test below has.)"""
    from streamlit.testing.v1 import AppTest

    from webui import nav

    monkeypatch.setattr(nav, "sidebar_nav", lambda: None)
    at = AppTest.from_function(_page, args=(with_start,)).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(_loaders(at)) == 1
    assert at.sidebar.children[0].proto.component_name == LOADER_COMPONENT
    at.slider[0].set_value(5).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(_loaders(at)) == 1


def test_the_home_page_sends_the_loader_once_above_its_page_links():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(_loaders(at)) == 1
    assert at.sidebar.children[0].proto.component_name == LOADER_COMPONENT


def test_page_entry_and_page_start_import_nothing_of_the_pages_code_at_their_top():
    """What a page file imports before the loader is sent: Streamlit and the loader's own module."""
    import subprocess
    import sys

    code = (
        "import sys, streamlit; before = set(sys.modules); import webui.page_entry; "
        "print(sorted(m for m in set(sys.modules) - before if m.startswith(('dpviz', 'webui', 'pandas', 'plotly'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(ast.literal_eval(out.stdout.strip()))
    assert loaded <= {
        "webui",
        "webui.page_entry",
        "webui.page_start",
        "webui.plotly_element",
        "webui.live_script",
        "webui.plotly_bundle",
        "webui.static_folder",
    }, loaded
