"""A symbolic expression as a small numpy program: evaluated without sympy and without lambdify.

A formula and its derivatives share most of their subexpressions (the chain rule repeats the inner
function in every term), so they are compiled together into one list of nodes in which every
distinct subexpression appears once (a DAG, in topological order). Each node is

- ``("var", j)``: the j-th input column;
- ``("const", x)``: a float (a constant that overflows a float is ±inf, never an exception);
- ``(op, i, k, ...)``: an operation on earlier nodes, op one of :data:`OPERATIONS`.

Evaluating it costs one numpy operation per node, whatever the size of the printed formula (which
can grow exponentially with nesting). Compiling needs sympy and happens in the formula worker
(:mod:`dpviz.sandbox`); the program itself is plain tuples, so it is pickled back to the server,
which evaluates it with numpy alone.

The non-smooth functions ``abs``, ``min`` and ``max`` have derivatives almost everywhere; sympy
writes them with ``sign``, ``Heaviside`` and ``DiracDelta``. Here ``sign`` is numpy's sign,
``Heaviside(x)`` is 0 below 0, 1 above and ½ at 0 (sympy's convention, or its second argument),
and ``DiracDelta`` is 0: the derivative of a kink is taken where it exists, which is everywhere
except on a set of measure zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from dpviz.errors import InputError

MAX_NODES = 5000


def _heaviside(x, h0=0.5):
    return np.heaviside(x, h0)


def _zero(x, *order):
    return np.zeros_like(x)


def _power(base, exponent):
    return np.power(base, exponent)


OPERATIONS = {
    "add": lambda *xs: sum(xs[1:], xs[0]),
    "mul": lambda *xs: np.prod(np.broadcast_arrays(*xs), axis=0) if len(xs) > 2 else xs[0] * xs[1],
    "pow": _power,
    "sqrt": np.sqrt,
    "exp": np.exp,
    "log": np.log,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "abs": np.abs,
    "sign": np.sign,
    "heaviside": _heaviside,
    "diracdelta": _zero,
    "min": lambda *xs: np.minimum.reduce(np.broadcast_arrays(*xs)),
    "max": lambda *xs: np.maximum.reduce(np.broadcast_arrays(*xs)),
}


class ProgramError(InputError):
    """An expression that cannot be made into a real-valued numpy program; ``str(err)`` says why."""


@dataclass(frozen=True)
class Program:
    """``nodes`` in topological order; ``outputs[k]`` is the node holding the k-th expression."""

    variables: tuple[str, ...]
    nodes: tuple[tuple, ...]
    outputs: tuple[int, ...]

    @cached_property
    def _needed(self) -> tuple[tuple[int, ...], ...]:
        """Per output, the nodes it depends on, in evaluation order."""
        out = []
        for root in self.outputs:
            seen, stack = set(), [root]
            while stack:
                i = stack.pop()
                if i in seen:
                    continue
                seen.add(i)
                if self.nodes[i][0] not in ("var", "const"):
                    stack.extend(self.nodes[i][1:])
            out.append(tuple(sorted(seen)))
        return tuple(out)

    def evaluate(self, k: int, columns) -> np.ndarray:
        """The k-th expression at the points whose coordinates are ``columns`` (one array per
        variable, broadcastable); floating-point warnings are silenced (inf/nan are results)."""
        values: dict[int, np.ndarray] = {}
        with np.errstate(all="ignore"):
            for i in self._needed[k]:
                op, *args = self.nodes[i]
                if op == "var":
                    values[i] = np.asarray(columns[args[0]], dtype=float)
                elif op == "const":
                    values[i] = np.float64(args[0])
                else:
                    values[i] = OPERATIONS[op](*(values[j] for j in args))
            return values[self.outputs[k]]

    def function(self, k: int) -> "OutputFunction":
        """Output ``k`` of the program as a callable of the attribute columns."""
        return OutputFunction(self, k)


@dataclass(frozen=True)
class OutputFunction:
    """``fn(*columns)``: the k-th expression of a program, called like a lambdified function."""

    program: Program
    k: int

    def __call__(self, *columns):
        """The expression's values at the given attribute columns (numpy arrays or numbers)."""
        return self.program.evaluate(self.k, columns)


def _const(value) -> tuple:
    try:
        return ("const", float(value))
    except OverflowError:  # an integer or rational beyond the float range
        return ("const", float("inf") if value > 0 else float("-inf"))


def compile_expressions(exprs, symbols, max_nodes: int = MAX_NODES) -> Program:
    """Compile sympy expressions over ``symbols`` (in column order) into one :class:`Program`.

    Raises ProgramError for a non-real constant (e.g. the square root of -1), an undefined or
    infinite constant (log(0), 1/0), a function this module cannot evaluate, or more than
    ``max_nodes`` distinct subexpressions.
    """
    import sympy as sp

    functions = {
        sp.exp: "exp",
        sp.log: "log",
        sp.sin: "sin",
        sp.cos: "cos",
        sp.tan: "tan",
        sp.sinh: "sinh",
        sp.cosh: "cosh",
        sp.tanh: "tanh",
        sp.Abs: "abs",
        sp.sign: "sign",
        sp.Heaviside: "heaviside",
        sp.DiracDelta: "diracdelta",
        sp.Min: "min",
        sp.Max: "max",
    }
    column = {s: j for j, s in enumerate(symbols)}
    index: dict = {}
    nodes: list[tuple] = []

    def node_of(e) -> tuple:
        if e in column:
            return ("var", column[e])
        if e in (sp.zoo, sp.nan, sp.oo, -sp.oo):
            raise ProgramError(
                "The formula is infinite or undefined (e.g. log(0) or a division by zero): change the formula."
            )
        if e.is_Number or e.is_NumberSymbol:
            return _const(e)
        if e is sp.I:
            raise ProgramError(
                "The formula takes complex values (e.g. the square root or a fractional power of a negative number): "
                "dpviz needs a real-valued query."
            )
        if isinstance(e, sp.Add):
            return ("add", *(index[a] for a in e.args))
        if isinstance(e, sp.Mul):
            return ("mul", *(index[a] for a in e.args))
        if isinstance(e, sp.Pow):
            base, exponent = e.args
            if exponent == sp.Rational(1, 2):
                return ("sqrt", index[base])
            return ("pow", index[base], index[exponent])
        if e.func in functions:
            return (functions[e.func], *(index[a] for a in e.args))
        raise ProgramError(f"The formula needs {e.func.__name__}, which dpviz cannot evaluate numerically.")

    for root in exprs:
        stack = [(root, False)]
        while stack:  # post-order without recursion: children get their index first
            e, children_done = stack.pop()
            if e in index:
                continue
            args = () if (e in column or e.is_Atom) else e.args
            if not children_done and args:
                stack.append((e, True))
                stack.extend((a, False) for a in args if a not in index)
                continue
            index[e] = len(nodes)
            nodes.append(node_of(e))
            if len(nodes) > max_nodes:
                raise ProgramError(
                    f"The formula's derivatives have more than {max_nodes:,} distinct parts: write a shorter or less "
                    "nested formula."
                )
    names = tuple(str(s) for s in symbols)
    return Program(names, tuple(nodes), tuple(index[e] for e in exprs))


def tree_size(expr, limit: int) -> int:
    """The number of nodes of ``expr`` printed as a tree (shared parts counted each time they
    appear), counted up to ``limit``: the size of its LaTeX, which can be exponential in its depth."""
    sizes: dict = {}
    stack = [(expr, False)]
    while stack:
        e, done = stack.pop()
        if e in sizes:
            continue
        if not done and e.args:
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if a not in sizes)
            continue
        sizes[e] = min(limit, 1 + sum(sizes[a] for a in e.args))
    return sizes[expr]
