"""Class mode at the protocol level, as benchmarks/class_lesson_load.py plays it (no browser): a
teacher starts a class through the page and moves it to a question; three students open the
class's link, lock in predictions, reveal the answer and drag the revealed chart's slider; the
teacher's live view, rerun as its fragment, counts three answers. This keeps the benchmark's
client honest: each action it times does on the server what a browser's would."""

from __future__ import annotations

import asyncio
import re

from webui.session_client import SessionClient

PREDICT, REVEAL = "Lock in my prediction", "Reveal the answer"


def _recorder():
    seen: list[tuple[str, str]] = []

    def keep(kind, el, seconds):
        text = getattr(el, "body", "") or getattr(el, "label", "") or getattr(el, "text", "")
        seen.append((kind, str(text)))

    return seen, keep


async def _class(url: str) -> None:
    told, keep = _recorder()
    teacher = SessionClient(url, "Lessons", "lesson=adept", observe=keep)
    students = []
    try:
        await teacher.open()
        await teacher.press("Start a class with this lesson")
        codes = [m.group(1) for _, text in told if (m := re.search(r"Class code \*\*([A-Z0-9]{6})\*\*", text))]
        assert codes, "the page showed no class code"
        code = codes[-1]
        teacher.query = f"lesson=adept&code={code}"
        told.clear()
        await teacher.press("Next ▶")
        assert any("Step 2 of 7" in text for _, text in told)
        assert teacher.auto_reruns, "the teacher's answers are not a fragment the browser reruns"

        for k, guess in enumerate((3.0, 8.0, 7.5)):
            seen, keep = _recorder()
            s = SessionClient(url, "Lessons", f"lesson=adept&step=2&code={code}", observe=keep, live=False)
            students.append(s)
            await s.open()
            assert any(f"Class **{code}**: your teacher leads" in text for _, text in seen)
            # the page asks where the class is every 2 s; the hourly one makes a reconnection rerun the page
            assert sorted(s.auto_reruns.values()) == [2.0, 3600.0]
            await s.press(PREDICT, {"Your prediction": guess})
            seen.clear()
            await s.press(REVEAL)
            answer = [text for kind, text in seen if kind == "alert" and text.startswith("**The answer: 8.0.**")]
            assert answer and f"Your prediction: {guess:.1f}." in answer[0]
            charts = [text for kind, text in seen if kind == "chart"]
            assert charts, "the reveal drew no chart"
            # the revealed chart's dim slider: a move redraws it, and the answer stays revealed
            assert s.slider is not None and s.slider[1][s.slider[2]] == "64"
            seen.clear()
            await s.move(3)
            assert s.slider[1][s.slider[2]] == "90"  # three positions of n's grid on: 70, 80, 90
            assert any(text.startswith("**The answer: 8.0.**") for kind, text in seen if kind == "alert")
            assert any(kind == "chart" for kind, _ in seen)
            if k == 0:  # a poll while the teacher is still on this step changes nothing
                seen.clear()
                for fragment in s.auto_reruns:
                    await s.rerun_fragment(fragment)
                assert not any("Step" in text for _, text in seen)

        told.clear()
        for fragment in teacher.auto_reruns:
            await teacher.rerun_fragment(fragment)
        assert any(text == "**Your class:** 3 answered." for _, text in told), told
    finally:
        for s in [teacher, *students]:
            await s.close()


def test_a_class_at_the_protocol_level(server):
    asyncio.run(_class(server))
