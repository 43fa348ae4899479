"""Frames: a live figure drawn at every position of one of its sliders, so that the browser can
redraw the chart while the slider is dragged, with no server run per position.

A frame is exactly what the server draws at that position: the figure's table from the very
``FigureSpec.table`` (``evaluate`` on the prepared state) that the page, the command line and
the report use, drawn by ``FigureSpec.figure_dict`` and written as Plotly's JSON. Nothing is
approximated or interpolated; a position off the grid (a link's value) is not a frame and is
drawn by the server as any chart.

The slider's positions (:func:`slider_grid`) are those the page's slider offers:
:func:`dpviz.params.log_grid` for a log-scale slider, :func:`dpviz.params.int_grid` for a whole
number. Encoding (:func:`encode`), to keep the weight on the wire small:

- every array of numbers in a trace (x, y, z, customdata, error bars, marker sizes and colours)
  is a typed array, ``{"dtype": "f8", "bdata": <base64 of little-endian float64>}``, which
  plotly.js reads as a Float64Array: exact, and a third of the size of decimal text;
- the first frame is sent whole (the *base*); every frame is a *patch* against it: per trace,
  the keys whose value differs, and the layout's top-level keys that differ (a frame with another
  number of traces carries its whole trace list). :func:`apply` is the inverse, and the browser's
  (``webui/live_js/``) does the same;
- the JSON is compressed with zlib (the browser inflates it with ``DecompressionStream``).
"""

from __future__ import annotations

import base64
import json
import logging
import math
import os
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from dpviz.params import LOG_STEPS, Param, int_grid, log_grid
from dpviz.progress import Progress, report

ARRAY_KEYS = ("x", "y", "z", "customdata", "base", "width")
"""Trace keys whose numeric lists become typed arrays (also ``array``/``arrayminus`` of error bars,
and ``size``/``color``/``opacity`` of markers)."""
NESTED_ARRAY_KEYS = {
    "error_x": ("array", "arrayminus"),
    "error_y": ("array", "arrayminus"),
    "marker": ("size", "color", "opacity"),
}
MIN_TYPED = 4
"""Shorter numeric lists stay as they are (a typed array's header costs more than it saves)."""


def slider_grid(p: Param, top: float | None = None) -> list[float] | list[int]:
    """The positions the page's slider for ``p`` offers up to ``top`` (default: its maximum),
    without a link's off-grid value: :func:`dpviz.params.int_grid` for a whole number,
    :func:`dpviz.params.log_grid` otherwise."""
    if not p.slider:
        raise ValueError(f"{p.name} is not a slider")
    top = p.max if top is None else top
    if p.kind == "int":
        return int_grid(int(p.min), int(top))
    return log_grid(float(p.min), float(top), p.steps or LOG_STEPS)


_PLAIN_NUMBERS = frozenset((int, float))


def _numbers(value: Any) -> bool:
    """Whether ``value`` is a list of at least :data:`MIN_TYPED` numbers (no bool). The items' types
    are read first as a set (in C: a frame's lists of hundreds of Python numbers were a seventh of
    its drawing item by item); a list with any other type is then checked item by item, as before
    (a float subclass, numpy's float64, is a number too)."""
    if not isinstance(value, list) or len(value) < MIN_TYPED:
        return False
    if set(map(type, value)) <= _PLAIN_NUMBERS:
        return True
    return all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)


def _typed(values: list) -> dict:
    data = np.asarray(values, dtype="<f8")
    return {"dtype": "f8", "bdata": base64.b64encode(data.tobytes()).decode("ascii")}


def typed_arrays(fig: dict) -> dict:
    """``fig`` (Plotly JSON as a dict) with every numeric list of :data:`ARRAY_KEYS` and
    :data:`NESTED_ARRAY_KEYS` in its traces as a float64 typed array (same numbers, exactly)."""
    data = []
    for trace in fig.get("data", []):
        trace = dict(trace)
        for key in ARRAY_KEYS:
            if _numbers(trace.get(key)):
                trace[key] = _typed(trace[key])
        for outer, inner in NESTED_ARRAY_KEYS.items():
            if isinstance(trace.get(outer), dict):
                part = dict(trace[outer])
                for key in inner:
                    if _numbers(part.get(key)):
                        part[key] = _typed(part[key])
                trace[outer] = part
        data.append(trace)
    return {**fig, "data": data}


def _text(value: Any) -> str:
    """A value's JSON text with sorted keys: two values are the same frame part when their texts are
    equal (``==`` is not that: 1 == 1.0 == True, NaN != NaN)."""
    return json.dumps(value, sort_keys=True)


class _BaseTexts:
    """The base frame's parts as :func:`_text`, each made when first compared and kept for every
    frame patched against the same base (:meth:`Frames.encoded`: a hundred frames, one base)."""

    def __init__(self, base: dict):
        self.base = base
        self._texts: dict[tuple, str] = {}

    def same(self, where: tuple, value: Any) -> bool:
        """Whether ``value`` is the base's part at ``where`` (``("layout", key)`` or ``(trace, key)``)."""
        mine = self.base["layout"][where[1]] if where[0] == "layout" else self.base["data"][where[0]][where[1]]
        if mine is value:
            return True
        text = self._texts.get(where)
        if text is None:
            text = self._texts[where] = _text(mine)
        return text == _text(value)


def patch(base: dict, fig: dict, texts: _BaseTexts | None = None) -> dict:
    """What ``fig`` changes against ``base`` (both Plotly JSON dicts): ``{"traces": {i: {key:
    value}}, "drop": {i: [keys]}, "layout": {key: value}, "layout_drop": [keys]}``, or ``{"data":
    [...]}`` in place of the trace entries when the number of traces differs. ``texts``: the
    base's parts as text, kept between calls with the same base."""
    texts = texts if texts is not None else _BaseTexts(base)
    out: dict = {}
    bd, fd = base.get("data", []), fig.get("data", [])
    if len(bd) != len(fd):
        out["data"] = fd
    else:
        changed, dropped = {}, {}
        for i, (a, b) in enumerate(zip(bd, fd)):
            keys = {k: v for k, v in b.items() if k not in a or not texts.same((i, k), v)}
            gone = [k for k in a if k not in b]
            if keys:
                changed[str(i)] = keys
            if gone:
                dropped[str(i)] = gone
        if changed:
            out["traces"] = changed
        if dropped:
            out["drop"] = dropped
    bl, fl = base.get("layout", {}), fig.get("layout", {})
    layout = {k: v for k, v in fl.items() if k not in bl or not texts.same(("layout", k), v)}
    if layout:
        out["layout"] = layout
    gone = [k for k in bl if k not in fl]
    if gone:
        out["layout_drop"] = gone
    return out


def apply(base: dict, change: Mapping[str, Any]) -> dict:
    """The frame ``patch`` describes: ``base`` with the changes (the inverse of :func:`patch`)."""
    if "data" in change:
        data = [dict(t) for t in change["data"]]
    else:
        data = [dict(t) for t in base.get("data", [])]
        for i, keys in change.get("traces", {}).items():
            data[int(i)].update(keys)
        for i, keys in change.get("drop", {}).items():
            for k in keys:
                data[int(i)].pop(k, None)
    layout = dict(base.get("layout", {}))
    layout.update(change.get("layout", {}))
    for k in change.get("layout_drop", []):
        layout.pop(k, None)
    return {"data": data, "layout": layout}


@dataclass(frozen=True)
class Frames:
    """A figure at every position of one slider: the slider's name and label, the positions, and
    each frame as Plotly JSON (typed arrays); :meth:`encoded` is what the page sends."""

    figure: str
    slider: str
    label: str
    grid: tuple[float, ...]
    figures: tuple[dict, ...]

    def encoded(self) -> bytes:
        """zlib-compressed JSON: ``{"figure", "slider", "label", "grid", "height", "base",
        "patches"}``; ``height`` is the base figure's (the chart's: every frame of a set has the
        same), ahead of the figures so that :func:`head` reads it without the rest."""
        base = self.figures[0]
        texts = _BaseTexts(base)
        height = (base.get("layout") or {}).get("height")
        doc = {
            "figure": self.figure,
            "slider": self.slider,
            "label": self.label,
            "grid": list(self.grid),
            "height": height if isinstance(height, (int, float)) else None,
            "base": base,
            "patches": [patch(base, f, texts) for f in self.figures],
        }
        return zlib.compress(json.dumps(doc, separators=(",", ":")).encode(), 6)

    def at(self, value: float) -> dict | None:
        """The frame at ``value`` (a position of the grid), or None off the grid."""
        for v, fig in zip(self.grid, self.figures):
            if v == value:
                return fig
        return None


HEAD_BYTES = 1 << 16
"""How much of a set's document :func:`head` unpacks at most to find where its figures begin."""


def head(blob: bytes) -> dict:
    """What comes before the figures in :meth:`Frames.encoded`'s document (``figure``, ``slider``,
    ``label``, ``grid``, ``height``): the start of it unpacked and read, not the whole set. A
    server's run that found a set on disk unpacked and parsed every frame of it for its grid and
    height: 240 of the 370 ms of ADePT's page's runs over four key steps of n. Any other document
    (a panel's HTML frames, a set written before ``height`` came) is read whole."""
    unpack = zlib.decompressobj()
    start = unpack.decompress(blob, HEAD_BYTES)
    cut = start.find(b',"base":')
    if start.startswith(b'{"figure":') and cut > 0 and b',"height":' in start[:cut]:
        return json.loads(start[:cut] + b"}")
    return json.loads(start + unpack.decompress(unpack.unconsumed_tail) + unpack.flush())  # (the rest of it)


def decode(blob: bytes) -> dict:
    """:meth:`Frames.encoded` read back: the document, with ``frames`` (every frame, patches applied)."""
    doc = json.loads(zlib.decompress(blob))
    doc["frames"] = [apply(doc["base"], p) for p in doc["patches"]]
    return doc


_CHECKED: dict[tuple, bool] = {}
"""The charts whose drawers this process has found drawing fast and plain (:class:`Drawer`, with
``remember``), by chart and JSON writer: a later drawer of the same chart starts from that instead
of drawing its first frame by Plotly again and its second through the text."""


def _checked_key(spec, to_json: Callable[[dict], str]) -> tuple:
    # the writer by its code: a page passes a new lambda for every part of a set, always the same code
    return (spec.id, getattr(to_json, "__code__", to_json))


def check_drawing(spec, values: Mapping[str, Any], to_json: Callable[[dict], str]) -> bool:
    """Check, and remember for this process, that the fast drawing draws ``spec`` as Plotly does
    (:class:`Drawer` with ``remember``), on its table at ``values``: what the first set of the
    chart's frames would check at its first frame, done ahead (a frame worker warming a page,
    :func:`webui.frames_worker.warm`). Whether the chart is drawn fast and plain; a chart checked
    earlier is not drawn again."""
    draw = Drawer(spec, to_json, remember=True)
    if draw.fast and draw.plain:
        return True
    if draw.fast is False:  # (turned off by the operator)
        return False
    at = {q.name: values.get(q.name, q.default) for q in spec.params}
    draw.frame(spec.table(at), at)
    return bool(draw.fast and draw.plain)


def forget_checks() -> None:
    """Forget which charts this process has checked (:data:`_CHECKED`): every drawer checks again."""
    _CHECKED.clear()


class Drawer:
    """A chart's figure as JSON text (``to_json`` of ``spec.figure_dict``), frame after frame:
    by the fast drawing (:mod:`dpviz.fast_figure`, 3-6 times quicker than Plotly's objects) once
    its first frame is, to the last character of the sorted JSON, the one Plotly draws; by Plotly
    for a chart the fast drawing does not draw (it says so by raising
    :class:`dpviz.fast_figure.Unsupported`) or draws otherwise (logged: a bug to mend there).

    With ``remember`` (:func:`compute_frames`), a chart checked once in this process (its first
    frame Plotly's, its second's plain dict the text's) is not checked again: a set is computed in
    parts (one per worker, the nearest positions first), and every part of every set checked its
    chart anew, a frame drawn by Plotly (20-40 ms) and one through the text each time. A frame the
    fast drawing does not draw still falls back to Plotly (:meth:`frame`)."""

    def __init__(self, spec, to_json: Callable[[dict], str], remember: bool = False):
        self.spec, self.to_json = spec, to_json
        self.fast: bool | None = None  # None: not known until the first frame
        self.plain: bool | None = None  # frame(): the dict made without the text (None: not known yet)
        self._template: tuple[dict, dict] | None = None  # (a frame's template, made plain)
        self.why = ""
        self._key = _checked_key(spec, to_json) if remember else None
        if os.environ.get("DPVIZ_FAST_DRAWING", "").strip() == "0":  # an operator's switch (docs/hosting.md)
            self.fast, self.why = False, "DPVIZ_FAST_DRAWING=0"
        elif self._key is not None and _CHECKED.get(self._key):
            self.fast = self.plain = True
            self.why = "checked earlier in this process"

    def __call__(self, df, at: Mapping[str, Any]) -> str:
        """The frame of table ``df`` at the setting ``at``, as JSON text."""
        from dpviz import fast_figure  # (lazy: Plotly's validators, loaded with the first frame)

        if self.fast is False:
            return self.to_json(self.spec.figure_dict(df, at))
        try:
            text = self.to_json(self._fast_dict(df, at))
        except fast_figure.Unsupported as e:
            self.fast, self.why = False, f"not drawn by the fast drawing: {e}"
            return self.to_json(self.spec.figure_dict(df, at))
        if self.fast is None:
            plotly = self.to_json(self.spec.figure_dict(df, at))
            self.fast = _sorted(plotly) == _sorted(text)
            if not self.fast:
                self.why = "the fast drawing differs from Plotly's"
                logging.getLogger("dpviz.frames").warning("%s: %s; drawn by Plotly", self.spec.id, self.why)
            return plotly
        return text

    def frame(self, df, at: Mapping[str, Any]) -> dict:
        """The frame of table ``df`` at ``at`` as the dict ``json.loads(self(df, at))`` gives, made
        without the JSON text once the fast drawing is known to draw this chart: the fast figure's
        dict made plain (:func:`plain_json`), its template (the same at every frame) made plain once.
        Plotly's encoder and the decoder were 1-5 ms of a frame (the JSON of a chart with thousands
        of numbers, and the house template's 9 kB in every frame). Known means: at the second frame
        drawn fast, the plain dict is, to the last character of the sorted JSON, the text's."""
        from dpviz import fast_figure  # (lazy: Plotly's validators, loaded with the first frame)

        if self.plain:
            try:
                return self._plain(self._fast_dict(df, at))
            except (fast_figure.Unsupported, NotPlain) as e:  # (another frame of the chart: the text route)
                self.plain, self.why = False, f"not made plain: {e}"
        out = json.loads(self(df, at))
        if self.fast and self.plain is None:
            try:
                self.plain = _text(self._plain(self._fast_dict(df, at))) == _text(out)
            except (fast_figure.Unsupported, NotPlain):
                self.plain = False
            if self.plain and self._key is not None:
                _CHECKED[self._key] = True
        return out

    def _fast_dict(self, df, at: Mapping[str, Any]) -> dict:
        """The chart's figure dict at ``at``, drawn by the fast drawing (it may raise
        :class:`dpviz.fast_figure.Unsupported`)."""
        from dpviz import theme  # (lazy: the fast drawing loads Plotly's validators with the first frame)

        with theme.fast_drawing():
            return self.spec.figure_dict(df, at)

    def _plain(self, fig: dict) -> dict:
        """:func:`plain_json` of a fast figure's dict, its layout's template made plain once."""
        layout = fig.get("layout")
        template = layout.get("template") if isinstance(layout, dict) else None
        if template is None:
            return plain_json(fig)
        if self._template is None or (self._template[0] is not template and self._template[0] != template):
            self._template = (template, plain_json(template))
        plain_layout = {k: self._template[1] if k == "template" else plain_json(v) for k, v in layout.items()}
        return {k: plain_layout if k == "layout" else plain_json(v) for k, v in fig.items()}


class NotPlain(Exception):
    """A value :func:`plain_json` does not make (a type other than JSON's own and numpy's numbers)."""


_NUMBERS = frozenset((float, int))
_ATOMS = frozenset((float, int, str, bool, type(None)))


def plain_json(value: Any) -> Any:
    """``value`` as ``json.loads(plotly.io.to_json(value, validate=False))`` gives it, without the
    text: dicts with text keys, lists (of tuples too), text, True/False/None, whole numbers, and
    floats, non-finite ones as None (Plotly's encoder writes them as null); numpy's scalars and
    arrays of numbers or text as Python's (``tolist``, as the encoder writes them). Anything else
    raises :class:`NotPlain` (the caller takes the text route). Lists of numbers, or of text, True,
    False and None with no float among them, are checked and copied in C (``map``), not item by item."""
    t = type(value)
    if t is dict:
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                raise NotPlain(f"a key {k!r}")
            kind = type(v)  # (text, whole numbers, True/False and None as they are, without a call)
            out[k] = v if kind is str or kind is int or kind is bool or v is None else plain_json(v)
        return out
    if t is list or t is tuple:
        kinds = set(map(type, value))
        if kinds <= _ATOMS and (float not in kinds or (kinds <= _NUMBERS and all(map(math.isfinite, value)))):
            return list(value)
        return [plain_json(v) for v in value]
    if t is str or t is int or t is bool or value is None:
        return value
    if t is float:
        return value if math.isfinite(value) else None
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return plain_json(value.item())
    if t is np.ndarray and value.dtype.kind in "biufOSU":  # (text, or numbers Plotly left as they are)
        return plain_json(value.tolist())
    raise NotPlain(f"a {t.__name__}")


def _sorted(text: str) -> str:
    return json.dumps(json.loads(text), sort_keys=True)


def compute_frames(
    spec,
    values: Mapping[str, Any],
    slider: str,
    to_json: Callable[[dict], str],
    progress: Progress | None = None,
    each: Callable[[dict, Any, str, float], None] | None = None,
    grid: Sequence[float] | None = None,
) -> Frames:
    """``spec`` (a :class:`dpviz.registry.FigureSpec`) at every position of ``slider`` (its grid,
    or ``grid``), the other parameters at ``values``: each frame's table by ``spec.table`` (or all
    of them by ``spec.tables_along`` where the figure computes them together) and its
    drawing by ``spec.figure_dict``, as ``to_json`` (the page's chart JSON) writes it: read back from that
    text, or made plain without it once the two agree (:meth:`Drawer.frame`). ``each(values,
    table, json, seconds)`` is told every position (the page keeps them as views)."""
    import contextlib

    from dpviz.registry import bases_not_kept  # (lazy: the registry loads every paper's figures)

    # a marked figure whose fixed part depends on the slider: a new part at every position, not kept
    with bases_not_kept() if spec.mark is not None and slider not in spec.live else contextlib.nullcontext():
        return _compute_frames(spec, values, slider, to_json, progress, each, grid)


def _compute_frames(spec, values, slider, to_json, progress, each, grid) -> Frames:
    """:func:`compute_frames`' loop."""
    import time

    p = spec.param(slider)
    positions = list(grid if grid is not None else slider_grid(p))
    figures = []
    draw = Drawer(spec, to_json, remember=True)
    together, share = None, 0.0
    if slider in spec.along:  # (every position's table from one computation: FigureSpec.along)
        report(progress, 0.0, f"{spec.title}: {len(positions)} tables at once")
        start = time.perf_counter()
        together = spec.tables_along(values, slider, positions)
        share = (time.perf_counter() - start) / max(1, len(positions))
    for k, v in enumerate(positions):
        report(progress, k / len(positions), f"{spec.title}: frame {k + 1} of {len(positions)}")
        at = {q.name: values[q.name] for q in spec.params}
        at[slider] = v
        start = time.perf_counter() - share
        df = together[k] if together is not None else spec.table(at)
        if each is not None:
            text = draw(df, at)
            each(at, df, text, time.perf_counter() - start)
            figures.append(typed_arrays(json.loads(text)))
        else:
            figures.append(typed_arrays(draw.frame(df, at)))
    return Frames(spec.id, slider, p.label, tuple(positions), tuple(figures))


def close(a: Any, b: Any, tol: float = 1e-12, floor: float = 0.0) -> bool:
    """Whether two Plotly JSON values hold the same numbers (typed arrays decoded) within ``tol``
    relative to the larger of the two and ``floor``, and the same everything else: what the tests
    compare a frame with. With ``floor=1``, numbers below 1 agree to ``tol`` absolute: a
    probability of 6e-16 from one process and 5e-16 from another are both rounding noise of a
    sum of terms of order 1 (a BLAS kernel rounds by the memory alignment of its operands)."""
    a, b = _plain(a), _plain(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], tol, floor) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, tol, floor) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b or abs(a - b) <= tol * max(abs(a), abs(b), floor)
    return a == b


def difference(a: Any, b: Any, tol: float = 1e-12, floor: float = 0.0, path: str = "") -> str | None:
    """Where two Plotly JSON values first differ in the sense of :func:`close` (a path such as
    ``data[2].y[17]`` and both values), or None when they are close: what a failing test says."""
    a, b = _plain(a), _plain(b)
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return f"{path or 'top'}: keys {sorted(a.keys() ^ b.keys())} in one only"
        for k in a:
            found = difference(a[k], b[k], tol, floor, f"{path}.{k}" if path else str(k))
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} against {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            found = difference(x, y, tol, floor, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if close(a, b, tol, floor) else f"{path}: {a!r} against {b!r}"


def _plain(x: Any) -> Any:
    if isinstance(x, dict) and "bdata" in x and "dtype" in x:
        data = np.frombuffer(base64.b64decode(x["bdata"]), dtype=np.dtype(x["dtype"]).newbyteorder("<"))
        if "shape" in x:
            data = data.reshape([int(s) for s in str(x["shape"]).split(",")])
        return data.tolist()
    return x
