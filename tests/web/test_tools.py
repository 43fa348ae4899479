"""Pages that are not papers: declared as tools with panels, found like papers; adding one is a
folder and a page file (tested with a toy tool)."""

import sys
import textwrap
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpviz import tools
from dpviz.panels import Panel
from dpviz.params import Param

ROOT = Path(__file__).resolve().parents[2]

TOY_INIT = """
from dpviz.panels import Panel
from dpviz.params import Param
from dpviz.tools import Tool

WORD = Param("word", "text", "hello", "Word", "A word to shout.", max_items=20)

TOOL = Tool(
    key="toytool", order=99, title="Toy tool", page="pages/9_Toy_tool.py", claim="Shouts a word.",
    headline="A toy tool", summary="It shouts.",
    panels=(Panel(id="shout", title="Shout", params=(WORD,), compute="dpviz.tools.toytool:shout",
                  view="dpviz.tools.toytool:view"),),
)


def shout(values, progress=None):
    from dpviz.errors import InputError

    if values["word"] == "bad":
        raise InputError("The word 'bad' cannot be shouted; give another word.")
    return values["word"].upper() + "!"


def view(result, values):
    import streamlit as st

    st.markdown(f"Shouted: {result}")
"""
TOY_PAGE = """
from webui.tool_page import show

show("toytool")
"""


@pytest.fixture
def toy_tool(tmp_path, monkeypatch):
    folder = tmp_path / "toytool"
    folder.mkdir()
    (folder / "__init__.py").write_text(textwrap.dedent(TOY_INIT))
    page = ROOT / "pages" / "9_Toy_tool.py"  # a page file sits beside the others (the navigation links it)
    page.write_text(textwrap.dedent(TOY_PAGE))
    monkeypatch.setattr(tools, "__path__", [*tools.__path__, str(tmp_path)])
    tools.all_tools.cache_clear()
    try:
        yield "pages/9_Toy_tool.py"
    finally:
        page.unlink()
        tools.all_tools.cache_clear()
        sys.modules.pop("dpviz.tools.toytool", None)


def _open(page, query=None):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(page)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    return at.run()


def test_a_new_folder_is_a_new_tool_page(toy_tool):
    assert [t.key for t in tools.all_tools()][-1] == "toytool"
    at = _open(toy_tool)
    assert not at.exception and not at.error
    assert "Shouted: HELLO!" in [m.value for m in at.markdown]
    assert at.title[0].value == "A toy tool"
    at.text_input(key="word").input("dpviz").run()
    assert "Shouted: DPVIZ!" in [m.value for m in at.markdown]
    assert at.query_params["word"] in ("dpviz", ["dpviz"])  # the URL carries the panel's parameter
    at.text_input(key="word").input("bad").run()
    assert not at.exception
    assert [e.value for e in at.error] == ["The word 'bad' cannot be shouted; give another word."]


def test_a_deep_link_sets_the_panels_parameter(toy_tool):
    at = _open(toy_tool, {"word": "link"})
    assert "Shouted: LINK!" in [m.value for m in at.markdown]


def test_every_tool_has_its_page_file_and_declared_targets():
    from dpviz.panels import resolve

    for tool in tools.all_tools():
        page = (ROOT / tool.page).read_text()
        assert f'show_tool("{tool.key}")' in page and len(page.splitlines()) <= 6
        for panel in tool.panels:
            for target in (panel.compute, panel.view) + ((panel.inputs,) if panel.inputs else ()):
                assert callable(resolve(target)), target


def test_panel_declarations_are_checked():
    p = Param("x", "int", 1, "X", "x", min=0, max=2)
    with pytest.raises(ValueError, match="twice"):
        Panel(id="t", title="t", params=(p, p), compute="a:b", view="a:b")
    with pytest.raises(ValueError, match="hides parameters it does not declare"):
        Panel(id="t", title="t", params=(p,), compute="a:b", view="a:b", hidden=("y",))
    with pytest.raises(ValueError, match="package.module:function"):
        Panel(id="t", title="t", params=(p,), compute="ab", view="a:b")
