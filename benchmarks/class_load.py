"""A class on a hosted demo, played at the protocol level: N students open one link at once, then
each moves a live slider one to three steps every 5 ± 2.5 s, as the page's browser would (a
fragment rerun over Streamlit's websocket), for a bounded time. No browsers: only the server is
measured (the browser load test, ``load_test.py``, is for what the browser adds).

    python benchmarks/class_load.py --students 30 --page Metric_DP --seconds 120
    python benchmarks/class_load.py --students 30 --page HoHo_attack --slider λ   # (default: the first live slider)
    python benchmarks/class_load.py --students 30 --new-link       # all open one link nobody computed yet
    python benchmarks/class_load.py --students 30 --own-links      # each opens a link with its own settings
    python benchmarks/class_load.py --url http://127.0.0.1:8501 --students 5   # a server already running

Unless ``--url`` is given it starts the hosted start command (``DPVIZ_HOSTED=1 bash
scripts/serve.sh``: one server process per core behind HAProxy, ``--processes`` to choose) on a
free loopback port with a fresh cache, lets its warm-up finish, and runs
one student alone first (the baseline: the server's answer and its CPU-seconds per move when
nobody else is there), then the class. It reports, per action (open, move): count, p50, p95 and
max of the server's answer (request sent to ``script_finished`` received), errors (an exception
or error box, a timeout, a dropped connection), and the CPU-seconds of every server process
(each Streamlit process and the proxy) over the class's run, per action; and per move the bytes
received and the charts sent whole or as references to what the tab already held (each student
keeps Streamlit's message cache as a browser tab does). Traffic goes to
127.0.0.1 only, and every student stops by itself after ``--seconds``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import from_tests  # noqa: E402, F401 - the tests' helpers (benchmarks/from_tests.py)
from browser_support import start_server, stop_server  # noqa: E402
from server_cpu import process_cpu_seconds  # noqa: E402

from webui.session_client import ANSWER_TIMEOUT, SessionClient  # noqa: E402


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (from /proc), for the server's CPU."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def process_name(pid: int) -> str:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    words = [c.decode(errors="replace") for c in cmd if c]
    if any("haproxy" in w for w in words[:1]):
        return "haproxy"
    if "streamlit" in words:
        port = next((w.split("=")[-1] for w in words if "server.port" in w), "")
        i = words.index("--server.port") + 1 if "--server.port" in words else None
        return f"streamlit:{words[i] if i else port}"
    return os.path.basename(words[0]) if words else "?"


def cpu_by_process(root_pid: int) -> dict[int, tuple[str, float]]:
    out = {}
    for pid in descendants(root_pid):
        try:
            out[pid] = (process_name(pid), process_cpu_seconds(pid))
        except (OSError, IndexError):
            pass
    return out


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))]


@dataclass
class Result:
    opens: list[float] = field(default_factory=list)
    moves: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    move_bytes: list[int] = field(default_factory=list)  # received per move
    move_charts: list[tuple[int, int]] = field(default_factory=list)  # per move: charts sent whole, as references
    asks: list[float] = field(default_factory=list)  # runs a browser sends by itself for frames being computed
    move_sent: list[float] = field(default_factory=list)  # when each move was sent (perf_counter)
    opens_done: float = float("inf")  # when the last open was answered (perf_counter)

    def summary(self, name: str) -> dict:
        row = {"phase": name, "errors": len(self.errors), "error_examples": self.errors[:5]}
        # the moves sent once every student's page had opened: the class at work, without the
        # queue that 120 simultaneous opens leave behind them
        steady = [t for t, sent in zip(self.moves, self.move_sent) if sent >= self.opens_done]
        for action, times in (("open", self.opens), ("move", self.moves), ("ask", self.asks), ("steady", steady)):
            row[action] = {
                "count": len(times),
                "p50": statistics.median(times) if times else float("nan"),
                "p95": pct(times, 0.95),
                "max": max(times) if times else float("nan"),
            }
        if self.move_bytes:
            row["move"]["kB_p50"] = statistics.median(self.move_bytes) / 1e3
            row["move"]["charts_whole_mean"] = statistics.mean(w for w, _ in self.move_charts)
            row["move"]["charts_by_reference_mean"] = statistics.mean(r for _, r in self.move_charts)
        return row


async def play(
    base: str, page: str, queries: list[str], slider: str, seconds: float, seed: int, pause: float, opened=None
) -> Result:
    """Every student opens its link at the same moment, then moves the slider every pause ± pause/2 s
    (waiting for each answer first) until ``seconds`` have passed since the start. ``opened()`` is
    called once every student's open has been answered (or failed)."""
    result = Result()
    stop_at = time.perf_counter() + seconds
    pending = [len(queries)]

    def one_done() -> None:
        pending[0] -= 1
        if pending[0] == 0:
            result.opens_done = time.perf_counter()
            if opened is not None:
                opened()

    async def student(i: int, query: str) -> None:
        s = SessionClient(base, page, query, slider, random.Random(seed * 1000 + i))
        try:
            try:
                result.opens.append(await s.open())
            finally:
                one_done()
            while True:
                due = time.perf_counter() + s.rng.uniform(pause / 2, pause * 1.5)
                # frames still being computed: the page asks again every 2 s until the next move
                while s.asking and time.perf_counter() + 2.0 < min(due, stop_at):
                    await asyncio.sleep(2.0)
                    result.asks.append(await s.ask())
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                if time.perf_counter() >= stop_at:
                    break
                before = s.received_bytes
                sent = time.perf_counter()
                result.moves.append(await s.move())
                result.move_sent.append(sent)
                result.move_bytes.append(s.received_bytes - before)
                charts = [ref for kind, ref, _, _ in s.last_run if kind == "chart"]
                result.move_charts.append((charts.count(False), charts.count(True)))
        except (asyncio.TimeoutError, TimeoutError):
            result.errors.append(f"student {i}: no answer within {ANSWER_TIMEOUT:.0f} s")
        except Exception as err:  # noqa: BLE001  (a benchmark counts every failure as an error)
            result.errors.append(f"student {i}: {type(err).__name__}: {str(err)[:200]}")
        finally:
            await s.close()

    await asyncio.gather(*(student(i, q) for i, q in enumerate(queries)))
    return result


def wait_tree_idle(pid: int, limit: float = 300, quiet: int = 3) -> None:
    """Wait until the server's processes together use under 0.05 CPU-seconds in each of ``quiet``
    seconds in a row (a process waiting for another's table lock is idle for a moment)."""
    deadline = time.monotonic() + limit
    calm = 0
    while time.monotonic() < deadline and calm < quiet:
        before = sum(c for _, c in cpu_by_process(pid).values())
        time.sleep(1)
        calm = calm + 1 if sum(c for _, c in cpu_by_process(pid).values()) - before < 0.05 else 0


def phase(name: str, root_pid: int | None, coro_factory) -> dict:
    """Run ``coro_factory(opened)`` and measure it: answers, errors, and the CPU of every server
    process over the whole phase and over its moves alone (from the moment all opens were answered)."""
    before = cpu_by_process(root_pid) if root_pid else {}
    after_opens: dict = {}

    def opened() -> None:
        if root_pid:
            after_opens.update(cpu_by_process(root_pid))

    client_before = time.process_time()
    start = time.perf_counter()
    result: Result = asyncio.run(coro_factory(opened))
    wall = time.perf_counter() - start
    row = result.summary(name)
    row["wall_s"] = wall
    row["client_cpu_s"] = time.process_time() - client_before
    if root_pid:
        after = cpu_by_process(root_pid)
        per = {}
        for pid, (pname, cpu) in after.items():
            per[f"{pname} (pid {pid})"] = cpu - before.get(pid, (pname, 0.0))[1]
        row["server_cpu_s"] = {k: round(v, 2) for k, v in per.items() if v > 0.005}
        total = sum(per.values())
        actions = len(result.opens) + len(result.moves) + len(result.asks)
        row["server_cpu_total_s"] = round(total, 2)
        row["server_cpu_per_action_s"] = round(total / actions, 3) if actions else None
        row["server_busy_cores"] = round(total / wall, 2)
        moves_cpu = sum(cpu - after_opens.get(pid, (pname, cpu))[1] for pid, (pname, cpu) in after.items())
        row["server_cpu_per_move_s"] = round(moves_cpu / len(result.moves), 3) if result.moves else None
    return row


def print_row(row: dict) -> None:
    o, m = row["open"], row["move"]
    print(
        f"{row['phase']:>12}: opens {o['count']:3d} p50 {o['p50']:6.2f} s p95 {o['p95']:6.2f} s "
        f"max {o['max']:6.2f} s | "
        f"moves {m['count']:4d} p50 {m['p50']:6.2f} s p95 {m['p95']:6.2f} s max {m['max']:6.2f} s | "
        f"errors {row['errors']}"
    )
    if row["steady"]["count"] and row["steady"]["count"] != m["count"]:
        t = row["steady"]
        print(
            f"{'':>12}  moves sent after every open was answered {t['count']:4d} p50 {t['p50']:6.2f} s "
            f"p95 {t['p95']:6.2f} s max {t['max']:6.2f} s"
        )
    if row["ask"]["count"]:
        a = row["ask"]
        print(
            f"{'':>12}  asks for frames being computed {a['count']:4d} p50 {a['p50']:6.2f} s p95 {a['p95']:6.2f} s "
            f"max {a['max']:6.2f} s"
        )
    if "kB_p50" in m:
        print(
            f"{'':>12}  per move: {m['kB_p50']:.0f} kB received (p50), charts sent whole "
            f"{m['charts_whole_mean']:.1f}, as references to what the tab holds "
            f"{m['charts_by_reference_mean']:.1f} (means)"
        )
    if "server_cpu_total_s" in row:
        print(
            f"{'':>12}  server CPU {row['server_cpu_total_s']:.1f} s over {row['wall_s']:.0f} s "
            f"({row['server_busy_cores']:.2f} cores), {row['server_cpu_per_action_s']} CPU-s per action, "
            f"{row['server_cpu_per_move_s']} per move after the opens; "
            f"client {row['client_cpu_s']:.1f} CPU-s; by process: {row['server_cpu_s']}"
        )
    for e in row["error_examples"]:
        print(f"{'':>12}  error: {e}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--page", default="Metric_DP", help="the page's URL path (Metric_DP, HoHo_attack, ...)")
    ap.add_argument("--slider", default="", help="the live slider's label (default: the page's first live slider)")
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--pause", type=float, default=5.0, help="mean seconds between moves (uniform ± half)")
    ap.add_argument("--query", default="", help="the shared link's query string")
    ap.add_argument("--own-links", action="store_true", help="each student opens a link with its own settings")
    ap.add_argument(
        "--new-link", action="store_true", help="each phase's students open one link nobody asked for yet (a new seed)"
    )
    ap.add_argument("--url", help="a running server (no baseline CPU unless --pid)")
    ap.add_argument("--pid", type=int, help="with --url: the server's root process, for its CPU")
    ap.add_argument("--processes", type=int, help="server processes for the started server (DPVIZ_PROCESSES)")
    ap.add_argument(
        "--frames",
        choices=("on", "off"),
        default="on",
        help="charts drawn from their frames while sliders move (on, the default) or by a server run per move "
        "(off: DPVIZ_FRAMES=0, dpviz before frames)",
    )
    ap.add_argument("--baseline-seconds", type=float, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="also write the rows here")
    args = ap.parse_args()

    def queries(n: int, offset: int) -> list[str]:
        if args.new_link:
            return [f"{args.query}&seed={20_000 + offset}".lstrip("&")] * n
        if not args.own_links:
            return [args.query] * n
        # non-default settings nobody has asked for yet: a seed of one's own
        return [f"{args.query}&seed={10_000 + offset + i}".lstrip("&") for i in range(n)]

    rows = []
    with tempfile.TemporaryDirectory(prefix="dpviz-class-") as tmp:
        proc = None
        if args.url:
            base, root = args.url.rstrip("/"), args.pid
        else:
            env = {"DPVIZ_HOSTED": "1", "DPVIZ_FRAMES": "1" if args.frames == "on" else "0"}
            if args.processes is not None:
                env["DPVIZ_PROCESSES"] = str(args.processes)
            proc, base, log = start_server(Path(tmp), env)  # the hosted start command, a fresh cache
            root = proc.pid
        try:
            if root:
                # measure once the hosted warm-up is done (woken at start; an older single-process
                # server starts it at its first visitor, this one)
                urllib.request.urlopen(base + f"/{args.page}", timeout=60).read()
                asyncio.run(play(base, args.page, [args.query], args.slider, 1, args.seed, 1))
                wait_tree_idle(root)
            rows.append(
                phase(
                    "1 student",
                    root,
                    lambda opened: play(
                        base,
                        args.page,
                        queries(1, 0),
                        args.slider,
                        args.baseline_seconds,
                        args.seed,
                        args.pause,
                        opened,
                    ),
                )
            )
            print_row(rows[-1])
            if root:
                wait_tree_idle(root)
            rows.append(
                phase(
                    f"{args.students} students",
                    root,
                    lambda opened: play(
                        base,
                        args.page,
                        queries(args.students, 1),
                        args.slider,
                        args.seconds,
                        args.seed + 1,
                        args.pause,
                        opened,
                    ),
                )
            )
            print_row(rows[-1])
        finally:
            if proc is not None:
                stop_server(proc, log)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
