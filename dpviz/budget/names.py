"""The names the privacy-budget page shows, kept apart from the math so that listing the figures
(``python -m dpviz figure --list``) loads neither SciPy nor dp-accounting."""

KINDS = ("gaussian", "laplace", "rr", "subsampled")
"""The releases dpviz composes (:class:`dpviz.budget.releases.Release`)."""
LABELS = {
    "gaussian": "Gaussian",
    "laplace": "Laplace",
    "rr": "Randomized response",
    "subsampled": "Subsampled Gaussian (DP-SGD)",
}
ACCOUNTANTS = ("basic", "advanced", "rdp", "zcdp", "pld")
"""The accountants side by side (:mod:`dpviz.budget.accountants`), loosest first."""
ACCOUNTANT_LABELS = {
    "basic": "Basic composition (kε)",
    "advanced": "Advanced, optimal (Kairouz et al.)",
    "rdp": "Rényi DP",
    "zcdp": "zCDP",
    "pld": "Privacy-loss distribution",
}
