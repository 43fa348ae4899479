"""The audit panel's compute: the page's values -> the samples (an example's draws or two
uploaded files) -> :func:`dpviz.auditing.audit_samples`. No Streamlit here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dpviz import uploads
from dpviz.auditing import AuditResult, audit_samples
from dpviz.auditing.examples import TITLES, example
from dpviz.auditing.samples import Samples, read_path
from dpviz.errors import InputError
from dpviz.progress import Progress, report


@dataclass(frozen=True)
class Outcome:
    """An audit and what its samples were."""

    result: AuditResult
    samples: str
    example: str


def _uploaded(ref: str, side: str):
    if not ref.startswith(uploads.UPLOAD_PREFIX):
        raise InputError(f"The outputs on {side} must be an uploaded file (a reference upload:NAME), got {ref[:60]!r}.")
    samples = read_path(uploads.existing_upload(ref))
    return Samples(samples.values, f"the outputs on {side}")  # the file is named by its content: say which side


def run(values: dict[str, Any], progress: Progress | None = None) -> Outcome | None:
    """The audit the values ask for, or None when no samples are given yet."""
    key = values["example"]
    if key != "none":
        report(progress, 0.0, f"drawing the example: {TITLES[key].lower()}")
        ex = example(key, values["seed"])
        a, b, samples = ex.a, ex.b, ex.what
    elif values["a"] and values["b"]:
        sa, sb = _uploaded(values["a"], "D"), _uploaded(values["b"], "D'")
        a, b, samples = sa, sb, f"your files ({len(sa):,} and {len(sb):,} outputs)"
    else:
        return None
    result = audit_samples(
        a,
        b,
        claimed=values["claimed"],
        delta=values["delta"],
        distance=values["distance"],
        confidence=values["confidence"],
        seed=values["seed"],
        progress=progress,
    )
    return Outcome(result, samples, key)
