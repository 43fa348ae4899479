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

**One wake-up of the event loop per batch of a run's messages, not per message** (Streamlit
1.67). A script thread hands each message it makes (every element of a run) to the server's
event loop by ``call_soon_threadsafe``, and the loop then schedules its own flush the same way:
each is a write to the loop's wake-up socket, a system call for which the thread lets go of the
interpreter lock and must take it back. With a class on one process (twenty sessions, a slider
release each every two seconds, a hundred and forty elements per release) a profile of the
server (py-spy) put 28% of its samples in that write (``BaseSelectorEventLoop._write_to_self``):
the threads queueing for the lock behind each other. :func:`install` makes a session keep its
script thread's callbacks in a queue of its own and wake the loop only when no wake-up is on its
way (:func:`_batches_wakeups`; the loop runs them in the order they came), and the runtime skip
the flush's wake-up while one is already due (:func:`_wakes_once`).
"""

from __future__ import annotations

import collections
import logging
import threading

from streamlit.runtime.app_session import AppSession
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
from streamlit.runtime.runtime import Runtime

_LOG = logging.getLogger(__name__)

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


class _Batch:
    """A session's callbacks for its event loop, in the order they came, and whether a wake-up of
    the loop is on its way to run them."""

    __slots__ = ("callbacks", "due", "lock")

    def __init__(self) -> None:
        self.callbacks: collections.deque = collections.deque()
        self.due = False
        self.lock = threading.Lock()


_BATCHES_LOCK = threading.Lock()


def _batch_of(session) -> _Batch:
    batch = session.__dict__.get("_dpviz_batch")
    if batch is None:
        with _BATCHES_LOCK:
            batch = session.__dict__.setdefault("_dpviz_batch", _Batch())
    return batch


def _batches_wakeups(call_soon):
    """``AppSession._call_soon_on_event_loop`` that queues ``callback`` and wakes the loop (by
    ``call_soon``, Streamlit's own: a closed loop is still handled there) only when no wake-up is
    due. The loop runs the callbacks queued when it got there, in order, each on its own (one
    that raises is logged, the rest still run), then wakes itself again without a system call if
    more came meanwhile. No callback is left behind: a thread that finds a wake-up due has queued
    its callback before looking, and the loop looks for more under the same lock before it
    marks the wake-up done."""

    def call_soon_batched(self, callback) -> None:
        batch = _batch_of(self)
        batch.callbacks.append(callback)
        with batch.lock:
            if batch.due:
                return
            batch.due = True
        call_soon(self, lambda: _run_batch(self, batch))

    call_soon_batched.__wrapped__ = call_soon
    call_soon_batched.dpviz_fix = True
    return call_soon_batched


def _run_batch(session, batch: _Batch) -> None:
    for _ in range(len(batch.callbacks)):  # those queued by now; later ones in the next turn
        callback = batch.callbacks.popleft()
        try:
            callback()
        except Exception:  # noqa: BLE001 - as the loop itself would: logged, and the others run
            _LOG.exception("A Streamlit session callback failed")
    with batch.lock:
        if not batch.callbacks:
            batch.due = False
            return
    session._event_loop.call_soon(lambda: _run_batch(session, batch))  # on the loop's thread: no wake-up


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
    if not getattr(AppSession._call_soon_on_event_loop, "dpviz_fix", False):
        AppSession._call_soon_on_event_loop = _batches_wakeups(AppSession._call_soon_on_event_loop)
    if not getattr(Runtime._enqueued_some_message, "dpviz_fix", False):
        Runtime._enqueued_some_message = _wakes_once(Runtime._enqueued_some_message)
