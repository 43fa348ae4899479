"""Helpers for the processes dpviz starts (frame workers, server processes under supervision)."""

from __future__ import annotations

import functools

PR_SET_PDEATHSIG = 1
"""``prctl(2)``'s option: the signal a process gets when its parent ends."""


def die_with_parent(signum: int | None = None) -> bool:
    """Ask Linux to send this process ``signum`` (SIGTERM) when its parent ends (``prctl(2)``'s
    ``PR_SET_PDEATHSIG``; kept across ``exec``, so a child's ``preexec_fn`` may call it). False
    where there is no such call (not Linux), and the process then just outlives its parent."""
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signum or signal.SIGTERM), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def one_thread_everywhere() -> None:
    """One BLAS/OpenMP thread in every numeric library this process has loaded and will load: a
    pool worker's setting (N workers on N cores). threadpoolctl limits the libraries already loaded;
    the environment variables those loaded later (SciPy's own OpenBLAS: with ``threadpool_limits``
    alone, each of two frame workers ran 2 threads on the 2-core machine)."""
    import os

    from threadpoolctl import threadpool_limits

    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    threadpool_limits(1)


@functools.lru_cache(maxsize=1)
def _numpy_blas():
    import numpy  # noqa: F401  (its BLAS loaded before the controller looks for libraries)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(user_api="blas")


def one_numpy_blas_thread():
    """A context in which numpy's BLAS runs one thread, for code that multiplies with numpy alone
    (the HoHo page's exact attack): the libraries found once per process, not at every call as
    ``threadpool_limits`` looks for them (1.7 ms a call, 6% of the HoHo frontier's frames)."""
    return _numpy_blas().limit(limits=1)
