"""Regenerate every paper figure the dashboard reproduces: PNG + SVG + CSV and a manifest.

    python -m dpviz figures --out DIR [--quick]

The figures (with the parameters that reproduce the paper; --quick shrinks sample sizes):
ADePT Figure 1; metric-DP Figures 2-6; HoHo Figures 1-2; partial-sensitivity Figures 1-2.
``DIR/manifest.json`` records, per figure, its id, the paper figure, every parameter (seed
included), the files and the seconds it took, plus the dpviz version.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from dpviz import __version__, registry
from dpviz.export import ExportError, find_chromium
from dpviz.papers import all_papers
from dpviz.progress import Printer


def paper_figures() -> list:
    """Every paper's figures as ``python -m dpviz figures`` regenerates them (from the declarations)."""

    return [r for paper in all_papers() for r in paper.reproduces]


def generate(out: str | Path, quick: bool = False, stream=sys.stderr) -> dict:
    """Compute every paper figure, write CSV now and PNG/SVG in one kaleido batch, and the manifest."""
    import plotly.io as pio

    if find_chromium() is None:
        raise ExportError(
            "No Chromium found for the PNG/SVG figures: install it (Debian/Ubuntu: `apt-get install -y chromium`) or "
            "set BROWSER_PATH."
        )
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    entries, figs, paths = [], [], []
    start = time.perf_counter()
    reproductions = paper_figures()
    show = Printer(stream)
    for k, rep in enumerate(reproductions):
        fid, stem, full, small = rep.figure, rep.stem, dict(rep.full), dict(rep.quick)
        show(k / len(reproductions), f"{k}/{len(reproductions)} computing {fid}")
        t = time.perf_counter()
        values, df, fig = registry.run(fid, small if quick else full)
        spec = registry.get(fid)
        df.to_csv(out / f"{stem}.csv", index=False)
        for suffix in ("png", "svg"):
            figs.append(fig)
            paths.append(out / f"{stem}.{suffix}")
        entries.append(
            {
                "id": fid,
                "paper_figure": spec.paper_figure,
                "title": spec.title,
                "parameters": spec.canonical(values),
                "files": [f"{stem}.csv", f"{stem}.png", f"{stem}.svg"],
                "compute_seconds": round(time.perf_counter() - t, 2),
            }
        )
    show(0.99, f"rendering {len(figs)} images with kaleido")
    t = time.perf_counter()
    os.environ["BROWSER_PATH"] = find_chromium()
    pio.write_images(
        figs,
        paths,
        scale=[2 if str(p).endswith(".png") else 1 for p in paths],
        width=[f.layout.width or 900 for f in figs],
        height=[f.layout.height or 500 for f in figs],
    )
    render = time.perf_counter() - t
    show.close()
    manifest = {
        "dpviz_version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "quick": quick,
        "render_seconds": round(render, 2),
        "total_seconds": round(time.perf_counter() - start, 2),
        "figures": entries,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return manifest
