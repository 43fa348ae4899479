"""A set's head (dpviz.frames.head): its grid and height read from the start of its document, as
the whole document says them, without unpacking its frames (webui.frames_store.held)."""

import json
import zlib

import pytest

from dpviz import frames, registry
from dpviz.frames import Frames, head
from webui import frames_store


def _figure(height, n):
    return {
        "data": [{"type": "scatter", "x": list(range(n)), "y": [i * 0.5 for i in range(n)]}],
        "layout": {"height": height},
    }


@pytest.mark.parametrize("height", [540, 300.0, None])
@pytest.mark.parametrize("n", [1, 2, 97])
def test_the_head_says_what_the_whole_document_says(height, n):
    grid = tuple(float(v) for v in range(1, n + 1))
    figures = tuple(_figure(height, 3 + k % 4) for k in range(n))
    blob = Frames("fig", "epsilon", 'a label with ,"base": and "quotes"', grid, figures).encoded()
    whole = json.loads(zlib.decompress(blob))
    got = head(blob)
    assert got == {k: whole[k] for k in ("figure", "slider", "label", "grid", "height")}
    assert got["height"] == height
    kept = frames_store.held(blob)
    assert kept.grid == frozenset(grid) and kept.height == int(height or 450) and kept.blob is blob


def test_the_head_unpacks_only_the_start_of_a_large_set(monkeypatch):
    """Only the start is unpacked: of a set of a few megabytes, at most HEAD_BYTES come out of
    zlib for its head; a grid past HEAD_BYTES falls back to the whole, read right and unpacked once."""
    unpacked = []
    real = zlib.decompressobj

    class Counted:
        def __init__(self):
            self.inner = real()

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def decompress(self, data, *args):
            out = self.inner.decompress(data, *args)
            unpacked.append(len(out))
            return out

        def flush(self):
            out = self.inner.flush()
            unpacked.append(len(out))
            return out

    monkeypatch.setattr(frames.zlib, "decompressobj", Counted)
    n = 40
    figures = tuple(_figure(400, 20_000 + k) for k in range(n))  # a few MB of JSON unpacked
    blob = Frames("fig", "k", "k", tuple(range(n)), figures).encoded()
    whole = len(zlib.decompress(blob))
    assert head(blob)["grid"] == list(range(n))
    assert sum(unpacked) <= frames.HEAD_BYTES < whole
    unpacked.clear()
    long = tuple(float(v) / 7 for v in range(frames.HEAD_BYTES // 8))  # a grid longer than the start
    blob = Frames("fig", "k", "k", long, tuple(_figure(400, 2) for _ in long)).encoded()
    assert head(blob)["grid"] == list(long)
    assert sum(unpacked) == len(zlib.decompress(blob))  # (the start not unpacked a second time)


def test_a_document_without_a_head_is_read_whole():
    """A panel's HTML frames, and a set written before ``height`` came, are read whole."""
    panel = zlib.compress(json.dumps({"panel": "p", "slider": "s", "grid": [1, 2], "html": ["a", "b"]}).encode())
    assert head(panel)["html"] == ["a", "b"]
    assert frames_store.held(panel).height == 450
    old = {"figure": "f", "slider": "s", "label": "l", "grid": [1.0], "base": _figure(321, 2), "patches": [{}]}
    blob = zlib.compress(json.dumps(old, separators=(",", ":")).encode())
    assert frames_store.held(blob).height == 321 and frames_store.held(blob).grid == frozenset({1.0})


def test_a_real_charts_set_reads_its_own_height():
    spec = registry.get("hoho-live")
    values = {p.name: p.default for p in spec.params}
    slider = "lambda_"
    grid = frames_store.grid(spec, slider)[:3]
    figures = frames_store.figures_at(spec, values, slider, grid)
    blob = Frames(spec.id, slider, spec.param(slider).label, tuple(grid), figures).encoded()
    assert frames_store.held(blob).height == figures[0]["layout"]["height"]
