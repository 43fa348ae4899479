"""The cases the browser's chart script (``webui/live_js/``) is tested on by ``node --test``, made by
the Python that the server and the exported images use, so that the two cannot drift:

- ``frames.json``: frames documents as the server sends them (:meth:`dpviz.frames.Frames.encoded`,
  base64) and every frame :func:`dpviz.frames.decode` reads back from each: ``frames.test.mjs``
  decodes the same bytes in JavaScript and must get the same numbers, exactly;
- ``text_fit.json``: layouts, widths and legends with :func:`dpviz.text_fit.fit_layout`'s answer
  under a fixed width rule (0.6 em a character, the rule both sides use without a font):
  ``text_fit.test.mjs`` runs ``fitLayout`` on each and must get the same texts, margins, ticks,
  notes and legend.

``python tests/js/make_cases.py`` writes them; ``tests/core/test_js_cases.py`` fails when the
committed files are not what the Python makes now.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dpviz import frames, text_fit  # noqa: E402

HERE = Path(__file__).resolve().parent / "cases"


def _trace(name, x, y, **more):
    return {"type": "scatter", "name": name, "x": x, "y": y, **more}


def frames_cases() -> list[dict]:
    """Frames along a slider that exercise every part of the encoding: typed arrays (and lists too
    short for one), a trace's keys changed and dropped, the layout's keys changed and dropped, a
    frame with another number of traces, NaN and numbers that need every bit of a float64."""
    xs = [0.1 * k for k in range(7)]
    base_layout = {"title": {"text": "ε = 1"}, "xaxis": {"title": {"text": "x"}}, "meta": {"seed": 3}}
    figs = [
        {"data": [_trace("a", xs, [1 / 3 + k for k in range(7)]), _trace("b", [1, 2], [3, 4])], "layout": base_layout},
        {
            "data": [_trace("a", xs, [2 / 3 * k for k in range(7)], mode="lines"), _trace("b", [1, 2], [3, 5])],
            "layout": {**base_layout, "title": {"text": "ε = 2"}},
        },
        {
            "data": [_trace("a", xs, [float("nan"), 1e-300, 1e300, -0.0, 5e-324, 1.0000000000000002, 7.0])],
            "layout": {"title": {"text": "ε = 5"}, "xaxis": {"title": {"text": "x"}}},
        },
        {
            "data": [
                {
                    "type": "bar",
                    "name": "a",
                    "x": ["u", "v", "w", "z"],
                    "y": [1, 2, 3, 4],
                    "marker": {"color": [1, 2, 3, 4.5]},
                },
                _trace("b", [1, 2], [3, 4], error_y={"array": [0.1, 0.2, 0.3, 0.4]}),
            ],
            "layout": {**base_layout, "annotations": [{"text": "note", "x": 1, "y": 2}]},
        },
    ]
    typed = tuple(frames.typed_arrays(f) for f in figs)
    made = frames.Frames("demo", "epsilon", "ε", (1.0, 2.0, 5.0, 10.0), typed)
    blob = made.encoded()
    doc = frames.decode(blob)
    return [
        {
            "name": "every part of the encoding",
            "message": base64.b64encode(b"F" + b"demo-key\n" + blob).decode("ascii"),
            "key": "demo-key",
            "grid": doc["grid"],
            "frames": [_plain(f) for f in doc["frames"]],
        }
    ]


def _plain(x):
    """Typed arrays as lists of numbers (NaN as the string "NaN": JSON has none)."""
    if isinstance(x, dict) and "bdata" in x and "dtype" in x:
        return [_number(v) for v in frames._plain(x)]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_plain(v) for v in x]
    return _number(x)


def _number(v):
    if isinstance(v, float) and v != v:
        return "NaN"
    if isinstance(v, float) and v == 0 and str(v).startswith("-"):
        return "-0"
    return v


MARGIN = {"l": 70, "r": 30, "t": 60, "b": 60}
LONG = "At n = 64 and ε = 1, one release of the clipped vector exceeds the claimed bound with probability 29.77%"


def text_fit_inputs() -> list[dict]:
    """Charts at the widths an exported image or a screen draws them (560 px and more: the
    phone's stacking of side-by-side panels is the browser's alone)."""
    legend_traces = [{"name": f"a fairly long legend entry number {k}"} for k in range(4)]
    ticks = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]
    labels = ["1", "2", "5", "10", "20", "50", "100", "200", "500", "1,000", "2,000", "5,000", "10,000"]
    two_panels = {
        "xaxis": {"domain": [0, 0.45], "title": {"text": "dimension n of the clipped vectors"}},
        "xaxis2": {"domain": [0.55, 1], "anchor": "y2", "title": {"text": "privacy parameter ε (log scale)"}},
        "yaxis": {"domain": [0, 1]},
        "yaxis2": {"domain": [0, 1], "anchor": "x2"},
        "annotations": [
            {
                "text": "L1 against L2 sensitivity as the dimension grows",
                "x": 0.225,
                "y": 1.0,
                "xref": "paper",
                "yref": "paper",
                "showarrow": False,
            },
            {
                "text": "share of neighbouring pairs that break the bound",
                "x": 0.775,
                "y": 1.0,
                "xref": "paper",
                "yref": "paper",
                "showarrow": False,
            },
        ],
    }
    cases = [
        ("a short title that fits", {"title": {"text": "Short"}}, 900, None),
        ("a long title wraps", {"title": {"text": LONG, "font": {"size": 17}}}, 600, None),
        (
            "a title with a settings line",
            {"title": {"text": LONG + "<br><sup>seed 0 · n = 64 · ε = 1 · 10,000 draws of the mechanism</sup>"}},
            700,
            None,
        ),
        ("a long x title wraps and the bottom grows", {"xaxis": {"title": {"text": LONG}}}, 640, None),
        ("an x title on top", {"title": {"text": "T"}, "xaxis": {"side": "top", "title": {"text": LONG}}}, 700, None),
        ("subplot titles under a title", {"title": {"text": LONG}, **two_panels}, 760, None),
        (
            "a word wider than its panel",
            {
                "title": {"text": "T"},
                **two_panels,
                "annotations": [
                    {
                        "text": "Supercalifragilisticexpialidociously",
                        "x": 0.225,
                        "y": 1.0,
                        "xref": "paper",
                        "yref": "paper",
                        "showarrow": False,
                    }
                ],
            },
            600,
            None,
        ),
        (
            "a legend under the plot",
            {"title": {"text": "T"}, "legend": {"orientation": "h", "y": -0.2}},
            1200,
            legend_traces,
        ),
        (
            "a wide legend beside the plot of a column",
            {"title": {"text": "T"}},
            600,
            legend_traces,
        ),
        (
            "a legend beside the plot that fits",
            {"title": {"text": "T"}},
            1200,
            legend_traces,
        ),
        (
            "a crowded legend inside the plot",
            {"title": {"text": "T"}, "legend": {"x": 0.6, "y": 0.9}},
            700,
            legend_traces,
        ),
        (
            "log ticks thinned",
            {"title": {"text": "T"}, "xaxis": {"domain": [0, 0.3], "tickvals": ticks, "ticktext": labels}},
            700,
            None,
        ),
        (
            "y ticks thinned in a short plot",
            {"title": {"text": "T"}, "height": 260, "yaxis": {"tickvals": ticks, "ticktext": labels}},
            700,
            None,
        ),
        (
            "a y title longer than its plot",
            {"title": {"text": "T"}, "height": 300, "yaxis": {"title": {"text": LONG}}},
            700,
            None,
        ),
        (
            "a plot left too short grows",
            {"title": {"text": LONG + " " + LONG, "font": {"size": 24}}, "height": 200},
            600,
            None,
        ),
        ("nothing to fit", {}, 800, None),
    ]
    out = []
    for name, layout, width, traces in cases:
        layout = {"font": {"size": 14, "family": "sans-serif"}, "margin": dict(MARGIN), **layout}
        out.append({"name": name, "layout": layout, "width": width, "traces": traces})
    return out


def text_fit_cases() -> list[dict]:
    """Each input with ``fit_layout``'s answer, measured at 0.6 em a character."""
    with mock.patch.object(text_fit, "_font", lambda px: None):
        return [
            {
                **case,
                "height": case["layout"].get("height"),
                "fitted": text_fit.fit_layout(case["layout"], case["width"], None, case["traces"]),
            }
            for case in text_fit_inputs()
        ]


def write() -> list[Path]:
    """Write both cases files; their paths."""
    HERE.mkdir(exist_ok=True)
    written = []
    for name, made in (("frames.json", frames_cases()), ("text_fit.json", text_fit_cases())):
        path = HERE / name
        path.write_text(json.dumps(made, indent=1, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write():
        print(f"wrote {p.relative_to(ROOT)}")
