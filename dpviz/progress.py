"""Progress reports, one type for the whole package: a ``Progress`` is any callable taking the
fraction done (0 to 1) and a short message. The pages pass a Streamlit progress bar; the command
line, ``dpviz figures`` and the sweep pass a :class:`Printer`."""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

Progress = Callable[[float, str], None]


def report(progress: Progress | None, fraction: float, message: str) -> None:
    """Tell ``progress`` (if any) how far the work is."""
    if progress is not None:
        progress(fraction, message)


class Printer:
    """A one-line progress bar on a text stream, redrawn in place when the percentage or the
    message changes, with the time left estimated from the rate so far; a newline at 100 %
    (or on :meth:`close`).

    >>> import io
    >>> out = io.StringIO()
    >>> show = Printer(out, clock=iter([0.0, 10.0, 20.0]).__next__)
    >>> show(0.5, "half")
    >>> out.getvalue().strip()
    '[##########          ]  50% half (~10 s left)'
    """

    def __init__(self, stream: TextIO | None = None, clock: Callable[[], float] = time.perf_counter):
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.start = clock()
        self.last: tuple[int, str] | None = None
        self.open = False

    def __call__(self, fraction: float, message: str) -> None:
        """Report ``fraction`` (clipped to [0, 1]) done, with ``message``."""
        fraction = min(max(float(fraction), 0.0), 1.0)
        pct = int(100 * fraction)
        if (pct, message) == self.last:
            return
        self.last = (pct, message)
        elapsed = self.clock() - self.start
        left = f" (~{elapsed * (1 - fraction) / fraction:,.0f} s left)" if 0 < fraction < 1 and elapsed > 0 else ""
        self.stream.write(f"\r[{'#' * (pct // 5):<20}] {pct:3d}% {message[:70]}{left}".ljust(110))
        self.open = True
        if pct >= 100:
            self.close()
        self.stream.flush()

    def close(self) -> None:
        """End the line (once)."""
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False


def printer(quiet: bool = False, stream: TextIO | None = None) -> Printer | None:
    """The command line's progress: a :class:`Printer` on stderr, or None when ``quiet``."""
    return None if quiet else Printer(stream)
