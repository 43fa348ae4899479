"""``python -m dpviz``: the command line (:mod:`dpviz.cli`).

Once the command has returned (its files written, its clusters, pools and browsers closed by
the command itself) the process ends at once, its output flushed, without the interpreter's
teardown: native libraries' threads torn down at exit aborted a finished ``dpviz lesson check``
(``terminate called without an active exception``, exit status -6 after "no problems") about one
run in ten on a loaded machine."""

import logging
import os
import sys

from dpviz.cli import main

code = main()
logging.shutdown()
for stream in (sys.stdout, sys.stderr):
    try:
        stream.flush()
    except OSError:  # a reader that left early (dpviz figure --list | head)
        pass
os._exit(code if isinstance(code, int) else 1)
