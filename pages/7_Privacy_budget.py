"""Privacy budget page: drawn from its declaration (dpviz/papers/budget/)."""

from webui.page_entry import show_paper

show_paper("budget")
