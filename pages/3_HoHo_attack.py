"""HoHo page: drawn from its declaration (dpviz/papers/hoho/), its upload box for sentences included."""

from webui.page_entry import show_paper

show_paper("hoho")
