"""The cases the browser's chart script is tested on with ``node --test`` (tests/js/) are what the
Python that draws the server's frames and the exported images answers now: were either side's
rules changed alone, this test or Node's fails."""

import importlib.util
import json
from pathlib import Path

import pytest

_MAKER = Path(__file__).resolve().parents[1] / "js" / "make_cases.py"
_spec = importlib.util.spec_from_file_location("make_js_cases", _MAKER)
make_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_cases)
CASES_DIR, frames_cases, text_fit_cases = make_cases.HERE, make_cases.frames_cases, make_cases.text_fit_cases


@pytest.mark.parametrize("name, made", [("frames.json", frames_cases), ("text_fit.json", text_fit_cases)])
def test_committed_cases_are_what_the_python_makes_now(name, made):
    committed = json.loads((CASES_DIR / name).read_text(encoding="utf-8"))
    now = json.loads(json.dumps(made(), ensure_ascii=False, allow_nan=False))
    assert committed == now, f"tests/js/cases/{name} is out of date: run python tests/js/make_cases.py"


def test_the_text_fit_cases_change_what_they_fit():
    """Cases whose answer were their input would agree whatever the rules: all but one change."""
    cases = text_fit_cases()
    assert sum(c["fitted"] != c["layout"] for c in cases) == len(cases) - 1
