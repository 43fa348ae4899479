"""Python's own parser, asked again when CPython 3.11 fails it spuriously.

CPython 3.11 (before the fix of python/cpython#106905) keeps the AST constructor's recursion
depth in one counter for the whole interpreter, so two threads parsing at once (two visitors'
formulas, a visitor's formula beside Streamlit's own parse of a page script, a test parsing the
source while a page runs in another thread) can fail one parse with ``SystemError: AST
constructor recursion depth mismatch``. The text is not at fault: the same parse a moment later
succeeds. :func:`parse` asks again, a few times, for that error alone (seen once in dpviz's test
suite, 2026-11-29)."""

from __future__ import annotations

import ast

ATTEMPTS = 4
"""Parses tried at most before the error is raised."""


def spurious(err: SystemError) -> bool:
    """Whether ``err`` is CPython 3.11's spurious parse error (module docstring), not the text's."""
    return "recursion depth mismatch" in str(err)


def asked_again(call, *args, **kwargs):
    """``call(*args, **kwargs)`` (a parse), tried again on the spurious error above, at most
    :data:`ATTEMPTS` times (any other error, a ``SyntaxError`` among them, is raised at once)."""
    for attempt in range(ATTEMPTS):
        try:
            return call(*args, **kwargs)
        except SystemError as err:
            if not spurious(err) or attempt == ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def parse(text: str, mode: str = "exec") -> ast.AST:
    """``ast.parse(text, mode=mode)``, tried again on the spurious error above (:func:`asked_again`)."""
    return asked_again(ast.parse, text, mode=mode)
