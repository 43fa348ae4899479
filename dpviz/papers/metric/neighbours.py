"""How far a word's nearest neighbours are (Feyisetan et al. 2020, Figure 2): the noise radius has
mean d/ε, so these distances set the ε scale at which an embedding starts to hide words."""

from __future__ import annotations

import numpy as np


def kth_neighbour_distances(vectors: np.ndarray, ids: np.ndarray, k_max: int) -> np.ndarray:
    """Exact Euclidean distances from the words ``ids`` to their 1st ... ``k_max``-th nearest
    other word (faiss brute force over every row of ``vectors``), shape (len(ids), min(k_max,
    V - 1)). The word itself is dropped by id, so a duplicate vector of it counts as a neighbour
    at distance 0. A float32 matrix (memory-mapped or not) is searched where it is, not copied
    into an index: the papers' 2M x 300 vectors would otherwise need 2.4 GB more."""
    import faiss

    base = np.ascontiguousarray(vectors, dtype=np.float32)  # no copy for a contiguous float32 (memory-mapped) matrix
    k = min(k_max + 1, len(base))
    d2, nn = faiss.knn(np.ascontiguousarray(base[ids]), base, k)
    d = np.sqrt(np.maximum(d2, 0))
    keep = nn != np.asarray(ids)[:, None]
    return np.array([row[m][: k - 1] for row, m in zip(d, keep)])
