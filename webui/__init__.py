"""Streamlit wiring for dpviz's pages (the only layer besides app.py and pages/ that imports streamlit)."""
