"""The lesson file format, read line by line (no code, no HTML; see docs/lessons.md).

A header of ``key: value`` lines (``title``, ``paper``, ``minutes``, ``summary``), then steps,
each starting with a ``## Step title`` line. In a step, lines are prose (Markdown: **bold**,
*italic*, `code`, [links](https://...)) except these directives, each on one line::

    chart: FIGURE key=value ...        a chart at these settings (the URL's and --set's values)
    live: NAME ...                     the chart's live sliders the student may move
    compare: key=value ... | key=value ...   the chart twice, side by side: A | B (rest shared)
    question: TEXT                     a question asked before the reveal
    answer: FIGURE key=value ... -> COLUMN [where COND ...] [pick only|min|max|first|last|mean|sum]
                                       [pick min|max by COLUMN2]: COLUMN on the row where COLUMN2 is least/most
    choices: A | B | C                 a choice question (else a number)
    scale: NUMBER                      the cell times this (e.g. 100 for a percentage)
    unit: TEXT                         shown after numbers
    range: LOW HIGH                    the prediction box's bounds
    digits: N                          decimals shown
    reveal:                            what follows is shown with the answer: prose, and chart:
                                       (live:, compare:) lines the student sees only after predicting

A condition ``COND`` is ``column OP value`` with OP one of = != < <= > >= (``dim=64``,
``n_w>=900``, ``word=the``). Values with spaces are quoted as in a shell (``expr="a*b + 1"``).
:func:`parse` checks everything that can be checked without computing (figures, settings against
their ranges and, on a hosted demo, the hosted caps; live sliders; columns; sizes; no HTML) and
raises :class:`dpviz.lessons.LessonError` with one sentence per problem.
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from dpviz import hosted_mode, papers, registry
from dpviz.errors import InputError
from dpviz.lessons import LessonError, path_of
from dpviz.params import validate

MAX_BYTES = 100_000
"""The largest lesson file read (a lesson of ten steps is a few kilobytes)."""
MAX_LINE = 2_000
MAX_STEPS = 30
MAX_CHARTS = 4
HEADER_KEYS = ("title", "paper", "minutes", "summary")
DIRECTIVES = ("chart", "live", "compare", "question", "answer", "choices", "scale", "unit", "range", "digits")
OPS = ("<=", ">=", "!=", "=", "<", ">")
PICKS = ("only", "min", "max", "first", "last", "mean", "sum")
_HTML = re.compile(r"<\s*[A-Za-z!/?]|&#|javascript:|vbscript:|data:", re.IGNORECASE)
_IMAGE = re.compile(r"!\[")
_LINK_TARGET = re.compile(r"\]\(([^)]*)\)")


@dataclass(frozen=True)
class ChartRef:
    """A chart in a step: a figure at settings (canonical strings), the live sliders the student
    may move, and optionally two settings drawn side by side."""

    figure: str
    settings: Mapping[str, str]
    live: tuple[str, ...] = ()
    compare: tuple[Mapping[str, str], Mapping[str, str]] | None = None


@dataclass(frozen=True)
class Cell:
    """The cell of a figure's table that answers a question."""

    figure: str
    settings: Mapping[str, str]
    column: str
    where: tuple[tuple[str, str, str], ...] = ()
    pick: str = "only"
    by: str = ""

    def describe(self) -> str:
        """The cell in words (for ``lesson answers`` and the reveal)."""
        conds = " and ".join(f"{c} {op} {v}" for c, op, v in self.where)
        return (
            f"{self.column} of {self.figure}"
            + (f" where {conds}" if conds else "")
            + (
                f" (on the row with the {'lowest' if self.pick == 'min' else 'highest'} {self.by})"
                if self.by
                else (f" ({self.pick} of the rows)" if self.pick != "only" else "")
            )
        )


@dataclass(frozen=True)
class Question:
    """A question: its text, the cell that answers it, and how a prediction is taken and shown."""

    ask: str
    cell: Cell
    choices: tuple[str, ...] = ()
    scale: float = 1.0
    unit: str = ""
    low: float | None = None
    high: float | None = None
    digits: int = 2

    @property
    def kind(self) -> str:
        """``choice`` when the question lists choices, else ``number``."""
        return "choice" if self.choices else "number"


@dataclass(frozen=True)
class Step:
    """One step: title, prose, charts, an optional question, and the explanation revealed with its answer."""

    title: str
    text: str
    charts: tuple[ChartRef, ...] = ()
    question: Question | None = None
    reveal: str = ""
    reveal_charts: tuple[ChartRef, ...] = ()
    """Charts shown with the answer (written after ``reveal:``): the student predicts before seeing them."""


@dataclass(frozen=True)
class Lesson:
    """A parsed lesson: its header and its steps."""

    name: str
    title: str
    paper: str
    summary: str
    minutes: int
    steps: tuple[Step, ...] = field(default_factory=tuple)

    @property
    def questions(self) -> list[tuple[int, Question]]:
        """(step number from 1, question) for every step that asks one."""
        return [(k + 1, s.question) for k, s in enumerate(self.steps) if s.question is not None]

    def chart_settings(self) -> list[tuple[str, dict[str, str]]]:
        """Every chart the lesson draws, before and after its reveals, each side of a comparison
        apart: (figure, settings as written; a side's own settings over the chart's shared ones)."""
        out = []
        for step in self.steps:
            for chart in (*step.charts, *step.reveal_charts):
                sides = chart.compare or ({},)
                out += [(chart.figure, {**chart.settings, **side}) for side in sides]
        return out


def read_text(path: str | Path) -> str:
    """A lesson file's text; LessonError when it is too large or not UTF-8 text (read no further)."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as err:
        raise LessonError([f"Cannot read the lesson {str(path)[-60:]!r}: {err.strerror or err}."]) from None
    if len(data) > MAX_BYTES:
        raise LessonError([f"The lesson file is larger than {MAX_BYTES // 1000} kB; a lesson is a few kB of text."])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise LessonError(["The lesson file is not UTF-8 text."]) from None


class _Reader:
    """Collects problems while parsing, each as a sentence that names its line."""

    def __init__(self, hosted: bool):
        self.problems: list[str] = []
        self.hosted = hosted

    def problem(self, line: int, text: str) -> None:
        self.problems.append(f"Line {line}: {text}")

    def words(self, line: int, text: str) -> list[str] | None:
        try:
            return shlex.split(text, comments=False, posix=True)
        except ValueError as err:
            self.problem(line, f"cannot read {text[:60]!r} ({err}).")
            return None

    def settings(self, line: int, figure: str, words: list[str]) -> dict[str, str] | None:
        """``key=value`` words validated against the figure's parameters (hosted caps on a hosted demo)."""
        try:
            spec = registry.get(figure)
        except InputError as err:
            self.problem(line, str(err))
            return None
        raw: dict[str, str] = {}
        for w in words:
            key, sep, value = w.partition("=")
            if not sep or not key:
                self.problem(line, f"{w[:40]!r} is not a setting of the form key=value.")
                return None
            raw[key] = value
        values, errors = validate(spec.params, raw, hosted=self.hosted)
        for err in errors:
            self.problem(line, f"{figure}: {err}")
        if errors:
            return None
        canonical = spec.canonical(values)
        return {k: canonical[k] for k in raw}

    def prose(self, line: int, text: str) -> None:
        if _HTML.search(text):
            self.problem(
                line, "HTML, scripts and data: or javascript: links are not allowed in a lesson; write Markdown."
            )
        elif _IMAGE.search(text):
            self.problem(line, "images are not allowed in a lesson (they would be fetched from elsewhere).")
        else:
            for target in _LINK_TARGET.findall(text):
                if target and not re.fullmatch(r"https?://\S+", target):
                    self.problem(line, f"a link must be an http(s) address, not {target[:40]!r}.")


def _chart(r: _Reader, line: int, rest: str) -> ChartRef | None:
    words = r.words(line, rest)
    if not words:
        if words is not None:
            r.problem(line, "chart: names a figure (python -m dpviz figure --list), then its settings.")
        return None
    settings = r.settings(line, words[0], words[1:])
    return None if settings is None else ChartRef(registry.get(words[0]).id, settings)


def _cell(r: _Reader, line: int, rest: str) -> Cell | None:
    source, arrow, target = rest.partition("->")
    words, picked = r.words(line, source), r.words(line, target)
    if not arrow or not words or not picked:
        if words is not None and picked is not None:
            r.problem(line, "answer: is FIGURE key=value ... -> COLUMN [where COND ...] [pick ...].")
        return None
    settings = r.settings(line, words[0], words[1:])
    if settings is None:
        return None
    spec = registry.get(words[0])
    column, rest_words = picked[0], picked[1:]
    pick, by = "only", ""
    if len(rest_words) >= 4 and rest_words[-4] == "pick" and rest_words[-2] == "by":
        pick, by = rest_words[-3], rest_words[-1]
        rest_words = rest_words[:-4]
        if pick not in ("min", "max"):
            r.problem(line, f"pick {pick[:20]!r} by a column takes min or max.")
            return None
    elif len(rest_words) >= 2 and rest_words[-2] == "pick":
        pick = rest_words[-1]
        rest_words = rest_words[:-2]
        if pick not in PICKS:
            r.problem(line, f"pick {pick[:20]!r} is not one of {', '.join(PICKS)}.")
            return None
    if rest_words and rest_words[0] != "where":
        r.problem(line, f"after the column comes 'where' or 'pick', not {rest_words[0][:20]!r}.")
        return None
    where = []
    for cond in rest_words[1:]:
        m = re.fullmatch(r"([A-Za-z_][\w]*)\s*(<=|>=|!=|=|<|>)\s*(.+)", cond)
        if not m:
            r.problem(line, f"the condition {cond[:40]!r} is not column OP value (OP: {' '.join(OPS)}).")
            return None
        where.append(m.groups())
    unknown = [c for c in [column] + [w[0] for w in where] + ([by] if by else []) if c not in spec.columns]
    if unknown:
        r.problem(
            line,
            f"the table of {spec.id} has no column {unknown[0][:40]!r}; its columns are {', '.join(spec.columns)}.",
        )
        return None
    return Cell(spec.id, settings, column, tuple(where), pick, by)


def _number(r: _Reader, line: int, key: str, text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        r.problem(line, f"{key}: takes a number, not {text[:30]!r}.")
        return None
    return value


def _question(r: _Reader, start: int, fields: dict[str, tuple[int, str]]) -> Question | None:
    ask_line, ask = fields["question"]
    if "answer" not in fields:
        r.problem(ask_line, "a question needs an answer: line naming the figure cell that answers it.")
        return None
    cell = _cell(r, *fields["answer"])
    if cell is None:
        return None
    kw: dict = {}
    before = len(r.problems)
    if "choices" in fields:
        line, text = fields["choices"]
        choices = tuple(c.strip() for c in text.split("|") if c.strip())
        if len(choices) < 2 or len(choices) > 8 or len(set(choices)) != len(choices):
            r.problem(line, "choices: lists 2 to 8 different choices separated by |.")
        kw["choices"] = choices
    if "scale" in fields:
        line, text = fields["scale"]
        kw["scale"] = _number(r, line, "scale", text)
    if "unit" in fields:
        kw["unit"] = fields["unit"][1].strip()[:20]
    if "range" in fields:
        line, text = fields["range"]
        parts = text.split()
        nums = [_number(r, line, "range", p) for p in parts]
        if len(nums) != 2:
            r.problem(line, "range: takes two numbers, low then high.")
        elif None not in nums and nums[0] >= nums[1]:
            r.problem(line, "range: low must be below high.")
        else:
            kw["low"], kw["high"] = nums
    if "digits" in fields:
        line, text = fields["digits"]
        if not text.strip().isdigit() or int(text) > 6:
            r.problem(line, "digits: takes a whole number from 0 to 6.")
        else:
            kw["digits"] = int(text)
    if len(r.problems) > before:
        return None
    return Question(ask.strip(), cell, **kw)


def parse(text: str, name: str = "lesson", hosted: bool | None = None) -> Lesson:
    """The lesson in ``text``; LessonError with one sentence per problem. Nothing is computed."""
    r = _Reader(hosted_mode() if hosted is None else hosted)
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise LessonError([f"The lesson is larger than {MAX_BYTES // 1000} kB; a lesson is a few kB of text."])
    lines = text.splitlines()
    header: dict[str, str] = {}
    steps: list[dict] = []
    for n, raw in enumerate(lines, start=1):
        if len(raw) > MAX_LINE:
            r.problem(n, f"the line is longer than {MAX_LINE} characters.")
            continue
        line = raw.rstrip()
        if line.startswith("## "):
            steps.append(
                {
                    "title": (n, line[3:].strip()),
                    "text": [],
                    "charts": [],
                    "reveal_charts": [],
                    "fields": {},
                    "reveal": None,
                }
            )
            continue
        if not steps:
            m = re.fullmatch(r"([a-z]+):\s*(.*)", line)
            if m and m.group(1) in HEADER_KEYS:
                header[m.group(1)] = m.group(2).strip()
                r.prose(n, m.group(2))
            elif line.strip():
                r.problem(n, f"before the first step (a line '## Title') only {', '.join(HEADER_KEYS)}: lines go.")
            continue
        step = steps[-1]
        revealed = step["reveal"] is not None
        charts = step["reveal_charts"] if revealed else step["charts"]
        m = re.fullmatch(r"([a-z]+):\s*(.*)", line)
        if m and m.group(1) == "reveal" and not m.group(2) and not revealed:
            step["reveal"] = []
        elif m and m.group(1) in DIRECTIVES:
            key, rest = m.groups()
            if key == "chart":
                chart = _chart(r, n, rest)
                charts.append((n, chart))
            elif key in ("live", "compare"):
                if not charts or charts[-1][1] is None:
                    if not charts:
                        r.problem(n, f"{key}: belongs to a chart: line above it.")
                    continue
                line_no, chart = charts[-1]
                charts[-1] = (line_no, _with(r, n, key, rest, chart))
            elif revealed:
                r.problem(n, f"after reveal: come the explanation and its charts; {key}: belongs above it.")
            elif key in step["fields"]:
                r.problem(n, f"the step has two {key}: lines.")
            else:
                step["fields"][key] = (n, rest)
        else:
            r.prose(n, line)
            (step["reveal"] if revealed else step["text"]).append(line)
    for key in ("title", "paper"):
        if not header.get(key):
            r.problem(1, f"the lesson needs a '{key}:' line at the top.")

    if header.get("paper") and header["paper"] not in {p.key for p in papers.all_papers()}:
        r.problem(1, f"paper: {header['paper'][:30]!r} is not one of {', '.join(p.key for p in papers.all_papers())}.")
    minutes = header.get("minutes", "20")
    if not minutes.isdigit() or not 1 <= int(minutes) <= 180:
        r.problem(1, "minutes: takes a whole number of minutes from 1 to 180.")
        minutes = "20"
    if not steps:
        r.problem(len(lines) or 1, "the lesson has no steps: each starts with a line '## Title'.")
    if len(steps) > MAX_STEPS:
        r.problem(steps[MAX_STEPS]["title"][0], f"a lesson has at most {MAX_STEPS} steps.")
    built = []
    for step in steps[:MAX_STEPS]:
        line, title = step["title"]
        both = step["charts"] + step["reveal_charts"]
        if len(both) > MAX_CHARTS:
            r.problem(both[MAX_CHARTS][0], f"a step shows at most {MAX_CHARTS} charts.")
        fields = step["fields"]
        question = None
        if "question" in fields:
            question = _question(r, line, fields)
        else:
            for key in fields:
                r.problem(fields[key][0], f"{key}: belongs to a question: the step has no question: line.")
        if question is not None and question.choices:
            pass  # whether the true answer is among the choices needs the table: dpviz.lessons.answers checks it
        text = "\n".join(step["text"]).strip()
        if not title:
            r.problem(line, "a step needs a title after '## '.")
        built.append(
            Step(
                title=title,
                text=text,
                charts=tuple(c for _, c in step["charts"][:MAX_CHARTS] if c is not None),
                reveal_charts=tuple(c for _, c in step["reveal_charts"][:MAX_CHARTS] if c is not None),
                question=question,
                reveal="\n".join(step["reveal"] or []).strip(),
            )
        )
    if r.problems:
        raise LessonError(r.problems)
    return Lesson(
        name=name,
        title=header["title"],
        paper=header["paper"],
        summary=header.get("summary", ""),
        minutes=int(minutes),
        steps=tuple(built),
    )


def _with(r: _Reader, line: int, key: str, rest: str, chart: ChartRef) -> ChartRef | None:
    """The chart with its live sliders or its side-by-side settings added."""
    spec = registry.get(chart.figure)
    if key == "live":
        names = tuple(rest.split())
        wrong = [n for n in names if n not in spec.live]
        if wrong or not names:
            live = ", ".join(spec.live) or "none"
            r.problem(line, f"live: names the chart's live sliders; those of {spec.id} are {live}.")
            return chart
        return ChartRef(chart.figure, chart.settings, names, chart.compare)
    sides = rest.split("|")
    if len(sides) != 2:
        r.problem(line, "compare: gives two settings separated by |, e.g. compare: epsilon=1 | epsilon=10.")
        return chart
    both = []
    for side in sides:
        words = r.words(line, side)
        if not words:
            if words is not None:
                r.problem(line, "compare: each side sets at least one parameter.")
            return chart
        settings = r.settings(line, chart.figure, [f"{k}={v}" for k, v in chart.settings.items()] + words)
        if settings is None:
            return chart
        both.append(settings)
    return ChartRef(chart.figure, chart.settings, chart.live, (both[0], both[1]))


def load(name: str) -> Lesson:
    """The lesson called ``name`` from the lesson folders (never a path a visitor gives)."""

    return parse(read_text(path_of(name)), name)


def load_file(path: str | Path) -> Lesson:
    """A lesson from a file path (the command line's ``lesson check FILE``)."""
    return parse(read_text(path), Path(path).stem)
