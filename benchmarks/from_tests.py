"""The tests' helpers that the benchmarks share (``tests/browser_support.py``, ``class_support.py``,
``paper_pages.py``...): a benchmark that drives a server or a browser as the tests do imports this
module first. ``tests/`` is not a package (pytest reads it by folder), so this puts its folder on
the import path, in this one place. dpviz itself is imported as installed (``pip install -e .``, which
``scripts/test.sh`` and ``scripts/start.sh`` run), never through the path."""

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
if str(TESTS) not in sys.path:
    sys.path.append(str(TESTS))
