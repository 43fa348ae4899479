"""``python -m dpviz``: the command line (:mod:`dpviz.cli`)."""

from dpviz.cli import main

raise SystemExit(main())
