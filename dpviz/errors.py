"""The one error type for input dpviz cannot use.

:class:`InputError` is a value someone gave (a parameter, a file, a formula, a corpus, a sweep
directory, an argument of a math function) that dpviz refuses; its message is one sentence that
names what was wrong and what is allowed. The command line prints it and exits with status 2, the
pages show it beside the chart, a notebook gets it raised. Every other exception is a bug and
keeps its traceback. The specific errors (``ParamError``, ``EmbeddingError``, ``CorpusError``,
``FormulaError``, ``ExportError``, ...) are subclasses, so catching ``InputError`` catches them all.
It subclasses ``ValueError`` so that code catching a bad value keeps working.
"""


class InputError(ValueError):
    """A value dpviz cannot use; the message says what was wrong and what is allowed."""
