"""Running the command line as a user does, for the tests that need it."""

import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 300
"""Seconds a command may take before the test fails with where it stood."""


def cli(*args, env=None, timeout=TIMEOUT):
    """``python -m dpviz ARGS`` from the repository, its output captured."""
    return python("-m", "dpviz", *args, env=env, timeout=timeout)


def python(*args, env=None, timeout=TIMEOUT):
    """``python ARGS`` from the repository, its output captured. A run not done in ``timeout`` seconds
    fails the test with its last output and every thread's stack (faulthandler, on SIGABRT): a run of
    ``dpviz figures --quick`` once took over 300 s in a whole-suite run (21-44 s otherwise), and its
    captured progress did not say where it stood. The run is a session of its own, so that what it
    started (kaleido's browser) ends with it."""
    proc = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env or os.environ.copy(),
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)  # faulthandler writes every thread's stack to stderr
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        _end_session(proc.pid)  # (what it started holds its output open: stopped before reading it to the end)
        out, err = proc.communicate()
        tail = (err or "").replace("\r", "\n")[-8000:]
        raise AssertionError(
            f"`python {' '.join(args)}` was not done in {timeout} s; the end of its output and its threads' "
            f"stacks:\n{tail}"
        ) from None
    _end_session(proc.pid)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _end_session(pid: int) -> None:
    """Stop what the run started and left running (its session's processes, by the run's own id)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
