"""HoHo page: drawn from its declaration (dpviz/papers/hoho/), its upload box for sentences included."""

from webui.paper_page import show

show("hoho")
