"""ADePT sensitivity page: drawn from its declaration (dpviz/papers/adept/)."""

from webui.page_entry import show_paper

show_paper("adept")
