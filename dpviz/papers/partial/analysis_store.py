"""A query's analysis kept in the disk cache, so that a page's first view does not wait for it.

The analysis of a typed query (:func:`dpviz.papers.partial.sensitivity.analyse`: sympy's
parse and derivatives, compiled to a numpy program, and scipy's ``shgo`` for the global
sensitivity) runs in a limited worker process that must first import sympy. On a fresh server,
even after ``python -m dpviz build`` had filled the cache, the partial-sensitivity page's first
chart waited 3 s or more for it (the process memo starts empty): the charts' tables were on disk,
but the page asks for the analysis itself (its formulas panel, its targets). So the analysis,
or the sentence refusing the query, is kept on disk like a table (:func:`dpviz.tables.cached_blob`,
verified on reading, shared by every process of the cache, filled by ``dpviz build``), as JSON:
the program is plain tuples of names, indices and floats, and the numbers round-trip exactly
(Python writes the shortest text that reads back as the same float, ±inf and NaN included).
A read that does not verify or does not parse is computed again.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from dpviz.papers.partial.expr_program import Program
from dpviz.papers.partial.safe_expr import FormulaError

KIND = "partial-analysis"
"""The disk cache's kind for analyses (:func:`dpviz.tables.cached_blob`)."""


def key(expr: str, ranges: str, individuals: int) -> dict[str, str]:
    """The analysis's canonical parameters in the disk cache."""
    return {"expr": expr, "ranges": ranges, "individuals": str(int(individuals))}


def dumps(found: Any) -> bytes:
    """An analysis (a :class:`~dpviz.papers.partial.sensitivity.QueryAnalysis`, a dataclass of
    tuples, a :class:`~dpviz.papers.partial.expr_program.Program` and a dict of floats) or the
    refusal of its query (a :class:`~dpviz.papers.partial.safe_expr.FormulaError`) as JSON bytes."""
    if isinstance(found, FormulaError):
        return json.dumps({"refused": str(found)}).encode()
    return json.dumps({"analysis": dataclasses.asdict(found)}, allow_nan=True).encode()


def loads(data: bytes) -> dict[str, Any] | FormulaError:
    """What :func:`dumps` wrote: the analysis's fields (``QueryAnalysis(**fields)``), or the
    FormulaError refusing its query."""
    doc = json.loads(data)
    if "refused" in doc:
        return FormulaError(doc["refused"])
    fields = doc["analysis"]
    p = fields["program"]
    fields["program"] = Program(tuple(p["variables"]), tuple(_node(n) for n in p["nodes"]), tuple(p["outputs"]))
    fields["attributes"] = tuple(fields["attributes"])
    fields["ranges"] = tuple(tuple(float(x) for x in r) for r in fields["ranges"])
    fields["tex"] = tuple((name, tex) for name, tex in fields["tex"])
    return fields


def _node(node: list) -> tuple:
    """A program node back as the tuple it was: ``("const", x)`` with its float, every other
    node a name and indices of earlier nodes (or of an input column)."""
    return ("const", float(node[1])) if node[0] == "const" else tuple(node)
