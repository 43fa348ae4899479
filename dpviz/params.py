"""Parameter specs and the one validator behind widgets, URL query parameters and ``--set``.

A :class:`Param` names a figure parameter, its kind, default, bounds or choices and
a one-line help text. :func:`parse_value` turns raw input (a string from a URL or the
command line, a list of strings from a repeated URL parameter, or a Python value from a
widget) into a validated Python value, or raises :class:`ParamError` with one sentence
naming the parameter, the value and what is allowed. Nothing here evaluates user text.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from dpviz.errors import InputError

KINDS = ("int", "float", "choice", "choices", "int_list", "float_list", "bool", "text")
MAX_RAW_LENGTH = 2000
"""Longest raw string accepted for any parameter (URL values are visitor-controlled)."""


class ParamError(InputError):
    """A parameter value that is not allowed; ``str(err)`` is a user-facing sentence."""


@dataclass(frozen=True)
class Upload:
    """How a ``text`` parameter takes a file on the page: its suffixes, and optionally a box of its
    own. Without ``title`` the file box is the parameter's widget and a file is used at once. With
    ``title`` a box of that name sits above the parameter's widget (``caption`` inside it); a file
    is first checked by ``check`` (``"package.module:function"`` taking the reference and returning
    a sentence that describes the file, or raising :class:`dpviz.errors.InputError`; a refused
    file is deleted) and used when the visitor clicks ``use``."""

    suffixes: tuple[str, ...]
    title: str = ""
    caption: str = ""
    check: str = ""
    use: str = "Use this file"


@dataclass(frozen=True)
class Param:
    """One named, typed, bounded figure parameter.

    ``min``/``max`` bound numbers and the items of number lists; ``choices`` lists the
    allowed strings of ``choice``/``choices``; ``max_items`` caps list lengths (and the
    length of ``text``, whose content the figure that uses it checks further).
    ``hosted_max`` is the lower cap applied in hosted-demo mode (compute-heavy knobs): on a
    number its value, on a list its length, on ``text`` its number of items (words separated by
    commas or spaces), so that a cap bounds the work whichever parameter carries it.
    ``options`` lists suggested values of a ``text`` parameter (named by ``choice_labels``):
    the page offers them in a select box, while the URL and the command line still take any
    text the figure accepts (an uploaded file's reference, a local path).
    ``slider`` makes a number a live slider on the page (log scale when ``log``, at ``steps`` in
    every decade); the URL and the command line still take any value in range.
    ``upload`` (an :class:`Upload`) lets a ``text`` parameter take a file on the page: the file
    is kept under the cache directory and the value is its reference ``upload:NAME``.
    """

    name: str
    kind: str
    default: Any
    label: str
    help: str
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] = ()
    max_items: int = 1024
    unit: str = ""
    log: bool = False
    hosted_max: float | None = None
    choice_labels: Mapping[str, str] = field(default_factory=dict)
    options: tuple[str, ...] = ()
    slider: bool = False
    upload: "Upload | None" = None
    steps: tuple[float, ...] = ()
    """A log-scale slider's positions in every decade (default :data:`LOG_STEPS`): fewer for a
    setting that spans many decades and whose charts are costly to draw at each (δ: 1, 2, 5)."""
    applies: tuple[str, tuple[str, ...], str] | None = None
    """Where the setting plays a part: a choice parameter's name, its values where it does, and
    those in words (the privacy budget's σ: ``("mechanism", ("gaussian", "subsampled"), "the
    Gaussian and DP-SGD")``). Elsewhere its slider is drawn disabled, saying so, and no frames are
    computed along it (:func:`applies`)."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        # The default must itself be valid: a spec that cannot round-trip is a bug.
        parse_value(self, self.default)

    def allowed(self) -> str:
        """What values are allowed, as a phrase for messages and ``--list``."""
        if self.kind == "int":
            return f"a whole number from {_num(self.min)} to {_num(self.max)}"
        if self.kind == "float":
            return f"a number from {_num(self.min)} to {_num(self.max)}"
        if self.kind == "bool":
            return "true or false"
        if self.kind == "text":
            return f"text of at most {self.max_items} characters"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "choices":
            return "one or more of " + ", ".join(self.choices) + " (comma-separated)"
        item = "whole numbers" if self.kind == "int_list" else "numbers"
        form = "a range like 1-255 or a list like 2,10,20" if self.kind == "int_list" else "a list like 1,2,5"
        return f"{form} of {item} from {_num(self.min)} to {_num(self.max)}, at most {self.max_items} values"


def applies(p: Param, values: Mapping[str, Any]) -> bool:
    """Whether ``p`` plays a part at ``values`` (:attr:`Param.applies`; True without a declaration,
    or when the choice it depends on is not among ``values``)."""
    if p.applies is None or p.applies[0] not in values:
        return True
    return values[p.applies[0]] in p.applies[1]


LOG_STEPS = (1, 1.2, 1.4, 1.6, 1.8, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9)
"""Slider positions per decade on a log scale: every whole step, finer where the steps are large."""


def log_grid(low: float, high: float, steps: tuple[float, ...] = LOG_STEPS) -> list[float]:
    """The slider positions from ``low`` to ``high`` (both > 0): ``steps`` in every decade
    (:data:`LOG_STEPS` unless a parameter says otherwise), plus the two ends, rounded to 10
    significant digits so they print as typed. Worked out once per bounds (every live chart of a
    page asks on every slider release); a new list each call."""
    return list(_log_grid(float(low), float(high), tuple(steps)))


@functools.lru_cache(maxsize=256)
def _log_grid(low: float, high: float, steps: tuple[float, ...] = LOG_STEPS) -> tuple[float, ...]:
    if not 0 < low < high:
        raise ValueError(f"a log grid needs 0 < low < high, got {low}, {high}")
    k0, k1 = math.floor(math.log10(low)), math.ceil(math.log10(high))
    values = {float(f"{m * 10.0**k:.10g}") for k in range(k0, k1 + 1) for m in steps}
    return tuple(sorted({v for v in values if low <= v <= high} | {float(low), float(high)}))


def int_grid(low: int, high: int) -> list[int]:
    """The slider positions of a whole number from ``low`` to ``high``: every number up to 20,
    then the rounded :data:`LOG_STEPS` of every decade and the powers of two (a dimension's usual
    values: 64, 128, 256, 300, 512, 1024), plus the two ends. A whole-number slider over a wide
    range is dragged along these (a link or the command line takes any number in range). Worked
    out once per bounds; a new list each call."""
    return list(_int_grid(int(low), int(high)))


@functools.lru_cache(maxsize=256)
def _int_grid(low: int, high: int) -> tuple[int, ...]:
    if not low < high:
        raise ValueError(f"a grid needs low < high, got {low}, {high}")
    values = set(range(low, min(high, 20) + 1))
    values |= {round(m * 10**k) for k in range(0, len(str(high)) + 1) for m in LOG_STEPS}
    values |= {2**k for k in range(0, int(math.log2(high)) + 1)} | {low, high}
    return tuple(sorted(v for v in values if low <= v <= high))


def _num(x: float | None) -> str:
    if x is None:
        return "any"
    return f"{int(x)}" if float(x).is_integer() else f"{x:g}"


def _fail(p: Param, raw: Any, why: str = "") -> ParamError:
    shown = raw if not isinstance(raw, str) else raw[:60] + ("..." if len(raw) > 60 else "")
    reason = f" ({why})" if why else ""
    return ParamError(f"{p.name} = {shown!r} is not allowed{reason}: {p.name} must be {p.allowed()}.")


def _as_text(p: Param, raw: Any) -> str:
    if isinstance(raw, (list, tuple)):
        raw = ",".join(str(r) for r in raw)
    text = str(raw).strip()
    if len(text) > MAX_RAW_LENGTH:
        raise _fail(p, text[:60], f"longer than {MAX_RAW_LENGTH} characters")
    return text


def _number(p: Param, raw: Any, whole: bool, shown: Any = None) -> float | int:
    """Parse one number; ``shown`` is the whole user input to quote (for list items)."""
    orig = raw if shown is None else shown
    if isinstance(raw, bool):
        raise _fail(p, orig)
    if isinstance(raw, (int, float)):
        x = float(raw)
    else:
        text = _as_text(p, raw)
        try:
            x = float(text)
        except ValueError:
            raise _fail(p, orig, "not a number") from None
    if not math.isfinite(x):
        raise _fail(p, orig, "not a finite number")
    if whole:
        if not x.is_integer():
            raise _fail(p, orig, "not a whole number")
        x = int(x)
    if (p.min is not None and x < p.min) or (p.max is not None and x > p.max):
        raise _fail(p, orig, "out of range")
    return x


def _int_list(p: Param, raw: Any) -> tuple[int, ...]:
    if isinstance(raw, (list, tuple)) and all(isinstance(v, (int, float)) for v in raw):
        parts: Iterable[str] = [str(v) for v in raw]
    else:
        parts = [s.strip() for s in _as_text(p, raw).split(",")]
    values: set[int] = set()
    for part in parts:
        if not part:
            raise _fail(p, raw, "empty item")
        lo_hi = part.split("-")
        if len(lo_hi) == 2 and lo_hi[0].strip() and lo_hi[1].strip():
            lo = _number(p, lo_hi[0], True, shown=raw)
            hi = _number(p, lo_hi[1], True, shown=raw)
            if hi < lo:
                raise _fail(p, raw, f"range {part} runs backwards")
            if hi - lo + 1 + len(values) > p.max_items:
                raise _fail(p, raw, "too many values")
            values.update(range(int(lo), int(hi) + 1))
        elif len(lo_hi) == 1:
            values.add(int(_number(p, part, True, shown=raw)))
        else:
            raise _fail(p, raw, f"cannot read {part!r}")
        if len(values) > p.max_items:
            raise _fail(p, raw, "too many values")
    return tuple(sorted(values))


def _float_list(p: Param, raw: Any) -> tuple[float, ...]:
    items = raw if isinstance(raw, (list, tuple)) else _as_text(p, raw).split(",")
    if len(items) > p.max_items:
        raise _fail(p, raw, "too many values")
    values = sorted({float(_number(p, v, False, shown=raw)) for v in items if str(v).strip() != ""})
    if not values:
        raise _fail(p, raw, "empty")
    return tuple(values)


def _choices(p: Param, raw: Any) -> tuple[str, ...]:
    items = list(raw) if isinstance(raw, (list, tuple)) else _as_text(p, raw).split(",")
    chosen = []
    for item in (str(i).strip() for i in items):
        if item not in p.choices:
            raise _fail(p, raw, f"unknown choice {item[:40]!r}")
        if item not in chosen:
            chosen.append(item)
    if not chosen:
        raise _fail(p, raw, "nothing chosen")
    return tuple(c for c in p.choices if c in chosen)  # canonical order


def parse_value(p: Param, raw: Any) -> Any:
    """Validate ``raw`` against ``p`` and return the canonical Python value.

    int -> int; float -> float; bool -> bool; choice -> str; choices -> tuple of str in
    spec order; int_list -> sorted tuple of unique ints; float_list -> sorted tuple.
    """
    if p.kind == "int":
        return int(_number(p, raw, True))
    if p.kind == "float":
        return float(_number(p, raw, False))
    if p.kind == "bool":
        if isinstance(raw, bool):
            return raw
        text = _as_text(p, raw).lower()
        if text in ("true", "1", "yes", "on"):
            return True
        if text in ("false", "0", "no", "off"):
            return False
        raise _fail(p, raw)
    if p.kind == "text":
        text = _as_text(p, raw)
        if len(text) > p.max_items:
            raise _fail(p, raw, f"longer than {p.max_items} characters")
        if any(ord(ch) < 32 for ch in text):
            raise _fail(p, raw, "contains control characters")
        return text
    if p.kind == "choice":
        text = _as_text(p, raw)
        if text not in p.choices:
            raise _fail(p, raw)
        return text
    if p.kind == "choices":
        return _choices(p, raw)
    if p.kind == "int_list":
        return _int_list(p, raw)
    return _float_list(p, raw)


def format_value(p: Param, value: Any) -> str:
    """The canonical string for a value (the inverse of :func:`parse_value`)."""
    if p.kind == "bool":
        return "true" if value else "false"
    if p.kind == "int_list":
        return _compress_ranges(value)
    if p.kind in ("choices", "float_list"):
        return ",".join(_num(v) if not isinstance(v, str) else v for v in value)
    if p.kind == "float":
        return _num(value) if float(value).is_integer() else repr(float(value))
    return str(value)


def _compress_ranges(values: Sequence[int]) -> str:
    """(1,2,3,7,9,10) -> '1-3,7,9-10'."""
    out, vals = [], list(values)
    i = 0
    while i < len(vals):
        j = i
        while j + 1 < len(vals) and vals[j + 1] == vals[j] + 1:
            j += 1
        out.append(str(vals[i]) if j - i < 2 else f"{vals[i]}-{vals[j]}")
        if 0 < j - i < 2:
            out.extend(str(v) for v in vals[i + 1 : j + 1])
        i = j + 1
    return ",".join(out)


def validate(
    params: Sequence[Param],
    raw: Mapping[str, Any],
    *,
    hosted: bool = False,
) -> tuple[dict[str, Any], list[str]]:
    """Validate a mapping of raw values against ``params``.

    Returns ``(values, errors)``: every parameter gets a value (the default where the raw
    value was missing or bad), and ``errors`` holds one sentence per bad or unknown key
    (the app shows them and keeps the defaults; the command line exits with status 2).
    In hosted mode, values above a parameter's ``hosted_max`` are refused the same way.
    """
    specs = {p.name: p for p in params}
    values: dict[str, Any] = {}
    errors: list[str] = []
    for key in raw:
        if key not in specs:
            allowed = ", ".join(sorted(specs)) or "none"
            errors.append(f"Unknown parameter {str(key)[:40]!r}: the parameters here are {allowed}.")
    for p in params:
        values[p.name] = p.default
        if p.name not in raw:
            continue
        try:
            v = parse_value(p, raw[p.name])
            check_hosted_cap(p, v, hosted)
            values[p.name] = v
        except ParamError as err:
            errors.append(str(err))
    return values, errors


def check_hosted_cap(p: Param, value: Any, hosted: bool) -> None:
    """In hosted mode, refuse values of compute-heavy parameters above ``hosted_max``."""
    if not hosted or p.hosted_max is None:
        return
    if p.kind == "text":
        items = len(text_items(value))
        if items > p.hosted_max:
            raise ParamError(
                f"{p.name} holds {items} items, above the hosted demo's cap: {p.name} may list at most "
                f"{_num(p.hosted_max)} here (run dpviz locally for more)."
            )
        return
    top = max(value) if isinstance(value, tuple) else value
    if p.kind == "int_list":
        top = len(value)
    if top > p.hosted_max:
        what = "at most this many values" if p.kind == "int_list" else "at most"
        raise ParamError(
            f"{p.name} = {format_value(p, value)} is above the hosted demo's cap: "
            f"{p.name} must be {what} {_num(p.hosted_max)} here (run dpviz locally for more)."
        )


def text_items(text: str) -> list[str]:
    """The items of a list typed as text: separated by commas and/or white space."""
    return [t for t in text.replace(",", " ").split() if t]


SEED = Param(
    "seed",
    "int",
    0,
    "Random seed",
    "Seed of every random draw on this page; the same seed gives the same figures.",
    min=0,
    max=2**32 - 1,
)
"""The seed parameter every page with random draws shares (shown on the page, carried by the URL)."""


ALWAYS_IN_URL = ("seed",)
"""Parameters a page's link carries even at their default (the seed: a random result says which)."""


def canonical_query(params: Sequence[Param], values: Mapping[str, Any]) -> dict[str, str]:
    """A page's link query: the canonical strings of the values that differ from their defaults
    (and of the seed always), in the parameters' order; what reopens the same view."""
    return {
        p.name: format_value(p, values[p.name])
        for p in params
        if p.name in values and (p.name in ALWAYS_IN_URL or values[p.name] != p.default)
    }
