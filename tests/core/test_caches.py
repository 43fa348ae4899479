"""Every in-process cache is declared in dpviz/caches.py with its bounds, and read in one place."""

import re
from pathlib import Path

import numpy as np
import pytest

from dpviz import caches, syntax

ROOT = Path(__file__).resolve().parents[2]


def test_no_cache_is_kept_off_the_books():
    """ProcessMemo is constructed only by the registry of caches; no module keeps its own dict memo."""
    for path in [*(ROOT / "dpviz").rglob("*.py"), *(ROOT / "webui").rglob("*.py")]:
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text()
        if rel not in ("dpviz/memo.py", "dpviz/caches.py"):
            assert not re.search(r"ProcessMemo\(", text), f"{rel} builds its own ProcessMemo"
            assert "OrderedDict()" not in text, f"{rel} keeps an ad-hoc OrderedDict cache"
    for name in re.findall(
        r'caches\.memo\("([\w.]+)"\)', "".join(p.read_text() for p in (ROOT / "dpviz").rglob("*.py"))
    ):
        assert name in {b.name for b in caches.BUDGETS}


def test_every_cache_is_bounded_by_entries_and_bytes():
    for b in caches.BUDGETS:
        assert b.maxsize >= 1 and b.max_bytes, b.name
        m = caches.memo(b.name)
        assert m.max_bytes is not None and m.max_bytes > 0 and m.maxsize == b.maxsize
    total = sum(b.max_bytes for b in caches.BUDGETS if not callable(b.max_bytes))
    assert total <= 4 * 2**30  # what a process may hold in these caches, besides the embeddings' own budget


def test_an_undeclared_cache_is_refused():
    with pytest.raises(KeyError, match="no cache 'nope' is declared"):
        caches.memo("nope")


def test_memory_is_read_in_one_place():
    m = caches.memo("web.panels")
    m.get(("test", 1), lambda: np.zeros(1000))
    row = caches.report().set_index("cache").loc["web.panels"]
    assert row["entries"] >= 1 and row["bytes"] >= 8000 and row["max_bytes"] == 64 * 2**20
    m.discard(("test", 1))


def test_a_cache_can_start_over():
    old = caches.memo("metric.knn")
    old.get("k", lambda: 1)
    new = caches.fresh("metric.knn")
    assert new is not old and new.keys() == [] and caches.memo("metric.knn") is new
    with pytest.raises(KeyError):
        caches.fresh("nope")


def test_the_cache_declarations_import_no_module_that_uses_a_cache():
    """dpviz.caches is imported by the modules whose caches it declares (embeddings, papers,
    frontier, web views): it may itself import only the leaf modules storage and memo, or the two
    would import each other (once caches <-> data.embeddings, for the embeddings' memory budget)."""
    import ast
    from pathlib import Path

    import dpviz.caches

    tree = syntax.parse(Path(dpviz.caches.__file__).read_text())
    imported = {
        (node.module or "") + ("." + a.name if isinstance(node, ast.ImportFrom) else "")
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for a in node.names
        if (getattr(node, "module", None) or a.name).startswith("dpviz")
    }
    assert imported == {"dpviz.storage", "dpviz.memo.ProcessMemo"}


def test_a_cached_table_is_keyed_by_the_code_that_made_it(tmp_path, monkeypatch):
    """An update that changes a figure's code changes every table's and frame's key: a cache
    directory from before is not served (the version number alone does not change)."""
    from dpviz import tables

    src = tmp_path / "pkg"
    (src / "papers").mkdir(parents=True)
    (src / "a.py").write_text("x = 1\n")
    (src / "papers" / "b.py").write_text("y = 2\n")
    (src / "notes.txt").write_text("not code\n")
    first = tables.source_fingerprint(src)
    (src / "notes.txt").write_text("changed, still not code\n")
    (src / "papers" / "__pycache__").mkdir()
    (src / "papers" / "__pycache__" / "b.cpython-311.pyc").write_bytes(b"\0compiled")
    assert tables.source_fingerprint(src) == first
    (src / "papers" / "b.py").write_text("y = 3\n")
    changed = tables.source_fingerprint(src)
    assert changed != first
    (src / "papers" / "b.py").rename(src / "b.py")  # the same bytes under another name
    assert tables.source_fingerprint(src) not in (first, changed)

    key = tables.cache_key("adept-epsilon", {"epsilon": "1"})
    monkeypatch.setattr(tables, "code_fingerprint", lambda: "another-build")
    assert tables.cache_key("adept-epsilon", {"epsilon": "1"}) != key
