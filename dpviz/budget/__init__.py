"""A privacy budget over many releases: one release of a mechanism and its closed forms
(:mod:`dpviz.budget.releases`), and the accountants that compose k of them
(:mod:`dpviz.budget.accountants`)."""
