"""Parse a formula a visitor typed into a sympy expression, without executing Python.

The text is parsed with :func:`ast.parse` (parsing only) and the tree is walked node by
node: only numbers, the declared attribute names, the constants ``pi`` and ``e``, the
operators + - * / ** (and ^ as a power), unary minus, and calls to an allow-list of
functions are accepted; each accepted node is translated into sympy by hand. Python's
evaluator (and sympy's ``sympify``, which uses it) is never called on user text. Size
limits keep a hosted demo responsive: the length of the text, the number of nodes, the
nesting depth, the size of literals and of constant exponents.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Callable, Mapping

from dpviz import syntax
from dpviz.errors import InputError

MAX_LENGTH = 300
MAX_NODES = 200
MAX_DEPTH = 30
MAX_LITERAL = 1e9
MAX_EXPONENT = 64
MAX_ATTRIBUTES = 6
MIN_RELATIVE_WIDTH = 1e-9
NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]{0,11}$")


FUNCTIONS: Mapping[str, tuple[int, str]] = {
    # name: (number of arguments, sympy builder's name); min/max take two to six
    "exp": (1, "exp"),
    "log": (1, "log"),
    "sqrt": (1, "sqrt"),
    "sin": (1, "sin"),
    "cos": (1, "cos"),
    "tan": (1, "tan"),
    "sinh": (1, "sinh"),
    "cosh": (1, "cosh"),
    "tanh": (1, "tanh"),
    "abs": (1, "Abs"),
    "sigmoid": (1, "sigmoid"),
    "min": (-2, "Min"),
    "max": (-2, "Max"),
}
CONSTANTS = {"pi": "pi", "e": "E"}


def _builder(name: str) -> Callable:
    """The sympy constructor behind a function name (sympy is imported only here, in the worker).
    Min and Max are built unevaluated: evaluating them compares their arguments numerically, which
    never ends for constants like exp(exp(exp(20)))."""
    import sympy as sp

    if name == "sigmoid":
        return lambda x: 1 / (1 + sp.exp(-x))
    if name in ("Min", "Max"):
        return lambda *xs: getattr(sp, name)(*xs, evaluate=False)
    return getattr(sp, name)


ALLOWED = (
    "numbers, the attributes ({attrs}), + - * / ** (or ^), parentheses and the functions "
    + ", ".join(FUNCTIONS)
    + " (constants pi and e)"
)


class FormulaError(InputError):
    """A formula that is refused; ``str(err)`` says what was wrong and what is allowed."""


def check_attribute_names(names) -> None:
    """Refuse attribute names that are missing, too many, not identifiers, reserved (function
    names, pi, e) or repeated: FormulaError with a sentence."""
    if not names:
        raise FormulaError("Declare at least one attribute, e.g. a=1:2.")
    if len(names) > MAX_ATTRIBUTES:
        raise FormulaError(f"At most {MAX_ATTRIBUTES} attributes are allowed, got {len(names)}.")
    for n in names:
        if not NAME_RE.match(n):
            raise FormulaError(
                f"Attribute name {n[:20]!r} is not allowed: use a letter followed by up to 11 letters or digits."
            )
        if n in FUNCTIONS or n in CONSTANTS:
            raise FormulaError(f"Attribute name {n!r} is taken by a function or constant; choose another.")


def parse_formula(text: str, attributes) -> tuple["sp.Expr", dict[str, "sp.Symbol"]]:  # noqa: F821
    """Translate ``text`` into a sympy expression over real symbols named ``attributes``."""
    import sympy as sp

    attributes = tuple(attributes)
    check_attribute_names(attributes)
    allowed = ALLOWED.format(attrs=", ".join(attributes))
    if not isinstance(text, str) or not text.strip():
        raise FormulaError(f"The formula is empty: write an expression using {allowed}.")
    if len(text) > MAX_LENGTH:
        raise FormulaError(f"The formula is {len(text)} characters long; at most {MAX_LENGTH} are allowed.")
    try:
        tree = syntax.parse(text.replace("^", "**"), mode="eval")
    except SyntaxError as err:
        where = f" near position {err.offset}" if err.offset else ""
        raise FormulaError(
            f"The formula could not be read{where}: check brackets and operators. Allowed: {allowed}."
        ) from None
    nodes = sum(1 for _ in ast.walk(tree))
    if nodes > MAX_NODES:
        raise FormulaError(f"The formula is too complex ({nodes} parts; at most {MAX_NODES}).")
    symbols = {a: sp.Symbol(a, real=True) for a in attributes}
    expr = _build(tree.body, symbols, allowed, 0)
    if not isinstance(expr, sp.Expr):
        raise FormulaError(f"The formula must be a number-valued expression using {allowed}.")
    return expr, symbols


def _refuse(what: str, allowed: str) -> FormulaError:
    return FormulaError(f"{what} cannot be used in a formula. Allowed: {allowed}.")


def _check_numeric_power(base, exponent) -> None:
    """A constant power must stay within float range (no 10**(10**10) integers)."""
    if not (base.is_Number and exponent.is_Number):  # atoms only: converting exp(exp(exp(20))) never ends
        return
    try:
        mag = abs(float(base))
    except (OverflowError, TypeError):
        mag = float("inf")
    if mag > 1 and abs(float(exponent)) * math.log10(mag) > 300:
        raise FormulaError("A constant power in the formula is too large (beyond 1e300).")


def _build(node: ast.AST, symbols, allowed: str, depth: int):
    if depth > MAX_DEPTH:
        raise FormulaError(f"The formula is nested too deeply (more than {MAX_DEPTH} levels).")
    d = depth + 1
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise _refuse("Text, booleans and other non-number constants", allowed)
        if abs(v) > MAX_LITERAL:
            raise FormulaError(f"The number {str(v)[:20]} is too large (at most {MAX_LITERAL:g} in a formula).")
        import sympy as sp

        return sp.Integer(v) if isinstance(v, int) else sp.Float(v)
    if isinstance(node, ast.Name):
        name = node.id
        if name.startswith("_"):
            raise _refuse(f"The name {name[:20]!r}", allowed)
        if name in symbols:
            return symbols[name]
        if name in CONSTANTS:
            import sympy as sp

            return getattr(sp, CONSTANTS[name])
        if name in FUNCTIONS:
            raise FormulaError(f"{name} is a function: call it with brackets, e.g. {name}(a).")
        raise FormulaError(f"Unknown name {name[:20]!r}: declare it as an attribute or use {allowed}.")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _build(node.operand, symbols, allowed, d)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp):
        left = _build(node.left, symbols, allowed, d)
        right = _build(node.right, symbols, allowed, d)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            if right == 0:
                raise FormulaError("The formula divides by zero.")
            return left / right
        if isinstance(node.op, ast.Pow):
            if right.is_Number and abs(float(right)) > MAX_EXPONENT:
                raise FormulaError(
                    f"The exponent {str(right)[:20]} is too large: constant exponents must be between -{MAX_EXPONENT} "
                    f"and {MAX_EXPONENT}."
                )
            _check_numeric_power(left, right)
            return left**right
        raise _refuse(f"The operator {type(node.op).__name__}", allowed)
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name):
            raise _refuse("Calling anything but a named function (e.g. attribute access)", allowed)
        name = node.func.id
        if name not in FUNCTIONS:
            raise FormulaError(f"Unknown function {name[:20]!r}. Allowed: {allowed}.")
        if node.keywords:
            raise _refuse("Keyword arguments", allowed)
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise _refuse("Unpacking (*)", allowed)
        arity, builder = FUNCTIONS[name]
        build = _builder(builder)
        if (arity > 0 and len(node.args) != arity) or (arity < 0 and not -arity <= len(node.args) <= 6):
            want = f"{arity} argument" + ("s" if arity != 1 else "") if arity > 0 else f"{-arity} to 6 arguments"
            raise FormulaError(f"{name} takes {want}, got {len(node.args)}.")
        return build(*[_build(a, symbols, allowed, d) for a in node.args])
    if isinstance(node, ast.Attribute):
        raise _refuse("Attribute access (a dot after a name)", allowed)
    if isinstance(node, ast.Lambda):
        raise _refuse("lambda", allowed)
    if isinstance(node, (ast.Compare, ast.BoolOp)):
        raise _refuse("Comparisons and logical operators", allowed)
    if isinstance(node, ast.Subscript):
        raise _refuse("Indexing with [ ]", allowed)
    raise _refuse(f"This kind of expression ({type(node).__name__})", allowed)


def parse_ranges(text: str) -> dict[str, tuple[float, float]]:
    """'a=1:2,b=0.5:3' -> {'a': (1.0, 2.0), 'b': (0.5, 3.0)}; low < high, finite, |x| <= 1e6."""
    if not isinstance(text, str) or not text.strip():
        raise FormulaError("Give each attribute a range, e.g. a=1:2,b=0.5:3.")
    out: dict[str, tuple[float, float]] = {}
    for part in text.split(","):
        name, eq, rng = part.partition("=")
        name = name.strip()
        lo_hi = rng.split(":")
        if not eq or len(lo_hi) != 2:
            raise FormulaError(f"Cannot read the range {part.strip()[:30]!r}: write name=low:high, e.g. a=1:2.")
        try:
            lo, hi = float(lo_hi[0]), float(lo_hi[1])
        except ValueError:
            raise FormulaError(f"The range of {name[:20]!r} must have numbers, e.g. {name[:20]}=1:2.") from None
        if not (abs(lo) <= 1e6 and abs(hi) <= 1e6):
            raise FormulaError(f"The range of {name!r} must lie within [-1e6, 1e6].")
        if not lo < hi:
            raise FormulaError(f"The range of {name!r} is empty: low ({lo:g}) must be below high ({hi:g}).")
        if hi - lo < MIN_RELATIVE_WIDTH * max(1.0, abs(lo), abs(hi)):
            raise FormulaError(
                f"The range of {name!r} is too narrow ({hi - lo:.3g} wide): make it at least "
                f"{MIN_RELATIVE_WIDTH:g} × max(1, |low|, |high|) wide."
            )
        if name in out:
            raise FormulaError(f"Attribute {name!r} has two ranges.")
        out[name] = (lo, hi)
    check_attribute_names(tuple(out))
    return out
