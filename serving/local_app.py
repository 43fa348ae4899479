"""``dpviz-app``: the dashboard on this machine, one Streamlit process, from wherever dpviz is
installed (``pip install .``) or checked out. The hosted start command (``scripts/serve.sh``:
several processes behind HAProxy, restarts, class mode) is in :mod:`serving.supervision`.

The app is Streamlit's: its entry script ``app.py``, its pages ``pages/*.py`` and its settings
``.streamlit/config.toml``, which a checkout holds at its top and a wheel installs as data files
under ``<prefix>/share/dpviz/`` (pyproject.toml). Streamlit reads the settings from the folder it
is started in, so the app runs from there; the cache stays where dpviz keeps it
(:func:`dpviz.storage.cache_dir`), never in that folder.

    dpviz-app                          # http://localhost:8501
    dpviz-app --server.port 8600       # any of Streamlit's own options
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_FILES = ("app.py", "pages", ".streamlit/config.toml")


def _complete(folder: Path) -> bool:
    return all((folder / name).exists() for name in APP_FILES)


def app_folder() -> Path:
    """The folder holding the app's files: the checkout this module sits in, else the
    installation's ``share/dpviz`` (FileNotFoundError naming both when neither holds them)."""
    checkout = Path(__file__).resolve().parents[1]
    installed = Path(sys.prefix) / "share" / "dpviz"
    for folder in (checkout, installed):
        if _complete(folder):
            return folder
    raise FileNotFoundError(
        f"dpviz's app files ({', '.join(APP_FILES)}) are neither in {checkout} nor in {installed}: "
        "reinstall dpviz (pip install .) or run from a checkout"
    )


def command(argv: list[str]) -> list[str]:
    """The Streamlit command that serves the app, with ``argv`` (Streamlit's options) after it."""
    return [sys.executable, "-m", "streamlit", "run", "app.py", *argv]


def main(argv: list[str] | None = None) -> None:
    """Serve the app: this process becomes Streamlit's, started in :func:`app_folder`."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        folder = app_folder()
    except FileNotFoundError as err:
        sys.exit(f"dpviz-app: {err}")
    os.chdir(folder)
    cmd = command(argv)
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
