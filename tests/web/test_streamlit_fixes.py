"""webui.streamlit_fixes: a file box's upload address survives the rerun another file box starts; a
session's callbacks wake the event loop once per batch, in order, none lost."""

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


class _CountingLoop:
    """An event loop, running in a thread of its own, that counts the wake-ups asked of it."""

    def __init__(self):
        import asyncio
        import threading

        self.loop = asyncio.new_event_loop()
        self.wakeups = 0
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def call_soon_threadsafe(self, callback):
        self.wakeups += 1
        return self.loop.call_soon_threadsafe(callback)

    def call_soon(self, callback):
        return self.loop.call_soon(callback)

    def is_closed(self):
        return self.loop.is_closed()

    def settle(self):
        import concurrent.futures

        for _ in range(3):  # a batch may schedule one more turn of itself
            done = concurrent.futures.Future()
            self.loop.call_soon_threadsafe(done.set_result, None)
            done.result(timeout=10)

    def stop(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


def test_a_sessions_callbacks_all_run_in_order_with_fewer_wakeups_of_the_loop():
    """Eight script threads each hand the loop 500 callbacks while the loop is busy: every
    callback runs once, each thread's in the order it gave them, and the loop is woken once per
    batch, not once per callback (Streamlit's own method wakes it 4,000 times)."""
    import threading
    import time
    import types

    from streamlit.runtime.app_session import AppSession

    streamlit_fixes.install()
    streamlit_fixes.install()
    assert not getattr(AppSession._call_soon_on_event_loop.__wrapped__, "dpviz_fix", False)
    loop = _CountingLoop()
    session = types.SimpleNamespace(_event_loop=loop)
    ran: list[tuple[int, int]] = []
    try:
        loop.loop.call_soon_threadsafe(time.sleep, 0.3)  # the loop busy while the threads queue

        def script_thread(t: int) -> None:
            for k in range(500):
                AppSession._call_soon_on_event_loop(session, lambda t=t, k=k: ran.append((t, k)))
                if k % 100 == 0:
                    time.sleep(0.01)

        threads = [threading.Thread(target=script_thread, args=(t,)) for t in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        loop.settle()
        assert sorted(ran) == [(t, k) for t in range(8) for k in range(500)]  # each once
        for t in range(8):
            assert [k for tt, k in ran if tt == t] == list(range(500))  # in order
        assert 1 <= loop.wakeups < 4000 // 10, loop.wakeups
    finally:
        loop.stop()


def test_a_callback_that_fails_is_logged_and_the_others_still_run(caplog):
    import types

    from streamlit.runtime.app_session import AppSession

    streamlit_fixes.install()
    loop = _CountingLoop()
    session = types.SimpleNamespace(_event_loop=loop)
    ran = []
    try:
        AppSession._call_soon_on_event_loop(session, lambda: ran.append(1))
        AppSession._call_soon_on_event_loop(session, lambda: 1 / 0)
        AppSession._call_soon_on_event_loop(session, lambda: ran.append(3))
        loop.settle()
        AppSession._call_soon_on_event_loop(session, lambda: ran.append(4))  # later ones still wake it
        loop.settle()
        assert ran == [1, 3, 4]
        assert "ZeroDivisionError" in caplog.text
    finally:
        loop.stop()


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
