"""The partial-sensitivity page's query parameters: the per-individual query, the attributes'
ranges and how many individuals are averaged (declared once; the figures, the formulas panel and
the analysis read them)."""

from dpviz.params import Param

EXPR = Param(
    "expr",
    "text",
    "a**2 + exp(2*b - a)",
    "Query per individual f",
    "The per-individual query, e.g. a**2 + exp(2*b - a). Allowed: numbers, the attributes, + - * / ** ^, exp log sqrt "
    "sin cos tan sinh cosh tanh abs sigmoid min max, pi, e.",
    max_items=300,
)
RANGES = Param(
    "ranges",
    "text",
    "a=1:2,b=0.5:3",
    "Attribute ranges",
    "Each attribute's allowed values, name=low:high, comma-separated (at most 6 attributes).",
    max_items=200,
)
INDIVIDUALS = Param(
    "individuals",
    "int",
    5,
    "Individuals averaged",
    "The query is the mean of f over this many individuals, so one individual's sensitivity is ||∇f|| / N.",
    min=1,
    max=1_000_000,
)
