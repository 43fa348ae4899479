"""memo.ProcessMemo under concurrency: one computation per key, and no waiting on other keys."""

import threading

import pytest

from dpviz.memo import ProcessMemo


def test_other_keys_and_hits_do_not_wait_for_a_running_computation():
    memo = ProcessMemo()
    memo.get("cached", lambda: 1)
    started, release = threading.Event(), threading.Event()

    def slow():
        started.set()
        assert release.wait(10)
        return "slow"

    t = threading.Thread(target=lambda: memo.get("slow", slow))
    t.start()
    assert started.wait(10)
    done = []
    other = threading.Thread(
        target=lambda: done.extend([memo.get("fast", lambda: "fast"), memo.get("cached", lambda: 2)])
    )
    other.start()
    other.join(5)
    assert done == ["fast", 1]  # finished while "slow" was still computing
    release.set()
    t.join(10)
    assert memo.get("slow", lambda: "again") == "slow"


def test_one_computation_per_key_however_many_ask_at_once():
    memo = ProcessMemo()
    calls, gate = [], threading.Event()

    def compute():
        calls.append(1)
        gate.wait(5)
        return len(calls)

    results = []
    threads = [threading.Thread(target=lambda: results.append(memo.get("k", compute))) for _ in range(8)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join(10)
    assert calls == [1] and results == [1] * 8


def test_a_failed_computation_is_not_remembered_and_bounded_size():
    memo = ProcessMemo(maxsize=2)
    with pytest.raises(ZeroDivisionError):
        memo.get("bad", lambda: 1 / 0)
    assert memo.get("bad", lambda: "fixed") == "fixed"
    memo.get("a", lambda: "a")
    memo.get("b", lambda: "b")  # "bad" is the least recently used: dropped
    assert memo.get("bad", lambda: "recomputed") == "recomputed"


def test_a_frozen_memo_measures_each_entry_once_and_still_keeps_its_byte_bound(monkeypatch):
    import numpy as np

    from dpviz import memo as memo_module

    measured = []
    real = memo_module.nbytes_of

    def counted(value, _depth=0):  # an entry's measurement counted, not the calls it makes for its parts
        if _depth == 0:
            measured.append(1)
        return real(value, _depth)

    monkeypatch.setattr(memo_module, "nbytes_of", counted)
    frozen = ProcessMemo(maxsize=100, max_bytes=3 * 8000, frozen=True)
    for k in range(6):
        frozen.get(k, lambda: np.zeros(1000))  # 8,000 bytes each
    assert len(measured) == 6  # one measurement per insertion, not one per entry held
    assert frozen.keys() == [3, 4, 5] and frozen.nbytes() == 24_000
    measured.clear()
    now = [0.0]
    growing = ProcessMemo(maxsize=100, max_bytes=10**9, clock=lambda: now[0])
    for k in range(6):
        growing.get(k, lambda: np.zeros(10))
    assert len(measured) == 6  # each once: the first insertion measured all (itself), the rest themselves
    now[0] = 1.0  # a second later, the next insertion measures itself; arrays cannot grow, not again
    growing.get(6, lambda: np.zeros(10))
    assert len(measured) == 6 + 1
    growing.get("box", lambda: {"x": np.zeros(10)})  # a container may grow: measured again later
    now[0] = 2.0
    measured.clear()
    growing.get(7, lambda: np.zeros(10))
    assert len(measured) == 2  # the container and the new entry


def test_a_tables_size_is_what_pandas_counts_without_its_contents():
    import numpy as np
    import pandas as pd

    from dpviz.memo import nbytes_of

    table = pd.DataFrame({"x": np.arange(30.0), "n": np.arange(30), "name": pd.array(["a"] * 30, dtype="string")})
    table["kind"] = pd.Categorical(["p", "q"] * 15)
    twice = pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"])  # a repeated column name
    for value in (table, twice, table["x"], table.set_index("name")):
        assert nbytes_of(value) == int(np.sum(value.memory_usage(index=True, deep=False)))


def test_an_entry_that_grew_is_counted_at_the_next_insertion_a_second_later():
    import numpy as np

    now = [0.0]
    memo = ProcessMemo(maxsize=100, max_bytes=20_000, clock=lambda: now[0])

    class Lazy:  # an object that loads its data after it is stored (a cached property)
        data = None

    lazy = memo.get("lazy", Lazy)
    memo.get("small", lambda: np.zeros(10))
    lazy.data = np.zeros(2000)  # 16,000 bytes now
    memo.get("other", lambda: np.zeros(1000))  # 8,000 more: within the second, not seen yet
    assert memo.keys() == ["lazy", "small", "other"]
    now[0] = 1.5
    memo.get("last", lambda: np.zeros(10))  # every entry measured: over 20,000, the oldest goes
    assert "lazy" not in memo.keys() and memo.nbytes() <= 20_000


def test_peek_reads_a_held_value_and_never_computes_or_keeps_a_missing_one():
    memo = ProcessMemo(maxsize=2)
    assert memo.peek("a") is None and not memo.contains("a")  # nothing kept for a missing key
    memo.get("a", lambda: 1)
    memo.get("b", lambda: 2)
    assert memo.peek("a") == 1  # "a" is now the most recently used: "b" goes first
    memo.get("c", lambda: 3)
    assert memo.keys() == ["a", "c"]


def test_the_bytes_held_are_the_sum_of_the_entries_sizes_through_inserts_evictions_and_discards():
    """The memo keeps its total as entries come and go (not summed at every insertion): through a
    random run of insertions (0-9,000 bytes each, often over the byte bound together), discards,
    entries that grow after they are stored and remeasurements, it is the sum of the sizes the
    memo holds for its entries; in a frozen memo (entries never change), each entry measured afresh."""
    import random

    import numpy as np

    from dpviz.memo import nbytes_of

    rng = random.Random(7)
    now = [0.0]
    for frozen in (True, False):
        memo = ProcessMemo(maxsize=12, max_bytes=40_000, frozen=frozen, clock=lambda: now[0])
        for step in range(600):
            key, act = rng.randrange(30), rng.random()
            if act < 0.6:
                memo.get(key, lambda: {"x": np.zeros(rng.randrange(0, 1125))})
            elif act < 0.75:
                memo.discard(key)
            elif act < 0.85 and not frozen and memo.contains(key):  # an entry grows after it is stored
                memo.peek(key)["x"] = np.zeros(rng.randrange(0, 1125))
            else:
                now[0] += 1.5  # the next insertion measures every entry again
            held = memo.keys()
            assert len(held) <= 12 and set(memo._sizes) == set(held), step
            assert memo.nbytes() == sum(memo._sizes.values()), step
            if frozen:
                assert memo.nbytes() == sum(nbytes_of(memo.peek(k)) for k in held), step
                assert memo.nbytes() <= 40_000 or len(held) == 1, step


def test_plain_numbers_in_a_container_count_what_each_counts_alone():
    """The scalars read by type (``_PLAIN``, texts) count as the call counts each: 64 bytes a number
    or None, the text's length, an array's bytes; NumPy scalars (subclasses of float) by the call."""
    import numpy as np

    from dpviz.memo import nbytes_of

    items = [1.5, 2, True, None, "abc", np.float64(0.25), np.zeros(3), [1.0, "de", None], (4, 5.0)]
    assert nbytes_of(items) == 64 + sum(nbytes_of(x, 1) for x in items)
    assert nbytes_of(items) == 64 + 4 * 64 + 3 + 64 + 24 + (64 + 64 + 2 + 64) + (64 + 64 + 64)
    columns = {"epsilon": [0.1] * 115, "k": [10] * 115, "note": [""] * 115}
    assert nbytes_of(columns) == 64 + sum(len(name) + 64 + 64 * 115 for name in ("epsilon", "k")) + len("note") + 64


def test_a_dicts_plain_keys_and_values_count_what_each_counts_alone():
    """A dict's keys and values read by type count as the call counts each (at any depth: a
    figure's dict kept per setting), and what is not plain (arrays, NumPy scalars, inner dicts)
    takes the call."""
    import numpy as np

    from dpviz.memo import nbytes_of

    inner = {"bdata": "QUJD" * 10, "dtype": "f8", 3: None, 2.5: True}
    figure = {"data": [{"x": inner, "name": "a"}], "layout": {"width": 700, "title": {"text": "t"}},
              "arr": np.zeros(4), np.float64(1.0): "one", "n": np.int64(3)}  # fmt: skip
    for value in (inner, figure):
        for depth in (0, 2, 3):
            expected = 64 + sum(nbytes_of(k, depth + 1) + nbytes_of(v, depth + 1) for k, v in value.items())
            assert nbytes_of(value, depth) == expected, depth
    assert nbytes_of(inner) == 64 + (5 + 40) + (5 + 2) + (64 + 64) + (64 + 64)
    assert nbytes_of(figure, 4) == 64  # (as deep as it reads)
