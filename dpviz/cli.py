"""The command line over the figure registry.

    python -m dpviz figure --list
    python -m dpviz figure ID [--set key=value ...] --out FILE   (.csv .json .html .png .svg .pdf)

Bad ids, keys or values print one clear line on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Sequence

from dpviz import figures
from dpviz.export import ExportError, write
from dpviz.params import ParamError, format_value


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        sys.stderr.write(f"dpviz: {message} (see `python -m dpviz figure --help`)\n")
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m dpviz", description="dpviz figures from the command line")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    f = sub.add_parser("figure", help="list figures, or compute one and write it to a file")
    f.add_argument("id", nargs="?", help="figure id (see --list)")
    f.add_argument("--list", action="store_true", help="list figure ids, parameters, defaults and ranges")
    f.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="set a parameter (repeatable)")
    f.add_argument("--out", help="output file; the format comes from the suffix: .csv .json .html .png .svg .pdf")
    f.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return p


def _list() -> str:
    lines = []
    for spec in figures.all_figures():
        lines.append(f"{spec.id}  ({spec.page} page) {spec.title}")
        lines.append(f"    columns: {', '.join(spec.columns)}")
        for prm in spec.params:
            cap = f"; hosted cap {prm.hosted_max:g}" if prm.hosted_max is not None else ""
            lines.append(f"    --set {prm.name}=...  default {format_value(prm, prm.default)}; {prm.allowed()}{cap}. {prm.help}")
        lines.append("")
    return "\n".join(lines)


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


def _progress_printer(quiet: bool):
    if quiet:
        return None
    state = {"last": -1}

    def show(frac: float, msg: str) -> None:
        pct = int(100 * frac)
        if pct != state["last"]:
            state["last"] = pct
            bar = "#" * (pct // 5)
            sys.stderr.write(f"\r[{bar:<20}] {pct:3d}% {msg[:60]:<60}")
            if pct >= 100:
                sys.stderr.write("\n")
            sys.stderr.flush()

    return show


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
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
            _, df, fig = figures.run(args.id, raw, progress=_progress_printer(args.quiet))
            path = write(df, fig, args.out)
            if not args.quiet:
                sys.stderr.write(f"wrote {path} ({len(df):,} rows, {time.perf_counter() - start:.1f} s)\n")
            return 0
    except (ParamError, ExportError, ValueError) as err:  # ValueError: a checked input the math refused
        sys.stderr.write(f"dpviz: {err}\n")
        return 2
    except OSError as err:
        sys.stderr.write(f"dpviz: cannot write the output: {err.strerror or err}\n")
        return 2
    return 2
