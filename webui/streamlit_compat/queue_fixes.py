"""The session's outgoing queue, as the fixes in :mod:`webui.streamlit_compat.fixes` change it
(their reasons and measurements are in that module's docstring): a new run's clear keeps the
answers to the browser's requests, and drops the references to cached elements that a fragment's
interrupted run queued, as it drops that run's deltas."""

from __future__ import annotations

import functools

from webui.streamlit_compat.guard import target

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


@functools.cache
def _thread_state():
    """Streamlit's per-thread fragment state (``ThreadState``), looked up once per process (None,
    logged once, where this Streamlit has none)."""
    return target("streamlit.runtime.scriptrunner_utils.script_run_context", "ThreadState")


def _running_fragment() -> str | None:
    """The fragment the calling thread runs (None: none, or no script run on this thread)."""
    state = _thread_state()
    try:
        return state.get().fragment_id if state is not None else None
    except RuntimeError:  # a thread with no script run's state (the server's own)
        return None


def _notes_ref_fragments(enqueue):
    """``ForwardMsgQueue.enqueue`` that notes, for a reference message, the fragment whose run
    queues it (in ``_dpviz_ref_fragments``: id -> (the message, the fragment); the message is held
    so that its id is not reused while noted)."""

    def enqueue_noting_fragment(self, msg) -> None:
        if msg.WhichOneof("type") == "ref_hash":
            fragment = _running_fragment()
            if fragment:
                self.__dict__.setdefault("_dpviz_ref_fragments", {})[id(msg)] = (msg, fragment)
        enqueue(self, msg)

    enqueue_noting_fragment.__wrapped__ = enqueue
    enqueue_noting_fragment.dpviz_fix = True
    return enqueue_noting_fragment


def _drops_fragment_refs(clear):
    """``ForwardMsgQueue.clear`` that, at the start of a fragment run, drops the references its
    fragments' interrupted runs queued, as Streamlit drops those runs' deltas; the notes are kept
    only for the messages still queued."""

    def clear_dropping_refs(self, retain_lifecycle_msgs: bool = False, fragment_ids_this_run=None):
        clear(self, retain_lifecycle_msgs, fragment_ids_this_run)
        notes = self.__dict__.get("_dpviz_ref_fragments")
        if not notes:
            return
        if fragment_ids_this_run:
            running = set(fragment_ids_this_run)
            self._queue = [m for m in self._queue if notes.get(id(m), (None, None))[1] not in running]
        queued = {id(m) for m in self._queue}
        self._dpviz_ref_fragments = {k: v for k, v in notes.items() if k in queued}

    clear_dropping_refs.__wrapped__ = clear
    clear_dropping_refs.dpviz_fix = True
    return clear_dropping_refs
