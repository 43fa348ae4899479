"""The page's chart script: ES modules in webui/live_js/ (run by ``node --test`` in tests/js/), put
together into the one script the page loads (webui/live_script.py)."""

import shutil
import subprocess

import pytest

from webui import live_script
from webui.plotly_element import full_script


@pytest.mark.parametrize("name", live_script.MODULES)
def test_each_module_imports_what_it_uses_of_the_others(name):
    """Put together, the modules share one scope, so a missing import works on the page and fails
    only where the module is loaded alone (Node's tests): caught here instead."""
    text = live_script.source(name)
    have = live_script.imported(text)
    for other, names in live_script.imports_needed(name).items():
        missing = names - have.get(other, set())
        assert not missing, f"live_js/{name}.js uses {sorted(missing)} of {other}.js without importing them"
    for other, names in have.items():
        assert other in live_script.MODULES, f"live_js/{name}.js imports from {other}.js, not a module of the script"
        assert names <= live_script.declared(live_script.source(other)), f"{name}.js imports {names} from {other}.js"


def test_every_module_file_is_in_the_script():
    on_disk = {p.stem for p in live_script.FOLDER.glob("*.js")}
    assert on_disk == set(live_script.MODULES)


def test_the_scanner_finds_a_use_without_its_import(tmp_path, monkeypatch):
    """The check above can fail: a module that calls another's function without importing it."""
    for name in ("frames", "text_fit"):
        (tmp_path / f"{name}.js").write_text(live_script.source(name))
    (tmp_path / "text_fit.js").write_text(
        live_script.source("text_fit") + "\nfunction more(d) { return frameAt(d, 0); }\n"
    )
    monkeypatch.setattr(live_script, "FOLDER", tmp_path)
    monkeypatch.setattr(live_script, "MODULES", ("frames", "text_fit"))
    assert live_script.imports_needed("text_fit") == {"frames": {"frameAt"}}
    assert "frameAt" not in live_script.imported(live_script.source("text_fit")).get("frames", set())


def test_the_script_has_no_import_and_one_entry_point():
    script = full_script()
    assert not any(line.startswith("import ") for line in script.splitlines())
    assert script.count("function dpvizLive(") == 1 and script.count("export default") == 1
    for name in ("fitLayout", "frameAt", "planShots", "watchSliders", "describe"):
        assert f"function {name}(" in script


@pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js here (Debian: apt-get install -y nodejs)")
def test_the_script_parses_as_a_module(tmp_path):
    path = tmp_path / "live.mjs"
    path.write_text(full_script(), encoding="utf-8")
    out = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
