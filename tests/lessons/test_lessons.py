"""Lessons: the five shipped lessons pass `lesson check`; every answer equals the cell read
directly from the figure's table (pandas, written out here); hostile lesson files get one sentence
per problem and nothing is computed for them; a teacher's folder adds lessons."""

import pytest
from cli_support import cli

from dpviz import lessons, registry
from dpviz.lessons import LessonError
from dpviz.lessons.answers import answers, cell_value, close_enough
from dpviz.lessons.format import MAX_BYTES, Cell, load, parse

SHIPPED = ("adept", "budget", "hoho", "metric-dp", "partial")


def _table(figure, **settings):
    return registry.run(figure, {k: str(v) for k, v in settings.items()}, draw=False)[1]


EPS = "1,2,3,4,5,6,8,10,12,15,20,25,30,40"
# (lesson, step) -> the answer, read from the figure's table with plain pandas
DIRECT = {
    ("budget", 2): lambda: (
        _table("budget-composition", mechanism="gaussian", sigma=3.73, k=10, delta=1e-05)
        .query("accountant == 'pld' and here")
        .epsilon.item()
    ),
    ("budget", 3): lambda: (
        _table("budget-composition", mechanism="gaussian", sigma=3.73, k=100, delta=1e-05)
        .query("accountant == 'pld' and here")
        .epsilon.item()
    ),
    ("budget", 4): lambda: (
        100
        * _table("budget-attacker", mechanism="gaussian", sigma=3.73, k=10)
        .query("curve == 'composed' and fpr == 0.01")
        .tpr.item()
    ),
    ("budget", 5): lambda: (
        _table("budget-composition", mechanism="subsampled", q=0.004, sigma=1.1, k=1000, delta=1e-05)
        .query("accountant == 'pld' and here")
        .epsilon.item()
    ),
    ("adept", 2): lambda: _table("adept-epsilon", dim=64, epsilon=1).query("dim == 64").epsilon_actual.item(),
    ("adept", 3): lambda: (
        100
        * _table("adept-violations", dims=64, pairs=2000, distributions="uniform")
        .query("dim == 64 and distribution == 'uniform'")
        .violation_rate.item()
    ),
    ("adept", 4): lambda: (lambda t: t[(t.distribution == "normal_tight") & (t.violation_rate > 0.5)].dim.min())(
        _table("adept-violations", dims="1-255", pairs=2000, distributions="normal_tight")
    ),
    ("adept", 5): lambda: (
        100 * _table("adept-privacy-loss", dim=64, epsilon=1, samples=100000).query("above_claim").probability.sum()
    ),
    ("adept", 6): lambda: (lambda t: t.loc[t[t.epsilon == 10].cosine.idxmax()].mechanism)(
        _table("adept-fixes", dim=64, epsilon=10, draws=500)
    ),
    ("metric-dp", 2): lambda: (
        _table("metric-stats", word_list="the", samples=1000, epsilons=EPS)
        .query("word == 'the' and epsilon == 10")
        .n_w.item()
    ),
    ("metric-dp", 3): lambda: (
        _table("metric-stats", word_list="the", samples=1000, epsilons=EPS)
        .query("word == 'the' and n_w >= 900")
        .epsilon.min()
    ),
    ("metric-dp", 4): lambda: (
        _table("metric-stats", embedding="fasttext-local", word_list="the", samples=1000, epsilons=EPS)
        .query("word == 'the' and n_w >= 900")
        .epsilon.min()
    ),
    ("metric-dp", 5): lambda: (
        _table("metric-calibrate", words=10, samples=1000, target_stat="n_w", target_op="at_most", target=500)
        .query("embedding == 'glove-6b-50d'")
        .epsilon_at_target.iloc[0]
    ),
    ("hoho", 2): lambda: (
        _table("hoho-linking", epsilons="0.001,0.01,0.1,1,10", lambdas="1,10,100", mechanisms="ome")
        .query("mechanism == 'ome' and `lambda` == 10 and epsilon == 0.001")
        .auc_mean.item()
    ),
    ("hoho", 3): lambda: (
        _table("hoho-reconstruction", epsilons="0.001,0.01,0.1,1,10", lambdas="1,10,100", mechanisms="ome")
        .query("mechanism == 'ome' and `lambda` == 10 and epsilon == 0.001")
        .accuracy_mean.item()
    ),
    ("hoho", 4): lambda: (lambda t: t[abs(t["lambda"] - 10) < 1e-9].epsilon_exact.item())(
        _table("hoho-bounds", epsilon=1, lambda_=10)
    ),
    ("hoho", 6): lambda: (
        _table("hoho-audit", audit_samples=20000)
        .query("epsilon_claimed == 1 and `lambda` == 10")
        .epsilon_lower_bound.item()
    ),
}
PEOPLE = dict(expr="a**2 + exp(2*b - a)", ranges="a=1:2,b=0.5:3", individuals=5)
DIRECT.update(
    {
        ("partial", 2): lambda: _table("partial-query", **PEOPLE).global_sensitivity.iloc[0],
        ("partial", 3): lambda: (
            _table("partial-individuals", people="1,3; 1.5,0.5; 2,2", **PEOPLE)
            .query("individual == 1")
            .most_sensitive_attribute.iloc[0]
        ),
        ("partial", 4): lambda: (
            _table("partial-individuals", people="1,3; 1.5,0.5; 2,2", **PEOPLE)
            .query("individual == 2")
            .most_sensitive_attribute.iloc[0]
        ),
        ("partial", 5): lambda: (
            _table("partial-dpsgd", per_class=300, sgd_steps=300, dpsgd_steps=600, eval_per_class=200)
            .query("optimizer == 'SGD'")
            .max_partial_sensitivity.max()
        ),
    }
)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_lessons_pass_lesson_check(name):
    done = cli("lesson", "check", f"dpviz/lessons/shipped/{name}.md")
    assert done.returncode == 0, done.stderr
    lesson = load(name)
    assert 6 <= len(lesson.steps) <= 10 and len(lesson.questions) >= 3


@pytest.mark.parametrize("name", SHIPPED)
def test_answers_equal_the_tables_read_directly(name):
    lesson = load(name)
    got = {(name, step): a for step, _, a in answers(lesson)}
    assert set(got) == {k for k in DIRECT if k[0] == name}
    for key, answer in got.items():
        want = DIRECT[key]()
        if isinstance(want, str):
            assert answer.value == want, key
        else:
            assert answer.value == pytest.approx(float(want), rel=1e-12), key


def test_lesson_answers_prints_every_answer_with_its_step():
    done = cli("lesson", "answers", "adept")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["step 2", "step 3", "step 4", "step 5", "step 6"]
    assert lines[0].endswith("-> 8.0")


def test_a_changed_setting_changes_the_answer():
    text = (lessons.SHIPPED / "adept.md").read_text()
    lesson = parse(
        text.replace(
            "adept-epsilon dim=64 epsilon=1 -> epsilon_actual where dim=64",
            "adept-epsilon dim=16 epsilon=2 -> epsilon_actual where dim=16",
        ),
        "adept",
    )
    (step, _, first), *_ = answers(lesson)
    assert step == 2 and first.value == pytest.approx(2 * 4)


def test_list_and_a_teachers_folder(tmp_path, monkeypatch):
    mine = tmp_path / "my-class.md"
    mine.write_text(
        "title: My lesson\npaper: adept\n\n## One\nText.\n\nchart: adept-sensitivity dim=9\n\n"
        "question: The true L1 sensitivity at n = 9 (C = 10)?\n"
        "answer: adept-sensitivity dim=9 -> sensitivity_l1 where dim=9\n"
    )
    monkeypatch.setenv("DPVIZ_LESSONS_DIR", str(tmp_path))
    assert list(lessons.available()) == [*sorted(SHIPPED), "my-class"]
    done = cli("lesson", "--list", env={**__import__("os").environ})
    assert "my-class  (adept, 1 steps, 1 questions) My lesson" in done.stdout
    ((_, _, a),) = answers(load("my-class"))
    assert a.value == pytest.approx(2 * 10 * 3)  # 2C√n
    with pytest.raises(LessonError, match="no lesson '../adept'"):
        lessons.path_of("../adept")


HOSTILE = {
    "unknown figure": ("chart: adept-nothing dim=3", "Unknown figure 'adept-nothing'"),
    "out of range": ("chart: adept-sensitivity dim=100000", "dim"),
    "unknown setting": ("chart: adept-sensitivity colour=red", "Unknown parameter 'colour'"),
    "no such column": (
        "question: Q?\nanswer: adept-sensitivity -> share where dim=3",
        "has no column 'share'",
    ),
    "script": ("<script>alert(1)</script>", "HTML"),
    "html": ('Click <a href="https://x.org">here</a>', "HTML"),
    "javascript link": ("[x](javascript:alert(1))", "not allowed"),
    "image": ("![x](https://x.org/a.png)", "images are not allowed"),
    "not live": ("chart: adept-sensitivity dim=3\nlive: clip", "live sliders"),
    "bad pick": ("question: Q?\nanswer: adept-sensitivity -> dim pick median", "pick 'median'"),
    "orphan answer": ("answer: adept-sensitivity -> dim", "has no question"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_lessons_get_a_sentence_and_nothing_is_computed(case, monkeypatch):
    body, says = HOSTILE[case]
    computed = []
    monkeypatch.setattr(registry, "run", lambda *a, **k: computed.append(a))
    with pytest.raises(LessonError) as err:
        parse(f"title: T\npaper: adept\n\n## Step\n{body}\n", "t")
    assert says in str(err.value) and all(p.startswith("Line ") for p in err.value.problems)
    assert computed == []


def test_hosted_caps_apply_to_lessons(monkeypatch):
    text = "title: T\npaper: adept\n\n## Step\nchart: adept-violations pairs=100000\n"
    parse(text, "t", hosted=False)  # allowed off a hosted demo
    with pytest.raises(LessonError, match="pairs"):
        parse(text, "t", hosted=True)


def test_ten_megabytes_are_refused_unread(tmp_path):
    big = tmp_path / "big.md"
    big.write_bytes(b"title: T\n" + b"x" * (10 * 2**20))
    done = cli("lesson", "check", str(big))
    assert (
        done.returncode == 2
        and done.stderr.strip()
        == f"dpviz: The lesson file is larger than {MAX_BYTES // 1000} kB; a lesson is a few kB of text."
    )


def test_a_cell_that_does_not_exist_is_found_by_check(tmp_path):
    f = tmp_path / "t.md"
    f.write_text(
        "title: T\npaper: adept\n\n## S\nquestion: Q?\nanswer: adept-sensitivity dim=9 -> dim where dim=5000\n"
    )
    done = cli("lesson", "check", str(f))
    assert done.returncode == 2 and "the cell does not exist" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_check_names_every_problem_one_line_each(tmp_path):
    f = tmp_path / "t.md"
    f.write_text("title: T\npaper: nowhere\n\n## S\nchart: x-y\n<b>bold</b>\n")
    done = cli("lesson", "check", str(f))
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 3 and all(line.startswith("dpviz: Line ") for line in lines)


def test_cells_ties_and_picks():
    import pandas as pd

    t = pd.DataFrame({"x": [1.0, 2.0, 2.0, 3.0], "y": [5.0, 7.0, 7.0, 1.0], "k": ["a", "b", "b", "c"]})
    cell = lambda **kw: Cell("f", {}, **kw)  # noqa: E731
    assert cell_value(t, cell(column="y", where=(("x", "=", "2"),))) == 7.0  # two equal rows: one answer
    with pytest.raises(LessonError, match="differ"):
        cell_value(t, cell(column="y", where=(("x", ">=", "2"),)))
    assert cell_value(t, cell(column="y", where=(("x", ">=", "2"),), pick="min")) == 1.0
    assert cell_value(t, cell(column="k", pick="max", by="y")) == "b"  # tied maxima that agree: one answer
    assert cell_value(t, cell(column="k", pick="min", by="y")) == "c"
    tied = pd.DataFrame({"mechanism": ["a", "b", "c"], "cosine": [0.9, 0.9, 0.1]})
    with pytest.raises(LessonError, match="tie has no one answer"):  # which is highest? both: refused
        cell_value(tied, cell(column="mechanism", pick="max", by="cosine"))
    assert cell_value(tied, cell(column="mechanism", pick="min", by="cosine")) == "c"
    assert cell_value(t, cell(column="y", pick="sum")) == 20.0
    with pytest.raises(LessonError, match="does not exist"):
        cell_value(t, cell(column="y", where=(("k", "=", "z"),)))
    q = load("adept").steps[1].question
    assert close_enough(q, 8.5, 8.0) and not close_enough(q, 3.0, 8.0)


def test_charts_after_reveal_come_with_the_answer():
    lesson = parse(
        "title: T\npaper: adept\n\n## S\nBefore.\nchart: adept-sensitivity dim=4\n"
        "question: Q?\nanswer: adept-sensitivity dim=4 -> sensitivity_l1 where dim=4\n"
        "reveal:\nAfter.\nchart: adept-epsilon dim=4\nlive: dim\n",
        "t",
    )
    (step,) = lesson.steps
    assert [c.figure for c in step.charts] == ["adept-sensitivity"]
    assert [(c.figure, c.live) for c in step.reveal_charts] == [("adept-epsilon", ("dim",))]
    assert step.text == "Before." and step.reveal == "After."
    with pytest.raises(LessonError, match="belongs above it"):
        parse("title: T\npaper: adept\n\n## S\nreveal:\nquestion: late?\n", "t")


def test_the_teachers_chart_counts_every_prediction_and_spreads_close_ones():
    """The class's predictions are counted, each once, in bins spanning the predictions and the
    truth (three answers near 8 on a 0-100 question are not one bar); the shaded band is exactly
    what close_enough counts as close; choices are counted per choice."""
    import numpy as np

    from dpviz.lessons.class_chart import close_band, prediction_counts, predictions_figure

    q = load("adept").steps[1].question  # 0-100, true 8.0
    edges, counts = prediction_counts(q, [3.0, 8.0, 7.5], 8.0)
    assert sum(counts) == 3 and len(counts) == 12
    assert edges[0] >= 0 and edges[0] < 3.0 and edges[-1] > 8.0 and edges[-1] - edges[0] < 10
    assert np.count_nonzero(counts) == 3  # bins of about 0.46: 3, 7.5 and 8 each in its own
    # brute force: each prediction in the bin whose edges hold it
    for p in (3.0, 8.0, 7.5):
        k = min(np.searchsorted(edges, p, side="right") - 1, len(counts) - 1)
        assert counts[k] >= 1
    # outside the question's range: clipped into it, still counted
    edges, counts = prediction_counts(q, [150.0, -5.0], 8.0)
    assert sum(counts) == 2 and edges[0] == 0.0 and edges[-1] == 100.0
    # all equal, and nobody yet
    assert sum(prediction_counts(q, [8.0, 8.0], 8.0)[1]) == 2
    assert sum(prediction_counts(q, [], 8.0)[1]) == 0
    low, high = close_band(q, 8.0)
    assert (low, high) == pytest.approx((7.2, 8.8))
    assert close_enough(q, 7.21, 8.0) and close_enough(q, 8.79, 8.0)
    assert not close_enough(q, 7.19, 8.0) and not close_enough(q, 8.81, 8.0)
    zero = close_band(q, 0.0)  # 1% of the 0-100 range either side
    assert zero == pytest.approx((-1.0, 1.0)) and close_enough(q, 0.99, 0.0) and not close_enough(q, 1.01, 0.0)

    choice = load("adept").steps[5].question
    labels, counts = prediction_counts(choice, ["adept", "gaussian", "adept", "elsewhere"], "adept")
    assert labels == list(choice.choices) and counts[labels.index("adept")] == 2 and sum(counts) == 3
    fig = predictions_figure(q, [3.0, 8.0, 7.5], 8.0)
    assert "3 answered" in fig.layout.title.text and sum(fig.data[0].y) == 3
