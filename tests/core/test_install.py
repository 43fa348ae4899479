"""``pip install .`` gives a working dpviz: pyproject.toml declares its build system, its
requirements (requirements.txt, one list) and its package data (the chart script, the shipped
lessons, the report's timings). The wheel is built from a copy of the sources and installed into
a fresh virtual environment outside the repository, whose only other packages are the
requirements (this run's, reached by a .pth file: pip fetches only the build system, setuptools, from the
package index, as any ``pip install .`` does),
and its ``dpviz`` command is run from a folder where the repository cannot be imported; so is
the app (``app.py``, ``pages/``, ``.streamlit/``: data files under ``<prefix>/share/dpviz/``), drawn by
Streamlit's AppTest from the installed files and served by the installed ``dpviz-app``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = (
    "pyproject.toml",
    "requirements.txt",
    "README.md",
    "dpviz",
    "webui",
    "serving",
    "app.py",
    "pages",
    ".streamlit",
    "static",
)

pytestmark = pytest.mark.slow


def _requirements() -> list[str]:
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv with dpviz installed from its wheel: the venv's folder."""
    tmp = tmp_path_factory.mktemp("install")
    src = tmp / "src"
    src.mkdir()
    junk = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SOURCES:
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy2)(
            ROOT / name, src / name, **({"ignore": junk} if (ROOT / name).is_dir() else {})
        )
    run = dict(check=True, capture_output=True, text=True, cwd=tmp)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", str(tmp / "wheel"), str(src)], **run)
    env = tmp / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], **run)
    python = env / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], **run
    ).stdout.strip()
    Path(site, "requirements.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    wheel = next((tmp / "wheel").glob("dpviz-*.whl"))
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps", str(wheel)], **run)
    return env


def test_the_installed_package_declares_the_requirements(installed):
    code = "import importlib.metadata as m; print('\\n'.join(m.requires('dpviz')))"
    out = subprocess.run(
        [str(installed / "bin" / "python"), "-c", code],
        check=True, capture_output=True, text=True, cwd=installed,
    )  # fmt: skip
    assert out.stdout.split("\n")[:-1] == _requirements()


def test_the_installed_command_lists_figures_and_lessons_outside_the_repository(installed):
    def dpviz(*args: str) -> str:
        out = subprocess.run(
            [str(installed / "bin" / "dpviz"), *args], capture_output=True, text=True, cwd=installed, timeout=300
        )
        assert out.returncode == 0, out.stderr[-2000:]
        return out.stdout

    where = subprocess.run(
        [str(installed / "bin" / "python"), "-c", "import dpviz, webui; print(dpviz.__file__, webui.__file__)"],
        check=True, capture_output=True, text=True, cwd=installed,
    ).stdout  # fmt: skip
    assert str(ROOT) not in where and str(installed) in where  # the installed copy, not the repository
    figures = dpviz("figure", "--list")
    for figure in ("adept-sensitivity", "metric-live", "hoho-live", "partial-individuals"):
        assert figure in figures
    lessons = dpviz("lesson", "--list")
    for name in ("adept", "hoho", "metric-dp", "partial"):  # package data: the shipped lessons
        assert name in lessons
    chart_js = subprocess.run(
        [str(installed / "bin" / "python"), "-c", "import webui, pathlib; "
         "print(sorted(p.name for p in (pathlib.Path(webui.__file__).parent / 'live_js').glob('*.js')))"],
        check=True, capture_output=True, text=True, cwd=installed,
    ).stdout  # fmt: skip
    assert chart_js.strip() == str(sorted(p.name for p in (ROOT / "webui" / "live_js").glob("*.js")))


APP_CHECK = """
import json, sys
from streamlit.testing.v1 import AppTest
from serving.local_app import app_folder

folder = app_folder()
out = {"folder": str(folder)}
home = AppTest.from_file(str(folder / "app.py"), default_timeout=120).run()
out["home"] = [s.value for s in home.subheader]
out["home_errors"] = [str(e.value) for e in home.exception]
at = AppTest.from_file(str(folder / "app.py"), default_timeout=120)
at.switch_page("pages/5_Audit_a_mechanism.py")
at.run()
out["audit_errors"] = [str(e.value) for e in at.exception]
out["audit_title"] = [t.value for t in at.title]
print(json.dumps(out))
"""


def test_the_installed_app_draws_its_pages_from_the_installed_files(installed, tmp_path):
    """The home page lists the papers and a page opens, from ``<prefix>/share/dpviz`` with the
    installed packages, outside the repository."""
    env = {**os.environ, "DPVIZ_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("PYTHONPATH", None)
    out = subprocess.run(
        [str(installed / "bin" / "python"), "-c", APP_CHECK],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert found["folder"] == str(installed / "share" / "dpviz")
    assert found["home_errors"] == [] and found["audit_errors"] == []
    for title in ("ADePT sensitivity", "Metric DP over word embeddings", "Partial sensitivity"):
        assert any(title in h for h in found["home"]), found["home"]
    assert found["audit_title"], "the audit page drew no title"
    assert sorted(p.name for p in (installed / "share" / "dpviz" / "pages").glob("*.py")) == sorted(
        p.name for p in (ROOT / "pages").glob("*.py")
    )


@pytest.mark.server
def test_the_installed_dpviz_app_serves_the_dashboard(installed, tmp_path):
    """``dpviz-app`` started outside the repository answers Streamlit's health check and serves
    the page; it is stopped by its own process id."""
    from browser_support import start_server, stop_server

    from webui.plotly_bundle import BUNDLE, PACKED, ROUTE

    app = str(installed / "bin" / "dpviz-app")
    proc, url, log = start_server(
        tmp_path, command=lambda port: [app, "--server.port", str(port), "--server.address", "127.0.0.1"]
    )
    try:
        with urllib.request.urlopen(url + "/", timeout=30) as r:
            assert "<noscript>" in r.read().decode()  # Streamlit's page, which the browser then fills
        # dpviz's plotly.js, from the installed static folder: as a script the browser runs, and
        # gzipped as an archive sent as it is (not compressed again by the server)
        with urllib.request.urlopen(f"{url}/{ROUTE}/{BUNDLE}", timeout=30) as r:
            assert r.headers["Content-Type"].split(";")[0] in ("text/javascript", "application/javascript")
            assert r.read() == (ROOT / "static" / BUNDLE).read_bytes()
        packed = urllib.request.Request(f"{url}/{ROUTE}/{PACKED}", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(packed, timeout=30) as r:
            assert r.headers.get("Content-Encoding") is None
            assert r.read() == (ROOT / "static" / PACKED).read_bytes()
    finally:
        stop_server(proc, log)
