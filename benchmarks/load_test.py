"""Load test: N concurrent browser sessions (headless Chromium, Playwright) use all four pages
of a real dpviz server on localhost for a bounded time, as visitors do: open a page by a link,
wait for its charts, then change a control a few times, pausing to read between changes.

    python benchmarks/load_test.py --sessions 10 --seconds 120

It first runs one session alone (the baseline, same server, same run), then N at once, and
reports for each: errors (exception boxes, timeouts; there must be none), the median and
95th-percentile time from a control change to the chart's update, the time for a page's charts
to appear, and the N-session/1-session ratio of the medians. The server runs in hosted mode
(DPVIZ_HOSTED=1) on a free loopback port and its peak resident memory (VmHWM) is reported.
Traffic goes to 127.0.0.1 only; every session stops by itself after --seconds. The browsers
run on the same machine as the server, so on a small machine they compete with it for CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import from_tests  # noqa: E402, F401 - the tests' helpers (benchmarks/from_tests.py)
from browser_support import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server  # noqa: E402
from server_cpu import process_cpu_seconds, wait_until_idle  # noqa: E402

CHART = "document.querySelectorAll('.js-plotly-plot')"


@dataclass(frozen=True)
class Control:
    role: str  # "slider" (moved with the arrow keys) or "spinbutton" (a number typed and Enter)
    name: str  # its label
    values: tuple  # what a visitor types (spinbuttons)
    expect: str  # text that appears once the page shows the new value, formatted with {v}
    chart: int | None  # which chart shows it (None: anywhere on the page)


# page link with small parameters (the hosted demo's visitors), charts it shows, its controls
PAGES = (
    (
        "/ADePT_sensitivity?pairs=1000&dims=1-40&samples=5000&draws=200&audit_samples=2000",
        6,
        (
            Control("slider", "Dimension n", (), "n = {v}:", 0),
            Control("slider", "Privacy budget ε (claimed)", (), "ADePT claims ε = {v}", 1),
        ),
    ),
    (
        "/Partial_sensitivity?per_class=100&sgd_steps=100&dpsgd_steps=100&eval_per_class=50",
        6,
        (Control("slider", "Gaussian noise σ", (), "σ = {v}", None),),
    ),
    (
        "/Metric_DP?words=3&samples=100&knn_words=20&epsilons=2,5,10,30",
        9,
        (Control("slider", "ε", (), "(ε = {v}, the slider", None),),
    ),
    (
        "/HoHo_attack?targets=0.05&epsilons=0.1,1&lambdas=1,10&audit_samples=2000",
        7,
        (
            Control("spinbutton", "Example sentence (#)", tuple(range(1, 199)), "#{v}:", 1),
            Control("slider", "λ", (), "OME, λ = {v} at claimed", 0),
        ),
    ),
)


@dataclass
class Results:
    changes: list = field(default_factory=list)  # seconds from a control change to the update
    slowest: list = field(default_factory=list)  # (seconds, page, control) of every change
    loads: list = field(default_factory=list)  # seconds from opening a link to all its charts
    errors: list = field(default_factory=list)
    machine_cpu: float = 0.0  # CPU seconds the whole machine was busy
    server_cpu: float = 0.0  # of which the dpviz server


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent outside idle/iowait since boot (/proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


async def _change(page, ctl: Control, rng: random.Random, last: dict) -> str:
    """Move one control to a new value; returns the text to wait for."""
    box = page.get_by_role(ctl.role, name=ctl.name, exact=ctl.role != "slider")  # a slider's name repeats its label
    if ctl.role == "slider":  # whole-number and log-scale sliders alike: the arrow keys step along them
        steps = rng.randint(1, 4)
        await box.focus()
        for _ in range(steps):
            await page.keyboard.press("ArrowLeft" if rng.random() < 0.3 else "ArrowRight")
        return ctl.expect.format(v=await box.get_attribute("aria-valuetext"))
    v = rng.choice([x for x in ctl.values if x != last.get(ctl.name)])
    last[ctl.name] = v
    await box.fill(str(v))
    await box.press("Enter")
    return ctl.expect.format(v=v)


async def session(
    browser, url: str, k: int, deadline: float, changes_per_visit: int, think: float, res: Results
) -> None:
    rng = random.Random(k)
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await ctx.new_page()
    page.set_default_timeout(120_000)
    visit = 0
    try:
        while time.monotonic() < deadline:
            path, charts, controls = PAGES[(k + visit) % len(PAGES)]
            t = time.perf_counter()
            await page.goto(url + path)
            await page.wait_for_function(f"{CHART}.length >= {charts}", timeout=120_000)
            res.loads.append(time.perf_counter() - t)
            last: dict = {}
            for i in range(changes_per_visit):
                if time.monotonic() >= deadline:
                    break
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))  # reading the chart
                ctl = controls[i % len(controls)]
                t = time.perf_counter()
                expect = await _change(page, ctl, rng, last)
                where = "document.body" if ctl.chart is None else f"{CHART}[{ctl.chart}]"
                await page.wait_for_function(f"{where}.innerText.includes({expect!r})", timeout=120_000)
                res.changes.append(time.perf_counter() - t)
                res.slowest.append((res.changes[-1], path.split("?")[0], ctl.name))
            if await page.locator('[data-testid="stException"]').count():
                res.errors.append(f"exception box on {path}")
            visit += 1
    except Exception as err:  # a timeout or a crash is an error of the run
        res.errors.append(f"session {k}: {type(err).__name__}: {str(err).splitlines()[0][:160]}")
    finally:
        await ctx.close()


async def phase(browser, url: str, server_pid: int, sessions: int, seconds: float, args) -> Results:
    res = Results()
    deadline = time.monotonic() + seconds
    machine, server = machine_busy_seconds(), process_cpu_seconds(server_pid)
    await asyncio.gather(*(session(browser, url, k, deadline, args.changes, args.think, res) for k in range(sessions)))
    res.machine_cpu = machine_busy_seconds() - machine
    res.server_cpu = process_cpu_seconds(server_pid) - server
    return res


def peak_rss_mib(pid: int) -> float:
    """Peak resident memory of the server (serve.sh execs streamlit, so the pid is the server)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _q(xs: list, q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def report(label: str, res: Results) -> None:
    print(f"{label}: {len(res.changes)} control changes, {len(res.loads)} page loads, errors: {len(res.errors)}")
    for e in res.errors[:10]:
        print(f"  {e}")
    if res.changes:
        print(
            f"  control change -> chart updated: median {statistics.median(res.changes):.2f} s, "
            f"95th percentile {_q(res.changes, 0.95):.2f} s"
        )
    if res.slowest:
        print(
            "  slowest changes: "
            + "; ".join(f"{s:.1f} s {page} {name!r}" for s, page, name in sorted(res.slowest, reverse=True)[:4])
        )
    if res.loads:
        print(
            f"  link opened -> all charts shown: median {statistics.median(res.loads):.2f} s, "
            f"95th percentile {_q(res.loads, 0.95):.2f} s"
        )
    if res.machine_cpu:
        print(
            f"  CPU: machine busy {res.machine_cpu:.0f} s, of which the server {res.server_cpu:.0f} s "
            f"({100 * res.server_cpu / res.machine_cpu:.0f}%); the rest is the browsers and their driver"
        )
        actions = len(res.changes) + len(res.loads)
        if actions:
            print(f"  server CPU per action (page load or control change): {res.server_cpu / actions:.2f} s")


async def main_async(args) -> int:
    from playwright.async_api import async_playwright

    tmp = Path(tempfile.mkdtemp())
    proc, url, log = start_server(tmp, {"DPVIZ_HOSTED": "1"})
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            # warm-up: every page once (GloVe, corpora, training runs load on first use)
            await phase(browser, url, proc.pid, len(PAGES), 30, args)
            await asyncio.to_thread(
                wait_until_idle, proc.pid
            )  # the hosted warm-up of the default views, started by the first visit
            base = await phase(browser, url, proc.pid, 1, args.baseline_seconds, args)
            load = await phase(browser, url, proc.pid, args.sessions, args.seconds, args)
            await browser.close()
        peak = peak_rss_mib(proc.pid)
    finally:
        stop_server(proc, log)
    print(f"think time {args.think:g} s between changes, {args.changes} changes per page visit")
    report("1 session (baseline)", base)
    report(f"{args.sessions} sessions, {args.seconds} s", load)
    if base.changes and load.changes:
        print(
            f"ratio of medians, {args.sessions} sessions / 1: control change "
            f"{statistics.median(load.changes) / statistics.median(base.changes):.1f}x, page load "
            f"{statistics.median(load.loads) / statistics.median(base.loads):.1f}x"
        )
    print(f"server peak memory (VmHWM): {peak:,.0f} MiB")
    return 1 if (base.errors or load.errors) else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--seconds", type=int, default=120, help="length of the N-session phase")
    ap.add_argument("--baseline-seconds", type=int, default=60, help="length of the one-session phase")
    ap.add_argument("--changes", type=int, default=3, help="control changes per page visit")
    ap.add_argument("--think", type=float, default=3.0, help="mean seconds a visitor reads before the next change")
    sys.exit(asyncio.run(main_async(ap.parse_args())))


if __name__ == "__main__":
    main()
