"""Lessons: drawn from its declaration (dpviz/tools/lessons/)."""

from webui.tool_page import show

show("lessons")
