"""Widgets for declared parameters (:class:`dpviz.params.Param`): one per parameter, each value
through the one validator, so a bad typed value gets a sentence and the default.

A number with ``slider=True`` is a select-slider on its grid (:func:`dpviz.frames.slider_grid`:
a log scale, or a whole number's grid); a text
parameter with ``options`` is a select box (plus a path box when running locally); an ``upload``
parameter is a file box whose file is kept under the cache directory and named by content
(``upload:NAME``), so the value, and a link, can carry it.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import streamlit as st

from dpviz import registry, uploads
from dpviz.errors import InputError
from dpviz.frames import slider_grid
from dpviz.panels import resolve
from dpviz.params import MAX_RAW_LENGTH, Param, ParamError, applies, check_hosted_cap, format_value, parse_value


def widget_state(p: Param, value: Any) -> Any:
    """The widget-state form of a validated value."""
    if p.kind in ("int_list", "float_list"):
        return format_value(p, value)
    if p.kind == "choices":
        return list(value)
    return value


def _top(p: Param) -> float | None:
    """The highest value ``p``'s widget offers: its hosted cap on a hosted demo, else its maximum
    (the frames of a slider cover the same range: :mod:`webui.live_frames`)."""
    if registry.hosted_mode() and p.hosted_max is not None and p.kind in ("int", "float"):
        return p.hosted_max
    return p.max


def widget_label(p: Param) -> str:
    """The label of ``p``'s widget (a slider's accessible name, which the browser's frames follow)."""
    return p.label + (f" ({p.unit})" if p.unit else "")


def slider_options(p: Param, current: Any) -> list:
    """The options of ``p``'s slider when it shows ``current``: its grid up to the bound (the
    hosted cap, if any), with ``current`` put in its place when a link brought it off the grid."""
    grid = slider_grid(p, _top(p))
    kind = int if p.kind == "int" else float
    if isinstance(current, (int, float)) and kind(current) not in grid and p.min <= current <= _top(p):
        grid = sorted(grid + [kind(current)])
    return grid


def _widget(p: Param, where, context: Mapping[str, Any] | None = None) -> Any:
    """``p``'s widget, created with the session's value as its own default wherever that value is
    one the widget allows (:func:`_session_index`, :func:`_shown_number`): a value the script set
    (a link's, a target's button) reaches the browser once, as a flag on that run's element, and a
    browser that mounts the widget again from an element without the flag shows the element's
    default and sends it with the next run. Without this, a select-slider fell back to its first
    position (HoHo's ε to 0.0001 beside a dragged λ) and a number box to its minimum."""
    label = widget_label(p)
    helptext = p.help + (f" Hosted demo: at most {_top(p):,.0f}." if _top(p) != p.max else "")
    key = p.name
    current = st.session_state.get(key)
    if p.slider and (p.kind == "int" or p.log):
        idle = context is not None and not applies(p, context)
        if idle:
            helptext += f" It plays a part for {p.applies[2]} only: not with the setting chosen now."
        return _grid_slider(p, where, label, helptext, disabled=idle)
    if p.kind == "int" and p.name != "seed" and (p.max - p.min) <= 2000:
        if p.max - p.min <= 3:
            options = list(range(int(p.min), int(p.max) + 1))
            index = _session_index(options, current)
            return where.radio(label, options, index=index, key=key, help=helptext, horizontal=True)
        low, top = int(p.min), int(_top(p))
        value = _shown_number(current, int, low, top)
        return where.slider(label, low, top, value=None if value == "min" else value, key=key, help=helptext)
    if p.kind == "int":
        low, top = int(p.min), int(_top(p))
        value = _shown_number(current, int, low, top)
        return where.number_input(label, low, top, value=value, step=1, key=key, help=helptext)
    if p.kind == "float":
        fmt = "%.1e" if p.log and p.max <= 1 else "%g"
        low, top = float(p.min), float(_top(p))
        value = _shown_number(current, float, low, top)
        return where.number_input(label, low, top, value=value, key=key, help=helptext, format=fmt)
    if p.kind == "choice":
        options = list(p.choices)
        return where.selectbox(
            label,
            options,
            index=_session_index(options, current),
            key=key,
            help=helptext,
            format_func=lambda c: p.choice_labels.get(c, c),
        )
    if p.kind == "choices":
        chosen = list(current) if isinstance(current, (list, tuple)) and set(current) <= set(p.choices) else None
        return where.multiselect(
            label,
            list(p.choices),
            default=chosen,
            key=key,
            help=helptext,
            format_func=lambda c: p.choice_labels.get(c, c),
        )
    if p.kind == "bool":
        return where.toggle(label, value=current if isinstance(current, bool) else False, key=key, help=helptext)
    if p.kind == "text" and p.upload is not None and p.upload.title:
        _upload_box(p, where)  # above the widget: its button may set the widget's value
    elif p.kind == "text" and p.upload is not None:
        return _upload(p, where, label, helptext)
    if p.kind == "text" and p.options:
        return _text_with_options(p, where, label, helptext)
    # max_items counts characters only for free text; a list's length is counted in values by
    # the validator, and its raw text is bounded like every other raw value.
    max_chars = p.max_items if p.kind == "text" else MAX_RAW_LENGTH
    shown = current if isinstance(current, str) and len(current) <= max_chars else ""
    return where.text_input(label, value=shown, key=key, help=helptext, max_chars=max_chars)


def _session_index(options: list, current: Any) -> int:
    """The position of the session's value among ``options``, the default of a select box or a
    radio (its first option when the session holds none of them, as Streamlit's own default)."""
    for i, option in enumerate(options):
        if type(option) is type(current) and option == current:
            return i
    return 0


def _shown_number(current: Any, kind: type, low: float, top: float | None) -> Any:
    """The value a number box is created with: the session's value when it is one the box allows,
    else ``"min"`` (Streamlit's default). The box's own default is then what the session holds, so
    the browser shows it however it mounts the box. A value the script sets (a link's seed) reaches
    the browser once, as a flag on that run's element; when the browser mounts the box again from an
    element without the flag, it shows the element's default. Created with ``"min"``, a link's seed 3
    showed 0 in the box while the charts used 3 (seen in Chromium on a loaded machine)."""
    if isinstance(current, bool) or not isinstance(current, (int, float)):
        return "min"
    if current < low or (top is not None and current > top) or (kind is int and current != int(current)):
        return "min"
    return kind(current)


def _grid_slider(p: Param, where, label: str, helptext: str, disabled: bool = False) -> float | int:
    """A live slider over the positions of :func:`dpviz.frames.slider_grid` (a log scale, or a
    whole number's grid) up to the bound (the hosted cap, if any), plus the current value when a
    link brought one off the grid, so it shows as typed. Arrow keys step along the grid; the
    browser draws the charts' frames at these positions while the slider moves."""
    current = st.session_state.get(p.name, p.default)
    grid = slider_options(p, current)
    kind = int if p.kind == "int" else float
    if isinstance(current, (int, float)) and current in grid and type(current) is not kind:
        # only when the type differs: a value set here is sent to the browser as set by the
        # script, and the slider would jump back to it when a late answer arrives mid-drag
        st.session_state[p.name] = kind(current)
    unit = f" {p.unit}" if p.unit else ""
    value = kind(current) if isinstance(current, (int, float)) and kind(current) in grid else None
    return where.select_slider(
        label,
        options=grid,
        value=value,
        key=p.name,
        help=helptext,
        format_func=lambda x: f"{x:g}{unit}",
        disabled=disabled,
    )


OTHER = "\x00other"
"""The select-box entry that opens a text box for a value outside a parameter's options."""


def _option_label(p: Param, value: str) -> str:
    if value == OTHER:
        return "a file on this machine (type its path)…"
    if value.startswith(uploads.UPLOAD_PREFIX):
        return f"your upload ({value[len(uploads.UPLOAD_PREFIX) :]})"
    return p.choice_labels.get(value, value)


def _text_with_options(p: Param, where, label: str, helptext: str) -> str:
    """A select box of a text parameter's suggested values, plus the current value when it is
    something else (an upload, a path from a link), plus, when running locally, an entry that
    opens a text box for a path. Returns the raw value for the validator."""
    current = st.session_state.get(p.name, p.default)
    options = list(p.options)
    if current not in options and current != OTHER:
        options.append(current)
    if not registry.hosted_mode():
        options.append(OTHER)
    choice = where.selectbox(
        label,
        options,
        index=_session_index(options, current),
        key=p.name,
        help=helptext,
        format_func=lambda v: _option_label(p, v),
    )
    if choice != OTHER:
        return choice
    return (
        where.text_input(
            f"{label}: file path",
            key=f"_{p.name}_path",
            help="A .vec/.txt/.bin file on the machine running dpviz.",
            max_chars=p.max_items,
            placeholder="/data/crawl-300d-2M.vec",
        )
        or p.default
    )


def widgets(params: Sequence[Param], where=None, context: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One widget per parameter; returns validated values (bad typed input: a sentence and the default).
    ``where`` is one container for all, or a list with one container per parameter. ``context``:
    the page's other values, by which a slider that plays no part there is drawn disabled
    (:func:`dpviz.params.applies`)."""
    where = where or st.sidebar
    places = list(where) if isinstance(where, (list, tuple)) else [where] * len(params)
    hosted = registry.hosted_mode()
    values: dict[str, Any] = {}
    for p, where in zip(params, places):
        raw = _widget(p, where, context)
        try:
            values[p.name] = parse_value(p, raw)
            check_hosted_cap(p, values[p.name], hosted)
        except ParamError as err:
            where.error(f"{err} Using the default, {format_value(p, p.default)}.")
            values[p.name] = p.default
    return values


def settings(params: Sequence[Param]) -> list[Param]:
    """The parameters drawn with the page's other settings: all but the live sliders."""
    return [p for p in params if not p.slider]


def _kept(p: Param, up) -> tuple[str, str | None, str | None]:
    """The file ``up`` kept under the cache directory and, if the parameter declares a check, its
    outcome: (reference, describing sentence, refusal). Done once per file a visitor gives (the
    session remembers it by the file's id), not on every rerun; a refused file is deleted."""

    saved = st.session_state.get(f"_{p.name}_saved")
    if saved is None or saved[0] != up.file_id:
        ref, sentence, refusal = uploads.save_upload(up.getvalue(), up.name), None, None
        if p.upload.check:
            try:
                sentence = resolve(p.upload.check)(ref)
            except InputError as err:
                refusal = str(err)
                uploads.upload_path(ref).unlink(missing_ok=True)
        saved = (up.file_id, ref, sentence, refusal)
        st.session_state[f"_{p.name}_saved"] = saved
    return saved[1:]


def _upload(p: Param, where, label: str, helptext: str) -> str:
    """A file box for an ``upload`` parameter. A file given here is kept under the cache directory
    (:func:`_kept`) and the parameter's value becomes its reference ``upload:NAME``; without one,
    the value a link brought (or the default) stays. Removing the file clears the value."""
    up = where.file_uploader(label, type=list(p.upload.suffixes), key=f"_{p.name}_file", help=helptext)
    if up is not None:
        st.session_state[p.name] = _kept(p, up)[0]
    elif st.session_state.pop(f"_{p.name}_saved", None) is not None:  # the visitor removed the file
        st.session_state[p.name] = p.default
    value = st.session_state.get(p.name, p.default)
    if value and up is None:
        where.caption(f"Using {_option_label(p, value)}.")
    return value


def _upload_box(p: Param, where) -> None:
    """A parameter's own upload box (``Upload.title``): a file is kept and checked (:func:`_kept`),
    its sentence or its refusal shown, and put into the parameter by the ``use`` button."""
    spec = p.upload
    with where.expander(spec.title, expanded=False):
        if spec.caption:
            st.caption(spec.caption)
        up = st.file_uploader(f"{p.label} file", type=list(spec.suffixes), key=f"_{p.name}_upload")
        if up is None:
            return
        ref, sentence, refusal = _kept(p, up)
        if refusal is not None:
            st.error(refusal)
            return
        st.success(sentence or f"Received {up.name}.")
        if st.button(spec.use, key=f"_{p.name}_use_upload"):
            st.session_state[p.name] = ref
            st.rerun()
