"""dpviz: privacy-utility trade-offs of differential privacy in NLP, as live figures."""

__version__ = "0.1.0"


def env_flag(name: str) -> bool | None:
    """An on/off environment variable: True for 1/true/yes/on, False for 0/false/no/off, else None."""
    import os

    value = os.environ.get(name, "").strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    return None


def hosted_mode() -> bool:
    """Hosted-demo mode (``DPVIZ_HOSTED=1``): compute-heavy parameters are capped and file paths refused."""
    return env_flag("DPVIZ_HOSTED") is True


def _raw(values: dict) -> dict:
    """Keyword arguments as the validator takes them (ranges, tuples and sets as lists)."""
    return {k: list(v) if isinstance(v, (range, tuple, set, frozenset)) else v for k, v in values.items()}


def figure(figure_id: str, *, progress: bool = False, **params):
    """A dpviz figure in a notebook: ``fig, table = dpviz.figure("adept-violations", dims="1-255")``.

    Takes a figure id (``dpviz.figure_ids()`` lists them; ``python -m dpviz figure --list`` shows
    each one's parameters, defaults and ranges) and its parameters as keyword arguments, in the
    form the command line takes (``dims="1-255"``, ``epsilons="1,2,5"``) or as Python values
    (``dims=range(1, 256)``, ``epsilons=[1, 2, 5]``, ``pairs=1000``). Parameters not given take
    their defaults. With ``progress=True`` a progress bar goes to stderr.

    Returns ``(fig, table)``: the Plotly figure (the page's chart) and the pandas table behind it
    (the CSV the page offers). Raises :class:`dpviz.errors.InputError` (a ``ValueError``) with the
    same sentence the page and the command line give, for an unknown id, an unknown parameter or
    a value out of range.
    """
    from dpviz import registry  # (lazy, as below: `import dpviz` loads 69 modules in 0.02 s, the registry 550 more)
    from dpviz.progress import printer

    _, table, fig = registry.run(figure_id, _raw(params), progress=printer(quiet=not progress))
    return fig, table


def figure_ids() -> list[str]:
    """Every figure id, paper by paper in page order."""
    from dpviz import registry  # (lazy: Plotly and the papers, 0.3 s, only when asked)

    return [spec.id for spec in registry.all_figures()]


def report(page: str, out, *, progress: bool = False, base_url: str = "http://localhost:8501", **settings):
    """A whole page at its settings as one report, in a notebook:
    ``dpviz.report("adept", "adept.html", epsilon=2)``.

    ``page`` is a paper's page (``adept``, ``metric``, ``hoho``, ``partial``); ``out`` a file whose
    suffix names the format: ``.html`` (self-contained, interactive charts), ``.pdf`` (print-ready,
    vector charts; needs Chromium) or ``.ipynb`` (a notebook that recomputes every chart). The
    settings are the page's parameters, as ``dpviz.figure`` takes them; the rest take their
    defaults. Returns the path written. Bad input raises :class:`dpviz.errors.InputError`.
    """
    from dpviz import page_report  # (lazy: Plotly, pandas and the papers, 0.35 s)
    from dpviz.progress import printer

    return page_report.write(page, _raw(settings), out, base_url=base_url, progress=printer(quiet=not progress))[1]


def audit(a, b, *, claimed: float, delta: float = 0.0, distance: float = 1.0, confidence: float = 0.95, seed: int = 0):
    """Audit a privacy claim from a mechanism's outputs in a notebook:
    ``r = dpviz.audit(outputs_on_D, outputs_on_D_prime, claimed=1.0)``.

    ``a`` and ``b`` are samples of M(D) and M(D') for two neighbouring inputs: file paths (.csv,
    .parquet, .npy, or .txt with one output per line), numeric arrays (one output per row) or
    lists of strings (categorical outputs). The claim is ε (``claimed``), δ (``delta``) and, for
    metric DP, the distance d(D, D') so that the claimed loss is ε·d. Returns an
    :class:`dpviz.auditing.AuditResult`: ``r.verdict`` (a sentence), ``r.epsilon_lower_bound``
    (the loss the samples prove with probability >= ``confidence``), ``r.violated``, ``r.event``,
    ``r.to_dict()`` (``result.json`` of ``python -m dpviz audit``). Bad input raises
    :class:`dpviz.errors.InputError` with a sentence.
    """
    from dpviz.auditing import audit_samples  # (lazy: SciPy, 0.7 s)

    return audit_samples(a, b, claimed=claimed, delta=delta, distance=distance, confidence=confidence, seed=seed)


def calibrate(page: str, *, settings: dict | None = None, solve: str | None = None, **targets):
    """The setting that reaches a target, for every mechanism on a page, in a notebook:
    ``dpviz.calibrate("hoho", auc_mean=0.6)`` or ``dpviz.calibrate("adept", cosine=0.5,
    settings={"dim": 128})``.

    A target is named by the column of the page's tables that it bounds: ADePT
    ``epsilon_actual``, ``rms_error_relative``, ``cosine``; HoHo ``auc_mean``,
    ``reconstruction_mean``; partial sensitivity ``rdp_epsilon``, ``sigma``; privacy budget
    ``epsilon``, ``tpr_at_1pct``, ``k``. ``solve`` names the setting solved for where a page has
    more than its slider: ``dpviz.calibrate("budget", epsilon=3, solve="sigma", settings={"k": 1000})``
    is the smallest noise multiplier whose ε after 1000 releases is at most 3. Other keyword
    arguments that are not targets are taken as the page's settings. Returns the table
    ``python -m dpviz calibrate PAGE --json`` prints (one row per mechanism and target;
    :mod:`dpviz.targets` says how each is solved). Bad input raises
    :class:`dpviz.errors.InputError`.
    """
    from dpviz import targets as _calibrate  # (lazy: the registry, 0.3 s)

    known = {m.column for m in _calibrate.PAGES[page].measures} if page in _calibrate.PAGES else set()
    if solve and page in _calibrate.PAGES and solve != _calibrate.PAGES[page].slider:
        known.discard(_calibrate.PAGES[page].slider)  # solving for another setting: the slider is a setting
    wanted = {k: v for k, v in targets.items() if k in known}
    rest = {k: v for k, v in targets.items() if k not in known}
    return _calibrate.calibrate_page(page, wanted, _raw({**rest, **(settings or {})}), solve)
