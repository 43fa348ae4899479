"""Whole-vocabulary sweeps on Dask: determinism, resume after a killed worker, the CLI."""

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest

from dpviz.papers.metric import sweep as S

ROOT = Path(__file__).resolve().parents[3]
SMALL = dict(
    embedding="glove-6b-50d", words=12, epsilons=[3.0, 10.0, 30.0], samples=40, vocab=2000, seed=7, partition_size=3
)


def _run(out, **kw):
    args = {**SMALL, **kw}
    return S.sweep(
        args.pop("embedding"), args.pop("words"), args.pop("epsilons"), args.pop("samples"), out, quiet=True, **args
    )


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref")
    _run(out, local=True)
    return S.load(out)


def test_local_run_writes_partitions_and_a_manifest(tmp_path, reference):
    _run(tmp_path, local=True)
    m = json.loads((tmp_path / S.MANIFEST).read_text())
    assert m["status"] == "complete" and m["partitions"] == 4 and m["parameters"]["seed"] == 7
    assert len(list(tmp_path.glob("part-*.parquet"))) == 4
    assert len(reference) == 12 * 3


@pytest.mark.cluster
def test_two_dask_workers_equal_one_process(tmp_path, reference):
    _run(tmp_path, n_workers=2)
    pd.testing.assert_frame_equal(S.load(tmp_path), reference)


def test_partitioning_does_not_change_results(tmp_path, reference):
    _run(tmp_path, local=True, partition_size=5)
    pd.testing.assert_frame_equal(S.load(tmp_path), reference)


@pytest.mark.cluster
def test_a_killed_worker_then_a_rerun_completes_with_identical_results(tmp_path, reference):
    """Kill one worker process as soon as the first partition is done; Dask retries or the
    run fails; either way the rerun resumes from the finished partitions."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)

    with Client(cluster) as c:
        pids = list(c.run(os.getpid).values())
    killed = threading.Event()

    def kill_one(info):
        if not killed.is_set():
            killed.set()
            os.kill(pids[0], signal.SIGKILL)

    try:
        try:
            _run(tmp_path, scheduler=cluster.scheduler_address, on_progress=kill_one)
        except Exception:
            pass  # a lost worker may fail the run: the rerun below must finish it
    finally:
        cluster.close()
    assert killed.is_set()
    _run(tmp_path, local=True)  # resume: only missing partitions run
    m = json.loads((tmp_path / S.MANIFEST).read_text())
    assert m["status"] == "complete"
    assert not list(tmp_path.glob("*.tmp"))
    pd.testing.assert_frame_equal(S.load(tmp_path), reference)


def test_rerun_skips_finished_partitions(tmp_path):
    _run(tmp_path, local=True)
    m = _run(tmp_path, local=True)
    assert m["partitions_this_run"] == 0


def test_other_parameters_in_the_same_directory_are_refused(tmp_path):
    _run(tmp_path, local=True)
    with pytest.raises(ValueError, match="other parameters"):
        _run(tmp_path, local=True, samples=41)


@pytest.mark.cluster
def test_cli_sweep_and_bad_arguments(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "dpviz",
        "sweep",
        "metric",
        "--words",
        "4",
        "--vocab",
        "500",
        "--epsilons",
        "5,20",
        "--samples",
        "30",
        "--partition-size",
        "2",
        "--workers",
        "2",
        "--out",
        str(tmp_path / "s"),
        "--quiet",
    ]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "sweep complete: 4 words in 2 partitions" in out.stderr
    assert len(S.load(tmp_path / "s")) == 8
    bad = subprocess.run(
        cmd[:-3] + ["--epsilons", "5,-1", "--out", str(tmp_path / "t")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "epsilons" in bad.stderr and "Traceback" not in bad.stderr


def test_the_metric_page_figures_draw_a_sweep_next_to_the_live_sample(tmp_path, monkeypatch):
    from dpviz import registry

    _run(tmp_path, local=True)
    live = {"words": "3", "samples": "40", "epsilons": "3,10,30", "vocab": "2000"}
    _, df, fig = registry.run("metric-figure3", dict(live, sweep_dir=str(tmp_path)))
    labels = set(df.embedding)
    assert "glove-6b-50d" in labels and "sweep: glove-6b-50d (12 words)" in labels
    assert any(t.name == "sweep: glove-6b-50d (12 words)" for t in fig.data)
    _, hist, _ = registry.run("metric-histograms", dict(live, sweep_dir=str(tmp_path), hist_epsilons="10"))
    assert set(hist[hist.embedding.str.startswith("sweep")].epsilon) == {10.0}
    monkeypatch.setenv("DPVIZ_HOSTED", "1")
    with pytest.raises(ValueError, match="hosted demo"):
        registry.run("metric-figure3", dict(live, sweep_dir=str(tmp_path)))
    monkeypatch.delenv("DPVIZ_HOSTED")
    with pytest.raises(ValueError, match="not a dpviz sweep directory"):
        registry.run("metric-figure3", dict(live, sweep_dir=str(tmp_path / "nope")))
