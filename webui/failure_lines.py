"""A logger's failures kept as one line each while a block runs (the build's output says them in a
sentence, not with their tracebacks)."""

from __future__ import annotations

import contextlib
import logging
from typing import Iterator


@contextlib.contextmanager
def failures_as_lines(log: logging.Logger) -> Iterator["OneLine"]:
    """While inside: each failure ``log`` records is kept as one line (the handler's ``lines``),
    not printed with its traceback."""
    failed = OneLine()
    log.addHandler(failed)
    log.propagate = False
    try:
        yield failed
    finally:
        log.removeHandler(failed)
        log.propagate = True


class OneLine(logging.Handler):
    """Keeps each failure as one line: what failed and the error's own sentence."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        """Keep ``record`` as its message and its error's sentence."""
        err = record.exc_info[1] if record.exc_info else None
        self.lines.append(record.getMessage() + (f": {err}" if err is not None else ""))
