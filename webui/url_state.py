"""The page URL as the state of a page: every declared parameter is a query parameter.

The URL binding is done here rather than by Streamlit's own ``bind="query-params"``,
because that silently drops values it cannot read, while dpviz must say what was wrong
(the one validator of ``dpviz.params`` serves widgets, the URL and ``--set`` alike):

- whenever a widget's key is not in the session (first run of a deep link, or coming
  back to the page), its value is seeded from the URL if the URL value validates, and
  otherwise from the default, with a sentence saying why (:func:`seed_from_url`);
- after the widgets, the URL is rewritten to the canonical non-default values (the seed
  always), so a copied link reopens the same view, and unknown or bad keys disappear
  (:func:`sync_url`).
"""

from __future__ import annotations

from typing import Any, Sequence
from urllib.parse import urlencode

import streamlit as st

from dpviz import registry
from dpviz.page_report import DEFAULT_BASE_URL, url_path
from dpviz.params import Param, ParamError, canonical_query, check_hosted_cap, format_value, parse_value
from webui.widgets import widget_state


def _url_raw(name: str) -> Any:
    values = st.query_params.get_all(name)
    if not values:
        return None
    return values if len(values) > 1 else values[0]


def seed_from_url(params: Sequence[Param], state_key: str = "page") -> None:
    """Seed every widget key missing from the session from the URL (or the default), and show
    one warning per bad or unknown URL parameter. Call once per page, with all its params."""
    hosted = registry.hosted_mode()
    notes_key = f"_dpviz_url_notes_{state_key}"
    seeded_now = False
    for p in params:
        if p.name in st.session_state:
            continue
        seeded_now = True
        raw, value = _url_raw(p.name), p.default
        if raw is not None:
            try:
                value = parse_value(p, raw)
                check_hosted_cap(p, value, hosted)
            except ParamError as err:
                st.session_state.setdefault(notes_key, []).append(
                    f"Link parameter ignored: {err} Showing the default, {format_value(p, p.default)}."
                )
                value = p.default
        st.session_state[p.name] = widget_state(p, value)
    if seeded_now:
        names = {p.name for p in params}
        for key in st.query_params.keys():
            if key not in names:
                st.session_state.setdefault(notes_key, []).append(
                    f"Link parameter ignored: this page has no parameter {key[:40]!r}; "
                    f"its parameters are {', '.join(sorted(names))}."
                )
    for note in st.session_state.get(notes_key, []):
        st.warning(note, icon=":material/warning:")


def current_values(params: Sequence[Param], values: dict[str, Any]) -> dict[str, Any]:
    """``values``, completed by the widget values of the parameters it lacks (a live slider drawn
    elsewhere on the page): the page's settings as the visitor sees them."""
    values = dict(values)
    for p in params:
        if p.name not in values and p.name in st.session_state:
            try:
                values[p.name] = parse_value(p, st.session_state[p.name])
            except ParamError:
                pass
    return values


def sync_url(params: Sequence[Param], values: dict[str, Any]) -> None:
    """Rewrite the URL to the canonical non-default values of all the page's parameters; a
    parameter not in ``values`` (a live slider drawn elsewhere on the page) keeps its widget's value."""
    wanted = canonical_query(params, current_values(params, values))
    current = {k: st.query_params.get(k) for k in st.query_params.keys()}
    if current != wanted:
        st.query_params.from_dict(wanted)


def app_base(page_file: str) -> str:
    """The app's address as the visitor reached it (behind a proxy's path prefix too), without the
    page's own path: what a link to another page, or a report's link, is built on."""

    url = (st.context.url or DEFAULT_BASE_URL).split("?")[0].split("#")[0].rstrip("/")
    tail = "/" + url_path(page_file)
    return url[: -len(tail)] if url.endswith(tail) else url


def share_link(query: dict[str, str]) -> str:
    base = (st.context.url or "").split("?")[0]
    return f"{base}?{urlencode(query)}" if query else base
