"""Lessons: drawn from its declaration (dpviz/tools/lessons/)."""

from webui.page_entry import show_tool

show_tool("lessons")
