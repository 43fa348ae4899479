"""The hosted start command with several server processes behind a real HAProxy (Debian's
``haproxy``): each browser stays on its process by a cookie, the websocket passes through the
proxy, the processes share the disk cache, and stopping the command stops them all. Traffic goes
to 127.0.0.1 only."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request

import pytest
from browser_support import start_server, stop_server
from class_support import all_up

from serving.proxy_config import COOKIE, haproxy_config
from webui.session_client import SessionClient

HAPROXY = shutil.which("haproxy")
needs_haproxy = pytest.mark.skipif(
    HAPROXY is None and not os.environ.get("DPVIZ_REQUIRE_BROWSER"),
    reason="no HAProxy here (scripts/test.sh installs Debian's haproxy; CI requires it)",
)


def test_the_proxy_config_names_every_process_and_keeps_visitors_by_cookie():
    text = haproxy_config("0.0.0.0", 8501, [40001, 40002, 40003], stats_socket="/tmp/s.sock")
    assert re.findall(r"server p(\d) 127\.0\.0\.1:(\d+) cookie p\1 check", text) == [
        ("1", "40001"),
        ("2", "40002"),
        ("3", "40003"),
    ]
    assert f"cookie {COOKIE} insert indirect nocache" in text
    assert "balance leastconn" in text and "bind 0.0.0.0:8501" in text and "timeout tunnel" in text
    assert "bind [::]:80" in haproxy_config("::", 80, [1])
    for bad in ([], [0], [70000]):
        with pytest.raises(ValueError):
            haproxy_config("127.0.0.1", 8501, bad)


@needs_haproxy
def test_haproxy_accepts_the_config(tmp_path):
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(haproxy_config("127.0.0.1", 8501, [40001, 40002], stats_socket=str(tmp_path / "s.sock")))
    out = subprocess.run([HAPROXY, "-c", "-f", str(cfg)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def _cookie(url: str) -> str:
    with urllib.request.urlopen(url + "/", timeout=30) as r:
        (cookie,) = [c for c in r.headers.get_all("Set-Cookie") if c.startswith(COOKIE + "=")]
    return cookie.split(";", 1)[0].split("=", 1)[1]


def _sessions_per_process(sock: str) -> dict[str, int]:
    """HAProxy's total sessions per server process ('show stat' on its admin socket)."""
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(sock)
        s.sendall(b"show stat\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    lines = data.decode().splitlines()
    header = lines[0].lstrip("# ").split(",")
    rows = [dict(zip(header, line.split(","))) for line in lines[1:] if line]
    return {r["svname"]: int(r["stot"]) for r in rows if r["pxname"] == "streamlit" and r["svname"].startswith("p")}


async def _open_home(url: str, n: int, cookie: str | None) -> list[float]:
    """``n`` sessions of the home page through the proxy, with a cookie pinned (or each its own)."""

    async def one() -> float:
        client = SessionClient(url)
        if cookie is not None:
            client._cookie = lambda: f"{COOKIE}={cookie}"  # a browser that was here before
        try:
            return await client.open()
        finally:
            await client.close()

    return await asyncio.gather(*(one() for _ in range(n)))


@needs_haproxy
@pytest.mark.server
def test_two_processes_behind_haproxy_keep_each_browser_on_its_process(tmp_path):
    proc, url, log = start_server(
        tmp_path, {"DPVIZ_HOSTED": "1", "DPVIZ_PROCESSES": "2", "DPVIZ_WARMUP": "0", "PYTHONUNBUFFERED": "1"}
    )
    try:
        deadline = time.monotonic() + 30
        while "sessions per process" not in (tmp_path.glob("streamlit-*.log").__next__()).read_text():
            assert time.monotonic() < deadline
            time.sleep(0.2)
        text = next(tmp_path.glob("streamlit-*.log")).read_text()
        sock = re.search(r"socat - (\S+haproxy\.sock)", text).group(1)
        ports = re.search(r"on 127\.0\.0\.1:(\d+) (\d+) behind HAProxy", text).groups()
        streamlit = subprocess.run(["pgrep", "-f", "streamlit run app.py"], capture_output=True, text=True).stdout
        assert len([p for p in ports if f"--server.port {p}" in _cmdlines(streamlit)]) == 2

        # new visitors are spread over both processes; each gets the cookie that keeps it there
        assert {_cookie(url) for _ in range(6)} == {"p1", "p2"}

        before = _sessions_per_process(sock)
        times = asyncio.run(_open_home(url, 3, "p2"))  # three tabs of one browser: the websocket too
        after = _sessions_per_process(sock)
        assert len(times) == 3 and all(t > 0 for t in times)
        # 3 websockets (+ 3 page GETs) on p2, nothing new on p1
        assert after["p2"] - before["p2"] >= 3 and after["p1"] == before["p1"]

        before = after
        asyncio.run(_open_home(url, 2, "p1"))
        after = _sessions_per_process(sock)
        assert after["p1"] - before["p1"] >= 2 and after["p2"] == before["p2"]
    finally:
        stop_server(proc, log)
    time.sleep(1)
    left = subprocess.run(["pgrep", "-f", f"haproxy -db -f {os.path.dirname(sock)}"], capture_output=True).stdout
    assert not left  # stopping the start command stopped the proxy
    for p in ports:
        assert f"--server.port {p}" not in _cmdlines(
            subprocess.run(["pgrep", "-f", "streamlit run app.py"], capture_output=True, text=True).stdout
        )


def _cmdlines(pids: str) -> str:
    out = []
    for pid in pids.split():
        try:
            out.append(open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode())
        except OSError:
            pass
    return "\n".join(out)


def _tree(root: int) -> dict[int, str]:
    """The processes under ``root`` (its children, theirs, ...): pid -> command line."""
    parents: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                parents[int(d)] = int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = {}, [root]
    while todo:
        parent = todo.pop()
        for pid in [p for p, pp in parents.items() if pp == parent]:
            out[pid] = _cmdlines(str(pid))
            todo.append(pid)
    return out


def _alive(pid: int, cmdline: str) -> bool:
    """Whether ``pid`` still runs the same program (not a zombie awaiting its reaper)."""
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z" and _cmdlines(str(pid)) == cmdline


@needs_haproxy
@pytest.mark.server
def test_a_supervisor_killed_leaves_no_process_and_the_port_serves_again(tmp_path):
    env = {"DPVIZ_HOSTED": "1", "DPVIZ_PROCESSES": "2", "DPVIZ_WARMUP": "0"}
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir(), second.mkdir()
    proc, url, log = start_server(first, env)
    port = int(url.rsplit(":", 1)[1])
    tree: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 90
        while not all_up(first / "run"):  # both server processes and HAProxy running
            assert time.monotonic() < deadline, "the supervised processes did not all come up"
            time.sleep(0.3)
        tree = _tree(proc.pid)  # supervisord (the start command itself) and everything under it
        lines = "\n".join(tree.values())
        assert lines.count("streamlit run app.py") == 2 and "haproxy -db" in lines, lines
        os.kill(proc.pid, signal.SIGKILL)  # the supervisor, as the out-of-memory killer would
        proc.wait()
        deadline = time.monotonic() + 10
        while any(_alive(p, c) for p, c in tree.items()) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = {p: c for p, c in tree.items() if _alive(p, c)}
        assert not left, f"left running 10 s after the supervisor was killed: {left}"
    finally:
        stop_server(proc, log)
        for p, c in tree.items():  # a failed test leaves nothing of its own running either
            if _alive(p, c):
                os.kill(p, signal.SIGKILL)
    proc, url, log = start_server(second, env, port=port)  # the same port, at once
    try:
        assert urllib.request.urlopen(url + "/_stcore/health", timeout=5).read().strip() == b"ok"
    finally:
        stop_server(proc, log)
