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


class Steps:
    """Progress over ``n`` similar steps that follow a setup of unknown cost (loading an
    embedding before sampling its words). The fraction reported after step k is the share of the
    expected total time already spent, elapsed / (elapsed + (n - k) x the mean step time since the
    setup), never lower than the last; reporting k / n instead made a slow setup look like slow
    steps, and the time left a multiple of the truth.

    >>> seen = []
    >>> steps = Steps(lambda f, m: seen.append(round(f, 3)), 4, clock=iter([0.0, 6.0, 7.0, 8.0, 9.0, 10.0]).__next__)
    >>> steps.setup_done()
    >>> for k in range(1, 5):
    ...     steps.step(k, "word")
    >>> seen
    [0.7, 0.8, 0.9, 1.0]
    """

    def __init__(self, progress: Progress | None, n: int, clock: Callable[[], float] = time.perf_counter):
        self.progress, self.n, self.clock = progress, max(1, int(n)), clock
        self.start = clock()
        self.steps_from = self.start
        self.last = 0.0

    def setup_done(self) -> None:
        """The setup is over: step times are measured from now."""
        self.steps_from = self.clock()

    def step(self, k: int, message: str) -> None:
        """Step ``k`` (1 to n) is done."""
        if self.progress is None:
            return
        now = self.clock()
        elapsed, per_step = now - self.start, (now - self.steps_from) / max(1, k)
        left = (self.n - min(k, self.n)) * per_step
        fraction = elapsed / (elapsed + left) if elapsed + left > 0 else k / self.n
        self.last = max(self.last, min(fraction, 1.0))
        self.progress(self.last, message)


class Printer:
    """A one-line progress bar on a text stream, redrawn in place when the percentage or the
    message changes, with the time left estimated from the rate since the bar began to move (once
    a second has passed: sooner it is noise); a newline at 100 % (or on :meth:`close`). The rate
    is measured from the last report at 0 %: a setup that reports nothing done for a while (the
    build's first 45 s once did) made the first estimates over an hour for a build of 73 s.

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
        self.start = clock()  # moved to each report at 0 %: the rate is counted from the last
        self.last: tuple[int, str] | None = None
        self.open = False

    def __call__(self, fraction: float, message: str) -> None:
        """Report ``fraction`` (clipped to [0, 1]) done, with ``message``."""
        fraction = min(max(float(fraction), 0.0), 1.0)
        now = self.clock()
        if fraction == 0.0:
            self.start = now
        pct = int(100 * fraction)
        if (pct, message) == self.last:
            return
        self.last = (pct, message)
        elapsed = now - self.start
        left = f" (~{elapsed * (1 - fraction) / fraction:,.0f} s left)" if 0 < fraction < 1 and elapsed >= 1 else ""
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
