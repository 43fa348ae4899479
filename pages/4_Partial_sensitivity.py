"""Partial-sensitivity page: drawn from its declaration (dpviz/papers/partial/), the typed query's
formulas above its charts included."""

from webui.paper_page import show

show("partial")
