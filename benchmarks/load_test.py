"""Load test: N concurrent browser sessions (headless Chromium, Playwright) move controls on all
pages of a real dpviz server on localhost for a bounded time.

    python benchmarks/load_test.py --sessions 10 --seconds 120

Reports errors (exception boxes, timeouts), the median and 95th-percentile time from a control
change to the chart's update, and the server's peak resident memory (VmHWM). The server runs in
hosted mode (DPVIZ_HOSTED=1) on a free loopback port and is stopped at the end. Traffic goes to
127.0.0.1 only; every session stops by itself after --seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from test_browser import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server  # noqa: E402

# (page path with small parameters, role, control name, chart index, text expected after the change (format with value))
SCENARIOS = (
    ("/ADePT_sensitivity?pairs=1000&dims=1-40&samples=5000&draws=200&audit_samples=2000", "slider", "Dimension n", 0, "n = {v}:"),
    ("/Partial_sensitivity?per_class=100&sgd_steps=100&dpsgd_steps=100&eval_per_class=50", "spinbutton", "Gaussian noise σ", 2, "σ = {v}"),
    ("/Metric_DP?words=3&samples=100&knn_words=20&epsilons=2,5,10,30", "spinbutton", "ε for the rewrites", None, "ε = {v})"),
    ("/HoHo_attack?repeats=20&targets=0.05&epsilons=0.1,1&lambdas=1,10&audit_samples=2000", "spinbutton", "Example sentence (#)", 0, "#{v}:"),
)


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def session(browser, url: str, k: int, deadline: float, latencies: list, errors: list) -> None:
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await ctx.new_page()
    page.set_default_timeout(120_000)
    step = 0
    try:
        while time.monotonic() < deadline:
            path, role, name, chart, expect = SCENARIOS[(k + step) % len(SCENARIOS)]
            await page.goto(url + path)
            await page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 4", timeout=180_000)
            value = 3 + (k * 7 + step) % 40
            t = time.perf_counter()
            ctrl = page.get_by_role(role, name=name, exact=role != "slider")  # a slider's accessible name repeats its label
            if role == "slider":
                await ctrl.focus()
                for _ in range(value % 5 + 1):
                    await page.keyboard.press("ArrowRight")
                value = None
            else:
                await ctrl.fill(str(value))
                await ctrl.press("Enter")
            if value is None:
                await page.wait_for_function("document.querySelectorAll('.js-plotly-plot')[0].innerText.includes('n = ') && !document.querySelectorAll('.js-plotly-plot')[0].innerText.includes('n = 64:')", timeout=120_000)
            else:
                await page.wait_for_function(f"document.body.innerText.includes({expect.format(v=value)!r})", timeout=120_000)
            latencies.append(time.perf_counter() - t)
            if await page.locator('[data-testid="stException"]').count():
                errors.append(f"exception box on {path}")
            step += 1
    except Exception as err:  # a timeout or a crash is an error of the run
        errors.append(f"session {k}: {type(err).__name__}: {str(err)[:120]}")
    finally:
        await ctx.close()


async def main_async(args) -> None:
    from playwright.async_api import async_playwright

    tmp = Path(tempfile.mkdtemp())
    proc, url, log = start_server(tmp, {"DPVIZ_HOSTED": "1"})
    latencies, errors = [], []
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            deadline = time.monotonic() + args.seconds
            await asyncio.gather(*(session(browser, url, k, deadline, latencies, errors) for k in range(args.sessions)))
            await browser.close()
        peak = peak_rss_mib(proc.pid)
    finally:
        stop_server(proc, log)
    lat = sorted(latencies)
    print(f"sessions: {args.sessions}, duration: {args.seconds} s, control changes: {len(lat)}")
    print(f"errors: {len(errors)}" + "".join(f"\n  {e}" for e in errors[:10]))
    if lat:
        print(f"control change -> chart updated: median {statistics.median(lat):.2f} s, 95th percentile {lat[int(0.95 * (len(lat) - 1))]:.2f} s")
    print(f"server peak memory (VmHWM): {peak:,.0f} MiB")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--seconds", type=int, default=120)
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()
