"""The Lessons page: a teacher takes a class through a paper's finding, step by step, predict
then reveal (the format and the answers in :mod:`dpviz.lessons`, the compute in ``compute.py``,
the view in ``webui/panels/lesson.py``, class mode's storage in :mod:`dpviz.classroom`)."""

from dpviz.panels import Panel
from dpviz.params import Param
from dpviz.tools import Tool

LESSON = Param(
    "lesson",
    "text",
    "adept",
    "Lesson",
    "A lesson's name (the shipped ones, or a teacher's in $DPVIZ_LESSONS_DIR).",
    max_items=64,
)
STEP = Param("step", "int", 1, "Step", "The step of the lesson, from 1.", min=1, max=30)
PRESENT = Param("present", "bool", False, "Projector view", "Bigger type, no sidebar, charts the full width.")
CODE = Param(
    "code", "text", "", "Class code", "The code of the class a student has joined (no accounts).", max_items=12
)

LESSON_PANEL = Panel(
    id="lesson",
    title="",
    params=(LESSON, STEP, PRESENT, CODE),
    compute="dpviz.tools.lessons.compute:run",
    view="webui.panels.lesson:show",
    inputs="webui.panels.lesson:chooser",
    hidden=("lesson", "step", "present", "code"),
    cached=False,
    working="Computing this step's answer…",
)

TOOL = Tool(
    key="lessons",
    order=20,
    title="Lessons",
    page="pages/6_Lessons.py",
    claim=(
        "A path through each paper's argument for a class: students predict before they see, and the class sees "
        "where it was wrong."
    ),
    headline="Lessons: predict, then reveal",
    summary=(
        "Each lesson takes a class through one paper's finding in about twenty minutes. A step shows dpviz's "
        "charts at stated settings and may ask a question: commit to a prediction, then reveal the answer, which "
        "dpviz computes from the chart's own table (nothing is typed into the lesson). A teacher can start a class: "
        "students join with a short code, their predictions are gathered, and the teacher's view shows them beside "
        "the truth."
    ),
    panels=(LESSON_PANEL,),
    notes=(
        "**Writing a lesson.** A lesson is a text file (`lessons/<name>.md`, or a folder named by "
        "`DPVIZ_LESSONS_DIR`): a header, then steps with prose, `chart:` lines (a figure and its settings, as in the "
        "URL), and questions whose `answer:` line names the cell of a figure's table that answers them. "
        "`python -m dpviz lesson check FILE` says what is wrong, one sentence per problem; `python -m dpviz lesson "
        "answers FILE` prints every answer as computed."
    ),
)
