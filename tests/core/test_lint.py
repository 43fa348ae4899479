"""House rules run with the tests: ruff's linter and formatter (pyproject.toml) and every doctest
in the library (the closed forms' examples)."""

import doctest
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import dpviz
from dpviz import syntax

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]])
def test_ruff(command):
    out = subprocess.run([sys.executable, "-m", "ruff", *command], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def _modules():
    for info in pkgutil.walk_packages(dpviz.__path__, "dpviz."):
        if info.name != "dpviz.__main__":
            yield info.name


def test_doctests():
    tried = 0
    for name in _modules():
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, name
        tried += result.attempted
    assert tried >= 15  # the closed forms keep their examples


def test_the_library_never_points_outside_the_repository():
    """No relative path in the code or the docs climbs out of the repository (the project stands alone)."""
    leaving = re.compile(r"\.\./[A-Za-z_]")
    files = [
        *ROOT.glob("dpviz/**/*.py"),
        *ROOT.glob("webui/*.py"),
        *ROOT.glob("pages/*.py"),
        *ROOT.glob("docs/**/*.md"),
    ]
    for path in [*files, ROOT / "README.md", ROOT / "app.py"]:
        assert not leaving.search(path.read_text()), path


ROOTS = ("dpviz", "webui", "numpy", "pandas")


def _resolve(dotted: str):
    """The object a dotted name names: the longest importable module prefix, then attributes
    (a dataclass field counts as an attribute of its class)."""
    import dataclasses

    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if dataclasses.is_dataclass(obj) and attr in {f.name for f in dataclasses.fields(obj)}:
                return obj
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def test_the_design_document_names_what_exists():
    """Every dotted name docs/design.md cites in backticks resolves, and every path it cites exists."""
    text = (ROOT / "docs" / "design.md").read_text()
    names, paths = set(), set()
    for token in re.findall(r"`([^`\n]+)`", text):
        head = token.split("(", 1)[0].strip()
        if re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", head) and head.split(".")[0] in ROOTS:
            names.add(head)
        elif re.fullmatch(r"[\w.-]+(/[\w.-]+)+/?", head) and not head.startswith("python"):
            paths.add(head)
    assert len(names) >= 15 and len(paths) >= 10  # the document keeps citing the code
    for name in sorted(names):
        try:
            _resolve(name)
        except (ImportError, AttributeError) as err:
            pytest.fail(f"docs/design.md cites {name}, which does not exist ({err})")
    for path in sorted(paths):
        assert (ROOT / path).exists() or _generated(path), f"docs/design.md cites {path}, which does not exist"


def _generated(path: str) -> bool:
    """Whether ``path`` is a folder or file the app makes (``static/frames/`` once a build or a
    server has drawn frames), named in its folder's own .gitignore: a fresh clone has none yet,
    and the check passed only where an earlier test had made it."""
    where = (ROOT / path.rstrip("/")).parent / ".gitignore"
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return where.is_file() and any(line.strip() in (name, name + "/") for line in where.read_text().splitlines())


def test_tests_mirror_the_package_and_share_only_through_conftest():
    """Tests live per package (core, papers/<key>, auditing, web, browser); no test module imports
    another test module (fixtures come from tests/conftest.py, helpers from tests/*_support.py and
    tests/paper_pages.py); no code outside tests imports a test module."""
    tests = ROOT / "tests"
    assert not list(tests.glob("test_*.py")), "a test module at the top of tests/: put it beside its package's tests"
    for key in (p.name for p in (ROOT / "dpviz" / "papers").iterdir() if (p / "__init__.py").exists()):
        assert list((tests / "papers" / key).glob("test_*.py")), f"no tests/papers/{key}/"
    for path in [*tests.rglob("*.py"), *(ROOT / "benchmarks").glob("*.py")]:
        text = path.read_text()
        bad = re.findall(r"^\s*(?:from|import) (?:tests\.)?(test_\w+)", text, flags=re.M)
        assert not bad, f"{path.relative_to(ROOT)} imports the test module {bad[0]}"


def test_pages_catch_input_errors_not_value_errors():
    """docs/design.md: input dpviz refuses is an InputError; catching ValueError around what a
    visitor sees would turn a numpy or pandas bug into "cannot be drawn with these settings"."""
    for path in [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "webui").rglob("*.py")]:
        text = path.read_text()
        assert not re.search(r"except\s*\(?[^:\n]*\bValueError\b", text), f"{path.relative_to(ROOT)} catches ValueError"


def _import_graph() -> dict[str, set[str]]:
    """Module -> the project's modules it imports (at the top or inside a function; type-only
    imports too), over dpviz/, webui/ and serving/, read from the source."""
    import ast

    mods = {}
    for pkg in ("dpviz", "webui", "serving"):
        for path in (ROOT / pkg).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            mods[name] = path

    def module_of(dotted: str) -> str | None:
        while dotted and dotted not in mods:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        for node in ast.walk(syntax.parse(path.read_text())):
            if isinstance(node, ast.Import):
                named = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                named = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            for target in filter(None, map(module_of, named)):
                if target != m and not m.startswith(target + "."):  # (a package's own modules import it)
                    edges[m].add(target)
    return edges


def _circles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The groups of modules that reach each other (strongly connected, more than one module)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(group)

    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_the_import_graph_has_no_circle():
    """No module reaches itself through the project's imports (docs/design.md: imports point down;
    the papers' own targets and frontiers are read by name, dpviz.declarations.PerPaper)."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]  # the reading itself
    assert [sorted(g) for g in _circles(_import_graph())] == []


def test_targets_frontier_auditing_and_declarations_name_no_paper():
    """A paper declares its targets, frontier and audit examples in its own folder: the modules
    that read them hold no paper's key (quoted, or as a module ``dpviz.papers.<key>``)."""
    from dpviz import papers

    keys = [p.key for p in papers.all_papers()]
    files = [ROOT / "dpviz" / name for name in ("targets.py", "frontier.py", "declarations.py")]
    files += sorted((ROOT / "dpviz" / "auditing").glob("*.py"))
    assert len(files) > 5
    for path in files:
        text = path.read_text()
        named = [k for k in keys if f'"{k}"' in text or f"'{k}'" in text or f"papers.{k}" in text]
        assert not named, f"{path.name} names {named}"


def test_operations_sit_above_the_science_and_the_page():
    """serving/ (supervisord, HAProxy) may use dpviz/ and webui/; neither imports it, and dpviz/
    neither imports webui/ nor starts one of its modules (``python -m webui...``). (A declaration
    naming its panel's view, ``view="webui.panels...:show"``, is data the page resolves, by design.)"""
    edges = _import_graph()
    up = sorted(
        f"{m} -> {t}" for m, ts in edges.items() for t in ts if not m.startswith("serving") and t.startswith("serving")
    )
    assert not up
    assert not sorted(
        f"{m} -> {t}" for m, ts in edges.items() for t in ts if m.startswith("dpviz") and t.startswith("webui")
    )
    started = [p for p in (ROOT / "dpviz").rglob("*.py") if re.search(r"""["' ]-m["', ]+ *["']?webui""", p.read_text())]
    assert not started, started


def test_no_webui_module_is_over_300_lines():
    """docs/design.md: the page's modules stay small (split by concern past 300 lines)."""
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "webui").rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 300
    }
    assert not long, long


def test_benchmarks_import_dpviz_as_installed_not_through_the_path():
    """The benchmarks import dpviz as installed (``pip install -e .`` in scripts/test.sh and
    start.sh); only benchmarks/from_tests.py puts a folder on the path (tests/, for the helpers they
    share with the tests), and every benchmark using such a helper imports it first."""
    helpers = {p.stem for p in (ROOT / "tests").glob("*.py") if not p.name.startswith(("test_", "conftest"))}
    assert {"browser_support", "class_support"} <= helpers
    for path in sorted((ROOT / "benchmarks").glob("*.py")):
        text = path.read_text()
        if path.name != "from_tests.py":
            assert "sys.path" not in text, f"{path.name} edits sys.path"
        used = re.findall(rf"^\s*(?:from|import) ({'|'.join(sorted(helpers))})\b", text, flags=re.M)
        if used:
            first = re.search(r"^import from_tests\b", text, flags=re.M)
            helper = re.search(rf"^\s*(?:from|import) (?:{'|'.join(sorted(helpers))})\b", text, flags=re.M)
            assert first and first.start() < helper.start(), f"{path.name} uses {used[0]} before from_tests"


def _unexplained_function_imports(source: str) -> list[int]:
    """Lines of imports of the project's modules made inside a function whose block of adjacent
    imports carries no comment (docs/design.md: such an import is kept only where it buys start-up
    time, and says so)."""
    import ast

    lines = source.splitlines()
    tree = syntax.parse(source)
    bad = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else ["."]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            if not any(n == "." or n.split(".")[0] in ("dpviz", "webui", "serving") for n in names):
                continue
            start = end = node.lineno  # the block: this import and the import lines next to it
            while start > 1 and lines[start - 2].strip().startswith(("from ", "import ", "#")):
                start -= 1
            while end < len(lines) and lines[end].strip().startswith(("from ", "import ")):
                end += 1
            if not any("#" in line for line in lines[start - 1 : end]):
                bad.append(node.lineno)
    return bad


def test_function_level_imports_of_the_project_say_why():
    """An import of dpviz, webui or serving inside a function is there only to keep a start light
    (the command line, ``import dpviz``, the frame workers, the load clients), said in a comment;
    any other belongs at the top of the module."""
    said = "def f():\n    from dpviz import registry  # (lazy: 0.3 s)\n    import json\n"
    unsaid = "def f():\n    import json\n\n    from dpviz import registry\n"
    assert _unexplained_function_imports(said) == [] and _unexplained_function_imports(unsaid) == [4]
    for pkg in ("dpviz", "webui", "serving"):
        for path in (ROOT / pkg).rglob("*.py"):
            bad = _unexplained_function_imports(path.read_text())
            assert not bad, (
                f"{path.relative_to(ROOT)}:{bad[0]} imports a project module in a function without saying why"
            )
