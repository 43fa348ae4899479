"""House rules run with the tests: ruff's linter and formatter (pyproject.toml) and every doctest
in the library (the closed forms' examples)."""

import doctest
import importlib
import pkgutil
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
    for path in list(ROOT.glob("dpviz/**/*.py")) + list(ROOT.glob("docs/*.md")) + [ROOT / "README.md"]:
        assert "../shared" not in path.read_text(), path
