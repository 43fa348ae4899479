"""Plotly's property paths, parsed once per path instead of once per use.

Every property a figure sets or reads by a path (``marker_color``, ``xaxis.title.text``,
``error_y``) is parsed by Plotly's ``plotly.basedatatypes._str_to_dict_path_full`` into its keys:
a split on ``.[]``, then on ``_`` (except in properties whose name has one), joined back, and
numbers made ints. The parse depends on the string alone, yet Plotly repeats it at every use
(and its helper ``chomp_empty_strings`` defines a class on every call): a third of the time of
drawing a live chart's frames (``benchmarks/bench_plotly_paths.py``). :func:`install` makes
Plotly remember each string's parse (a bounded cache of :data:`PATHS` strings), handing each
caller a fresh copy of the mutable part, so every figure is drawn exactly as before (the same
JSON; ``tests/core/test_plotly_paths.py`` also holds the parse to Plotly's own on every path
the figures use and on odd ones).

Guarded: where a Plotly release has no such function, nothing is changed.
"""

from __future__ import annotations

import functools
import logging

PATHS = 8192
"""Distinct path strings remembered (a figure module uses a few hundred)."""
log = logging.getLogger("dpviz.plotly_paths")


def remembering(parse):
    """``parse`` (Plotly's ``_str_to_dict_path_full``: a string -> (keys tuple, start-indices
    list)) with each string's answer remembered; anything but a string goes to ``parse`` as is."""
    known = functools.lru_cache(maxsize=PATHS)(parse)

    def parsed(key_path_str):
        if type(key_path_str) is str:
            keys, starts = known(key_path_str)
            return keys, list(starts)
        return parse(key_path_str)

    parsed.__wrapped__ = parse
    parsed.dpviz_memo = True
    parsed.cache_info = known.cache_info
    return parsed


def install(_module=None) -> bool:
    """Make Plotly remember its path parses (idempotent; ``_module``: a lazy module's on-load
    argument, unused). False where this Plotly has no such function."""
    try:
        from plotly import basedatatypes
    except ImportError:
        return False
    parse = getattr(basedatatypes, "_str_to_dict_path_full", None)
    if parse is None:
        log.info("this Plotly has no _str_to_dict_path_full: its paths are parsed at every use")
        return False
    if not getattr(parse, "dpviz_memo", False):
        basedatatypes._str_to_dict_path_full = remembering(parse)
    return True
