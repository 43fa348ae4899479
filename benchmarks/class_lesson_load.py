"""A class taking a lesson in class mode, played at the protocol level (no browsers).

A teacher (a session of its own, through the page: opens a lesson, by default ADePT's, starts a
class, moves it to a question) and N students who open the class's link at once. The students' pages
poll the class every 2 s, as a browser does for the step-following fragment; each student locks
in a prediction after thinking 2-20 s, reveals the answer (with the step's chart) 1-5 s later
and then drags that chart's slider every 5 ± 2.5 s (the load of benchmarks/class_load.py); the
teacher's page reruns its live view of the answers every 2 s. Reports, per action (open,
poll, predict, reveal, move, teacher): p50, p95 and max of the server's answer, errors, and the
CPU-seconds of the server's processes; the baseline in the same run is one student alone.

    python benchmarks/class_lesson_load.py --students 30 --seconds 60
    python benchmarks/class_lesson_load.py --students 30 --processes 2 --postgres   # PostgreSQL store
    python benchmarks/class_lesson_load.py --lesson metric-dp    # the metric lesson's first question

It starts the hosted start command (``DPVIZ_HOSTED=1 bash scripts/serve.sh``, HAProxy in front
of ``--processes`` server processes; default one per core) with a fresh cache; the class is kept
in SQLite in that cache, or with ``--postgres`` in a PostgreSQL server started here (its CPU is
not counted as the server's).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import from_tests  # noqa: E402, F401 - the tests' helpers (benchmarks/from_tests.py)
from browser_support import start_server, stop_server  # noqa: E402
from class_load import cpu_by_process, pct, wait_tree_idle  # noqa: E402

from webui.session_client import ANSWER_TIMEOUT, SessionClient  # noqa: E402

LABEL, BUTTON, REVEAL = "Your prediction", "Lock in my prediction", "Reveal the answer"
ACTIONS = ("open", "poll", "predict", "reveal", "move", "teacher")
"""A student's open, step poll, prediction, reveal and slider move (the revealed chart's live slider,
every 5 ± 2.5 s as in benchmarks/class_load.py); the teacher's live view of the answers."""


@dataclass(frozen=True)
class Plan:
    """The lesson, the step with the question the class answers, and the prediction box's range."""

    lesson: str
    step: int
    low: float
    high: float

    @classmethod
    def of(cls, lesson: str, step: int | None) -> Plan:
        from dpviz.lessons.format import load

        steps = load(lesson).steps
        numbers = [k for k, st in enumerate(steps, 1) if st.question is not None and not st.question.choices]
        step = step or (numbers[0] if numbers else 0)
        if step not in numbers:
            raise SystemExit(f"step {step} of {lesson} asks no number question (those that do: {numbers})")
        q = steps[step - 1].question
        low = q.low if q.low is not None else 0.0
        return cls(lesson, step, low, q.high if q.high is not None else low + 100)


async def teacher_opens(base: str, plan: Plan) -> tuple[SessionClient, str]:
    """The teacher, through the page as a browser: open the lesson, start a class, move it to the
    question's step. Returns the session and the class code the page showed."""
    shown: list[str] = []
    keep = lambda kind, el, seconds: shown.append(str(getattr(el, "body", "")))  # noqa: E731
    t = SessionClient(base, "Lessons", f"lesson={plan.lesson}", observe=keep)
    await t.open()
    await t.press("Start a class with this lesson")
    found = [m.group(1) for text in shown if (m := re.search(r"Class code \*\*([A-Z0-9]+)\*\*", text))]
    if not found:
        raise RuntimeError("the page showed no class code after 'Start a class with this lesson'")
    t.query = f"lesson={plan.lesson}&code={found[-1]}"
    for _ in range(plan.step - 1):
        await t.press("Next ▶")
    return t, found[-1]


async def teacher_watches(t: SessionClient, seconds: float, times: dict, errors: list) -> None:
    """The teacher's page reruns its fragments (the class's answers, live) as a browser does."""
    stop_at = time.perf_counter() + seconds
    try:
        while time.perf_counter() < stop_at:
            await asyncio.sleep(min(t.auto_reruns.values(), default=2.0))
            for fragment in list(t.auto_reruns):
                times["teacher"].append(await t.rerun_fragment(fragment))
    except Exception as err:  # noqa: BLE001 - a benchmark counts every failure
        errors.append(f"teacher: {type(err).__name__}: {str(err)[:200]}")


async def student(
    base: str, plan: Plan, query: str, seconds: float, rng: random.Random, times: dict, errors: list
) -> None:
    drawn: list[str] = []  # what the last run drew: the kinds of its elements, and its boxes' texts
    keep = lambda kind, el, seconds: drawn.append(str(getattr(el, "body", "")) if kind == "alert" else kind)  # noqa: E731
    s = SessionClient(base, "Lessons", query, rng=rng, observe=keep, live=False)
    stop_at = time.perf_counter() + seconds
    try:
        times["open"].append(await s.open())
        predict_at = time.perf_counter() + rng.uniform(2, 20)
        reveal_at = move_at = None
        while time.perf_counter() < stop_at:
            await asyncio.sleep(min(s.auto_reruns.values(), default=2.0))
            now = time.perf_counter()
            if move_at is not None and now >= move_at:
                drawn.clear()
                times["move"].append(await s.move())
                if not any(text.startswith("**The answer:") for text in drawn):
                    errors.append("a slider move lost the revealed answer")
                move_at = time.perf_counter() + rng.uniform(2.5, 7.5)
                continue
            if reveal_at is None and now >= predict_at:
                box = next((label for label in s.widgets if label.startswith(LABEL)), LABEL)  # with its unit
                times["predict"].append(await s.press(BUTTON, {box: rng.uniform(plan.low, plan.high)}))
                reveal_at = time.perf_counter() + rng.uniform(1, 5)
                continue
            if reveal_at is not None and now >= reveal_at and REVEAL in s.widgets:
                drawn.clear()
                times["reveal"].append(await s.press(REVEAL))
                if "chart" not in drawn:
                    errors.append("the reveal drew no chart")
                move_at = time.perf_counter() + rng.uniform(2.5, 7.5)  # then drags the revealed chart's slider
                s.widgets.pop(REVEAL)  # revealed: the button is gone from the page
                continue
            for fragment in list(s.auto_reruns):
                times["poll"].append(await s.rerun_fragment(fragment))
        predicted = reveal_at is not None
        if not predicted:
            errors.append("a student never predicted (the run was too short)")
    except (asyncio.TimeoutError, TimeoutError):
        errors.append(f"no answer within {ANSWER_TIMEOUT:.0f} s")
    except Exception as err:  # noqa: BLE001 - a benchmark counts every failure
        errors.append(f"{type(err).__name__}: {str(err)[:200]}")
    finally:
        await s.close()


def play(base: str, plan: Plan, n: int, seconds: float, root_pid: int) -> tuple[dict, str]:
    """A teacher starts a class and n students take it; returns the figures and the class code."""
    times: dict[str, list[float]] = {action: [] for action in ACTIONS}
    errors: list[str] = []
    before = cpu_by_process(root_pid)
    start = time.perf_counter()
    code = ""

    async def lesson():
        nonlocal code
        t, code = await teacher_opens(base, plan)
        query = f"lesson={plan.lesson}&step={plan.step}&code={code}"
        try:
            await asyncio.gather(
                teacher_watches(t, seconds, times, errors),
                *(student(base, plan, query, seconds, random.Random(k), times, errors) for k in range(n)),
            )
        finally:
            await t.close()

    asyncio.run(lesson())
    wall = time.perf_counter() - start
    after = cpu_by_process(root_pid)
    cpu = sum(c - before.get(pid, (name, 0.0))[1] for pid, (name, c) in after.items())
    row = {"students": n, "errors": len(errors), "error_examples": errors[:3], "wall_s": round(wall, 1)}
    for action, ts in times.items():
        row[action] = {
            "count": len(ts),
            "p50": pct(ts, 0.5),
            "p95": pct(ts, 0.95),
            "max": max(ts, default=float("nan")),
        }
    actions = sum(len(ts) for ts in times.values())
    row["server_cpu_s"] = round(cpu, 2)
    row["server_cpu_per_action_s"] = round(cpu / actions, 3) if actions else None
    return row, code


def show(name: str, row: dict) -> None:
    parts = [f"{name:>22}:"]
    for action in ACTIONS:
        a = row[action]
        parts.append(f"{action} n={a['count']} p50 {a['p50']:.2f}s p95 {a['p95']:.2f}s max {a['max']:.2f}s;")
    parts.append(
        f"errors {row['errors']}; server CPU {row['server_cpu_s']} s ({row['server_cpu_per_action_s']} s/action)"
    )
    print(" ".join(parts), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--postgres", action="store_true", help="the class store on a PostgreSQL server started here")
    ap.add_argument("--lesson", default="adept", help="a shipped lesson (python -m dpviz lesson --list)")
    ap.add_argument("--step", type=int, help="the question the class answers (default: the first number question)")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    plan = Plan.of(args.lesson, args.step)
    tmp = Path(tempfile.mkdtemp(prefix="class-lesson-"))
    env = {"DPVIZ_HOSTED": "1", "DPVIZ_PROCESSES": str(args.processes)}
    pg = None
    if args.postgres:
        from db_support import Postgres

        pg = Postgres()
        env["DPVIZ_CLASS_DB"] = pg.url
    proc, url, log = start_server(tmp, env)
    try:
        wait_tree_idle(proc.pid)  # the hosted warm-up computes every page's defaults first
        os.environ["DPVIZ_CACHE_DIR"] = str(tmp / "cache")
        if pg:
            os.environ["DPVIZ_CLASS_DB"] = pg.url
        from dpviz import classroom

        rows = {}
        for name, n in (("1 student (baseline)", 1), (f"{args.students} students", args.students)):
            rows[name], code = play(url, plan, n, args.seconds, proc.pid)
            got = len(classroom.store().predictions(code, plan.step))
            rows[name]["stored_predictions"] = got
            show(name, rows[name])
            print(f"{'':>22}  predictions stored in class {code}: {got} of {n}", flush=True)
        base, load = rows["1 student (baseline)"], rows[f"{args.students} students"]
        print(f"predict p95 ratio, class / alone: {load['predict']['p95'] / base['predict']['p95']:.1f}")
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=2))
    finally:
        stop_server(proc, log)
        if pg:
            pg.stop()


if __name__ == "__main__":
    main()
