"""The hosted start command's supervision: supervisord (the ``supervisor`` package) keeps every
server process and the proxy running, and an operator replaces the server processes one at a time.

    python -m serving.supervision config RUN_DIR --backends 40001 40002 [--proxy]   # supervisord.conf
    python -m serving.supervision restart RUN_DIR    # rolling restart (scripts/serve.sh restart)
    python -m serving.supervision status RUN_DIR     # each process's state, as supervisord and HAProxy see it

Why supervisord: a server process that dies (``kill -9``, the kernel's out-of-memory killer, a
crash in a library) is started again at once, and one that dies while starting is retried with a
growing delay (supervisord's BACKOFF state: 1 s, 2 s, 3 s, ...); supervisord logs every exit with
its cause (``exited: p1 (terminated by SIGKILL; not expected)``), and the start command, which is
supervisord in the foreground, never ends because one child did. HAProxy (``serving.proxy_config``)
meanwhile marks the dead process down within a second and sends its visitors to a live one.

Each server process runs under :func:`run_backend` (``python -m serving.supervision backend PORT
ADDRESS``): Streamlit on that port, woken once healthy (so a restarted process warms the pages
before visitors arrive), a stop signal passed on to it, and one line on stderr saying how it ended.

No process outlives its supervisor: if supervisord itself is killed (``kill -9``), the kernel
sends each :func:`run_backend` a SIGTERM (Linux's parent-death signal, :func:`die_with_parent`),
which it passes on to its Streamlit process (which has the same signal for its own parent), with
a SIGKILL :data:`STOP_GRACE` seconds later if it has not ended (an orphan's Streamlit, its output
pipe gone, was seen to ignore SIGTERM for 20 s and more); HAProxy gets the same signal
(``setpriv --pdeathsig``, ``scripts/serve.sh proxy``). The port is then free for a new start.

A rolling restart (:func:`rolling_restart`), for each process in turn: set it to maintenance in
HAProxy (new visitors and its own go to the others; their browsers reconnect there by
themselves), restart it through supervisord, wait until it answers its health check and has been
woken, and put it back. The proxy's health endpoint answers throughout, because at every moment
the other processes serve.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import socket
import sys
import time
import urllib.request
import xmlrpc.client
from pathlib import Path

from dpviz import hosted_mode
from dpviz.processes import die_with_parent

BACKEND = "streamlit"
"""HAProxy's backend name (``serving.proxy_config``)."""
START_SECONDS = 3
"""A process that lives this long has started (supervisord's ``startsecs``); one that dies sooner
is retried with backoff."""
STOP_GRACE = 8.0
"""Seconds a server process has to end after the stop signal :func:`run_backend` passed on, before
it is killed (supervisord's own ``stopwaitsecs`` is 10: this ends it first, and also when
supervisord is gone)."""


def supervisord_config(run_dir: Path, backends: list[int], proxy: bool, root: Path, address: str = "127.0.0.1") -> str:
    """supervisord's configuration: one program per server process (``p1``, ``p2``, ... on the
    ports ``backends`` of ``address``: loopback behind the proxy), HAProxy when ``proxy``, a
    control socket in ``run_dir``; every program's output goes to supervisord's standard output
    (the start command's log)."""
    if not backends:
        raise ValueError("at least one backend port is needed")
    if not re.fullmatch(r"[A-Za-z0-9.:-]{1,255}", address):
        raise ValueError(f"an address is a host name or IP address, got {address[:60]!r}")
    password = secrets.token_hex(16)  # the control socket is the user's alone (0700) and asks for this too
    user = "user=root\n" if os.geteuid() == 0 else ""  # said, so supervisord does not warn that it is root
    out = f"""[supervisord]
{user}nodaemon=true
logfile=/dev/null
logfile_maxbytes=0
pidfile={run_dir}/supervisord.pid
childlogdir={run_dir}
loglevel=info

[unix_http_server]
file={run_dir}/supervisor.sock
chmod=0700
username=dpviz
password={password}

[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface

[supervisorctl]
serverurl=unix://{run_dir}/supervisor.sock
username=dpviz
password={password}
"""
    for i, port in enumerate(backends, start=1):
        out += f"""
[program:p{i}]
command={sys.executable} -m serving.supervision backend {int(port)} {address}
directory={root}
autostart=true
autorestart=true
startsecs={START_SECONDS}
startretries=10
stopsignal=TERM
stopwaitsecs=10
stopasgroup=true
killasgroup=true
redirect_stderr=true
stdout_logfile=/dev/stdout
stdout_logfile_maxbytes=0
"""
    if proxy:
        out += f"""
[program:haproxy]
command=bash {root}/scripts/serve.sh proxy
autostart=true
autorestart=true
startsecs=1
startretries=10
redirect_stderr=true
stdout_logfile=/dev/stdout
stdout_logfile_maxbytes=0
priority=999
"""
    return out


class _UnixTransport(xmlrpc.client.Transport):
    """XML-RPC over supervisord's unix socket."""

    def __init__(self, path: str):
        super().__init__()
        self.path = path

    def make_connection(self, host):  # noqa: D102
        import http.client

        _, self._extra_headers, _ = self.get_host_info(host)  # the basic-auth header from the URL
        conn = http.client.HTTPConnection("localhost")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(self.path)
        conn.sock = sock
        return conn


def supervisor(run_dir: Path):
    """supervisord's XML-RPC interface (``.supervisor.getAllProcessInfo()``, ...), with the
    password its configuration in ``run_dir`` holds."""
    import configparser

    conf = configparser.RawConfigParser()
    conf.read(run_dir / "supervisord.conf")
    password = conf.get("supervisorctl", "password", fallback="")
    return xmlrpc.client.ServerProxy(
        f"http://dpviz:{password}@localhost", transport=_UnixTransport(str(run_dir / "supervisor.sock"))
    )


def haproxy_command(run_dir: Path, command: str) -> str:
    """One command on HAProxy's admin socket; its answer."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(str(run_dir / "haproxy.sock"))
        s.sendall(command.encode() + b"\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data.decode()


def proxy_status(run_dir: Path) -> dict[str, str]:
    """HAProxy's view of each server process: name -> status (UP, DOWN, MAINT, ...)."""
    lines = haproxy_command(run_dir, "show stat").splitlines()
    header = lines[0].lstrip("# ").split(",")
    rows = [dict(zip(header, line.split(","))) for line in lines[1:] if line]
    return {r["svname"]: r["status"] for r in rows if r["pxname"] == BACKEND and r["svname"] not in ("BACKEND",)}


def backends(run_dir: Path) -> dict[str, int]:
    """The server processes the start command in ``run_dir`` runs: name -> loopback port."""
    out = {}
    for line in (run_dir / "backends").read_text().split("\n"):
        if line.strip():
            name, port = line.split()
            out[name] = int(port)
    return out


def healthy(port: int, timeout: float = 2.0) -> bool:
    """Whether the server process on this loopback port answers its health check."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=timeout) as r:
            return r.read().strip() == b"ok"
    except OSError:
        return False


def streamlit_command(port: int, address: str, hosted: bool) -> list[str]:
    """The server process's command (the same as ``scripts/serve.sh`` runs for one process): a
    hosted demo shows visitors no traceback or server path, whatever fails (the log keeps it)."""
    return [
        sys.executable, "-m", "streamlit", "run", "app.py",
        "--client.showErrorDetails", "none" if hosted else "full",
        "--server.port", str(int(port)), "--server.address", address,
        "--server.headless", "true", "--browser.gatherUsageStats", "false",
    ]  # fmt: skip


def run_backend(port: int, address: str, run_dir: Path) -> int:
    """Run one supervised server process until it ends; returns its exit status as a shell gives it
    (128 + the signal that ended it). Once it answers its health check it is woken (hosted: every
    page's defaults computed before visitors come) and ``run_dir/woken-PORT`` is written; SIGTERM
    and SIGINT are passed on to it; its end is said in one line (a kill -9, an exit status)."""
    import signal
    import subprocess
    import threading

    parent = os.getppid()
    die_with_parent()  # supervisord killed: this process is told (and tells Streamlit, below)
    if os.getppid() != parent:  # it ended before the call above took effect
        return 128 + signal.SIGTERM
    hosted = hosted_mode()
    woken = run_dir / f"woken-{int(port)}"
    woken.unlink(missing_ok=True)
    # (Streamlit, too, is told if this process is killed; no thread runs yet, as preexec_fn needs)
    proc = subprocess.Popen(streamlit_command(port, address, hosted), preexec_fn=die_with_parent)

    def forward(signum, _frame):
        proc.send_signal(signum)

        def kill_late() -> None:  # ended within STOP_GRACE seconds, or killed
            try:
                proc.wait(timeout=STOP_GRACE)
            except subprocess.TimeoutExpired:
                proc.kill()

        threading.Thread(target=kill_late, daemon=True).start()

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)

    def wake() -> None:
        deadline = time.monotonic() + 180
        while proc.poll() is None and not healthy(port, timeout=2):
            if time.monotonic() > deadline:
                return
            time.sleep(0.2)
        if proc.poll() is None and hosted:
            subprocess.run([sys.executable, "-m", "webui.session_client", "--wake", str(int(port))], check=False)
        if proc.poll() is None:
            woken.touch()

    threading.Thread(target=wake, daemon=True).start()
    code = proc.wait()
    if code < 0:
        name = signal.Signals(-code).name
        said = f"dpviz: the server process on port {port} was ended by signal {-code} ({name})\n"
        code = 128 - code
    else:
        said = f"dpviz: the server process on port {port} exited with status {code}\n"
    try:
        sys.stderr.write(said)
        sys.stderr.flush()
    except OSError:  # supervisord, which reads this output, is gone
        pass
    return code


def _wait(what: str, ok, limit: float) -> None:
    deadline = time.monotonic() + limit
    while not ok():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within {limit:.0f} s")
        time.sleep(0.2)


def rolling_restart(run_dir: Path, say=print, limit: float = 180.0) -> None:
    """Replace the server processes of the start command in ``run_dir`` one at a time (see the
    module's docstring); at every moment the others serve."""
    procs = backends(run_dir)
    proxied = (run_dir / "haproxy.sock").exists()
    rpc = supervisor(run_dir)
    for name, port in procs.items():
        if proxied:
            haproxy_command(run_dir, f"set server {BACKEND}/{name} state maint")
            haproxy_command(run_dir, f"shutdown sessions server {BACKEND}/{name}")
        say(f"restarting {name} (port {port})")
        rpc.supervisor.stopProcess(name, True)
        rpc.supervisor.startProcess(name, True)
        _wait(f"{name} did not answer its health check", lambda port=port: healthy(port), limit)
        _wait(f"{name} was not woken", lambda port=port: (run_dir / f"woken-{port}").exists(), limit)
        if proxied:
            haproxy_command(run_dir, f"set server {BACKEND}/{name} state ready")
            _wait(f"HAProxy did not see {name} up", lambda name=name: proxy_status(run_dir).get(name) == "UP", limit)
        say(f"{name} is back")


def status(run_dir: Path) -> str:
    """One line per process: supervisord's state, its pid and uptime, and HAProxy's status."""
    proxy = proxy_status(run_dir) if (run_dir / "haproxy.sock").exists() else {}
    lines = []
    for info in supervisor(run_dir).supervisor.getAllProcessInfo():
        name = info["name"]
        extra = f", proxy {proxy[name]}" if name in proxy else ""
        lines.append(f"{name}: {info['statename']} ({info['description']}){extra}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module's docstring)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("config", help="print supervisord's configuration")
    c.add_argument("run_dir", type=Path)
    c.add_argument("--backends", type=int, nargs="+", required=True)
    c.add_argument("--proxy", action="store_true", help="run HAProxy (its haproxy.cfg in RUN_DIR) too")
    c.add_argument("--address", default="127.0.0.1", help="where the server processes listen")
    c.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    for name in ("restart", "status"):
        sub.add_parser(name).add_argument("run_dir", type=Path)
    b = sub.add_parser("backend", help="run one supervised server process (supervisord's command)")
    b.add_argument("port", type=int)
    b.add_argument("address")
    args = ap.parse_args(argv)
    if args.command == "backend":
        return run_backend(args.port, args.address, Path(os.environ.get("DPVIZ_RUN_DIR", ".")))
    if args.command == "config":
        sys.stdout.write(
            supervisord_config(args.run_dir.resolve(), args.backends, args.proxy, args.root.resolve(), args.address)
        )
        return 0
    if not (args.run_dir / "supervisor.sock").exists():
        sys.stderr.write(f"dpviz: no supervised server runs with {args.run_dir} (no supervisor.sock there).\n")
        return 2
    try:
        if args.command == "restart":
            rolling_restart(args.run_dir, say=lambda m: sys.stderr.write(f"dpviz: {m}\n"))
        else:
            print(status(args.run_dir))
    except (OSError, TimeoutError, xmlrpc.client.Fault) as err:
        sys.stderr.write(f"dpviz: {args.command} failed: {err}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
