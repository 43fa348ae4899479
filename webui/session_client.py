"""A Streamlit session without a browser: what a browser tab sends over the websocket, for the
class-load benchmark and for waking server processes at start.

A tab first GETs the page (behind the proxy that sets the cookie keeping it on one server
process), opens ``/_stcore/stream`` with that cookie, asks for a script run of the page with the
link's query string, and then, for each slider move, a run of the slider's fragment with the
slider's new value. Each run is answered by deltas and a ``script_finished`` message.

Like a browser tab it keeps Streamlit's message cache: an element of at least
``global.minCachedMessageSize`` bytes (10 kB: every chart worth counting) is kept by its hash,
every run request lists the hashes kept, and the server answers an element the tab already holds
with a reference to it instead of the element (a chart whose data did not change is not sent
again). A kept element is dropped once it has gone unused for ``global.maxCachedMessageAge`` (2)
runs of its part of the page, as the browser drops it.

    python -m webui.session_client --wake 40001 40002    # open the home page on each process once

Waking runs ``app.py`` once in every process, which starts the hosted warm-up there (every page's
charts on their defaults), so the first students of a class find them computed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
import urllib.request

from webui.plotly_element import CHART_COMPONENT
from webui.streamlit_compat.protocol import message

ANSWER_TIMEOUT = 180.0
"""Seconds a run may take before the client gives up on it."""

MAX_CACHED_AGE = 2
"""Runs a kept element survives unused (Streamlit's ``global.maxCachedMessageAge``, which the
browser applies)."""


def element_kind(el) -> str:
    """An element's type as the page shows it: ``"chart"`` for a chart, whether drawn by dpviz's
    chart element (:mod:`webui.plotly_element`) or by Streamlit's Plotly element; else the
    element's own type (``"alert"``, ``"slider"``, ...)."""
    kind = el.WhichOneof("type")
    if kind == "plotly_chart" or (kind == "bidi_component" and el.bidi_component.component_name == CHART_COMPONENT):
        return "chart"
    return kind


class PageError(RuntimeError):
    """The page showed an exception or an error box."""


class SessionClient:
    """One browser tab's protocol: a cookie, a websocket, a script run per page open and a
    fragment run per slider move. ``slider_label`` names the live slider :meth:`move` moves (empty:
    the page's first live slider); with ``live=False`` any slider, in a fragment or not."""

    def __init__(
        self, base: str, page: str = "", query: str = "", slider_label: str = "", rng=None, observe=None, live=True
    ):
        self.base, self.page, self.query, self.label = base.rstrip("/"), page, query, slider_label
        self.live = live  # only a live slider (in a fragment) is moved; False: any select-slider (a full run)
        self.rng = rng or random.Random(0)
        self.observe = observe  # observe(kind, element, seconds since the run was asked for), per element
        self._started = 0.0
        self.ws = None
        self.sliders: dict[str, tuple] = {}  # label -> (widget id, options, index, fragment id), each movable slider
        self.page_hash = ""
        self.widgets: dict[str, str] = {}  # label -> widget id, of the number inputs and buttons drawn
        self.auto_reruns: dict[str, float] = {}  # fragment id -> seconds, the fragments a browser reruns by itself
        self.kept: dict[str, list] = {}  # hash -> [the message, the run it was last used in, its fragment id]
        self.runs = 0  # runs finished, the message cache's clock
        self.last_run: list[tuple] = []  # the last run's elements: (kind, sent as a reference, bytes, element)
        self.received_bytes = 0  # over the websocket, all runs

    def _cookie(self) -> str:
        """GET the page as a browser does first; its Set-Cookie lines become the Cookie header."""
        with urllib.request.urlopen(f"{self.base}/{self.page}?{self.query}", timeout=60) as r:
            cookies = r.headers.get_all("Set-Cookie") or []
        return "; ".join(c.split(";", 1)[0] for c in cookies)

    async def connect(self) -> None:
        """The page's GET, then the websocket with the cookie it set."""
        import websockets

        cookie = await asyncio.get_running_loop().run_in_executor(None, self._cookie)
        ws_url = self.base.replace("http://", "ws://", 1) + "/_stcore/stream"
        headers = {"Cookie": cookie} if cookie else {}
        self.ws = await websockets.connect(
            ws_url, subprotocols=["streamlit"], max_size=None, additional_headers=headers, open_timeout=60
        )

    async def _run(self, state) -> float:
        """Send one rerun request and wait for its ``script_finished``; returns the seconds."""
        BackMsg, ForwardMsg = message("BackMsg"), message("ForwardMsg")  # noqa: N806 - Streamlit's classes

        msg = BackMsg()
        msg.rerun_script.CopyFrom(state)
        msg.rerun_script.cached_message_hashes.extend(self.kept)
        start = self._started = time.perf_counter()
        self.last_run = []
        await self.ws.send(msg.SerializeToString())
        deadline = start + ANSWER_TIMEOUT
        while True:
            data = await asyncio.wait_for(self.ws.recv(), timeout=max(0.1, deadline - time.perf_counter()))
            self.received_bytes += len(data)
            fm = ForwardMsg()
            fm.ParseFromString(data)
            fm, by_reference = self._through_cache(fm)
            kind = fm.WhichOneof("type")
            if kind == "new_session":
                self.page_hash = fm.new_session.page_script_hash
            elif kind == "navigation":
                self.page_hash = fm.navigation.page_script_hash  # the page st.navigation ran, as the browser keeps it
            elif kind == "auto_rerun":
                self.auto_reruns[fm.auto_rerun.fragment_id] = fm.auto_rerun.interval
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                el = fm.delta.new_element
                self.last_run.append((element_kind(el), by_reference, len(data), el))
                self._element(fm.delta)
            elif kind == "script_finished" and fm.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                self._age_cache(state.fragment_id)
                return time.perf_counter() - start

    def _through_cache(self, fm):
        """The message itself for a reference to a kept one (and True), else ``fm`` (kept if the
        server marked it cacheable) and False, as the browser's message cache does."""
        if fm.WhichOneof("type") == "ref_hash":
            entry = self.kept.get(fm.ref_hash)
            if entry is None:
                raise PageError(f"the server referred to an element this tab never kept ({fm.ref_hash})")
            entry[1] = self.runs
            return entry[0], True
        if fm.metadata.cacheable and fm.hash:
            self.kept[fm.hash] = [fm, self.runs, fm.delta.fragment_id if fm.HasField("delta") else ""]
        return fm, False

    def _age_cache(self, fragment_id: str) -> None:
        """A run finished: drop kept elements unused for more than :data:`MAX_CACHED_AGE` runs (after
        a fragment's run, only that fragment's)."""
        self.runs += 1
        for h, (_, used, where) in list(self.kept.items()):
            if (not fragment_id or where == fragment_id) and self.runs - used > MAX_CACHED_AGE:
                del self.kept[h]

    def _element(self, delta) -> None:
        el = delta.new_element
        kind = element_kind(el)
        if self.observe is not None:
            self.observe(kind, getattr(el, el.WhichOneof("type")), time.perf_counter() - self._started)
        if kind == "exception":
            raise PageError(f"exception box: {el.exception.type}: {el.exception.message[:200]}")
        if kind == "alert" and el.alert.format == 1:  # Alert.ERROR
            raise PageError(f"error box: {el.alert.body[:200]}")
        if kind in ("number_input", "button"):
            self.widgets[getattr(el, kind).label] = getattr(el, kind).id
        if kind == "slider" and (delta.fragment_id or not self.live):
            s = el.slider
            if s.options:  # a select-slider: its options; its value an option (set from the session) or an index
                positions = list(s.options)
                raw = list(s.raw_value) if s.set_value else []
                if raw and str(raw[0]) in positions:
                    index = positions.index(str(raw[0]))
                else:
                    index = int(s.value[0]) if s.value else (int(s.default[0]) if s.default else 0)
            else:  # a numeric slider: its grid from min to max by step
                count = min(int(round((s.max - s.min) / s.step)) + 1, 10_001) if s.step > 0 else 1
                positions = [s.min + k * s.step for k in range(count)]
                at = s.value[0] if s.value else (s.default[0] if s.default else s.min)
                index = min(range(count), key=lambda k: abs(positions[k] - at))
            known = self.sliders.get(s.label)
            if known is not None and known[0] == s.id:
                index = known[2]  # the server echoes our own move: keep our index
            self.sliders[s.label] = (s.id, positions, index, delta.fragment_id)
            if not self.label:
                self.label = s.label  # none named: the first one drawn

    async def open(self) -> float:
        """Open the page by its link (a full script run); returns the seconds to its answer."""
        ClientState = message("ClientState")  # noqa: N806 - Streamlit's class

        await self.connect()
        return await self._run(ClientState(query_string=self.query, page_name=self.page))

    async def move(self, steps: int | None = None) -> float:
        """Move the slider ``steps`` positions (default: one to three either way, within its
        range) as a fragment run (a full run for a slider outside a fragment); returns the seconds
        to the answer."""
        ClientState = message("ClientState")  # noqa: N806 - Streamlit's class

        if self.slider is None:
            raise PageError(f"no live slider {self.label!r} on {self.page or 'the home page'}")
        wid, options, index, fragment = self.slider
        if steps is None:
            steps = self.rng.randint(1, 3) * self.rng.choice((-1, 1))
            if not 0 <= index + steps < len(options):
                steps = -steps
        index = min(max(index + steps, 0), len(options) - 1)
        self.sliders[self.label] = (wid, options, index, fragment)
        state = ClientState(query_string=self.query, page_script_hash=self.page_hash, fragment_id=fragment)
        w = state.widget_states.widgets.add()
        w.id = wid
        if isinstance(options[index], str):
            w.string_array_value.data.append(options[index])
        else:
            w.double_array_value.data.append(options[index])
        return await self._run(state)

    @property
    def asking(self) -> int:
        """How many elements of the last run are frames still being computed (``b"P"``: a browser
        asks the server again in 2 s, a run of the live section as :meth:`ask` sends)."""
        from webui.live_frames import FRAMES_COMPONENT  # (lazy: the load clients start without Streamlit, 0.3 s)

        return sum(
            1
            for kind, _, _, el in self.last_run
            if kind == "bidi_component"
            and el.bidi_component.component_name.endswith(FRAMES_COMPONENT)
            and el.bidi_component.bytes[:1] == b"P"
        )

    async def ask(self) -> float:
        """What a browser sends 2 s after a run that drew frames still being computed: the live
        section run again with the slider where it is (its answer holds the frames, or asks on)."""
        return await self.move(0)

    @property
    def slider(self) -> tuple | None:
        """The slider :meth:`move` moves: (widget id, options, index, fragment id), or None."""
        return self.sliders.get(self.label)

    def use_slider(self, label: str) -> None:
        """Move the slider ``label`` from now on (one the page has drawn)."""
        if label not in self.sliders:
            raise PageError(f"no slider {label!r} on {self.page or 'the home page'}")
        self.label = label

    async def press(self, button_label: str, numbers: dict[str, float] | None = None) -> float:
        """Press the button ``button_label``, with ``numbers`` typed into number inputs first (by
        label: a form's boxes and its submit button go as one script run); returns the seconds to
        the answer."""
        ClientState = message("ClientState")  # noqa: N806 - Streamlit's class

        missing = [label for label in [*(numbers or {}), button_label] if label not in self.widgets]
        if missing:
            raise PageError(f"no {', '.join(map(repr, missing))} on {self.page}")
        state = ClientState(query_string=self.query, page_script_hash=self.page_hash)
        for label, value in (numbers or {}).items():
            box = state.widget_states.widgets.add()
            box.id, box.double_value = self.widgets[label], float(value)
        button = state.widget_states.widgets.add()
        button.id, button.trigger_value = self.widgets[button_label], True
        return await self._run(state)

    async def rerun_fragment(self, fragment_id: str) -> float:
        """Rerun one fragment, as the browser does by itself for a fragment with ``run_every``."""
        ClientState = message("ClientState")  # noqa: N806 - Streamlit's class

        state = ClientState(query_string=self.query, page_script_hash=self.page_hash, fragment_id=fragment_id)
        return await self._run(state)

    async def close(self) -> None:
        """Close the websocket (the server ends the session)."""
        if self.ws is not None:
            await self.ws.close()


async def wake(ports: list[int]) -> None:
    """Open the home page once on each server process (loopback), so each starts its warm-up."""

    async def one(port: int) -> None:
        client = SessionClient(f"http://127.0.0.1:{port}")
        try:
            await client.open()
        finally:
            await client.close()

    await asyncio.gather(*(one(p) for p in ports))


def main(argv: list[str] | None = None) -> int:
    """``--wake PORT ...``: open the home page on each loopback port once."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wake", type=int, nargs="+", required=True, metavar="PORT")
    args = ap.parse_args(argv)
    try:
        asyncio.run(wake(args.wake))
    except Exception as err:  # noqa: BLE001  (a failed wake-up only means a cold first visitor)
        print(f"dpviz: could not wake the server processes ({err}); the first visitors start them.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
