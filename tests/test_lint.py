"""House rules run with the tests: ruff's linter and formatter (pyproject.toml) and every doctest
in the library (the closed forms' examples)."""

import doctest
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import dpviz

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]])
def test_ruff(command):
    out = subprocess.run([sys.executable, "-m", "ruff", *command], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def _modules():
    for info in pkgutil.walk_packages(dpviz.__path__, "dpviz."):
        if info.name != "dpviz.__main__":
            yield info.name


def test_doctests():
    tried = 0
    for name in _modules():
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, name
        tried += result.attempted
    assert tried >= 15  # the closed forms keep their examples


def test_the_library_never_points_outside_the_repository():
    """No relative path in the code or the docs climbs out of the repository (the project stands alone)."""
    leaving = re.compile(r"\.\./[A-Za-z_]")
    files = [
        *ROOT.glob("dpviz/**/*.py"),
        *ROOT.glob("webui/*.py"),
        *ROOT.glob("pages/*.py"),
        *ROOT.glob("docs/**/*.md"),
    ]
    for path in [*files, ROOT / "README.md", ROOT / "app.py"]:
        assert not leaving.search(path.read_text()), path
