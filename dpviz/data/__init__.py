"""Embeddings and corpora: loading, caching, validation."""
