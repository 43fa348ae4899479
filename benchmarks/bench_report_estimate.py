"""How right the command line's "time left" is while a page report is made.

For each page: a first report (seed 1) in a fresh cache directory records how long each part took
(``report-timings.json``). Then the report at seed 2, whose seeded tables are not computed yet,
three times, each in its own fresh cache directory and process:
- *baseline* (``DPVIZ_REPORT_SHARES=equal``): every chart an equal share, 80 % computing and 20 %
  writing (what every report did before);
- *first*: no timings of this machine yet, the shipped typical ones stand in;
- *timed*: the first report's timings file copied in, so each part's share is its measured time.
Each line the progress printer draws is stamped as it arrives on stderr; its "~N s left" is
compared with the time the report really still took. Reported per run: the worst ratio
max(shown / real, real / shown) over the lines shown while at least 2 s were really left, and the
largest estimate shown against the total time.

    python benchmarks/bench_report_estimate.py [--pages adept,metric,hoho,partial] [--format html]
    python benchmarks/bench_report_estimate.py --remake-typical   (dpviz/page_report/typical_timings.json)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LEFT = re.compile(r"\(~([\d,]+) s left\)")


def _run(page: str, seed: int, cache: Path, out: Path, **env_extra) -> tuple[float, list[tuple[float, float]]]:
    """(total seconds, [(stamp, shown seconds left)]) of one report in a fresh process."""
    env = dict(os.environ, DPVIZ_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT), **env_extra)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "dpviz", "report", page, "--set", f"seed={seed}", "--out", str(out)],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )
    shown, line = [], b""
    while True:
        ch = proc.stderr.read(1)
        if not ch:
            break
        if ch in (b"\r", b"\n"):
            m = LEFT.search(line.decode("utf-8", "replace"))
            if m:
                shown.append((time.perf_counter() - start, float(m.group(1).replace(",", ""))))
            line = b""
        else:
            line += ch
    if proc.wait() != 0:
        raise SystemExit(f"the report of {page} failed")
    return time.perf_counter() - start, shown


def _score(total: float, shown: list[tuple[float, float]]) -> dict:
    ratios = [max(est / (total - t), (total - t) / max(est, 0.5)) for t, est in shown if total - t >= 2 and est >= 0]
    return {
        "total_seconds": round(total, 2),
        "lines": len(shown),
        "worst_ratio": round(max(ratios), 2) if ratios else None,
        "largest_estimate_seconds": max((e for _, e in shown), default=None),
    }


def remake_typical() -> None:
    """Every page's HTML, PDF and notebook report on defaults, each cold in its own process and
    cache directory; the parts' seconds become dpviz/page_report/typical_timings.json (the
    charts' from the HTML run, each format's computing and writing from its own)."""
    typical = {}
    with tempfile.TemporaryDirectory() as tmp:
        for page in ("adept", "metric", "hoho", "partial"):
            for fmt in ("html", "pdf", "ipynb"):
                cache = Path(tmp) / f"{page}-{fmt}"
                env = dict(os.environ, DPVIZ_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
                cmd = [sys.executable, "-m", "dpviz", "report", page, "--out", f"{tmp}/{page}.{fmt}", "--quiet"]
                subprocess.run(cmd, cwd=ROOT, env=env, check=True)
                found = json.loads((cache / "report-timings.json").read_text())
                typical.update({k: v for k, v in found.items() if fmt == "html" or k.endswith(f"{page}.{fmt}")})
    path = ROOT / "dpviz/page_report/typical_timings.json"
    path.write_text(json.dumps({k: round(v, 3) for k, v in sorted(typical.items())}, indent=1) + "\n")
    print(f"wrote {path} ({len(typical)} parts)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", default="adept,metric,hoho,partial")
    ap.add_argument("--format", default="html", choices=("html", "pdf", "ipynb"))
    ap.add_argument("--json")
    ap.add_argument("--remake-typical", action="store_true", help="write the shipped typical timings and stop")
    args = ap.parse_args()
    if args.remake_typical:
        remake_typical()
        return
    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for page in args.pages.split(","):
            out = tmp / f"{page}.{args.format}"
            first = tmp / f"{page}-previous"
            _run(page, 1, first, out)
            row = {}
            for mode in ("baseline", "first", "timed"):
                cache = tmp / f"{page}-{mode}"
                cache.mkdir()
                if mode == "timed":
                    shutil.copy(first / "report-timings.json", cache / "report-timings.json")
                extra = {"DPVIZ_REPORT_SHARES": "equal"} if mode == "baseline" else {}
                row[mode] = _score(*_run(page, 2, cache, out, **extra))
            result[page] = row
            print(
                f"{page} ({args.format}): "
                + " | ".join(
                    f"{mode} {r['total_seconds']} s, worst ratio {r['worst_ratio']}, "
                    f"largest estimate {r['largest_estimate_seconds']} s"
                    for mode, r in row.items()
                ),
                flush=True,
            )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
