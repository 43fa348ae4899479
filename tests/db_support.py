"""A real PostgreSQL server for the tests that need one (Debian's ``postgresql`` package): a fresh
cluster in a temporary folder, on a free loopback port, started and stopped by the test. As root
it runs as the ``postgres`` user (PostgreSQL refuses to run as root)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


INITDB, PG_CTL = _bin("initdb"), _bin("pg_ctl")
needs_postgres = pytest.mark.skipif(
    (INITDB is None or PG_CTL is None) and not os.environ.get("DPVIZ_REQUIRE_BROWSER"),
    reason="no PostgreSQL server here (Debian: apt-get install -y postgresql; CI installs it)",
)


def _as_server_user(cmd: list[str]) -> list[str]:
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """A running cluster: ``url`` to connect; :meth:`stop` ends it."""

    def __init__(self):
        # a folder of its own under the system's temporary folder: pytest's are private to root
        root = self.root = Path(tempfile.mkdtemp(prefix="dpviz-pg-"))
        self.data = root / "data"
        self.port = _free_port()
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            shutil.chown(root, "postgres", "postgres")
        subprocess.run(
            _as_server_user([INITDB, "-D", str(self.data), "-A", "trust", "-U", "dpviz", "--no-sync"]),
            check=True,
            capture_output=True,
        )
        opts = f"-p {self.port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
        subprocess.run(
            _as_server_user([PG_CTL, "-D", str(self.data), "-o", opts, "-l", str(root / "log"), "-w", "start"]),
            check=True,
            capture_output=True,
        )
        self.url = f"postgresql://dpviz@127.0.0.1:{self.port}/postgres"

    def _ctl(self, *args: str) -> None:
        opts = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        subprocess.run(
            _as_server_user([PG_CTL, "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"), "-w", *args]),
            check=True,
            capture_output=True,
        )

    def restart(self, down_for: float = 1.0) -> None:
        """Stop the server as an operator's restart does (fast shutdown: every session is ended with
        SQLSTATE 57P01), leave it down for ``down_for`` seconds, and start it again."""
        import time

        self._ctl("-m", "fast", "stop")
        time.sleep(down_for)
        self._ctl("start")

    def stop(self) -> None:
        subprocess.run(
            _as_server_user([PG_CTL, "-D", str(self.data), "-m", "immediate", "-w", "stop"]),
            check=False,
            capture_output=True,
        )
        shutil.rmtree(self.root, ignore_errors=True)
