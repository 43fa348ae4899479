"""webui.streamlit_compat, the door to Streamlit's private internals: a file box's upload address
survives the rerun another file box starts; the flush is not woken again while it is due (on a
real Runtime); a config option is read without the config lock; a component's state is shown as
Streamlit shows it; the door warns on, and a test fails for, a Streamlit it was not reviewed for;
a missing private name is left out with a warning; a fragment run drops the cached elements'
references its interrupted run queued."""

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

from webui import streamlit_compat
from webui.streamlit_compat import fixes as streamlit_fixes
from webui.streamlit_compat import guard


def _answer(request_id: str) -> ForwardMsg:
    msg = ForwardMsg()
    msg.file_urls_response.response_id = request_id
    msg.file_urls_response.file_urls.add(file_id="f1", upload_url="/_stcore/upload_file/s/f1")
    return msg


def _delta(path: int) -> ForwardMsg:
    msg = ForwardMsg()
    msg.metadata.delta_path[:] = [0, path]
    msg.delta.new_element.markdown.body = f"element {path}"
    return msg


def _finished() -> ForwardMsg:
    msg = ForwardMsg()
    msg.script_finished = ForwardMsg.FINISHED_SUCCESSFULLY
    return msg


def _types(queue: ForwardMsgQueue) -> list[str]:
    return [m.WhichOneof("type") for m in queue._queue]


def test_a_new_run_keeps_the_answer_to_a_file_box_and_drops_the_old_run_s_elements():
    streamlit_compat.install()
    streamlit_compat.install()  # idempotent: one wrapper each, not two
    assert not getattr(ForwardMsgQueue.clear.__wrapped__.__wrapped__, "dpviz_fix", False)
    assert not getattr(ForwardMsgQueue.enqueue.__wrapped__, "dpviz_fix", False)
    for fragments in (None, ["some-fragment"]):
        queue = ForwardMsgQueue()
        queue.enqueue(_delta(0))
        queue.enqueue(_answer("request-2"))
        queue.enqueue(_delta(1))
        queue.enqueue(_finished())
        queue.clear(retain_lifecycle_msgs=True, fragment_ids_this_run=fragments)  # what a new run does
        assert _types(queue).count("file_urls_response") == 1
        assert "script_finished" in _types(queue)
        if fragments is None:
            assert "delta" not in _types(queue)
        answer = next(m for m in queue._queue if m.WhichOneof("type") == "file_urls_response")
        assert answer.file_urls_response.response_id == "request-2"
        # the answer is sent once: a flush takes everything out and leaves nothing behind
        sent = queue.flush()
        assert [m.WhichOneof("type") for m in sent].count("file_urls_response") == 1
        assert queue.is_empty()
        # after the clear, new elements still compose by their place (the index was emptied, not stale)
        queue.enqueue(_delta(3))
        queue.enqueue(_delta(3))
        assert _types(queue) == ["delta"]


def _queued_in(fragment: str | None, queue: ForwardMsgQueue, msg: ForwardMsg) -> None:
    """``msg`` queued as a script run queues it, on a thread running ``fragment`` (None: outside any)."""
    import contextvars

    from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState

    def run():
        ThreadState.initialize(fragment_id=fragment)
        if fragment and msg.WhichOneof("type") == "delta":
            msg.delta.fragment_id = fragment  # (as streamlit's enqueue_message does)
        queue.enqueue(msg)

    contextvars.copy_context().run(run)


def _reference(path: list[int]) -> ForwardMsg:
    """A reference to an element the browser holds, as Streamlit makes one."""
    from streamlit.runtime.forward_msg_cache import create_reference_msg, populate_hash_if_needed

    msg = ForwardMsg()
    msg.metadata.delta_path[:] = path
    msg.delta.new_element.markdown.body = "x" * 20_000  # (over the size Streamlit caches an element from)
    populate_hash_if_needed(msg)
    return create_reference_msg(msg)


def _block(path: list[int]) -> ForwardMsg:
    msg = ForwardMsg()
    msg.metadata.delta_path[:] = path
    msg.delta.add_block.vertical.SetInParent()
    return msg


def test_a_fragment_run_drops_the_references_its_interrupted_run_queued():
    """What blanked the HoHo page: a fragment's run had sent a block, then queued a child of it
    and a reference to a cached element beside that child, when the next run of the same fragment
    interrupted it. The clear dropped the child (its delta names the fragment) but kept the
    reference, which the browser could not place. Now the reference goes with the fragment's
    deltas; one queued outside the fragment (by a full run it interrupts) stays, as do answers."""
    streamlit_compat.install()
    queue = ForwardMsgQueue()
    _queued_in("F", queue, _block([0, 3, 11]))
    assert [m.WhichOneof("type") for m in queue.flush()] == ["delta"]  # the block reached the browser
    child = _delta(0)
    child.metadata.delta_path[:] = [0, 3, 11, 0]
    _queued_in("F", queue, child)
    _queued_in("F", queue, _reference([0, 3, 11, 2]))
    _queued_in(None, queue, _reference([0, 9, 1]))  # a full run's, outside the fragment
    _queued_in(None, queue, _answer("request-3"))
    stock = ForwardMsgQueue()  # Streamlit's own clear, on the same queue: keeps the fragment's reference
    stock._queue = list(queue._queue)
    ForwardMsgQueue.clear.__wrapped__.__wrapped__(stock, retain_lifecycle_msgs=True, fragment_ids_this_run=["F"])
    assert [list(m.metadata.delta_path) for m in stock._queue if m.WhichOneof("type") == "ref_hash"] == [
        [0, 3, 11, 2],
        [0, 9, 1],
    ]
    queue.clear(retain_lifecycle_msgs=True, fragment_ids_this_run=["F"])  # the next run of F starts
    assert [(m.WhichOneof("type"), list(m.metadata.delta_path)) for m in queue._queue] == [
        ("ref_hash", [0, 9, 1]),
        ("file_urls_response", []),
    ]
    # another fragment's run keeps F's references; a flush forgets what it noted
    _queued_in("F", queue, _reference([0, 3, 11, 2]))
    queue.clear(retain_lifecycle_msgs=True, fragment_ids_this_run=["G"])
    assert [list(m.metadata.delta_path) for m in queue._queue if m.WhichOneof("type") == "ref_hash"] == [
        [0, 9, 1],
        [0, 3, 11, 2],
    ]
    assert len(queue._dpviz_ref_fragments) == 1
    queue.flush()
    assert queue.is_empty() and not queue._dpviz_ref_fragments
    _queued_in(None, queue, _reference([0, 1]))  # outside any fragment: nothing noted
    assert not queue._dpviz_ref_fragments


def test_a_clear_that_keeps_nothing_keeps_no_answer():
    streamlit_compat.install()
    queue = ForwardMsgQueue()
    queue.enqueue(_answer("request-1"))
    queue.clear()
    assert queue.is_empty()


def test_the_flush_is_not_woken_again_while_it_is_due_on_a_real_runtime():
    """Streamlit's own Runtime, started on an event loop: a queued message wakes the loop (a
    ``call_soon_threadsafe``) only while its flush is not already due."""
    import asyncio

    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.runtime import Runtime, RuntimeConfig

    streamlit_compat.install()
    assert Runtime._enqueued_some_message.dpviz_fix
    assert not Runtime.exists(), "another Runtime in this process"
    runtime = Runtime(
        RuntimeConfig(
            script_path="app.py",
            media_file_storage=MemoryMediaFileStorage("/media"),
            uploaded_file_manager=MemoryUploadedFileManager("/_stcore/upload_file"),
        )
    )

    async def wakes() -> list[int]:
        await runtime.start()
        objs = runtime._get_async_objs()
        woken = []
        real = objs.eventloop.call_soon_threadsafe
        objs.eventloop.call_soon_threadsafe = lambda cb, *a, **k: (woken.append(cb), real(cb, *a, **k))[1]
        counts = []
        try:  # no await below until the counts are taken: the runtime's own loop cannot flush between
            objs.need_send_data.clear()
            runtime._enqueued_some_message()  # not due: woken
            counts.append(len(woken))
            objs.need_send_data.set()  # due (the wake-up above sets it once the loop runs it)
            runtime._enqueued_some_message()  # the flush to come takes this message too
            runtime._enqueued_some_message()
            counts.append(len(woken))
            objs.need_send_data.clear()  # the flush began (it clears the flag first): the next one wakes it
            runtime._enqueued_some_message()
            counts.append(len(woken))
        finally:
            del objs.eventloop.call_soon_threadsafe
            runtime.stop()
            await runtime.stopped
        return counts

    try:
        assert asyncio.run(wakes()) == [1, 1, 2]
    finally:
        Runtime._instance = None


def test_a_config_option_is_read_without_the_config_lock_and_means_the_same():
    """_reads_without_lock: the same values as Streamlit's get_option (parsed or not yet, set at
    run time), the same error for a key that does not exist, and no wait while another thread
    holds the config lock (the queue 120 page opens formed there)."""
    import threading

    from streamlit import config

    original = getattr(config.get_option, "__wrapped__", config.get_option)
    unlocked = streamlit_fixes._reads_without_lock(original)
    for key in ("global.minCachedMessageSize", "server.fileWatcherType", "runner.postScriptGC", "theme.primaryColor"):
        assert unlocked(key) == original(key)
    with pytest.raises(RuntimeError, match="not defined"):
        unlocked("global.noSuchOption")
    before = original("client.toolbarMode")
    config.set_option("client.toolbarMode", "viewer")
    try:
        assert unlocked("client.toolbarMode") == "viewer"
    finally:
        config.set_option("client.toolbarMode", before)
    held, release, got = threading.Event(), threading.Event(), []

    def hold() -> None:
        with config._config_lock:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        held.wait(10)
        reader = threading.Thread(target=lambda: got.append(unlocked("global.minCachedMessageSize")))
        reader.start()
        reader.join(5)
        assert not reader.is_alive(), "the read waited for the config lock"
    finally:
        release.set()
        holder.join()
    assert got == [original("global.minCachedMessageSize")]


class _WidgetStore:
    """What a presenter reads of a session's widget store: metadata, values, and what it stores."""

    def __init__(self, meta_type, payloads):
        from types import SimpleNamespace

        self.widget_metadata = {} if meta_type is None else {"agg": SimpleNamespace(value_type=meta_type)}
        self.payloads = payloads
        self.stored = []

    def __getitem__(self, key):
        if self.payloads is KeyError:
            raise KeyError(key)
        return self.payloads

    def set_from_value(self, component_id, value):
        self.stored.append((component_id, value))


def _session(meta_type, payloads):
    from types import SimpleNamespace

    return SimpleNamespace(
        _new_widget_state=_WidgetStore(meta_type, payloads),
        _key_id_mapper=SimpleNamespace(get_key_from_id=lambda i: "user-key"),
    )


CASES = [  # (aggregator's type, its payloads, the stored state)
    ("json_trigger_value", [{"event": "check", "value": 5}, {"event": "other"}, "junk"], {"a": 1, "check": 2}),
    ("json_trigger_value", {"event": "check", "value": 7}, {"a": 1}),
    ("json_trigger_value", None, {}),
    ("json_trigger_value", KeyError, {"a": 1}),
    ("json_trigger_value", "not a list", {"a": 1}),
    ("json_value", [{"event": "check", "value": 5}], {"a": 1}),
    (None, None, {"a": 1}),
    ("json_trigger_value", [{"event": "check", "value": 5}], "a string state"),
    ("json_trigger_value", [{"event": "check", "value": 5}], None),
]


@pytest.mark.parametrize("meta_type, payloads, base", CASES)
@pytest.mark.parametrize("allowed", [None, {"a", "check"}])
def test_a_components_state_is_shown_as_streamlits_own_presenter_shows_it(meta_type, payloads, base, allowed):
    """_presenter_factory: on the same inputs, the same view as Streamlit's presenter (its value,
    whether it is the state itself, attribute reads), and the same writes through to the store
    (an allowed key, a key outside ``allowed``, an attribute, a deletion); a deep copy is the view
    itself; and one class serves every call."""
    import copy

    from streamlit.components.v2 import presentation

    original = getattr(presentation.make_bidi_component_presenter, "__wrapped__", None)
    original = original or presentation.make_bidi_component_presenter
    ours = streamlit_fixes._presenter_factory(original)
    seen = []
    for make in (original, ours):
        session = _session(meta_type, payloads)
        state = copy.deepcopy(base)
        view = make("agg", "cid", allowed)(state, session)
        row = [dict(view) if isinstance(view, dict) else view, view is state, type(view) is dict]
        if isinstance(view, dict) and view is not state:
            row += [view.a, view.missing, copy.deepcopy(view) is view]
            view["a"] = 10
            view["b"] = 20  # outside allowed when allowed is given: ignored
            view.check = 30
            del view["a"]
            row += [dict(view), session._new_widget_state.stored]
        seen.append(row)
    assert seen[0] == seen[1]
    one = ours("agg", "cid", None)
    views = [one({"a": i}, _session("json_trigger_value", [])) for i in range(3)]
    assert len({type(v) for v in views}) == 1 and type(views[0]) is streamlit_fixes._StateView


def test_the_installed_streamlit_is_one_the_door_was_reviewed_for():
    """An upgrade of Streamlit (requirements.txt) fails here until webui/streamlit_compat/ is read
    again against it: each private name it uses, and what each fix works around, may have changed."""
    import streamlit

    assert streamlit.__version__ in streamlit_compat.REVIEWED, (
        f"Streamlit {streamlit.__version__}: review webui/streamlit_compat/, then add it to REVIEWED"
    )


def test_the_door_warns_once_on_a_streamlit_it_was_not_reviewed_for(caplog, monkeypatch):
    monkeypatch.setattr(guard, "_WARNED", [])
    with caplog.at_level("WARNING", logger="dpviz.streamlit_compat"):
        assert guard.check_version(guard.REVIEWED[0])
        assert not guard.check_version("99.0.0")
        assert not guard.check_version("99.0.0")
    assert caplog.text.count("not 99.0.0") == 1


def test_a_private_name_this_streamlit_lacks_is_left_out_with_a_warning(caplog):
    with caplog.at_level("WARNING", logger="dpviz.streamlit_compat"):
        assert streamlit_compat.target("streamlit.runtime.runtime", "Runtime.no_such_method") is None
        assert streamlit_compat.target("streamlit.no_such_module", "Thing") is None
    assert "has no streamlit.runtime.runtime.Runtime.no_such_method" in caplog.text
    from streamlit.runtime.runtime import Runtime

    assert streamlit_compat.target("streamlit.runtime.runtime", "Runtime") is Runtime


def test_a_chart_goes_through_st_plotly_chart_where_streamlit_lacks_the_element_s_names(monkeypatch):
    """The Plotly element's fallback: Streamlit's public call, with the same chart and options."""
    from webui.streamlit_compat import plotly

    calls = []

    class Where:
        def plotly_chart(self, fig, **kwargs):
            calls.append((fig, kwargs))

    monkeypatch.setattr(plotly, "_FOUND", [None])
    plotly.plotly_element(Where(), '{"data": [{"y": [1, 2]}]}', 300, key="k", config={"displaylogo": False})
    assert calls == [
        ({"data": [{"y": [1, 2]}]}, {"theme": None, "key": "k", "config": {"displaylogo": False}, "width": "stretch"})
    ]


def test_no_module_outside_the_door_imports_a_private_streamlit_name():
    """Every ``import streamlit.x`` / ``from streamlit.x import`` of dpviz's code (not its tests) is
    in webui/streamlit_compat/; elsewhere only ``import streamlit`` (the public ``st``)."""
    import ast
    from pathlib import Path

    from dpviz import syntax

    root = Path(__file__).resolve().parents[2]
    door = root / "webui" / "streamlit_compat"
    found = []
    files = [root / "app.py"] + [p for d in ("dpviz", "webui", "pages") for p in (root / d).rglob("*.py")]
    assert len(files) > 100
    for path in files:
        if door in path.parents:
            continue
        for node in ast.walk(syntax.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] if node.module.startswith("streamlit") else []
                names += [f"streamlit.{a.name}" for a in node.names if node.module == "streamlit"]
            found += [f"{path.relative_to(root)}: {n}" for n in names if n.startswith("streamlit.")]
    assert not found


def test_each_fix_names_its_upstream_record():
    """Every fix install() puts in names an upstream issue or pull request of Streamlit's, or says
    that none was found: what to look at when the door is reviewed for a new Streamlit."""
    import inspect

    body = inspect.getsource(streamlit_fixes.install)
    installed = body.count("= _")  # one assignment of a fix's wrapper per fix
    assert installed == len(streamlit_fixes.UPSTREAM) == 7
    for name, record in streamlit_fixes.UPSTREAM.items():
        assert record.startswith("https://github.com/streamlit/streamlit/") or record.startswith("none on record"), name


def test_the_use_warning_counts_as_shown_only_where_the_runtime_exists(monkeypatch):
    """Under ``streamlit run`` (a Runtime exists) the first element no longer walks the stack's
    source for a warning that cannot apply; a plain script keeps Streamlit's check."""
    from streamlit import delta_generator, env_util
    from streamlit.runtime.runtime import Runtime

    walked = []
    monkeypatch.setattr(env_util, "is_repl", lambda: walked.append(1) or False)
    monkeypatch.setattr(delta_generator, "_use_warning_has_been_displayed", False)
    assert not Runtime.exists(), "another Runtime in this process"
    streamlit_compat.install()  # no runtime: Streamlit's own check stays
    assert delta_generator._use_warning_has_been_displayed is False
    delta_generator._maybe_print_use_warning()
    assert walked == [1]
    monkeypatch.setattr(delta_generator, "_use_warning_has_been_displayed", False)
    monkeypatch.setattr(Runtime, "exists", classmethod(lambda cls: True))
    streamlit_compat.install()
    delta_generator._maybe_print_use_warning()
    assert delta_generator._use_warning_has_been_displayed is True and walked == [1]  # not walked again


def test_a_page_scripts_spurious_parse_error_is_asked_again(monkeypatch):
    """CPython 3.11's spurious "recursion depth mismatch" while Streamlit parses a page script
    (another thread parsing at the same moment) is asked again; any other error is raised."""
    import ast

    from streamlit.runtime.scriptrunner import magic

    streamlit_compat.install()
    assert magic.add_magic.dpviz_fix
    real, calls = ast.parse, []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) < 3:
            raise SystemError("AST constructor recursion depth mismatch (before=27, after=88)")
        return real(*args, **kwargs)

    monkeypatch.setattr(magic.ast, "parse", flaky)
    tree = magic.add_magic("x = 1\nx\n", "page.py")
    assert isinstance(tree, ast.Module) and len(calls) == 3
    monkeypatch.setattr(magic.ast, "parse", lambda *a, **k: (_ for _ in ()).throw(SystemError("another error")))
    with pytest.raises(SystemError, match="another error"):
        magic.add_magic("x = 1\n", "page.py")
    with pytest.raises(SyntaxError):  # the text's own error, at once
        monkeypatch.setattr(magic.ast, "parse", real)
        magic.add_magic("x = (\n", "page.py")
