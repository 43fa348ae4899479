"""Privacy budget page: drawn from its declaration (dpviz/papers/budget/)."""

from webui.paper_page import show

show("budget")
