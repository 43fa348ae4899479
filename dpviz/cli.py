"""The command line over the figure registry.

    python -m dpviz figure --list
    python -m dpviz figure ID [--set key=value ...] --out FILE   (.csv .json .html .png .svg .pdf)
    python -m dpviz report PAGE [--set key=value ...] --out FILE  (.html .pdf .ipynb)
    python -m dpviz report PAGE --compare FIGURE PARAM A B --out FILE   (one chart, side by side)
    python -m dpviz lesson report NAME [--step N] --out FILE          (a lesson as one report)
    python -m dpviz lesson check FILE | lesson answers FILE | lesson --list
    python -m dpviz audit A B --claimed EPS [--delta D] [--distance DIST] [--confidence 0.95]
                          [--seed S] --out result.json
    python -m dpviz calibrate PAGE --target NAME=VALUE [--target ...] [--set key=value ...] [--solve SETTING] [--json]

Bad ids, keys, values or files (any :class:`dpviz.errors.InputError`) print one clear line on stderr
and exit with status 2; any other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from contextlib import contextmanager
from typing import Iterator, Sequence

from dpviz import lessons, page_report, papers, registry, tools
from dpviz.data import gensim_models
from dpviz.errors import InputError
from dpviz.export import ExportError, output_format, write
from dpviz.lessons.answers import answers
from dpviz.lessons.format import load, load_file, parse, read_text
from dpviz.page_report.comparison import write_comparison
from dpviz.panels import resolve
from dpviz.paper_figures import generate
from dpviz.papers import all_papers
from dpviz.params import Param, ParamError, format_value, parse_value
from dpviz.progress import printer
from dpviz.targets import PAGES, calibrate_page


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        sys.stderr.write(f"dpviz: {message} (see `python -m dpviz figure --help`)\n")
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m dpviz", description="dpviz figures and sweeps from the command line")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    f = sub.add_parser("figure", help="list figures, or compute one and write it to a file")
    f.add_argument("id", nargs="?", help="figure id (see --list)")
    f.add_argument("--list", action="store_true", help="list figure ids, parameters, defaults and ranges")
    f.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="set a parameter (repeatable)")
    f.add_argument("--out", help="output file; the format comes from the suffix: .csv .json .html .png .svg .pdf")
    f.add_argument("--quiet", action="store_true", help="no progress on stderr")
    fs = sub.add_parser("figures", help="regenerate every paper figure (PNG + SVG + CSV + manifest.json)")
    fs.add_argument("--out", required=True, help="output directory")
    fs.add_argument("--quick", action="store_true", help="reduced sample sizes (about a minute)")
    sw = sub.add_parser("sweep", help="whole-vocabulary sweeps on Dask (metric DP)")
    sw.add_argument(
        "analysis", choices=["metric", "mdp"], help="what to sweep: metric (N_w, S_w per word; mdp, its earlier name)"
    )
    sw.add_argument(
        "--embedding", default="glove-6b-50d", help="glove-6b-50d, fasttext-local, a gensim model name or a file path"
    )
    sw.add_argument("--words", default="all", help="'all' (the whole vocabulary) or how many words to sample")
    sw.add_argument(
        "--vocab", type=int, default=10_000, help="sample words from this many most frequent (with --words N)"
    )
    sw.add_argument("--epsilons", default="1,2,3,4,5,6,8,10,12,15,20,25,30,40", help="comma-separated epsilons")
    sw.add_argument("--samples", type=int, default=1000, help="draws per word")
    sw.add_argument("--eta", type=float, default=0.05)
    sw.add_argument("--seed", type=int, default=0)
    sw.add_argument("--partition-size", type=int, default=50, help="words per task and Parquet file")
    sw.add_argument("--out", required=True, help="output directory (rerun to resume)")
    sw.add_argument("--scheduler", help="address of a running Dask scheduler (default: a local cluster)")
    sw.add_argument("--workers", type=int, help="local cluster size (default: the machine's cores)")
    sw.add_argument("--quiet", action="store_true")
    rp = sub.add_parser("report", help="a whole page at its settings as one report (.html, .pdf or .ipynb)")
    rp.add_argument("page", help="the page: adept, metric, hoho or partial")
    rp.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="set a parameter (repeatable)")
    rp.add_argument("--out", required=True, help="output file; the format comes from the suffix: .html .pdf .ipynb")
    rp.add_argument(
        "--base-url", default="http://localhost:8501", help="where your dpviz runs, for the report's link to the page"
    )
    rp.add_argument(
        "--compare",
        nargs=4,
        metavar=("FIGURE", "PARAM", "A", "B"),
        help="only one chart of the page, at PARAM = A and at PARAM = B, side by side",
    )
    rp.add_argument("--quiet", action="store_true", help="no progress on stderr")
    ls = sub.add_parser("lesson", help="check a lesson file, print its answers, report it, or list the lessons")
    ls.add_argument(
        "action", nargs="?", choices=["check", "answers", "report"], help="check FILE, answers FILE or report NAME"
    )
    ls.add_argument("file", nargs="?", help="a lesson file (.md), or the name of a lesson (report: a name)")
    ls.add_argument("--list", action="store_true", help="the lessons of this installation (and $DPVIZ_LESSONS_DIR)")
    ls.add_argument("--step", type=int, help="report: only this step (default: every step)")
    ls.add_argument("--out", help="report: the file; the format comes from the suffix: .html .pdf .ipynb")
    ls.add_argument("--base-url", default="http://localhost:8501", help="report: where your dpviz runs")
    ls.add_argument("--quiet", action="store_true", help="report: no progress on stderr")
    au = sub.add_parser(
        "audit", help="audit a privacy claim from a mechanism's output samples on two neighbouring inputs"
    )
    au.add_argument("a", help="samples of M(D): .csv/.parquet (numeric columns), .npy, or .txt (one output per line)")
    au.add_argument("b", help="samples of M(D'), of the same kind and width")
    au.add_argument("--claimed", type=float, required=True, help="the claimed ε")
    au.add_argument("--delta", type=float, default=0.0, help="the claimed δ (default 0)")
    au.add_argument("--distance", type=float, default=1.0, help="d(D, D') for a metric-DP claim ε·d (default 1)")
    au.add_argument("--confidence", type=float, default=0.95, help="confidence of the bound (default 0.95)")
    au.add_argument("--seed", type=int, default=0, help="seed of the split into training and evaluation parts")
    au.add_argument("--out", required=True, help="result file (.json)")
    au.add_argument("--quiet", action="store_true", help="no progress on stderr")
    cb = sub.add_parser("calibrate", help="the setting (ε, σ) that reaches a target, for every mechanism on a page")
    cb.add_argument("page", help="adept, hoho or partial")
    cb.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a bound on a column of the page's tables: adept epsilon_actual, rms_error_relative, cosine; "
        "hoho auc_mean, reconstruction_mean; partial rdp_epsilon, sigma; budget epsilon, tpr_at_1pct, k "
        "(repeatable)",
    )
    cb.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="set a parameter (repeatable)")
    cb.add_argument(
        "--solve",
        default=None,
        metavar="SETTING",
        help="the setting to solve for (default: the page's slider); budget also sigma (Gaussian, DP-SGD) "
        "or epsilon0 (Laplace, randomized response), at the k of --set",
    )
    cb.add_argument("--json", action="store_true", help="one JSON record per mechanism and target")
    bd = sub.add_parser(
        "build",
        help="at install: compile the pages' loops (numba), then compute every page's charts and live "
        "charts' frames on its defaults into the cache (a fresh install's first visitor drags at frame rate)",
    )
    bd.add_argument(
        "--engine-only",
        action="store_true",
        help="only compile the pages' numba loops (the metric engine's, the optimal composition's, HoHo's and ADePT's)",
    )
    bd.add_argument("--pages", help="only these pages' charts and frames, comma-separated keys (adept,metric,...)")
    bd.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="processes computing frames (default: one per core)"
    )
    bd.add_argument("--quiet", action="store_true", help="no progress on stderr")
    dl = sub.add_parser("download", help="fetch a gensim-downloader model into $GENSIM_DATA_DIR (needs network)")
    dl.add_argument(
        "model", help="glove-wiki-gigaword-300, fasttext-wiki-news-subwords-300 or word2vec-google-news-300"
    )
    return p


def _list() -> str:
    earlier = {new: old for paper in all_papers() for old, new in paper.aliases.items()}
    lines = []
    for spec in registry.all_figures():
        lines.append(f"{spec.id}  ({spec.page} page) {spec.title}")
        if spec.id in earlier:
            lines.append(f"    earlier id: {earlier[spec.id]} (still accepted)")
        lines.append(f"    columns: {', '.join(spec.columns)}")
        for prm in spec.params:
            cap = f"; hosted cap {prm.hosted_max:g}" if prm.hosted_max is not None else ""
            lines.append(
                f"    --set {prm.name}=...  default {format_value(prm, prm.default)}; {prm.allowed()}{cap}. {prm.help}"
            )
        lines.append("")
    return "\n".join(lines)


@contextmanager
def _writing(what: str) -> Iterator[None]:
    """A file or folder the user named could not be written: one sentence (ExportError, exit 2)."""
    try:
        yield
    except OSError as err:
        raise ExportError(f"cannot write {what}: {err.strerror or err}.") from None


def _page_keys(text: str | None) -> set[str] | None:
    """The pages ``--pages`` names (comma-separated keys; None: every page)."""
    if text is None:
        return None

    known = [p.key for p in (*papers.all_papers(), *tools.all_tools())]
    keys = {k.strip() for k in text.split(",") if k.strip()}
    unknown = sorted(keys - set(known))
    if unknown or not keys:
        raise ParamError(f"--pages: {', '.join(unknown) or 'nothing'} is not a page; the pages are {', '.join(known)}.")
    return keys


def _parse_sets(items: Sequence[str]) -> dict[str, str]:
    raw: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ParamError(f"--set {item!r} is not of the form key=value.")
        if key.strip() in raw:
            raise ParamError(f"--set {key.strip()} is given twice.")
        raw[key.strip()] = value
    return raw


def _sweep(args) -> int:
    from dpviz.papers.metric.sweep import sweep  # (lazy: only this command loads the metric engine)

    eps = parse_value(
        Param("epsilons", "float_list", (1.0,), "", "", min=0.01, max=1000.0, max_items=100), args.epsilons
    )
    words = args.words.strip().lower()
    if words != "all":
        words = parse_value(Param("words", "int", 1, "", "", min=1, max=10_000_000), words)
    for name, value, low in (
        ("samples", args.samples, 1),
        ("partition-size", args.partition_size, 1),
        ("vocab", args.vocab, 2),
        ("seed", args.seed, 0),
        ("workers", args.workers if args.workers is not None else 1, 1),
    ):
        if value < low:
            raise ParamError(f"--{name} must be at least {low}, got {value}.")
    if args.seed >= 2**63:
        raise ParamError(f"--seed must be below 2**63, got {args.seed}.")
    if not 0 <= args.eta < 1:
        raise ParamError(f"--eta must be in [0, 1), got {args.eta}.")
    with _writing(f"the sweep to {args.out!r}"):
        m = sweep(
            args.embedding,
            words,
            eps,
            args.samples,
            args.out,
            eta=args.eta,
            seed=args.seed,
            vocab=args.vocab,
            partition_size=args.partition_size,
            scheduler=args.scheduler,
            n_workers=args.workers,
            quiet=args.quiet,
        )
    rate = m.get("words_per_second_this_run")
    sys.stderr.write(
        f"sweep complete: {m['words_total']:,} words in {m['partitions']} partitions"
        + (f", {rate:.2f} words/s this run" if rate else " (nothing left to do)")
        + f"; {args.out}/manifest.json\n"
    )
    return 0


def _report(args) -> int:
    start = time.perf_counter()
    if args.compare:
        figure, param, a, b = args.compare
        sets = _parse_sets(args.set)
        out = args.out
        rep, path = write_comparison(
            args.page, sets, figure, param, a, b, out, base_url=args.base_url, progress=printer(args.quiet)
        )
    else:
        rep, path = page_report.write(
            args.page, _parse_sets(args.set), args.out, base_url=args.base_url, progress=printer(args.quiet)
        )
    if not args.quiet:
        sys.stderr.write(f"wrote {path}: {len(rep.charts)} charts in {time.perf_counter() - start:.1f} s\n")
    return 0


def _lesson(args) -> int:
    from pathlib import Path

    if args.list:
        for name, path in lessons.available().items():
            try:
                lesson = parse(read_text(path), name)
                counts = f"{len(lesson.steps)} steps, {len(lesson.questions)} questions"
                print(f"{name}  ({lesson.paper}, {counts}) {lesson.title}")
            except lessons.LessonError as err:
                print(f"{name}  (cannot be used: {len(err.problems)} problems; python -m dpviz lesson check {path})")
        return 0
    if not args.action or not args.file:
        raise ParamError(
            "say `lesson check FILE`, `lesson answers FILE`, `lesson report NAME --out F` or `lesson --list`."
        )
    if args.action == "report":
        from dpviz.page_report.lesson import write_lesson  # (lazy: only `lesson report` writes one)

        if not args.out:
            raise ParamError("lesson report NAME needs --out FILE (.html, .pdf or .ipynb).")
        start = time.perf_counter()
        rep, path = write_lesson(args.file, args.step, args.out, base_url=args.base_url, progress=printer(args.quiet))
        if not args.quiet:
            sys.stderr.write(f"wrote {path}: {len(rep.charts)} charts in {time.perf_counter() - start:.1f} s\n")
        return 0
    try:
        lesson = load_file(args.file) if Path(args.file).suffix == ".md" else load(args.file)
    except lessons.LessonError as err:
        for problem in err.problems:
            sys.stderr.write(f"dpviz: {problem}\n")
        return 2
    if args.action == "check":
        try:
            answers(lesson)  # a cell that does not exist is found only by computing it
        except lessons.LessonError as err:
            for problem in err.problems:
                sys.stderr.write(f"dpviz: {problem}\n")
            return 2
        print(f"{lesson.name}: {len(lesson.steps)} steps, {len(lesson.questions)} questions; no problems.")
        return 0

    for step, question, answer in answers(lesson):
        print(f"step {step}: {question.ask} -> {answer.shown}")
    return 0


def _audit(args) -> int:
    import json
    from pathlib import Path

    from dpviz.auditing import audit_samples  # (lazy: SciPy's optimisers, 0.6 s, for `audit` only)

    if not args.out.lower().endswith(".json"):
        raise ParamError(f"--out {args.out!r}: the audit writes a .json file.")
    if not 0 <= args.seed < 2**63:
        raise ParamError(f"--seed must be from 0 to 2**63 - 1, got {args.seed}.")
    result = audit_samples(
        args.a,
        args.b,
        claimed=args.claimed,
        delta=args.delta,
        distance=args.distance,
        confidence=args.confidence,
        seed=args.seed,
        progress=printer(args.quiet),
    )
    with _writing(f"the result {args.out!r}"):
        Path(args.out).write_text(json.dumps(result.to_dict(), indent=2) + "\n")
    print(result.verdict)
    return 0


def _calibrate(args) -> int:
    import math

    targets = {}
    for item in args.target:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ParamError(f"--target {item!r} is not of the form name=value.")
        targets[name.strip()] = value
    table = calibrate_page(args.page, targets, _parse_sets(args.set), args.solve)
    if args.json:
        records = [
            {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
            for r in table.to_dict("records")
        ]
        print(json.dumps(records, indent=2, ensure_ascii=False))
        return 0
    slider = table.attrs.get("solved", PAGES[args.page].slider)  # the slider, or the setting --solve named
    for r in table.to_dict("records"):
        lam = r.get("lambda_")
        if isinstance(lam, float) and math.isfinite(lam):  # a point of OME's (ε, λ) curve
            r["mechanism"] = f"{r['mechanism']} (λ = {lam:g})"
        if not r["reachable"]:
            print(f"{r['mechanism']:>18}  {r['target']} = {r['target_value']:g}: {r['note']}")
            continue
        interval = f" (95% interval {r['low']:.4g}-{r['high']:.4g})" if r["low"] != r["high"] else ""
        others = ", ".join(
            f"{k} {r[k]:.4g}"
            for k in r
            if k not in {"mechanism", "target", "target_value", "reachable", slider, "low", "high", "side", "note"}
            and k != "lambda_"
            and isinstance(r[k], float)
        )
        print(
            f"{r['mechanism']:>18}  {r['target']} = {r['target_value']:g}: {r['side']}{interval}; there: {others}"
            + (f" ({r['note']})" if r["note"] else "")
        )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: sys.argv[1:]); returns the exit status: 0, or 2 for
    input dpviz refuses (one line on stderr). Any other exception is a bug and propagates."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "sweep":
            return _sweep(args)
        if args.command == "audit":
            return _audit(args)
        if args.command == "report":
            return _report(args)
        if args.command == "lesson":
            return _lesson(args)
        if args.command == "calibrate":
            return _calibrate(args)
        if args.command == "build":
            pages = _page_keys(args.pages)  # a wrong name is said before any work
            started = time.perf_counter()
            for paper in papers.all_papers():  # every page's compiled loops (Paper.compiled), whatever --pages says
                paper.compile_kernels()
            compiled = ", ".join(p.key for p in papers.all_papers() if p.compiled)
            sys.stderr.write(f"compiled the pages' loops ({compiled}) in {time.perf_counter() - started:.1f} s\n")
            if not args.engine_only:
                # the pages' own bytes (their charts' JSON, the try-it box's HTML) are the web layer's:
                # named, as the declarations name their views, not imported (dpviz never imports it)

                built = resolve("webui.install_build:build")(printer(args.quiet), pages, max(1, args.jobs))
                sys.stderr.write(built + "\n")
            return 0
        if args.command == "download":
            path = gensim_models.download(args.model, printer())
            sys.stderr.write(f"\nwrote {path}\n")
            return 0
        if args.command == "figures":
            with _writing(f"the figures to {args.out!r}"):
                m = generate(args.out, quick=args.quick)
            sys.stderr.write(
                f"wrote {len(m['figures'])} figures to {args.out} in {m['total_seconds']:.0f} s (manifest.json)\n"
            )
            return 0
        if args.command == "figure":
            if args.list:
                print(_list())
                return 0
            if not args.id:
                raise ParamError("name a figure id, or use --list to see them.")
            if not args.out:
                raise ParamError("--out FILE is required (.csv .json .html .png .svg .pdf).")
            raw = _parse_sets(args.set)
            start = time.perf_counter()
            suffix = output_format(args.out)  # an unknown format is refused before any work
            _, df, fig = registry.run(args.id, raw, progress=printer(args.quiet), draw=suffix != ".csv")
            with _writing(f"the output {args.out!r}"):
                path = write(df, fig, args.out)
            if not args.quiet:
                sys.stderr.write(f"wrote {path} ({len(df):,} rows, {time.perf_counter() - start:.1f} s)\n")
            return 0
    except InputError as err:  # the user's input: one sentence, exit 2; anything else is a bug and keeps its traceback
        sys.stderr.write(f"dpviz: {err}\n")
        return 2
    return 2
