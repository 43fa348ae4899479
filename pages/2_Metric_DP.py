"""Metric-DP page: drawn from its declaration (dpviz/papers/metric/: the embedding's loading, its
upload box and the try-it box included)."""

from webui.page_entry import show_paper

show_paper("metric")
