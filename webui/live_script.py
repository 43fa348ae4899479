"""The page's chart script, ``webui/live_js/``: ES modules by concern, put together into the one
script the page's loader element carries (:func:`bundle`, used by
:func:`webui.plotly_element.full_script`).

The modules (``MODULES``, in the order they are put together):

- ``state.js``: the tab's registries (frames by key, the charts and texts that follow sliders);
- ``frames.js``: a frames document decoded (typed arrays, a position's patch on the base);
- ``text_fit.js``: a chart's texts fitted to its width (the rules of :mod:`dpviz.text_fit`);
- ``describe.js``: the text description and data table of a drawn chart;
- ``positions.js``: where each slider is, and the figure or HTML a chart shows there;
- ``shots.js``: frames drawn ahead in idle time and shown during a drag;
- ``sliders.js``: a slider's moves followed (drags, key presses);
- ``fetch_frames.js``: frames fetched as files once computed (:mod:`webui.frames_fetch`);
- ``first_draws.js``: a page's first drawings taking turns, the charts in the window first;
- ``regions.js``: a formula wider than its column made a region the keyboard reaches;
- ``chart.js``: the element itself (its ``export default`` is the entry point).

Node runs the pure ones under ``node --test`` (``tests/js/``). Put together, the modules share one
scope: :func:`bundle` drops each ``import`` line (one line each, from ``./name.js``) and the word
``export`` before a declaration. :func:`imports_needed` reads which top-level names a module uses
from the others, and a test checks that each module imports them, so that the modules stay
modules (Node loads them apart) while the page loads them as one script.
"""

from __future__ import annotations

import re
from pathlib import Path

FOLDER = Path(__file__).with_name("live_js")
MODULES = (
    "state",
    "frames",
    "text_fit",
    "describe",
    "positions",
    "shots",
    "sliders",
    "fetch_frames",
    "first_draws",
    "regions",
    "chart",
)
ENTRY = "export default function ("

_IMPORT = re.compile(r'^import \{([^}]*)\} from "\./(\w+)\.js";$')
_DECLARED = re.compile(r"^(?:export )?(?:async )?(?:function\*? ?|const |let |class )([A-Za-z_$][\w$]*)", re.M)
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
_LOCAL = re.compile(r"\b(?:const|let|var) (\[[^\]]*\]|\{[^}]*\}|[A-Za-z_$][\w$]*)")
_NAME = re.compile(r"(?<![\w$.])[A-Za-z_$][\w$]*(?![\w$])")


def source(name: str) -> str:
    """The text of ``live_js/<name>.js``."""
    return (FOLDER / f"{name}.js").read_text(encoding="utf-8")


def declared(text: str) -> set[str]:
    """The names a module declares at its top level (``function``, ``const``, ``let``, ``class``)."""
    return set(_DECLARED.findall(text))


def imported(text: str) -> dict[str, set[str]]:
    """What a module's ``import`` lines bring, by the module they come from."""
    out: dict[str, set[str]] = {}
    for line in text.splitlines():
        m = _IMPORT.match(line.strip())
        if m:
            out.setdefault(m.group(2), set()).update(n.strip() for n in m.group(1).split(",") if n.strip())
    return out


def _code(text: str) -> str:
    """A module's code without import lines, comments and plain string literals."""
    kept = []
    for line in text.splitlines():
        if line.strip().startswith(("//", "import ")):
            continue
        line = _STRING.sub('""', line)
        kept.append(re.sub(r"\s//\s.*$", "", line))
    return "\n".join(kept)


def _locals(text: str) -> set[str]:
    """Names a module declares anywhere (``const``/``let``/``var``, destructured ones and those after
    a comma in the same declaration): a local of the same name as another module's is no import."""
    names: set[str] = set()
    for m in _LOCAL.finditer(text):
        names.update(re.findall(r"[A-Za-z_$][\w$]*", m.group(1)))
        rest = text[m.end() : text.find(";", m.end()) if ";" in text[m.end() :] else len(text)]
        names.update(re.findall(r",\s*([A-Za-z_$][\w$]*)\s*=(?!=)", rest))
    return names


def imports_needed(name: str) -> dict[str, set[str]]:
    """The other modules' top-level names that module ``name`` uses (not as a property), by module."""
    text = source(name)
    mine = declared(text) | _locals(text)
    used = set(_NAME.findall(_code(text))) - mine
    out: dict[str, set[str]] = {}
    for other in MODULES:
        if other != name:
            found = used & declared(source(other))
            if found:
                out[other] = found
    return out


def bundle() -> str:
    """Every module in ``MODULES`` order as one script: import lines dropped, ``export`` taken off
    each declaration (the entry point's ``export default`` kept)."""
    parts = []
    for name in MODULES:
        for line in source(name).splitlines():
            stripped = line.strip()
            if stripped.startswith("import "):
                assert _IMPORT.match(stripped), f"live_js/{name}.js: an import must be one line: {stripped}"
                continue
            if line.startswith("export ") and not line.startswith(ENTRY):
                line = line[len("export ") :]
            parts.append(line)
    return "\n".join(parts) + "\n"
