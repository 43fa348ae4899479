"""Metric-DP page: drawn from its declaration (dpviz/papers/metric/: the embedding's loading, its
upload box and the try-it box included)."""

from webui.paper_page import show

show("metric")
