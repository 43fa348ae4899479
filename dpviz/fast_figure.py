"""Fast drawing: the part of Plotly's figure API that dpviz's figures use, building the figure's
dict directly, for the frames of a live chart (:mod:`dpviz.frames`), where the same figure is
drawn at every position of a slider.

Plotly builds a tree of validated objects for every figure (a trace, its marker, its line...),
then copies it into a dict: 20-40 ms for one of the paper pages' charts, which a chart's frames
pay 50-150 times along a slider. Here each property is checked and coerced by the very validator
Plotly uses for it (``plotly.validator_cache.ValidatorCache``: a colour, an enumeration, a data
array, a title given as a string), but into plain dicts; what ``to_dict`` then returns is what
Plotly's own figure returns for the same calls (numpy arrays as typed arrays,
``_plotly_utils.utils.convert_to_base64``).

Only what the figures call is here: ``go.Figure``, the trace types, ``make_subplots`` (Plotly's
own, drawn once per layout and copied), ``add_trace``/``add_bar`` (with ``row``/``col``),
``update_layout``/``update_xaxes``/``update_yaxes`` (with ``row``/``col``), ``add_annotation``
without a subplot, ``select_traces``, ``data`` and reading a trace's property. Anything else
raises :class:`Unsupported`, and the caller draws that chart with Plotly (:class:`dpviz.frames.Drawer`
checks the two agree before a chart's frames are drawn this way). Activated per thread by
:func:`dpviz.theme.fast_drawing` (``dpviz.theme.go`` and ``dpviz.theme.subplots`` then resolve
to :data:`GO` and :data:`SUBPLOTS`).
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import numpy as np

TRACE_TYPES = ("Scatter", "Bar", "Heatmap", "Contour")


DEFAULT_TEMPLATE = object()
"""Stands for Plotly's default template in a figure's layout until it is written (every dpviz
figure replaces it with the house's, :func:`dpviz.theme.style`)."""


class Unsupported(Exception):
    """A Plotly call this module does not draw: the figure is drawn by Plotly instead."""


@functools.lru_cache(maxsize=None)
def _validator(path: str, prop: str):
    from plotly.validator_cache import ValidatorCache

    try:
        return ValidatorCache.get_validator(path, prop)
    except (AttributeError, KeyError, TypeError) as e:  # not a property there
        raise Unsupported(f"{path}.{prop}") from e


@functools.lru_cache(maxsize=None)
def _split(key: str) -> tuple[str, ...]:
    """A property path (``marker_line_width``, ``xaxis2.title``) as its parts, as Plotly reads it."""
    from plotly.basedatatypes import BaseFigure

    return tuple(BaseFigure._str_to_dict_path(key))


@functools.lru_cache(maxsize=None)
def _kind(path: str, prop: str) -> tuple[str, str]:
    """("compound" | "title" | "array" | "data" | "plain", the child's schema path) of ``prop`` at ``path``."""
    from _plotly_utils import basevalidators as bv

    v = _validator(path, prop)
    if isinstance(v, bv.BaseDataValidator) or isinstance(v, bv.BaseTemplateValidator):
        raise Unsupported(f"{path}.{prop}")
    child = f"{v.parent_name}.{v.plotly_name}" if v.parent_name else v.plotly_name
    if path == "layout" and prop != v.plotly_name:  # xaxis2: the schema of xaxis
        child = f"layout.{v.plotly_name}"
    if isinstance(v, bv.TitleValidator):
        return "title", child
    if isinstance(v, bv.CompoundValidator):
        return "compound", child
    if type(v) is bv.DataArrayValidator:
        return "data", child
    if isinstance(v, bv.CompoundArrayValidator):  # an element's schema: layout.annotation
        return "array", f"{v.parent_name}.{v.data_class_str.lower()}" if v.parent_name else v.data_class_str.lower()
    return "plain", child


@functools.lru_cache(maxsize=None)
def _subplot_key(path: str, prop: str) -> str:
    """The validator's name for a layout key (``xaxis2`` -> ``xaxis``)."""
    if path == "layout":
        import plotly.graph_objects as go

        match = go.Layout._subplotid_prop_re.match(prop)
        if match:
            return match.group(1)
    return prop


def _numeric_array(value: Any):
    """``value``'s numbers as a numpy array when it is a numpy array or a pandas Series of a numpy
    integer or float type; else None (Plotly's own validator takes it)."""
    if isinstance(value, np.ndarray):
        arr = value
    elif type(value).__name__ == "Series" and type(value).__module__.startswith("pandas"):
        if not isinstance(value.dtype, np.dtype):
            return None
        arr = value.to_numpy()
    else:
        return None
    return arr if arr.dtype.kind in "uif" else None


def _text_array(value: Any):
    """``value``'s words as a numpy object array when it is a pandas Series of pandas' text type
    (``StringDtype``, Arrow's or Python's storage) with no missing value; else None (Plotly's own
    validator takes it). It is what the validator makes of such a Series, ``Series.to_numpy()``
    copied (an object array of Python ``str``), without its route through narwhals: 0.14 ms an
    array, four a frame of the Metric DP chart of every word (a third of its drawing)."""
    if type(value).__name__ != "Series" or not type(value).__module__.startswith("pandas"):
        return None
    if type(value.dtype).__name__ != "StringDtype" or value.hasnans:
        return None
    out = value.to_numpy()
    return out if out.dtype == object else None


def _read_only(array: np.ndarray) -> np.ndarray:
    """``array`` made read-only, as Plotly's ``copy_to_readonly_numpy_array`` leaves its copy."""
    array.flags["WRITEABLE"] = False
    return array


_PLAIN_ITEMS = frozenset((str, float, int))


def _plain_list(value: Any) -> bool:
    """Whether ``value`` is a list or tuple of Python floats, ints and strings alone (not bools,
    not numpy scalars: Plotly's validator converts those). The items' types are gathered in C
    (``set(map(type, …))``): a generator over the items was a third of a frame of the Metric DP
    statistics chart (lists of thousands of numbers)."""
    return type(value) in (list, tuple) and set(map(type, value)) <= _PLAIN_ITEMS


_SCALARS = (str, float, int, bool)


def _coerced(path: str, prop: str, kind: type, value: Any) -> Any:
    """What Plotly's validator makes of a Python scalar (a colour, a mode, a width, a text), kept:
    the validators are pure functions of the value, and a chart's frames set the same few dozen
    values at every position (the type is part of the key: 1, 1.0 and True are equal keys; a
    float is kept by its hex, as 0.0 and -0.0 are equal keys too)."""
    return _coerced_kept(path, prop, kind, value.hex() if kind is float else value)


@functools.lru_cache(maxsize=4096)
def _coerced_kept(path: str, prop: str, kind: type, token: Any) -> Any:
    return _validator(path, prop).validate_coerce(float.fromhex(token) if kind is float else token)


@functools.lru_cache(maxsize=None)
def _colors_ok(path: str, prop: str) -> bool:
    """Whether ``prop`` at ``path`` takes an array of colours (a ColorValidator with ``array_ok``)."""
    from _plotly_utils import basevalidators as bv

    v = _validator(path, prop)
    return isinstance(v, bv.ColorValidator) and bool(v.array_ok)


def _colors(path: str, prop: str, value: np.ndarray) -> np.ndarray:
    """What the ColorValidator makes of a NumPy array of colour names: each element coerced as a
    scalar (kept per value, :func:`_coerced`; a bar chart's 60 bars have two colours), then a
    read-only copy of the list, of objects where the property also takes numbers (a colour scale's
    values), else of text: ``copy_to_readonly_numpy_array(validated, kind=...)``, as Plotly."""
    from _plotly_utils.basevalidators import copy_to_readonly_numpy_array

    validator = _validator(path, prop)
    validated = [_coerced(path, prop, str, e) for e in value.tolist()]
    kind = "O" if validator.numbers_allowed() else "U"
    if set(map(type, validated)) <= {str}:
        # what copy_to_readonly_numpy_array makes of a list of text (each item itself, an array
        # of objects for "O", of text for "U"), without its route through narwhals and an item
        # at a time: two thirds of the privacy-loss chart's drawing past its bounds
        return _read_only(np.array(validated, order="C", dtype=object if kind == "O" else None))
    return copy_to_readonly_numpy_array(validated, kind=kind)


def _frozen(values: dict) -> tuple | None:
    """A dict of Python scalars (and of such dicts) as a key that tells apart what JSON tells apart:
    each item's key, type and value in order (a float by its hex: -0.0 is not 0.0, NaN is NaN);
    None when anything else is among them (an array, a list: the dict is not kept)."""
    items = []
    for k, v in values.items():
        t = type(v)
        if t is float:
            items.append((k, t, v.hex()))
        elif t is str or t is int or t is bool or v is None:
            items.append((k, t, v))
        elif t is dict:
            inner = _frozen(v)
            if inner is None:
                return None
            items.append((k, t, inner))
        else:
            return None
    return tuple(items)


def _thawed(key: tuple) -> dict:
    """The dict :func:`_frozen` made ``key`` of."""
    return {k: float.fromhex(v) if t is float else _thawed(v) if t is dict else v for k, t, v in key}


@functools.lru_cache(maxsize=4096)
def _compound(path: str, key: tuple) -> "Node":
    """The object at ``path`` made of the dict ``key`` stands for (:func:`_frozen`), made once: a
    chart's frames give the same ``line=dict(color=..., width=..., dash=...)`` and ``marker=dict(...)``
    at every position, 40 µs each to check and coerce (a tenth of the fast drawing's time). Its
    users get a clone."""
    return Node(path, _thawed(key))


@functools.lru_cache(maxsize=1)
def _vals_equal():
    """Plotly's ``BasePlotlyType._vals_equal``, imported once (lazy: as the validators; imported at
    each of the 60,000 assignments of a page's frames, it was a tenth of their drawing)."""
    from plotly.basedatatypes import BasePlotlyType

    return BasePlotlyType._vals_equal


_LEAVES = frozenset((str, int, float, bool, type(None)))
"""Values that hold no object and nothing Plotly's conversion changes: passed over by their type."""


def _nodes(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and isinstance(value[0], Node)


class Node:
    """A compound property (a trace, its marker, the layout, an axis) as a dict of set values."""

    __slots__ = ("path", "props")

    def __init__(self, path: str, values: Any = None, **kwargs):
        self.path = path
        self.props: dict[str, Any] = {}
        if isinstance(values, Node):
            values = values.json()
        if values:
            if not isinstance(values, dict):
                raise Unsupported(f"{path} from {type(values).__name__}")
            self._set_all(values)
        if kwargs:
            self._set_all(kwargs)

    def _set_all(self, values: dict) -> None:
        plain = [(k, v) for k, v in values.items() if len(_split(k)) == 1]
        paths = [(k, v) for k, v in values.items() if len(_split(k)) > 1]
        for k, v in plain + paths:
            if v is not None:
                self.set(k, v)

    def child(self, prop: str) -> "Node":
        """The object at ``prop`` (made empty if not set yet), to set values into."""
        kind, child = _kind(self.path, _subplot_key(self.path, prop))
        if kind not in ("compound", "title"):
            raise Unsupported(f"{self.path}.{prop} is not an object")
        node = self.props.get(prop)
        if node is None:
            node = self.props[prop] = Node(child)
        return node

    def set(self, key: str, value: Any) -> None:
        """Assign ``value`` to ``key`` (a path), as Plotly's ``obj[key] = value`` does."""
        parts = _split(key)
        node = self
        for part in parts[:-1]:
            node = node.child(part)
        node._assign(parts[-1], value)

    def _assign(self, prop: str, value: Any) -> None:
        if value is None:
            self.props.pop(prop, None)
            return
        key = _subplot_key(self.path, prop)  # (xaxis2: the schema of xaxis)
        kind, child = _kind(self.path, key)
        if kind == "title" and isinstance(value, (str, int, float)):
            value = {"text": value}
        if kind in ("compound", "title"):
            if not isinstance(value, (dict, Node)):
                raise Unsupported(f"{self.path}.{prop} = {type(value).__name__}")
            key = _frozen(value) if type(value) is dict else None
            self.props[prop] = _compound(child, key).clone() if key is not None else Node(child, value)
        elif kind == "array":
            if not isinstance(value, (list, tuple)):
                raise Unsupported(f"{self.path}.{prop} = {type(value).__name__}")
            self.props[prop] = [Node(child, v) for v in value]
        elif kind == "data" and _numeric_array(value) is not None:
            # what Plotly's validator makes of a numeric numpy array or pandas Series (a contiguous
            # read-only copy, copy_to_readonly_numpy_array), without its route through narwhals
            self._keep_or_set(prop, _read_only(np.ascontiguousarray(_numeric_array(value).copy())))
        elif kind == "data" and (words := _text_array(value)) is not None:
            # the validator's read-only copy of a text Series (copy_to_readonly_numpy_array)
            self._keep_or_set(prop, _read_only(words.copy()))
        elif kind == "data" and _plain_list(value):
            # what the validator's to_scalar_or_list makes of a list or tuple of Python numbers and
            # strings: the same items in a new list (a log axis's ticks, a mark's two points)
            self._keep_or_set(prop, list(value))
        elif type(value) in _SCALARS:
            self._keep_or_set(prop, _coerced(self.path, key, type(value), value))
        elif isinstance(value, np.ndarray) and value.dtype.kind == "U" and _colors_ok(self.path, key):
            self._keep_or_set(prop, _colors(self.path, key, value))
        else:
            self._keep_or_set(prop, _validator(self.path, key).validate_coerce(value))

    def _keep_or_set(self, prop: str, value: Any) -> None:
        """Plotly's rule for a plain property: a value equal to the one held (by its ``_vals_equal``:
        ``(1, 10)`` equals ``(1.0, 10.0)``) leaves the held one in place, floats and all."""
        props = self.props
        if prop in props and _vals_equal()(props[prop], value):
            return
        props[prop] = value

    def update(self, values: dict | None = None, **kwargs) -> "Node":
        """Plotly's ``update``: objects merged key by key, anything else assigned."""
        for source in (values or {}, kwargs):
            for key, value in source.items():
                parts = _split(key)
                node = self
                for part in parts[:-1]:
                    node = node.child(part)
                node._update_one(parts[-1], value)
        return self

    def _update_one(self, prop: str, value: Any) -> None:
        kind, _ = _kind(self.path, _subplot_key(self.path, prop))
        if kind in ("compound", "title") and isinstance(value, dict):
            self.child(prop).update(value)
        elif kind == "array" and self.props.get(prop):
            raise Unsupported(f"merging into {self.path}.{prop}")
        else:
            self._assign(prop, value)

    def json(self) -> dict:
        """The set values as Plotly's ``to_plotly_json`` gives them (empty objects left out)."""
        out = {}
        for k, v in self.props.items():
            kind = type(v)
            if kind in _LEAVES:
                pass
            elif isinstance(v, Node):
                v = v.json()
                if not v:
                    continue
            elif _nodes(v):
                v = [x.json() for x in v]
            out[k] = v
        return out

    @classmethod
    def raw(cls, path: str, values: dict) -> "Node":
        """A node of values taken as they are (Plotly's ``_validate=False``): a figure's own dict."""
        out = object.__new__(cls)
        out.path = path
        out.props = {}
        for k, v in values.items():
            kind, child = _kind(path, _subplot_key(path, k)) if k != "template" or path != "layout" else ("plain", "")
            if kind in ("compound", "title") and isinstance(v, dict):
                v = Node.raw(child, v)
            elif kind == "array" and isinstance(v, list):
                v = [Node.raw(child, x) for x in v]
            out.props[k] = v
        return out

    def clone(self) -> "Node":
        """A copy whose objects are copies (the values are shared: they are never changed in place)."""
        out = object.__new__(type(self))
        out.path = self.path
        props = out.props = {}
        for k, v in self.props.items():
            if type(v) in _LEAVES:  # (most values: no object to copy, no check past the type)
                props[k] = v
            elif isinstance(v, Node):
                props[k] = v.clone()
            else:
                props[k] = [x.clone() for x in v] if _nodes(v) else v
        return out

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        value = self.props.get(name)
        if isinstance(value, Node):
            raise Unsupported(f"reading the object {self.path}.{name}")
        return value


class Trace(Node):
    """A trace: its type's properties and ``type``."""

    __slots__ = ()

    def __init__(self, kind: str, values: Any = None, **kwargs):
        kwargs.pop("_validate", None)
        super().__init__(kind, values, **kwargs)

    def json(self) -> dict:
        """The trace as Plotly's ``to_plotly_json`` gives it, ``type`` last."""
        return {**super().json(), "type": self.path}


def _trace_class(name: str):
    kind = name.lower()

    def make(arg=None, **kwargs):
        return Trace(kind, arg, **kwargs)

    make.__name__ = name
    return make


class Figure:
    """``go.Figure`` for the calls dpviz's figures make (module docstring)."""

    fast = True

    def __init__(self, data=None, layout=None, **kwargs):
        validate = kwargs.pop("_validate", True)
        if kwargs:
            raise Unsupported(f"go.Figure({', '.join(kwargs)})")
        self._traces: list[Trace] = []
        self.layout_node = Node("layout")
        self.layout_node.props["template"] = DEFAULT_TEMPLATE
        self._grid = None
        if isinstance(data, dict) and layout is None and set(data) <= {"data", "layout"}:
            data, layout = data.get("data"), data.get("layout")
        if validate is False:  # a figure's own dict, taken as it is
            for trace in data or []:
                trace = dict(trace)
                self._traces.append(Trace.raw(trace.pop("type", "scatter"), trace))
            self.layout_node = Node.raw("layout", {"template": DEFAULT_TEMPLATE, **(layout or {})})
            return
        if data is not None:
            for trace in data if isinstance(data, (list, tuple)) else [data]:
                self.add_trace(trace)
        if layout is not None:
            layout = dict(layout)
            template = layout.pop("template", None)
            if template is not None:
                raise Unsupported("a template given to go.Figure")
            self.layout_node.update(layout)

    # traces
    def add_trace(self, trace, row=None, col=None, secondary_y=None, **kwargs):
        """A copy of ``trace`` appended, on the subplot at ``row``/``col`` (and ``secondary_y``) if given."""
        if kwargs:
            raise Unsupported(f"add_trace({', '.join(kwargs)})")
        if secondary_y is not None and row is None:  # as Plotly: the first cell
            row = col = 1
        if isinstance(trace, dict):
            trace = dict(trace)
            trace = Trace(trace.pop("type", "scatter"), trace)
        if not isinstance(trace, Trace):
            raise Unsupported(f"a trace of {type(trace).__name__}")
        trace = trace.clone()
        if row is not None or col is not None:
            ref = self._cell(row, col, bool(secondary_y))
            trace.update(ref.trace_kwargs)
        self._traces.append(trace)
        return self

    def add_bar(self, row=None, col=None, **kwargs):
        """``add_trace(go.Bar(**kwargs), row, col)``."""
        return self.add_trace(Trace("bar", **kwargs), row=row, col=col)

    def add_scatter(self, row=None, col=None, **kwargs):
        """``add_trace(go.Scatter(**kwargs), row, col)``."""
        return self.add_trace(Trace("scatter", **kwargs), row=row, col=col)

    @property
    def data(self) -> tuple:
        """The traces, in order (a property is read as ``trace.x``)."""
        return tuple(self._traces)

    def select_traces(self, selector=None, row=None, col=None, secondary_y=None):
        """The traces, or those on the subplot at ``row``/``col``."""
        if selector is not None or secondary_y is not None:
            raise Unsupported("select_traces with a selector")
        if row is None and col is None:
            return iter(self._traces)
        ref = self._cell(row, col).trace_kwargs
        return iter(
            t
            for t in self._traces
            if (t.props.get("xaxis") or "x") == ref["xaxis"] and (t.props.get("yaxis") or "y") == ref["yaxis"]
        )

    def _cell(self, row, col, secondary: bool = False):
        if self._grid is None or row is None or col is None or row < 1 or col < 1:
            raise Unsupported("row/col on a figure without subplots, or only one of them")
        refs = self._grid[row - 1][col - 1]
        if not refs or len(refs) < 1 + secondary:
            raise Unsupported("a cell with no subplot, or no secondary y axis")
        return refs[1 if secondary else 0]

    # layout
    @property
    def layout(self):
        """Not drawn here: a figure that reads its layout back is drawn by Plotly."""
        raise Unsupported("reading fig.layout")

    def update_layout(self, dict1=None, overwrite=False, **kwargs):
        """Plotly's ``update_layout``: objects merged key by key, anything else assigned."""
        if overwrite:
            raise Unsupported("update_layout(overwrite=True)")
        self.layout_node.update(dict1, **kwargs)
        return self

    def _axes(self, prefix: str, row, col, secondary_y) -> list[str]:
        """The layout's axes ``update_xaxes``/``update_yaxes`` change, as Plotly selects them."""
        keys = [k for k in self.layout_node.props if k.startswith(prefix)]
        if prefix not in keys:
            keys.append(prefix)
        if row is None and col is None and secondary_y is None:
            return keys
        if self._grid is None:
            raise Unsupported("update axes by row/col without subplots")
        wanted = set()
        for r, cells in enumerate(self._grid):
            for c, refs in enumerate(cells):
                if not refs or (row is not None and r + 1 != row) or (col is not None and c + 1 != col):
                    continue
                for i, ref in enumerate(refs):
                    if secondary_y is None or (i == 1) == bool(secondary_y):
                        wanted |= {k for k in ref.layout_keys if k.startswith(prefix)}
        return [k for k in keys if k in wanted]

    def _update_axes(self, prefix, patch=None, selector=None, overwrite=False, row=None, col=None, **kwargs):
        secondary_y = kwargs.pop("secondary_y", None)
        if selector is not None or overwrite:
            raise Unsupported(f"update_{prefix}es with a selector")
        for key in self._axes(prefix, row, col, secondary_y):
            self.layout_node.child(key).update(patch, **kwargs)
        return self

    def update_xaxes(self, patch=None, selector=None, overwrite=False, row=None, col=None, **kwargs):
        """Every x axis, or those of the subplot at ``row``/``col``, updated."""
        return self._update_axes("xaxis", patch, selector, overwrite, row, col, **kwargs)

    def update_yaxes(self, patch=None, selector=None, overwrite=False, row=None, col=None, **kwargs):
        """Every y axis, or those of the subplot at ``row``/``col`` (or ``secondary_y``), updated."""
        return self._update_axes("yaxis", patch, selector, overwrite, row, col, **kwargs)

    def add_annotation(self, arg=None, row=None, col=None, **kwargs):
        """An annotation in the layout (on the whole figure; one on a subplot is left to Plotly)."""
        if row is not None or col is not None or kwargs.get("exclude_empty_subplots") is not None:
            raise Unsupported("an annotation on a subplot")
        items = list(self.layout_node.props.get("annotations", []))
        items.append(Node("layout.annotation", arg, **kwargs))
        self.layout_node.props["annotations"] = items
        return self

    def set_template(self, template: dict) -> None:
        """What ``dpviz.theme.style`` does to a Plotly figure: the (validated) template, as is."""
        self.layout_node.props["template"] = template

    def copy(self) -> "Figure":
        """A figure to change apart from this one: its traces and layout objects copied (their values
        are shared: never changed in place)."""
        out = object.__new__(Figure)
        out._traces = [t.clone() for t in self._traces]
        out.layout_node = self.layout_node.clone()
        out._grid = self._grid
        return out

    # output
    def to_dict(self) -> dict:
        """What Plotly's ``Figure.to_dict`` gives: the traces and layout, numpy arrays as typed arrays."""
        from _plotly_utils.utils import convert_to_base64

        layout = self.layout_node.json()
        template = layout.pop("template")  # already as to_dict gives it (the house one is shared: never changed)
        if template is DEFAULT_TEMPLATE:
            template = _default_template()
        res = {"data": [t.json() for t in self._traces], "layout": layout}
        typed_arrays(res, convert_to_base64)
        layout["template"] = template
        return res

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise Unsupported(f"fig.{name}")


SKIPPED_KEYS = frozenset(("geojson", "layer", "layers", "range"))
"""Keys whose arrays Plotly leaves as they are (``_plotly_utils.utils.is_skipped_key``)."""
_SHORT = {"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4", "uint32": "u4",
          "float32": "f4", "float64": "f8"}  # fmt: skip
_INT_RANGES = (("int8", -(2**7), 2**7 - 1), ("int16", -(2**15), 2**15 - 1), ("int32", -(2**31), 2**31 - 1))
_UINT_RANGES = (("uint8", 0, 2**8 - 1), ("uint16", 0, 2**16 - 1), ("uint32", 0, 2**32 - 1))


@functools.lru_cache(maxsize=64)
def _dtype_name(dtype) -> str:
    return str(dtype)


def typed_array(value) -> dict | None:
    """A numeric NumPy array (or a pandas Series holding one) as Plotly's typed-array spec, the
    very dict ``_plotly_utils.utils.to_typed_array_spec`` makes of it (64-bit integers narrowed to
    the smallest type that holds them, float64 as "f8"); None for anything else. Plotly's own
    route reads each array through narwhals' type checks, a third of a frame's drawing."""
    import base64

    import numpy as np

    if not isinstance(value, np.ndarray):
        dtype = getattr(value, "dtype", None)
        if type(value).__name__ != "Series" or not isinstance(dtype, np.dtype):
            return None
        value = value.to_numpy()
    if value.dtype.kind not in "uif" or value.size == 0:
        return None
    v = np.ascontiguousarray(value)
    name = _dtype_name(v.dtype)
    if name in ("int64", "uint64"):
        low, high = v.min(), v.max()
        for narrow, a, b in _INT_RANGES if name == "int64" else _UINT_RANGES:
            if low >= a and high <= b:
                v = v.astype(narrow)
                break
        else:
            return None  # (Plotly leaves such an array as it is)
        name = str(v.dtype)
    if name not in _SHORT:
        return None
    out = {"dtype": _SHORT[name], "bdata": base64.b64encode(v).decode("ascii")}
    if v.ndim > 1:
        out["shape"] = str(v.shape)[1:-1]
    return out


def typed_arrays(obj, plotly_convert) -> None:
    """``_plotly_utils.utils.convert_to_base64`` on ``obj`` (in place), numeric arrays by
    :func:`typed_array` and anything else by Plotly's own ``plotly_convert``. Python's text,
    numbers and None are passed over by their type (``hasattr`` on each was a tenth of a frame's
    drawing), and so is a list holding nothing else (its items' types gathered in C)."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            kind = type(value)
            if kind in _LEAVES or key in SKIPPED_KEYS:
                continue
            if kind is dict or kind is list or kind is tuple:
                typed_arrays(value, plotly_convert)
                continue
            fast = typed_array(value) if hasattr(value, "dtype") else None
            if fast is not None:
                obj[key] = fast
            elif isinstance(value, (dict, list, tuple)):
                typed_arrays(value, plotly_convert)
            elif type(value) is np.ndarray and value.dtype == object:
                # Plotly's to_typed_array_spec of an array of objects (words): a read-only copy
                # (copy_to_readonly_numpy_array), left as an array, without narwhals' checks
                obj[key] = _read_only(value.copy())
            elif hasattr(value, "__array__") or hasattr(value, "__array_interface__"):
                one = {key: value}
                plotly_convert(one)
                obj[key] = one[key]
    elif isinstance(obj, (list, tuple)):
        if set(map(type, obj)) <= _LEAVES:
            return
        for value in obj:  # (Plotly's recursion changes only what is in a dict: a list's numbers stay)
            if isinstance(value, (dict, list, tuple)):
                typed_arrays(value, plotly_convert)


def template_text(template) -> str:
    """A Plotly template as the JSON text of what a figure's ``to_dict`` holds for it."""
    from _plotly_utils.utils import convert_to_base64

    out = copy.deepcopy(template.to_plotly_json())
    convert_to_base64(out)
    return json.dumps(out)


@functools.lru_cache(maxsize=1)
def _default_template_text() -> str:
    import plotly.io as pio

    return template_text(pio.templates[pio.templates.default])


def _default_template() -> dict:
    """Plotly's default template, which a new figure holds until ``dpviz.theme.style`` sets the house's."""
    return json.loads(_default_template_text())


@functools.lru_cache(maxsize=64)
def _subplots(key: str) -> tuple[Node, Any]:
    from plotly import subplots

    fig = subplots.make_subplots(**json.loads(key))
    layout = copy.deepcopy(fig.layout.to_plotly_json())
    layout.pop("template", None)
    node = Node("layout")
    node.update(layout)
    return node, fig._grid_ref


_TITLE = "\x00subplot title {}\x00"
"""A subplot title's stand-in in :func:`make_subplots`' key (no figure's text holds a NUL)."""


def make_subplots(**kwargs) -> Figure:
    """Plotly's own ``make_subplots`` (drawn once per set of arguments, its layout kept), as a fast
    figure. Subplot titles that are text are not part of the key: Plotly writes each as the text of
    an annotation placed by the grid alone, so the layout is drawn with stand-ins and the titles
    put in their annotations (a title that changes along a slider, ``α = 4``, had Plotly's
    ``make_subplots`` at every frame: 12 of a frame's 27 ms)."""
    titles = kwargs.get("subplot_titles")
    texts = None
    if isinstance(titles, (list, tuple)) and all(t is None or isinstance(t, str) for t in titles):
        texts = {_TITLE.format(i): t for i, t in enumerate(titles) if t}
        kwargs = dict(kwargs, subplot_titles=[_TITLE.format(i) if t else t for i, t in enumerate(titles)])
    try:
        key = json.dumps(kwargs, sort_keys=True)
    except TypeError as e:
        raise Unsupported("make_subplots with arguments that are not JSON") from e
    layout, grid = _subplots(key)
    fig = Figure()
    template = fig.layout_node.props["template"]
    fig.layout_node = layout.clone()
    fig.layout_node.props["template"] = template
    fig._grid = grid
    if texts:
        for note in fig.layout_node.props.get("annotations") or ():
            if note.props.get("text") in texts:
                note.props["text"] = texts[note.props["text"]]
    return fig


class _Go:
    """``plotly.graph_objects`` as far as the figures use it."""

    Figure = Figure

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in TRACE_TYPES:
            return _trace_class(name)
        raise Unsupported(f"go.{name}")


class _Subplots:
    make_subplots = staticmethod(make_subplots)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise Unsupported(f"subplots.{name}")


GO = _Go()
SUBPLOTS = _Subplots()
