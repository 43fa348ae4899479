"""Shared fixtures: an isolated disk cache for every test session."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory):
    os.environ["DPVIZ_CACHE_DIR"] = str(tmp_path_factory.mktemp("dpviz-cache"))
    os.environ.pop("DPVIZ_HOSTED", None)
    yield
