"""Partial-sensitivity page: drawn from its declaration (dpviz/papers/partial/), the typed query's
formulas above its charts included."""

from webui.page_entry import show_paper

show_paper("partial")
