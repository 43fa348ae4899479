"""Fixes of Streamlit behaviour dpviz depends on, installed once per server process by
:func:`install` (every page calls it through :func:`webui.nav.page_setup`).

**A file dropped while a rerun starts was lost** (Streamlit 1.67). A file box first asks the
server for an upload address (a ``file_urls_request``) and uploads only when the answer comes.
The server queues the answer for the browser; but when the same batch of browser messages also
asks for a rerun (the other file box's file just arrived), the rerun empties the session's
outgoing queue, keeping only script-lifecycle messages. The answer went with it: the browser
waited for it for ever, the second box stayed empty and nothing said why. Measured in Chromium
on a loaded machine: 3 of 30 double drops lost the second file. The answer belongs to no script
run, so :func:`install` makes the queue keep it through a clear.

**The flush is not woken again while it is due** (Streamlit 1.67). Every message a run queues for
the browser asks the server's event loop to flush the queues by ``call_soon_threadsafe``, a write to
the loop's wake-up socket (a system call, for which the thread lets go of the interpreter lock).
When the flush is already due it flushes that message too, so :func:`install` skips the wake-up
then (:func:`_wakes_once`). (Batching a session's own callbacks to the loop the same way was tried
and not kept: under 120 students on two processes it made page opens slower, p95 7.0 s against
4.6 s, for the same CPU per move.)
"""

from __future__ import annotations

from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
from streamlit.runtime.runtime import Runtime

RUNLESS_TYPES = frozenset({"file_urls_response"})
"""Outgoing message types that answer a browser request rather than belong to a script run."""


def _keeps_runless(clear):
    def clear_keeping_answers(self, retain_lifecycle_msgs: bool = False, fragment_ids_this_run=None):
        # only a clear that keeps lifecycle messages (a new run) keeps answers: a flush, which
        # clears without, has just taken them out to send
        answers = [m for m in self._queue if m.WhichOneof("type") in RUNLESS_TYPES] if retain_lifecycle_msgs else []
        clear(self, retain_lifecycle_msgs, fragment_ids_this_run)
        if answers:
            kept = {id(m) for m in self._queue}
            self._queue = [m for m in answers if id(m) not in kept] + self._queue
            self._delta_index_map = {}  # positions moved; a clear empties this index anyway

    clear_keeping_answers.__wrapped__ = clear
    clear_keeping_answers.dpviz_fix = True
    return clear_keeping_answers


def _wakes_once(enqueued):
    """``Runtime._enqueued_some_message`` that does not wake the loop while its flush is already
    due: the flush clears the flag before it takes the queued messages, so a message queued
    before the flag was seen set goes with that flush."""

    def enqueued_once(self) -> None:
        objs = self._async_objs
        if objs is not None and objs.need_send_data.is_set():
            return
        enqueued(self)

    enqueued_once.__wrapped__ = enqueued
    enqueued_once.dpviz_fix = True
    return enqueued_once


def install() -> None:
    """Install the fixes (idempotent)."""
    if not getattr(ForwardMsgQueue.clear, "dpviz_fix", False):
        ForwardMsgQueue.clear = _keeps_runless(ForwardMsgQueue.clear)
    if not getattr(Runtime._enqueued_some_message, "dpviz_fix", False):
        Runtime._enqueued_some_message = _wakes_once(Runtime._enqueued_some_message)
