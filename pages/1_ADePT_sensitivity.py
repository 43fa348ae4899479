"""ADePT sensitivity page: drawn from its declaration (dpviz/papers/adept/)."""

from webui.paper_page import show

show("adept")
