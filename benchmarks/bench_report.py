"""How long a page's report takes, on defaults, against computing the page's charts alone.

For each paper page, two fresh processes, each with a fresh cache directory (nothing computed):
- *cold*: the baseline computes and draws every chart of the page (``registry.run`` per figure,
  what ``python -m dpviz figure`` does for each), then the three reports are written in the same
  process (the charts' work now cached, as on a page a visitor has explored);
- *cold report*: the HTML report straight away, computing everything itself.
The ratio cold-report / baseline is the report's own cost on top of the charts' (rendering HTML,
inlining plotly.js); the warm rows say what the button costs after a visitor has seen the page.

    python benchmarks/bench_report.py [--pages adept,metric,hoho,partial] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _worker(page: str, mode: str, out: str) -> dict:
    from dpviz import page_report, registry

    times = {}
    if mode == "baseline-then-reports":
        start = time.perf_counter()
        for spec in registry.paper_figures(page):
            registry.run(spec.id, {})
        times["baseline_charts_cold"] = time.perf_counter() - start
        for fmt in ("html", "pdf", "ipynb"):
            start = time.perf_counter()
            page_report.write(page, {}, Path(out) / f"{page}.{fmt}")
            times[f"report_{fmt}_warm"] = time.perf_counter() - start
        start = time.perf_counter()
        for spec in registry.paper_figures(page):
            registry.run(spec.id, {})
        times["baseline_charts_warm"] = time.perf_counter() - start
    else:
        start = time.perf_counter()
        page_report.write(page, {}, Path(out) / f"{page}.html")
        times["report_html_cold"] = time.perf_counter() - start
    times["html_bytes"] = (Path(out) / f"{page}.html").stat().st_size
    return times


def _run(page: str, mode: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        env = dict(os.environ, DPVIZ_CACHE_DIR=str(Path(tmp) / "cache"), PYTHONPATH=str(ROOT))
        env.pop("DPVIZ_HOSTED", None)
        done = subprocess.run(
            [sys.executable, __file__, "--worker", page, mode, tmp], env=env, capture_output=True, text=True, check=True
        )
        return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", default="adept,metric,hoho,partial")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(_worker(*args.worker)))
        return
    rows = {}
    print(
        f"{'page':8} {'charts cold':>11} {'report cold':>11} {'ratio':>6} | warm: {'charts':>6} {'html':>6} "
        f"{'pdf':>6} {'ipynb':>6}  html size"
    )
    for page in args.pages.split(","):
        a, b = _run(page, "baseline-then-reports"), _run(page, "report-cold")
        row = {**a, **b, "ratio_cold": b["report_html_cold"] / a["baseline_charts_cold"]}
        rows[page] = row
        print(
            f"{page:8} {a['baseline_charts_cold']:10.1f}s {b['report_html_cold']:10.1f}s {row['ratio_cold']:6.2f} | "
            f"      {a['baseline_charts_warm']:5.1f}s {a['report_html_warm']:5.1f}s {a['report_pdf_warm']:5.1f}s "
            f"{a['report_ipynb_warm']:5.1f}s  {a['html_bytes'] / 1e6:.1f} MB",
            flush=True,
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
