"""Running the command line as a user does, for the tests that need it."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, env=None):
    """``python -m dpviz ARGS`` from the repository, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "dpviz", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env or os.environ.copy(),
        timeout=300,
    )
