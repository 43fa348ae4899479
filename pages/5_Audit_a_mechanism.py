"""Audit a mechanism: drawn from its declaration (dpviz/tools/audit/)."""

from webui.page_entry import show_tool

show_tool("audit")
