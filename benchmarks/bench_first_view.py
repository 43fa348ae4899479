"""A newcomer's first view of each page on a fresh install: a fresh server (one process, not
hosted, no warm-up) with an empty cache, the page opened by its link, timed at the protocol level
(webui/session_client.py) until the first chart arrives, until every chart has a first answer
(a chart at the paper's cheaper ``first_answer`` settings, marked as such, counts), and until
the page is complete. Baseline, same run: the same page opened again by a second visitor (every
chart computed). The metric engine's compiled loops are built at install (``python -m dpviz
build``), so they are not part of a first view.

With ``--frames both`` each page is opened on two fresh servers, one with frames off
(``DPVIZ_FRAMES=0``: dpviz before frames, every slider move a server run) and one with frames on
(the default), and the ratio of their "complete" times is printed: what sending a chart's frames
(and asking for them) costs a first view.

    python benchmarks/bench_first_view.py [--pages Metric_DP HoHo_attack] [--frames on|off|both]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

import from_tests  # noqa: E402, F401 - the tests' helpers (benchmarks/from_tests.py)
from browser_support import start_server, stop_server  # noqa: E402
from paper_pages import url_path  # noqa: E402

from dpviz.papers import all_papers  # noqa: E402
from webui.session_client import SessionClient  # noqa: E402


async def view(url: str, page: str) -> dict:
    """Open ``page``; the seconds to its first chart, to a chart (first or full) in every place, and to the end."""
    charts, firsts = [], []

    def observe(kind, element, seconds):
        if kind == "chart":
            charts.append(seconds)
        elif kind == "alert" and element.body.startswith("**First answer**"):
            firsts.append(seconds)

    client = SessionClient(url, page, observe=observe)
    try:
        done = await client.open()
    finally:
        await client.close()
    # a first answer is a chart followed by its note; a full chart later takes its place
    places = len(charts) - len(firsts)
    return {
        "first_chart_s": charts[0] if charts else None,
        "every_chart_s": sorted(charts)[places - 1] if places > 0 else None,
        "first_answers": len(firsts),
        "complete_s": done,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", nargs="+", default=[url_path(p.key) for p in all_papers()])
    ap.add_argument("--frames", choices=("on", "off", "both"), default="on")
    args = ap.parse_args()
    modes = ["off", "on"] if args.frames == "both" else [args.frames]
    head = ("page", "frames", "first chart", "every chart", "first answers", "complete", "again")
    print(f"{head[0]:22s} {head[1]:>6s} {head[2]:>12s} {head[3]:>12s} {head[4]:>14s} {head[5]:>9s} {head[6]:>7s}")
    for page in args.pages:
        complete = {}
        for mode in modes:
            with tempfile.TemporaryDirectory(prefix="dpviz-first-") as tmp:
                env = {"DPVIZ_WARMUP": "0", "DPVIZ_FRAMES": "1" if mode == "on" else "0"}
                proc, url, log = start_server(Path(tmp), env)
                try:
                    cold = asyncio.run(view(url, page))
                    warm = asyncio.run(view(url, page))
                finally:
                    stop_server(proc, log)
            complete[mode] = cold["complete_s"]
            print(
                f"{page:22s} {mode:>6s} {cold['first_chart_s']:11.2f}s {cold['every_chart_s']:11.2f}s "
                f"{cold['first_answers']:14d} {cold['complete_s']:8.2f}s {warm['complete_s']:6.2f}s"
            )
        if len(complete) == 2:
            print(f"{page:22s}  complete with frames / without: {complete['on'] / complete['off']:.2f}x")


if __name__ == "__main__":
    main()
