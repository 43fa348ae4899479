"""The audit page through Streamlit's AppTest: empty, an example in one click, uploads by
reference, bad input as a sentence. (The browser test is in tests/browser/test_browser_audit.py.)"""

import io
from pathlib import Path

import numpy as np
from paper_pages import charts
from streamlit.testing.v1 import AppTest

from dpviz import tools, uploads

ROOT = Path(__file__).resolve().parents[2]
PAGE = tools.get("audit").page


def _run(query=None):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.switch_page(PAGE)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    return at.run()


def _upload(arr) -> str:
    buf = io.BytesIO()
    np.save(buf, arr)
    return uploads.save_upload(buf.getvalue(), "x.npy")


def test_empty_page_asks_for_samples():
    at = _run()
    assert not at.exception and not at.error
    assert any("Upload the outputs on D" in i.value for i in at.info)


def test_an_example_is_one_click_and_goes_into_the_link():
    at = _run()
    at.button(key="example-laplace").click().run()
    assert not at.exception and not at.error
    assert any(i.value.startswith("No violation found") for i in at.info)
    assert at.query_params["example"] in ("laplace", ["laplace"])
    assert len(charts(at)) == 1
    at.button(key="example-adept").click().run()
    assert [e.value for e in at.error][0].startswith("The claim (ε = 1) is violated")


def test_uploaded_files_by_reference_and_their_claim():
    rng = np.random.default_rng(0)
    a, b = _upload(rng.laplace(0, 0.5, 20_000)), _upload(rng.laplace(1, 0.5, 20_000))
    at = _run({"a": a, "b": b, "claimed": "1", "seed": "3"})
    assert not at.exception
    verdict = at.error[0].value
    assert verdict.startswith("The claim (ε = 1) is violated")  # true loss 2
    at.number_input(key="claimed").set_value(2.5).run()
    assert any(i.value.startswith("No violation found") for i in at.info)


def test_bad_input_is_a_sentence_and_the_page_keeps_working():
    a = _upload(np.zeros(50))
    b = uploads.save_upload(b"yes\nno\n" * 25, "w.txt")
    at = _run({"a": a, "b": b})
    assert not at.exception
    assert [e.value for e in at.error] == [
        "the outputs on D holds numeric outputs and the outputs on D' categorical ones; both sides must be of one kind."
    ]
    at = _run({"a": a, "b": "upload:0123456789abcdef.npy"})
    assert "is not on this server any more" in at.error[0].value
    at = _run({"a": "/etc/passwd", "b": a})
    assert "must be an uploaded file" in at.error[0].value
    at = _run({"example": "nonsense", "claimed": "-3"})
    assert not at.exception
    notes = " ".join(w.value for w in at.warning)
    assert "example" in notes and "claimed" in notes
