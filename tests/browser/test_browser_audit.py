"""The audit page in the real browser, as a researcher uses it: an example in one click, then
their own two files through the file boxes, a changed claim, the result downloaded, the link."""

from __future__ import annotations

import json

import numpy as np
from browser_support import wait_for_charts, wait_run_ended


def _settled(page) -> None:
    # held a second: a run stopped for a rerun leaves the elements it had not reached yet (the
    # downloads, at the end) from the run before, with no status widget until the rerun starts
    wait_run_ended(page, timeout=120_000, hold_ms=1000)


def test_example_then_own_files_then_download(server, page, tmp_path):
    page.goto(f"{server}/Audit_a_mechanism")
    page.get_by_text("Upload the outputs on D and on D′").wait_for()
    page.get_by_role("button", name="ADePT at its worst-case pair (n = 16)").click()
    wait_for_charts(page, 1)
    alert = page.locator('[data-testid="stAlertContentError"]').first
    assert "The claim (ε = 1) is violated" in alert.inner_text()
    assert "example=adept" in page.url
    chart = page.locator(".js-plotly-plot").first.inner_text()
    assert "Claim violated" in chart and "the event S" in chart

    rng = np.random.default_rng(7)
    np.save(tmp_path / "on_D.npy", rng.laplace(0.0, 1.0, 30_000))
    (tmp_path / "on_D_prime.csv").write_text("y\n" + "\n".join(f"{v:.6f}" for v in rng.laplace(1.0, 1.0, 30_000)))
    page.get_by_role("button", name="Audit my files instead").click()
    page.get_by_text("Upload the outputs on D and on D′").wait_for()
    boxes = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    boxes.nth(0).set_input_files(str(tmp_path / "on_D.npy"))
    # a person drops the second file after the first is taken in (the link names it), not a
    # millisecond later while the page is redrawn around the boxes (under load that lost it)
    page.wait_for_url("**a=upload*", timeout=120_000)
    _settled(page)
    boxes.nth(1).set_input_files(str(tmp_path / "on_D_prime.csv"))
    page.get_by_text("Samples: your files (30,000 and 30,000 outputs)").wait_for(timeout=120_000)
    _settled(page)
    info = page.locator('[data-testid="stAlertContentInfo"]').first.inner_text()
    assert "No violation found" in info  # a correct Laplace mechanism, true loss 1
    assert "a=upload" in page.url and "b=upload" in page.url

    box = page.get_by_role("spinbutton", name="Claimed ε")
    box.fill("0.5")
    box.press("Enter")
    page.wait_for_url("**claimed=0.5**", timeout=60_000)
    page.get_by_text("The claim (ε = 0.5) is violated").wait_for(timeout=120_000)
    _settled(page)

    with page.expect_download() as dl:
        page.get_by_role("button", name="⬇ result.json").click()
    result = json.loads(open(dl.value.path()).read())
    assert result["claimed"] == 0.5 and result["violated"] and result["samples"] == {"a": 30_000, "b": 30_000}
    assert 0.5 < result["epsilon_lower_bound"] <= 1.0


def test_bad_files_get_a_sentence_in_the_browser(server, page, tmp_path):
    (tmp_path / "words.txt").write_text("yes\nno\n" * 200)
    np.save(tmp_path / "numbers.npy", np.zeros(400))
    page.goto(f"{server}/Audit_a_mechanism")
    boxes = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    boxes.nth(0).set_input_files(str(tmp_path / "numbers.npy"))
    boxes.nth(1).set_input_files(str(tmp_path / "words.txt"))
    page.get_by_text("both sides must be of one kind").wait_for(timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.get_by_role("button", name="A correct Laplace mechanism").click()  # the rest of the page keeps working
    wait_for_charts(page, 1)


def test_two_files_dropped_at_once_are_both_kept(server, page, tmp_path):
    """Both boxes filled without waiting in between (a quick person, or a busy server): the page
    redraws around the boxes while the first file is taken in, and neither file may be lost."""
    rng = np.random.default_rng(11)
    # a CSV first: reading and checking it keeps the first run busy when the second file comes
    (tmp_path / "first.csv").write_text("y\n" + "\n".join(f"{v:.6f}" for v in rng.laplace(0.0, 1.0, 200_000)))
    np.save(tmp_path / "second.npy", rng.laplace(1.0, 1.0, 200_000))
    page.goto(f"{server}/Audit_a_mechanism?example=laplace")
    wait_for_charts(page, 1)
    page.get_by_role("button", name="Audit my files instead").click()
    page.get_by_text("Upload the outputs on D and on D′").wait_for()
    boxes = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    boxes.nth(0).set_input_files(str(tmp_path / "first.csv"))
    boxes.nth(1).set_input_files(str(tmp_path / "second.npy"))
    page.get_by_text("Samples: your files (200,000 and 200,000 outputs)").wait_for(timeout=120_000)
    _settled(page)
    assert "a=upload" in page.url and "b=upload" in page.url
    names = page.locator('[data-testid="stFileChipName"]').all_inner_texts()
    assert names == ["first.csv", "second.npy"]
