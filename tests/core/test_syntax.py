"""dpviz.syntax.parse: Python's parser asked again on CPython 3.11's spurious SystemError
(python/cpython#106905), and on nothing else."""

from __future__ import annotations

import ast

import pytest

from dpviz import syntax


def _failing(times: int, error: Exception):
    calls = []
    real = ast.parse

    def parse(text, mode="exec"):
        calls.append(text)
        if len(calls) <= times:
            raise error
        return real(text, mode=mode)

    return parse, calls


SPURIOUS = SystemError("AST constructor recursion depth mismatch (before=120, after=90)")


def test_the_spurious_error_is_asked_again(monkeypatch):
    parse, calls = _failing(syntax.ATTEMPTS - 1, SPURIOUS)
    monkeypatch.setattr(ast, "parse", parse)
    tree = syntax.parse("a + 1", mode="eval")
    assert isinstance(tree, ast.Expression) and isinstance(tree.body, ast.BinOp)
    assert len(calls) == syntax.ATTEMPTS


def test_it_is_raised_when_it_persists(monkeypatch):
    parse, calls = _failing(syntax.ATTEMPTS, SPURIOUS)
    monkeypatch.setattr(ast, "parse", parse)
    with pytest.raises(SystemError, match="recursion depth mismatch"):
        syntax.parse("a")
    assert len(calls) == syntax.ATTEMPTS


@pytest.mark.parametrize("error", [SystemError("another fault"), RecursionError("deep"), MemoryError()])
def test_any_other_error_is_raised_at_once(monkeypatch, error):
    parse, calls = _failing(1, error)
    monkeypatch.setattr(ast, "parse", parse)
    with pytest.raises(type(error)):
        syntax.parse("a")
    assert len(calls) == 1


def test_a_syntax_error_is_the_texts_and_raised_at_once():
    with pytest.raises(SyntaxError):
        syntax.parse("(a +", mode="eval")
