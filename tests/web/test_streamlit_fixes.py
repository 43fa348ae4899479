"""webui.streamlit_fixes: a file box's upload address survives the rerun another file box starts;
the flush is not woken again while it is due."""

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

from webui import streamlit_fixes


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
    streamlit_fixes.install()
    streamlit_fixes.install()  # idempotent: one wrapper, not two
    assert not getattr(ForwardMsgQueue.clear.__wrapped__, "dpviz_fix", False)
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


def test_a_clear_that_keeps_nothing_keeps_no_answer():
    streamlit_fixes.install()
    queue = ForwardMsgQueue()
    queue.enqueue(_answer("request-1"))
    queue.clear()
    assert queue.is_empty()


def test_the_flush_is_not_woken_again_while_it_is_due():
    import types

    from streamlit.runtime.runtime import Runtime

    streamlit_fixes.install()
    woken = []
    flag = types.SimpleNamespace(is_set=lambda: state["set"], set=lambda: None)
    state = {"set": False}
    eventloop = types.SimpleNamespace(call_soon_threadsafe=lambda cb: woken.append(cb))
    runtime = types.SimpleNamespace(
        _async_objs=types.SimpleNamespace(need_send_data=flag, eventloop=eventloop),
    )
    runtime._get_async_objs = lambda: runtime._async_objs
    Runtime._enqueued_some_message(runtime)  # not due: woken
    state["set"] = True
    Runtime._enqueued_some_message(runtime)  # due: the flush to come takes this message too
    Runtime._enqueued_some_message(runtime)
    state["set"] = False  # the flush began (it clears the flag first): the next message wakes it
    Runtime._enqueued_some_message(runtime)
    assert len(woken) == 2
