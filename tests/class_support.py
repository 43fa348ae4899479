"""What the fault tests and benchmarks/bench_faults.py share: a class in real browsers (a teacher
and students, each a browser context of its own, pinned to a server process by the proxy's
cookie), the page's script runs as the browser receives them, a prober of the proxy's health
endpoint in a process of its own, and the supervised server's processes (which to kill, when
they are back)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from browser_support import wait_run_ended

from serving.proxy_config import COOKIE
from serving.supervision import backends, healthy, proxy_status, supervisor


class Tab:
    """A browser context with one page, pinned to a server process, that records every websocket
    it opens and closes and every script run the server finishes for it (parsed ForwardMsgs),
    stamped with ``time.monotonic()`` as Playwright delivers them (it does while the test waits
    with ``page.wait_for_timeout`` or any other Playwright call)."""

    def __init__(self, browser, url: str, process: str | None, name: str):
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self.name, self.url = name, url
        self.ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
        if process:
            self.ctx.add_cookies([{"name": COOKIE, "value": process, "url": url}])
        self.page = self.ctx.new_page()
        self.page.set_default_timeout(120_000)
        self.opened: list[float] = []
        self.closed: list[float] = []
        self.runs: list[tuple[float, int]] = []  # (when, ScriptFinishedStatus) of every finished run

        def on_ws(ws):
            self.opened.append(time.monotonic())
            ws.on("close", lambda _: self.closed.append(time.monotonic()))

            def received(data):
                if isinstance(data, bytes):
                    msg = ForwardMsg.FromString(data)
                    if msg.WhichOneof("type") == "script_finished":
                        self.runs.append((time.monotonic(), msg.script_finished))

            ws.on("framereceived", received)

        self.page.on("websocket", on_ws)

    def text(self) -> str:
        return self.page.locator("body").inner_text()

    def errors(self) -> int:
        """Error boxes and exceptions on the page now."""
        return self.page.locator('[data-testid="stAlertContentError"], [data-testid="stException"]').count()

    def whole_runs_since(self, t: float) -> list[float]:
        """When the server finished a whole run of the page (not a fragment's) after ``t``."""
        return [when for when, status in self.runs if when > t and status == 0]  # FINISHED_SUCCESSFULLY

    def cookie(self, name: str) -> str | None:
        return next((c["value"] for c in self.ctx.cookies() if c["name"] == name), None)

    def close(self) -> None:
        self.ctx.close()


def settled(page) -> None:
    """Until the page's run has ended and stayed ended for half a second: a run stopped for a
    rerun leaves the previous run's elements (a second "Next ▶", say) until the next one ends."""
    wait_run_ended(page, timeout=120_000, hold_ms=500)


def start_class(teacher: Tab, lesson: str = "adept") -> str:
    """The teacher opens the lesson and starts a class; returns its code."""
    page = teacher.page
    page.goto(f"{teacher.url}/Lessons?lesson={lesson}")
    page.get_by_text("Step 1 of").first.wait_for()
    page.get_by_role("button", name="Class mode").click()
    page.get_by_role("button", name="Start a class with this lesson").click()
    info = page.get_by_text(re.compile(r"Class code [A-Z0-9]{6}")).first
    info.wait_for()
    settled(page)  # the solo page's controls the class run has not replaced yet are gone
    return re.search(r"Class code ([A-Z0-9]{6})", info.inner_text()).group(1)


def next_step(teacher: Tab, step: int) -> None:
    settled(teacher.page)
    teacher.page.get_by_role("button", name="Next ▶").click()
    teacher.page.get_by_text(f"Step {step} of").first.wait_for()


def join_by_link(student: Tab, code: str, lesson: str = "adept") -> None:
    student.page.goto(f"{student.url}/Lessons?lesson={lesson}&code={code}")
    student.page.get_by_text(f"Class {code}: your teacher leads").wait_for()


def predict(student: Tab, value: float) -> None:
    page = student.page
    page.get_by_label("Your prediction").fill(str(value))
    page.get_by_role("button", name="Lock in my prediction").click()
    page.get_by_text(f"Your prediction: {float(value):.1f}").wait_for()


def shows_prediction(student: Tab, value: float) -> bool:
    text = student.text()
    return f"Your prediction: {float(value):.1f}" in text and "Lock in my prediction" not in text


def run_dir_of(tmp_path: Path) -> Path:
    """The run directory browser_support.start_server gives the start command."""
    return tmp_path / "run"


def server_pid(run_dir: Path, name: str) -> int:
    """The pid of the Streamlit process of supervised program ``name`` (the python under its wrapper)."""
    port = backends(run_dir)[name]
    out = subprocess.run(
        ["pgrep", "-f", f"streamlit run app.py .*--server.port {port} "], capture_output=True, text=True
    )
    pids = [int(p) for p in out.stdout.split()]
    if len(pids) != 1:
        raise RuntimeError(f"expected one server process on port {port}, found {pids}")
    return pids[0]


def kill_server(run_dir: Path, name: str) -> tuple[int, float]:
    """``kill -9`` the Streamlit process of ``name`` (as the out-of-memory killer would): its pid and when."""
    pid = server_pid(run_dir, name)
    os.kill(pid, signal.SIGKILL)
    return pid, time.monotonic()


def all_up(run_dir: Path) -> bool:
    """Every supervised program RUNNING, every server process healthy and UP in the proxy."""
    try:
        infos = supervisor(run_dir).supervisor.getAllProcessInfo()
        if any(i["statename"] != "RUNNING" for i in infos):
            return False
        ports = backends(run_dir)
        if not all(healthy(p, timeout=1) for p in ports.values()):
            return False
        if (run_dir / "haproxy.sock").exists():
            return all(proxy_status(run_dir).get(n) == "UP" for n in ports)
        return True
    except OSError:
        return False


PROBE = r"""
import json, sys, time, urllib.request
url, out, every = sys.argv[1], sys.argv[2], float(sys.argv[3])
with open(out, "w") as f:
    while True:
        t = time.monotonic()
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                ok = r.read().strip() == b"ok"
        except OSError:
            ok = False
        f.write(json.dumps([t, time.monotonic(), ok]) + "\n")
        f.flush()
        time.sleep(every)
"""


class HealthProbe:
    """Asks the proxy's ``/_stcore/health`` every ``every`` seconds from a process of its own (so
    that nothing in the test's process delays it) and records each answer: (asked, answered, ok)."""

    def __init__(self, url: str, out: Path, every: float = 0.05):
        self.out = out
        self.proc = subprocess.Popen([sys.executable, "-c", PROBE, url + "/_stcore/health", str(out), str(every)])

    def stop(self) -> list[tuple[float, float, bool]]:
        self.proc.terminate()
        self.proc.wait(10)
        rows = []
        for line in self.out.read_text().splitlines():
            try:
                rows.append(tuple(json.loads(line)))
            except ValueError:  # the last line, cut by the stop
                pass
        return rows


def unanswered_spans(rows, start: float, end: float) -> tuple[int, float]:
    """Between ``start`` and ``end``: probes that failed, and the longest time the endpoint gave no
    ``ok`` (from the asking of the first probe after an ok answer to the next ok answer)."""
    window = [r for r in rows if start <= r[0] <= end]
    failed = sum(1 for r in window if not r[2])
    longest, since = 0.0, None
    for asked, answered, ok in window:
        if since is None:
            since = asked
        if ok:
            longest = max(longest, answered - since)
            since = None
    return failed, longest
