"""A mechanism's output samples, read and checked: numbers (CSV, Parquet, .npy) or words (text).

Numeric samples are an (n, k) float array, one output per row; categorical samples a 1-D array of
strings, one output per line of a UTF-8 text file (a rewriting mechanism's words, labels). The
two sides of an audit must be of one kind, and numeric ones of one width. Whatever is wrong gets
one sentence naming the file and what is allowed (:class:`dpviz.errors.InputError`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dpviz import hosted_mode
from dpviz.errors import InputError

SUFFIXES = ("csv", "parquet", "npy", "txt")
MAX_ROWS = 20_000_000
HOSTED_MAX_ROWS = 2_000_000
MAX_COLUMNS = 4096
MAX_TEXT_OUTPUT = 1000
"""Longest categorical output (characters); longer lines are refused as not being one output."""


@dataclass(frozen=True)
class Samples:
    """One side's outputs: ``values`` (n, k) float64 or (n,) str, and where they came from."""

    values: np.ndarray
    name: str

    @property
    def kind(self) -> str:
        """'numeric' or 'categorical'."""
        return "numeric" if self.values.dtype.kind == "f" else "categorical"

    def __len__(self) -> int:
        return len(self.values)


def _numeric(values: np.ndarray, name: str) -> Samples:
    if values.dtype.kind not in "biuf":
        raise InputError(
            f"{name}: the values are {values.dtype}, not numbers; numeric outputs are integers or floats "
            "(for words or labels, give a .txt file with one output per line)."
        )
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2:
        raise InputError(f"{name}: an array of {values.ndim} dimensions; give one output per row (1-D or 2-D).")
    if values.shape[1] > MAX_COLUMNS:
        raise InputError(f"{name}: {values.shape[1]:,} columns; at most {MAX_COLUMNS:,} are audited.")
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise InputError(
            f"{name}: row {row + 1:,}, column {col + 1} is {values[row, col]} (missing or infinite); "
            "every output must be a finite number."
        )
    return Samples(values, name)


def _checked_rows(samples: Samples) -> Samples:
    cap = HOSTED_MAX_ROWS if hosted_mode() else MAX_ROWS
    if len(samples) > cap:
        where = " on the hosted demo" if hosted_mode() else ""
        raise InputError(f"{samples.name}: {len(samples):,} outputs; at most {cap:,} a side are audited{where}.")
    if len(samples) == 0:
        raise InputError(f"{samples.name}: no outputs.")
    return samples


def _table(frame, name: str) -> Samples:
    text_cols = [c for c in frame.columns if frame[c].dtype.kind not in "biuf"]
    if text_cols:
        raise InputError(
            f"{name}: column {str(text_cols[0])!r} is not numeric; a table's columns must all be numbers "
            "(for words or labels, give a .txt file with one output per line)."
        )
    return _numeric(frame.to_numpy(), name)


def read_bytes(data: bytes, filename: str) -> Samples:
    """Samples from a file's bytes; its suffix says the format (.csv .parquet .npy .txt)."""
    import pandas as pd

    suffix = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    if suffix not in SUFFIXES:
        raise InputError(f"{filename}: unknown format; give a {', '.join('.' + s for s in SUFFIXES)} file.")
    try:
        if suffix == "csv":
            samples = _table(pd.read_csv(io.BytesIO(data)), filename)
        elif suffix == "parquet":
            samples = _table(pd.read_parquet(io.BytesIO(data)), filename)
        elif suffix == "npy":
            samples = _numeric(np.load(io.BytesIO(data), allow_pickle=False), filename)
        else:
            samples = _text(data, filename)
    except InputError:
        raise
    except (ValueError, OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise InputError(f"{filename}: not a readable .{suffix} file ({str(err).splitlines()[0][:200]}).") from None
    except Exception as err:  # pyarrow raises its own types on a corrupt Parquet file
        if type(err).__module__.startswith("pyarrow"):
            raise InputError(f"{filename}: not a readable .parquet file ({str(err)[:200]}).") from None
        raise
    return _checked_rows(samples)


def _text(data: bytes, name: str) -> Samples:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{name}: not UTF-8 text; give one output per line in UTF-8.") from None
    lines = text.splitlines()
    long = next((i for i, line in enumerate(lines) if len(line) > MAX_TEXT_OUTPUT), None)
    if long is not None:
        raise InputError(
            f"{name}: line {long + 1:,} has more than {MAX_TEXT_OUTPUT:,} characters; one output per line."
        )
    return Samples(np.array(lines, dtype=str), name)


def read_path(path: str | Path) -> Samples:
    """Samples from a file on this machine."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{path}: no such file.")
    return read_bytes(p.read_bytes(), p.name)


def as_samples(x, name: str) -> Samples:
    """Samples from what a notebook passes: a path, a Samples, an array, or a list of numbers or strings."""
    if isinstance(x, Samples):
        return _checked_rows(x)
    if isinstance(x, (str, Path)):
        return read_path(x)
    arr = np.asarray(x)
    if arr.dtype.kind in "USO":
        if arr.ndim != 1:
            raise InputError(f"{name}: categorical outputs are one list of strings, got {arr.ndim} dimensions.")
        return _checked_rows(Samples(arr.astype(str), name))
    return _checked_rows(_numeric(arr, name))


def check_pair(a: Samples, b: Samples) -> None:
    """Both sides of one kind and, numeric, of one width."""
    if a.kind != b.kind:
        raise InputError(f"{a.name} holds {a.kind} outputs and {b.name} {b.kind} ones; both sides must be of one kind.")
    if a.kind == "numeric" and a.values.shape[1] != b.values.shape[1]:
        raise InputError(
            f"{a.name} has {a.values.shape[1]} columns and {b.name} {b.values.shape[1]}; "
            "both sides must have the same columns."
        )
