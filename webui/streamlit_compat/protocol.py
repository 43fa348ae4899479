"""Streamlit's browser protocol (its protobuf messages), for dpviz's own session client
(:mod:`webui.session_client`: the hosted warm-up, the load benchmarks) that talks to a server as a
browser does. The message classes are Streamlit's private modules."""

from __future__ import annotations

from webui.streamlit_compat.guard import target


def message(name: str):
    """Streamlit's protobuf message class ``name`` (``BackMsg``, ``ForwardMsg``, ``ClientState``);
    a RuntimeError that says so where this Streamlit has no such message."""
    found = target(f"streamlit.proto.{name}_pb2", name)
    if found is None:
        raise RuntimeError(f"this Streamlit has no {name} message: dpviz's session client cannot talk to it")
    return found
