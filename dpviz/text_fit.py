"""A chart's texts fitted to the width it is drawn at: long titles, subplot titles and x-axis
titles wrapped onto more lines (Plotly never wraps text; a title longer than the chart is cut at
its edge); the title set at the top of the chart, its lines downwards, and the top margin made
room for it and the subplot titles under it; the bottom margin grown by an x title's added lines.

The same rules run in the browser for the width a chart gets on screen (``fitLayout`` in
``webui/live_js/text_fit.js``, measuring with the canvas) and here for an exported image, whose width is
fixed (``dpviz.export.image_bytes``, measuring with DejaVu Sans, the charts' font, through Pillow;
0.6 em a character where that font is missing). Words stay whole; a line of Plotly markup that is
wholly one tag (``<sup>…</sup>``, the settings line of :func:`dpviz.theme.two_line_title`) is
wrapped inside the tag, at the tag's size (``<sup>`` is 0.7 of the font).
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from typing import Any

LINE = 1.3
"""Line height in font sizes, for the room a line of text takes."""
TITLE_PAD = 8
GAP = 12
"""Pixels above the title, and between the texts above the plot and the plot."""
SMALL_TAGS = {"sup": 0.7, "sub": 0.7, "small": 0.8}
FONT_FILE = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
_TAG = re.compile(r"<[^>]+>")
_WHOLE = re.compile(r"^<(\w+)>(.*)</\1>$", re.S)


@lru_cache(maxsize=8)
def _font(px: int):
    try:
        from PIL import ImageFont

        return ImageFont.truetype(FONT_FILE, px)
    except (OSError, ImportError):
        return None


def text_width(text: str, px: float) -> float:
    """The drawn width of ``text`` (markup removed) at ``px`` pixels."""
    plain = _TAG.sub("", text)
    font = _font(max(1, round(px)))
    return font.getlength(plain) * px / round(px) if font else 0.6 * px * len(plain)


def _wrap_words(text: str, px: float, room: float) -> list[str]:
    lines, line = [], ""
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if line and text_width(trial, px) > room:
            lines.append(line)
            line = word
        else:
            line = trial
    lines.append(line)
    return lines


def wrap(text: str, px: float, room: float) -> str:
    """``text`` (Plotly markup, lines split by ``<br>``) with every line longer than ``room``
    pixels at ``px`` broken between words."""
    out = []
    for line in re.split(r"<br\s*/?>", text):
        whole = _WHOLE.match(line)
        if whole and whole.group(1) in SMALL_TAGS:
            tag, inner = whole.groups()
            out += [f"<{tag}>{part}</{tag}>" for part in _wrap_words(inner, px * SMALL_TAGS[tag], room)]
        else:
            out += _wrap_words(line, px, room)
    return "<br>".join(out)


def _lines(text: str) -> int:
    return len(re.split(r"<br\s*/?>", text))


def _block_height(text: str, px: float) -> float:
    """The height of ``text``'s lines at ``px``: Plotly spaces every line by the text's font size,
    a line in small type too."""
    return _lines(text) * px * LINE


def _title(obj: Any) -> tuple[str, float | None]:
    """(text, font size or None) of a layout title, given as a string or a dict."""
    if isinstance(obj, str):
        return obj, None
    if isinstance(obj, dict):
        return str(obj.get("text") or ""), (obj.get("font") or {}).get("size")
    return "", None


def _set_title(layout: dict, key: str, text: str) -> None:
    if isinstance(layout.get(key), dict):
        layout[key] = {**layout[key], "text": text}
    else:
        layout[key] = {"text": text}


MIN_PLOT = 120
"""The least height left to the plot: the chart grows rather than Plotly failing on a plot of none."""
NARROW = 560
"""Below this width a legend beside the plot moves under it (it would take half a phone's width)."""
BESIDE_SHARE = 0.4
"""A legend beside the plot whose widest entry takes more of the chart's width than this moves
under it, at any width (the budget page's column of 597 px: the accountants' legend beside the
plot left the plot a third of the chart)."""


def _legend_entries(traces) -> list[str]:
    names, seen = [], set()
    for t in traces or []:
        name = t.get("name")
        group = t.get("legendgroup") or name
        if name and t.get("showlegend", True) is not False and (group, name) not in seen:
            seen.add((group, name))
            names.append(str(name))
    return names


ROW_PAD = 13
"""What a legend row takes beyond its text's line (px x 1.3), as Plotly draws a row of a
line-and-marker entry (31 px a row at 14-px type, measured in an image); the same in
webui/live_js/text_fit.js. A legend under the plot is given this much room and no more."""


def _legend_height(names: list[str], px: float, room: float, horizontal: bool, row_pad: float = ROW_PAD) -> float:
    """The height a legend of ``names`` takes: entries packed into rows of ``room`` pixels
    (horizontal) or one a row, each row ``px`` x 1.3 + ``row_pad`` high, plus its border's padding."""
    if not names:
        return 0.0
    rows, used = 1, 0.0
    for name in names:
        w = text_width(name, px) + 60  # the symbol, its gap and the entry's padding
        if horizontal and used and used + w > room:
            rows, used = rows + 1, 0.0
        elif not horizontal and used:
            rows += 1
        used += w
    return rows * (px * LINE + row_pad) + 10


def _categories(x) -> list[str]:
    """A trace's x values if they are categories (strings), else none."""
    if x is None or isinstance(x, dict) or not len(x) or not isinstance(x[0], str):
        return []
    return [str(c) for c in x]


def _decade(label: str) -> bool:
    """A power of ten as :func:`dpviz.theme.log_ticks` labels it: 0.01, 1, 1,000 or 10<sup>k</sup>."""
    return bool(re.fullmatch(r"0\.0*1|1(,?0)*|10<sup>[-−]?\d+</sup>", str(label)))


def _thinned(axis: dict, need: float, span: float) -> dict:
    """The axis with every k-th of its labelled ticks, k the least that gives each label ``need``
    pixels of the axis's ``span`` (a log axis in a narrow subplot); the ticks keep their places."""
    labels, values = list(axis["ticktext"]), list(axis["tickvals"])
    k = int(-(-need * len(labels) // max(span, 1)))
    if k <= 1:
        return axis
    # the offset that keeps the most powers of ten (labels 1, 10, 0.1, 10^k) of a 1-2-5 log axis
    offset = max(range(k), key=lambda o: (sum(_decade(labels[i]) for i in range(o, len(labels), k)), -o))
    keep = range(offset, len(labels), k)
    return {**axis, "tickvals": [values[i] for i in keep], "ticktext": [labels[i] for i in keep]}


def fit_names(traces: list[dict], width: float, px: float) -> list[dict]:
    """The traces with legend names longer than the chart's width (less the legend's symbol and
    padding) wrapped; the others as they are."""
    room = width - 66
    return [
        {**t, "name": wrap(str(t["name"]), px, room)} if t.get("name") and text_width(str(t["name"]), px) > room else t
        for t in traces
    ]


def fit_layout(layout: dict, width: float, defaults: dict | None = None, traces=None) -> dict:
    """A copy of the Plotly ``layout`` dict fitted to ``width`` pixels (see the module docstring).
    ``defaults`` is the template's layout (font size, title size, margins) where ``layout`` does
    not set them; ``traces`` (the figure's data, as dicts) name the legend's entries.
    A legend under the plot gets the bottom margin its rows need at this width, less than the
    figure's own where that is larger: a figure sized its margin for a narrow column (the
    frontiers: one legend row an entry), which left an empty band under the legend of a wide
    chart. Here the chart is shorter by as much (an image's height is its layout's); on the page,
    whose element keeps its height, the plot is taller (webui/live_js/text_fit.js, the same rule)."""
    defaults = defaults or {}
    out = copy.deepcopy(layout)
    base = ((out.get("font") or {}).get("size")) or ((defaults.get("font") or {}).get("size")) or 14
    margin = {**(defaults.get("margin") or {}), **(out.get("margin") or {})}
    left, right = margin.get("l", 80), margin.get("r", 80)
    plot = max(width - left - right, 50)
    margin_top0 = margin.get("t", 100)
    added_bottom = above = 0.0

    text, size = _title(out.get("title"))
    title_height = 0.0
    if text:
        size = size or ((defaults.get("title") or {}).get("font") or {}).get("size") or base * 1.2
        fitted = wrap(text, size, width - 0.02 * width - 10)
        title_height = _block_height(fitted, size)
        _set_title(out, "title", fitted)
        # the title's first line at the top of the chart, its lines downwards (Plotly centres a
        # title in the top margin, so that added lines would run into the plot; its "top" anchor
        # is the first line's baseline, hence the line's size in the pad)
        out["title"].update(yref="container", y=1, yanchor="top", pad={"t": TITLE_PAD + size})

    domains = {}
    for key, axis in list(out.items()):
        if not (key.startswith("xaxis") and isinstance(axis, dict)):
            continue
        lo, hi = axis.get("domain") or (0, 1)
        domains[key] = (lo, hi)
        text, size = _title(axis.get("title"))
        if text:
            size = size or base
            fitted = wrap(text, size, 0.9 * (hi - lo) * plot)  # y tick labels may widen the margin
            if axis.get("side") == "top":  # above the plot, with its tick labels, under the title
                above = max(above, _block_height(fitted, size) + base * LINE + 8)
            if fitted != text:  # an x title below its plot: the bottom margin grows
                if axis.get("side") != "top":
                    added_bottom = max(added_bottom, (_lines(fitted) - _lines(text)) * size * LINE)
                _set_title(axis := dict(axis), "title", fitted)
                out[key] = axis

    height = out.get("height") or (defaults.get("height")) or 450
    plot_height = max(height - margin.get("t", 100) - margin.get("b", 80), 50)
    for key, axis in list(out.items()):
        if not (key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict)):
            continue
        lo, hi = axis.get("domain") or (0, 1)
        span = (hi - lo) * (plot if key.startswith("x") else plot_height)
        labels = axis.get("ticktext")
        if key.startswith("x") and labels and axis.get("tickvals") is not None and len(labels) > 2:
            # every k-th labelled tick where the labels would not fit side by side (a log axis
            # in a narrow subplot); the ticks keep their places
            need = max(text_width(str(t), (axis.get("tickfont") or {}).get("size") or base) for t in labels) + 10
            out[key] = _thinned(axis, need, span)
        elif key.startswith("x") and width < NARROW and span < 300 and not axis.get("tickvals"):
            out[key] = {**axis, "nticks": max(3, int(span // 90))}
            # category labels (a bar chart's) wider than their share of the axis
            ref = "x" + key[5:]
            cats = {str(c) for t in traces or [] if (t.get("xaxis") or "x") == ref for c in _categories(t.get("x"))}
            size = (axis.get("tickfont") or {}).get("size") or base
            widest = max((text_width(p, size) for c in cats for p in re.split(r"<br\s*/?>", c)), default=0.0)
            # where the figure keeps them level (Plotly turns crowded labels itself otherwise), left
            # out, as on the page: smaller type still met, and turning two-line labels made Plotly
            # place a text at y = -Infinity
            fixed = axis.get("tickangle") not in (None, "auto")
            if cats and fixed and widest * len(cats) > 0.9 * span:
                out[key]["showticklabels"] = False
    if width < NARROW:
        # side by side panels whose y axes are untitled: a little room between one's last tick
        # label and the next one's first
        for key, axis in list(out.items()):
            if not (key.startswith("xaxis") and isinstance(axis, dict) and axis.get("domain")):
                continue
            lo, hi = axis["domain"]
            y_axis = out.get("yaxis" + (axis.get("anchor") or "y")[1:]) or {}
            if (lo > 0.001 or hi < 0.999) and not _title(y_axis.get("title"))[0]:
                out[key] = {
                    **axis,
                    "domain": [lo + (10 / plot if lo > 0.001 else 0), hi - (10 / plot if hi < 0.999 else 0)],
                }
        legend = dict(out.get("legend") or {})
        legend["font"] = {**(legend.get("font") or {}), "size": min((legend.get("font") or {}).get("size") or base, 12)}
        out["legend"] = legend

    notes, notes_height = [], 0.0
    for note in out.get("annotations") or []:
        note = dict(note)
        text = str(note.get("text") or "")
        if text and (note.get("showarrow", True) or note.get("name") == "mark") and width < NARROW:
            # a label of a point (on an arrow, or a mark beside it): straight under its point and in
            # smaller type on a phone (off to a side, it met the tick labels); beside other panels,
            # left out (the ring marks the point)
            if note.get("showarrow", True):
                note.update(ax=0, ay=28)
            else:
                note.update(xanchor="center", yanchor="top", align="center", xshift=0, yshift=-10)
            if len({d[0] for d in domains.values()}) > 1:
                note["visible"] = False
            note["font"] = {**(note.get("font") or {}), "size": 11}
        elif text and note.get("xref", "paper") == "paper" and not note.get("showarrow", True):
            size = (note.get("font") or {}).get("size") or base
            x = note.get("x", 0.5)
            spans = [hi - lo for lo, hi in domains.values() if lo - 1e-9 <= x <= hi + 1e-9] or [1.0]
            room = 0.85 * min(spans) * plot  # a gap between neighbours' titles
            longest = max(text_width(w, size) for w in _TAG.sub(" ", text).split())
            if longest > room:  # a word longer than its panel is wide: smaller type (down to 8 px)
                size = max(8.0, size * room / longest)
                note["font"] = {**(note.get("font") or {}), "size": size}
            fitted = wrap(text, size, room)
            if fitted != text:
                note["text"] = fitted
                if (note.get("y", 0) or 0) >= 1:  # lifted clear of the tick label at the plot's top
                    note["yshift"] = max(note.get("yshift", 0) or 0, 6)
            if (note.get("y", 0) or 0) >= 1:  # a subplot title above the plot, under the title
                notes_height = max(notes_height, _block_height(note["text"], size) + (note.get("yshift") or 0))
        notes.append(note)
    if notes:
        out["annotations"] = notes
    bottom = margin.get("b", 80) + round(added_bottom)
    below = None  # pixels from the plot's bottom edge to a legend moved under it
    legend = dict(out.get("legend") or {})
    names = _legend_entries(traces) if out.get("showlegend", True) is not False else []
    beside = legend.get("x", 1.02) > 1 and legend.get("y") is None
    px = (legend.get("font") or {}).get("size") or base
    widest = max((text_width(n, px) for n in names), default=0.0) + 60
    # a legend inside the plot that is wider than the room right of its x: Plotly pushes the
    # margins to fit it, and the plot shrinks to a sliver (a phone)
    crowded = (
        0 <= legend.get("x", 1.02) <= 1
        and legend.get("orientation") != "h"
        and (legend.get("x", 0) * plot + widest > plot)
    )
    shown = out.get("showlegend") is True or len(traces or []) > 1
    if (
        names
        and shown
        and (
            (legend.get("y") is not None and legend["y"] < 0 and legend.get("yref", "paper") == "paper")
            or (beside and (width < NARROW or widest > BESIDE_SHARE * width))
            or crowded
        )
    ):
        beside = beside or crowded
        # under the plot: anchored to the chart's bottom edge, the bottom margin made room for the
        # x axis (tick labels, title) and the legend's rows at this width
        horizontal = legend.get("orientation") == "h" or beside
        x = 0 if beside else legend.get("x", 0)
        legend_height = _legend_height(names, px, (1 - x) * width - 10, horizontal)
        titles = [_title(a.get("title")) for k, a in out.items() if k.startswith("xaxis") and isinstance(a, dict)]
        axis = max((_block_height(t, z or base) + 8 for t, z in titles if t), default=0.0) + base * LINE + 8
        need = round(axis + GAP + legend_height + 4)
        bottom = need
        # y in the plot's fractions, set once the margins are known (anchored to the chart's edge
        # with yref "container", Plotly pushed the margins past the chart's height)
        legend.update(yanchor="top", x=x, xanchor="left")
        below = axis + GAP / 2
        if beside:
            legend["orientation"] = "h"
        out["legend"] = legend
    top = margin.get("t", 100)
    if title_height:
        top = max(top, round(TITLE_PAD + title_height + notes_height + above + GAP))
    # y titles last, against the plot's height once the title and the legend took theirs: a y
    # title longer than its plot reaches into the title above, so it gets smaller type
    plot_height = max(height - top - bottom, 50)
    for key, axis in list(out.items()):
        if not (key.startswith("yaxis") and isinstance(axis, dict)):
            continue
        lo, hi = axis.get("domain") or (0, 1)
        if axis.get("ticktext") and axis.get("tickvals") is not None and len(axis["ticktext"]) > 2:
            need = ((axis.get("tickfont") or {}).get("size") or base) * LINE + 4
            out[key] = axis = _thinned(axis, need, (hi - lo) * plot_height)
        text, size = _title(axis.get("title"))
        room = 0.85 * (hi - lo) * plot_height  # Plotly may push the margins
        longest = max((text_width(line, size or base) for line in re.split(r"<br\s*/?>", text)), default=0.0)
        if text and longest > room:
            # smaller type, on one line (Plotly places a turned text of several lines at y = -Infinity)
            title = dict(axis["title"]) if isinstance(axis.get("title"), dict) else {"text": text}
            title["font"] = {**(title.get("font") or {}), "size": max(9.0, (size or base) * room / longest)}
            out[key] = {**axis, "title": title}
    bottom0 = margin.get("b", 80)
    if top != margin_top0 or bottom != bottom0:
        margin["t"], margin["b"] = top, bottom
        if out.get("height"):
            out["height"] = out["height"] + (top - margin_top0) + (bottom - bottom0)
        out["margin"] = margin
    if out.get("height") and out["height"] < top + bottom + MIN_PLOT:  # never a plot of nothing
        out["height"] = top + bottom + MIN_PLOT
    if below is not None:
        out["legend"]["y"] = -below / max((out.get("height") or 450) - top - bottom, 50)
    return out
