"""Audit a mechanism: drawn from its declaration (dpviz/tools/audit/)."""

from webui.tool_page import show

show("audit")
