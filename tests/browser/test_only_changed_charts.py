"""A slider move sends again only the charts whose data changed: the others in the slider's
fragment come as references to what the tab already holds (Streamlit's message cache; dpviz keeps
each chart as the same JSON string, so an unchanged chart has the same hash). Checked at the
protocol level (the class benchmark's client keeps the cache as a tab does) and in Chromium, by
the websocket frames the page receives, on the ADePT page: its fragment holds charts that follow
ε, charts that follow n, and one that follows neither."""

from __future__ import annotations

import asyncio
import time

from browser_support import FAST, look_at, wait_for_charts

from dpviz import registry
from webui.session_client import SessionClient, element_kind

PAGE = "ADePT_sensitivity"
EPS, DIM = "Privacy budget ε (claimed)", "Dimension n"
BIG = 10_000  # Streamlit's global.minCachedMessageSize: smaller elements are always sent whole


def _fragment_charts() -> dict[str, set[str]]:
    """The live fragment's charts (figure id) and the live sliders each depends on (a chart drawn
    only when asked for is a button until then)."""
    specs = registry.paper_figures("adept")
    live = {p.name for p in registry.page_params("adept") if p.slider}
    uses = [i for i, s in enumerate(specs) if {p.name for p in s.params} & live]
    inside = specs[uses[0] : uses[-1] + 1]
    return {s.id: {p.name for p in s.params} & live for s in inside if not s.on_demand}


def _chart_id(element) -> str:
    return getattr(element, element.WhichOneof("type")).id.rsplit("chart-", 1)[-1]


def _chart_data(element) -> bytes | str:
    """What a chart element carries: dpviz's chart element its bytes (the figure in them), Streamlit's its spec."""
    return element.bidi_component.bytes if element.WhichOneof("type") == "bidi_component" else element.plotly_chart.spec


def _charts_of_run(client: SessionClient) -> dict[str, tuple[bool, int, str]]:
    """The last run's charts: figure id -> (came as a reference, bytes on the wire, its spec)."""
    return {_chart_id(el): (ref, size, _chart_data(el)) for kind, ref, size, el in client.last_run if kind == "chart"}


async def _protocol(url: str) -> list[tuple[str, dict, dict]]:
    """Open the page, then move ε and then n one step each: (slider, charts before, charts after)."""
    out = []
    tab = SessionClient(url, PAGE, FAST, slider_label=EPS)
    try:
        await tab.open()
        before = _charts_of_run(tab)
        assert before and not any(ref for ref, _, _ in before.values()), "a first open sent references"
        for name, label in (("epsilon", EPS), ("dim", DIM)):
            tab.use_slider(label)
            await tab.move(1)
            after = _charts_of_run(tab)
            out.append((name, before, after))
            before = after
    finally:
        await tab.close()
    return out


def test_a_move_resends_only_the_charts_that_changed_protocol(server):
    charts = _fragment_charts()
    assert any(not deps for deps in charts.values()), "the fragment has no chart that follows neither slider"
    for moved, before, after in asyncio.run(_protocol(server)):
        assert set(after) == set(charts), f"the {moved} move drew {sorted(after)}, not the fragment's charts"
        for fid, (ref, size, spec) in after.items():
            changed = spec != before[fid][2]
            if ref:  # what the tab holds: the chart as it was
                assert not changed
            else:  # sent again: it changed, or it is too small for the cache
                assert changed or size < BIG, (
                    f"{fid} did not change on the {moved} move but was sent again ({size} bytes)"
                )
            if moved not in charts[fid]:
                assert not changed, f"{fid} does not follow {moved} but changed"
        resent = {fid for fid, (ref, _, _) in after.items() if not ref}
        assert resent and resent <= {fid for fid, deps in charts.items() if moved in deps}
        assert any(ref for ref, _, _ in after.values()), f"the {moved} move sent every chart again"


# --- the same in Chromium: the frames a page receives --------------------------------------------

WATCH = """(id) => { const all = document.querySelectorAll(`.st-key-chart-${id} .js-plotly-plot`);
    const gd = all[all.length - 1]; return gd && gd.data ? JSON.stringify(gd.data) : ''; }"""


def test_a_move_resends_only_the_charts_that_changed_in_chromium(server, page):
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    charts = _fragment_charts()
    frames: list[bytes] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda data: frames.append(data)))
    page.goto(f"{server}/{PAGE}?{FAST}")
    n_charts = sum(not s.on_demand for s in registry.paper_figures("adept"))
    wait_for_charts(page, n_charts)
    page.wait_for_timeout(500)
    by_hash: dict[str, str] = {}
    for data in frames:
        fm = ForwardMsg.FromString(data) if isinstance(data, bytes) else None
        if fm and fm.WhichOneof("type") == "delta" and element_kind(fm.delta.new_element) == "chart":
            by_hash[fm.hash] = _chart_id(fm.delta.new_element)
    still = {fid: page.evaluate(WATCH, fid) for fid, deps in charts.items() if "epsilon" not in deps}
    follows = next(fid for fid, deps in charts.items() if "epsilon" in deps)
    before = page.evaluate(WATCH, follows)
    look_at(page, f".st-key-chart-{follows}")  # a chart out of view is redrawn when it comes into view
    frames.clear()

    slider = page.get_by_role("slider", name=EPS)
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("([id, b]) => (" + WATCH + ")(id) !== b", arg=[follows, before], timeout=60_000)
    deadline = time.monotonic() + 60
    whole, refs = set(), set()
    while time.monotonic() < deadline:  # until the run's script_finished has arrived
        msgs = [ForwardMsg.FromString(d) for d in frames if isinstance(d, bytes)]
        if any(m.WhichOneof("type") == "script_finished" for m in msgs):
            break
        page.wait_for_timeout(200)
    for m in msgs:
        if m.WhichOneof("type") == "ref_hash":
            refs.add(by_hash.get(m.ref_hash, "?"))
        elif m.WhichOneof("type") == "delta" and element_kind(m.delta.new_element) == "chart":
            whole.add(_chart_id(m.delta.new_element))
    assert whole == {fid for fid, deps in charts.items() if "epsilon" in deps}
    assert refs and refs <= set(still), f"references to {sorted(refs)}"
    # what the reader sees: every chart still drawn, the unchanged ones exactly as before
    wait_for_charts(page, n_charts)
    for fid, data in still.items():
        assert page.evaluate(WATCH, fid) == data, f"{fid} changed on the page"
