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

from dpviz import __version__, figures
from dpviz.export import ExportError, find_chromium

NET_QUICK = {"per_class": "200", "sgd_steps": "300", "dpsgd_steps": "300", "eval_per_class": "100"}
MDP_FULL = {"compare": "fasttext-local", "words": "100"}
MDP_QUICK = {"compare": "fasttext-local", "words": "5", "samples": "200", "epsilons": "2,5,10,20,40"}

# (figure id, file stem, full parameters, quick parameters)
PAPER_FIGURES = (
    ("adept-violations", "adept_fig1", {}, {"pairs": "1000"}),
    ("mdp-knn-distances", "metric_fig2_knn", {"knn_words": "1000"}, {"knn_words": "100"}),
    ("mdp-knn-histogram", "metric_fig2_k10", {"knn_words": "1000"}, {"knn_words": "100"}),
    ("mdp-figure3", "metric_fig3", MDP_FULL, MDP_QUICK),
    ("mdp-histograms", "metric_fig4-6", MDP_FULL, {**MDP_QUICK, "epsilons": "5,7,9,11,12"}),
    ("hoho-linking", "hoho_fig1a", {}, {}),
    ("hoho-reconstruction", "hoho_fig1b", {}, {}),
    ("ome-audit", "hoho_fig2", {"audit_samples": "1000000"}, {"audit_samples": "5000"}),
    ("ps-query-surface", "partial_fig1", {}, {"grid": "31"}),
    ("ps-dpsgd", "partial_fig2a", {}, NET_QUICK),
    ("ps-histograms", "partial_fig2b", {}, NET_QUICK),
)


def generate(out: str | Path, quick: bool = False, stream=sys.stderr) -> dict:
    """Compute every paper figure, write CSV now and PNG/SVG in one kaleido batch, and the manifest."""
    import plotly.io as pio

    if find_chromium() is None:
        raise ExportError("No Chromium found for the PNG/SVG figures: install it (Debian/Ubuntu: `apt-get install -y chromium`) or set BROWSER_PATH.")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    entries, figs, paths = [], [], []
    start = time.perf_counter()
    for k, (fid, stem, full, small) in enumerate(PAPER_FIGURES):
        stream.write(f"\r[{'#' * (20 * k // len(PAPER_FIGURES)):<20}] {k}/{len(PAPER_FIGURES)} computing {fid:<22}")
        stream.flush()
        t = time.perf_counter()
        values, df, fig = figures.run(fid, small if quick else full)
        spec = figures.get(fid)
        df.to_csv(out / f"{stem}.csv", index=False)
        for suffix in ("png", "svg"):
            figs.append(fig)
            paths.append(out / f"{stem}.{suffix}")
        entries.append({"id": fid, "paper_figure": spec.paper_figure, "title": spec.title, "parameters": spec.canonical(values),
                        "files": [f"{stem}.csv", f"{stem}.png", f"{stem}.svg"], "compute_seconds": round(time.perf_counter() - t, 2)})
    stream.write(f"\r[{'#' * 20}] rendering {len(figs)} images with kaleido{' ' * 20}")
    stream.flush()
    t = time.perf_counter()
    os.environ["BROWSER_PATH"] = find_chromium()
    pio.write_images(figs, paths, scale=[2 if str(p).endswith(".png") else 1 for p in paths],
                     width=[f.layout.width or 900 for f in figs], height=[f.layout.height or 500 for f in figs])
    render = time.perf_counter() - t
    stream.write("\n")
    manifest = {"dpviz_version": __version__, "created": time.strftime("%Y-%m-%dT%H:%M:%S"), "quick": quick,
                "render_seconds": round(render, 2), "total_seconds": round(time.perf_counter() - start, 2), "figures": entries}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return manifest
