"""Fixes of Streamlit behaviour dpviz depends on, installed once per server process by
:func:`install` (every page calls it through :func:`webui.nav.page_setup`). Each replaces a private
name of Streamlit's, found through :func:`webui.streamlit_compat.target` (the door's guard: a
missing one is logged and Streamlit's own behaviour stays).

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

**A config option is read without the config lock** (Streamlit 1.67). Every message a run queues
reads ``global.minCachedMessageSize`` (``populate_hash_if_needed``), and every widget reads more,
through ``config.get_option``, which takes one lock shared by every thread of the process. Under
120 page opens at once that lock was a queue: a thread that held it lost the interpreter lock
mid-read and the others waited for both; 15% of a server process's samples waited there (py-spy,
the metric page). The options do not change while the server runs (only a config file's edit
parses them again, into a new dictionary), and reading a value from a dictionary is atomic in
Python, so :func:`_reads_without_lock` reads the parsed options directly and falls back to
Streamlit's own function before they are parsed or for a key it does not know (which raises).

**A component's state is shown without making a class each time** (Streamlit 1.67). Every
``st.components.v2`` element (dpviz's charts, frames and texts) registers a presenter that turns
its stored state into what ``st.session_state`` shows: the trigger values merged under the state,
as a dict that writes assignments through to the widget store. Streamlit's presenter defined that
dict's class anew on every call, and it is called for every component whenever a run registers
it or compacts the session's state: 6% of a slider release's CPU went to making classes (py-spy
``--gil``, 20 students on one process), each one also a reference cycle left for the garbage
collector. :func:`_presenter_factory` gives the same view from one class (:class:`_StateView`);
a test holds it to Streamlit's own presenter on the same inputs.

**A fragment's cached element outlived the clear of its interrupted run** (Streamlit 1.67). An
element the browser already holds is sent as a reference to it (a ``ref_hash`` message: the hash
and the delta path, no delta). When a slider's fragment run interrupts the previous run of the
same fragment, the queue drops that run's unsent deltas, telling them by their ``fragment_id``;
a reference has no delta, so none, and it was kept and sent, addressed to a place under blocks
whose other children had been dropped. The browser could not put it there ("Bad delta path
index 2 (should be between [0, 0])", or "'setIn' cannot be called on an ElementNode"), and
Streamlit's frontend ends the app on that: the page went blank (the HoHo page, 2 of about 12
runs of ``benchmarks/bench_after_step.py``; its decoded messages showed the lone reference).
:func:`_notes_ref_fragments` notes, as a reference is queued, the fragment running then (the
fragment its delta would have named), and :func:`_drops_fragment_refs` drops it with that
fragment's deltas.

**A fresh process's first element read the source of every frame** (Streamlit 1.67). The first
message a process queues decides whether to print "use streamlit run" (``_maybe_print_use_warning``):
its REPL check calls ``inspect.stack()``, which reads the source lines around every frame of the
stack (0.12-0.24 s on a fresh server's first page, py-spy). Under ``streamlit run`` the runtime
exists and neither warning applies, so :func:`install` marks the warning as shown there
(:func:`_use_warning_shown`); elsewhere (a script run by plain Python) Streamlit's check stays.

**A page script's parse failed spuriously** (CPython 3.11, python/cpython#106905). Streamlit parses
a page script (``magic.add_magic``, the first run of each page in a process) with ``ast.parse``,
and CPython 3.11 keeps the AST constructor's recursion depth in one counter for the interpreter:
a parse in another thread at the same moment (a visitor's formula, :mod:`dpviz.syntax`) can fail
it with ``SystemError: AST constructor recursion depth mismatch``, and the page showed a script
compilation error (one AppTest run of the HoHo page in the full suite, 2026-11-30).
:func:`_parses_again` asks again, a few times, for that error alone, as :func:`dpviz.syntax.parse`
does for dpviz's own parses (from the process's second page on: the fixes go in with the first
page's run, after Streamlit parsed it, when no other thread parses yet).
"""

from __future__ import annotations

import importlib
from typing import Any

from streamlit import config

from dpviz import syntax
from webui.streamlit_compat.guard import target
from webui.streamlit_compat.queue_fixes import _drops_fragment_refs, _keeps_runless, _notes_ref_fragments

UPSTREAM = {
    "queue keeps answers": "https://github.com/streamlit/streamlit/issues/17030 (open: the same clear drops a "
    "heartbeat_ack; the file box's file_urls_response is a second case of it)",
    "wake-up once": "none on record (searched 2026-11; PR 14985 shortened the flush's sleep, not its wake-ups)",
    "option without lock": "https://github.com/streamlit/streamlit/pull/2860 (the lock came with it; its review "
    "asked for a lock-free read of a parsed option, which this is)",
    "presenter class": "none on record (searched 2026-11; PR 12664 added presenters)",
    "parse again": "none on record at Streamlit (searched 2026-11; the cause is CPython's, "
    "https://github.com/python/cpython/issues/106905, fixed in 3.12)",
    "use warning": "none on record (searched 2026-11; PR 2643 put the check in the DeltaGenerator's enqueue)",
    "fragment references": "none on record (searched 2026-11; PR 9381 made fragment runs clear the queue, "
    "by the deltas' fragment_id, which a reference message lacks)",
}
"""Each fix's upstream issue or pull request, or that none was found: what to watch when Streamlit
is upgraded (a fix whose issue is closed may be taken out)."""


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


def _reads_without_lock(get_option):
    """``config.get_option`` that reads the parsed options without taking the config lock."""

    def get_option_unlocked(key: str):
        options = getattr(config, "_config_options", None)  # a dict, or None (also if a release renames it)
        if options is not None:
            option = options.get(key)
            if option is not None:
                return option.value
        return get_option(key)

    get_option_unlocked.__wrapped__ = get_option
    get_option_unlocked.dpviz_fix = True
    get_option_unlocked.__module__ = __name__
    return get_option_unlocked


class _StateView(dict):
    """A component's state as ``st.session_state`` shows it: trigger values, then the stored
    state over them; an assignment (``view[k] = v`` or ``view.k = v``) or a deletion goes through
    to the widget store, after the same checks as Streamlit's (not after the component was drawn
    in this run; keys outside ``allowed`` silently ignored)."""

    def __init__(self, data: dict, session_state, component_id: str | None, allowed: set | None) -> None:
        super().__init__(data)
        object.__setattr__(self, "_session_state", session_state)
        object.__setattr__(self, "_component_id", component_id)
        object.__setattr__(self, "_allowed", allowed)

    def __getattr__(self, name: str) -> Any:
        return self.get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            self[name] = value

    def __deepcopy__(self, memo: dict) -> "_StateView":
        memo[id(self)] = self  # a view of the real state, not a copy of it
        return self

    def _refuse_after_drawn(self, k: str) -> None:
        from streamlit.errors import StreamlitAPIException
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        if ctx is None or self._component_id is None:
            return
        user_key = self._session_state._key_id_mapper.get_key_from_id(self._component_id)
        if self._component_id in ctx.shared.widget_ids_this_run or user_key in ctx.shared.form_ids_this_run:
            raise StreamlitAPIException(
                f"`st.session_state.{user_key}.{k}` cannot be modified after the component"
                f" with key `{user_key}` is instantiated.",
                error_id="bidi-component-state-cannot-be-modified",
            )

    def _store(self) -> None:
        try:
            if self._component_id is not None:
                self._session_state._new_widget_state.set_from_value(self._component_id, dict(self))
        except Exception:  # noqa: BLE001 - as Streamlit's: the view keeps the value regardless
            pass

    def __setitem__(self, k: str, v: Any) -> None:
        self._refuse_after_drawn(k)
        if self._allowed is not None and k not in self._allowed:
            return
        super().__setitem__(k, v)
        self._store()

    def __delitem__(self, k: str) -> None:
        self._refuse_after_drawn(k)
        super().__delitem__(k)
        self._store()


def _trigger_values(session_state, aggregator_id: str) -> dict | None:
    """Event name -> value of the component's trigger payloads; None when its aggregator is not
    a trigger widget of this session (the state is then shown as it is)."""
    meta = session_state._new_widget_state.widget_metadata.get(aggregator_id)
    if meta is None or meta.value_type != "json_trigger_value":
        return None
    try:
        payloads = session_state._new_widget_state[aggregator_id]
    except KeyError:
        payloads = None
    if isinstance(payloads, dict):
        payloads = [payloads]
    out = {}
    for payload in payloads if isinstance(payloads, list) else ():
        if isinstance(payload, dict) and isinstance(payload.get("event"), str):
            out[payload["event"]] = payload.get("value")
    return out


def _presenter_factory(original):
    """``make_bidi_component_presenter`` whose presenter shows the state through :class:`_StateView`."""

    def make_presenter(aggregator_id: str, component_id: str | None = None, allowed_state_keys=None):
        def present(base_value: object, session_state) -> object:
            if not isinstance(base_value, dict):
                return base_value
            try:
                triggers = _trigger_values(session_state, aggregator_id)
                if triggers is None:
                    return base_value
                return _StateView({**triggers, **base_value}, session_state, component_id, allowed_state_keys)
            except Exception:  # noqa: BLE001 - as Streamlit's: on any error, the state as it is
                return base_value

        return present

    make_presenter.__wrapped__ = original
    make_presenter.dpviz_fix = True
    return make_presenter


def _use_warning_shown(shown: bool) -> bool:
    """Whether Streamlit's "use streamlit run" warning counts as shown: as it was, or the runtime
    exists (then neither of its warnings applies; module docstring)."""
    runtime = target("streamlit.runtime", "Runtime")
    return bool(shown) or (runtime is not None and runtime.exists())


def _parses_again(add_magic):
    """Streamlit's ``magic.add_magic`` asked again on CPython's spurious parse error (module docstring)."""

    def add_magic_again(code: str, script_path: str):
        return syntax.asked_again(add_magic, code, script_path)

    add_magic_again.dpviz_fix = True
    add_magic_again.__wrapped__ = add_magic
    return add_magic_again


def install() -> None:
    """Install the fixes (idempotent). Each goes in only where its target is found."""
    magic = target("streamlit.runtime.scriptrunner.magic", "")
    if magic is not None and hasattr(magic, "add_magic") and not getattr(magic.add_magic, "dpviz_fix", False):
        magic.add_magic = _parses_again(magic.add_magic)
    generator = target("streamlit.delta_generator", "")
    if generator is not None and hasattr(generator, "_use_warning_has_been_displayed"):
        generator._use_warning_has_been_displayed = _use_warning_shown(generator._use_warning_has_been_displayed)
    queue = target("streamlit.runtime.forward_msg_queue", "ForwardMsgQueue")
    if queue is not None and not getattr(queue.clear, "dpviz_fix", False):
        # a new run's clear drops a fragment's references (noted as they are queued), then keeps answers
        queue.clear = _keeps_runless(_drops_fragment_refs(queue.clear))
        queue.enqueue = _notes_ref_fragments(queue.enqueue)
    enqueued = target("streamlit.runtime.runtime", "Runtime._enqueued_some_message")
    if enqueued is not None and not getattr(enqueued, "dpviz_fix", False):
        runtime = importlib.import_module("streamlit.runtime.runtime").Runtime
        runtime._enqueued_some_message = _wakes_once(enqueued)
    if getattr(config.get_option, "__module__", None) == config.__name__:
        # Streamlit's own function only: not one that stands in for it (AppTest's, which answers
        # its own options during a test run; nor this fix itself)
        config.get_option = _reads_without_lock(config.get_option)
    presenter = target("streamlit.components.v2.presentation", "make_bidi_component_presenter")
    element = target("streamlit.components.v2.bidi_component.main", "make_bidi_component_presenter")
    if presenter is not None and element is not None and not getattr(element, "dpviz_fix", False):
        # the element's module took the name at import: the fix goes where it is called from
        made = _presenter_factory(presenter)
        importlib.import_module("streamlit.components.v2.presentation").make_bidi_component_presenter = made
        importlib.import_module("streamlit.components.v2.bidi_component.main").make_bidi_component_presenter = made
