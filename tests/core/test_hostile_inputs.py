"""Hostile input in every class the hosted-demo audit found (caps walked around, corpus files,
operator settings, inputs checked only after computing): each gets one sentence, in process and
on the command line (exit 2, no traceback), before any work is done."""

import os
import sys

import pytest
from cli_support import cli

from dpviz import registry, storage, uploads
from dpviz.data import corpora
from dpviz.papers.hoho import params as hoho_params
from dpviz.papers.hoho import pipeline as H
from dpviz.papers.metric import params as M
from dpviz.papers.metric import pipeline
from dpviz.params import validate

# caps that could be walked around -----------------------------------------------------------


def test_a_word_list_is_held_to_the_hosted_cap_on_words():
    many = ",".join(["of", "to", "in", "is", "it"] * 32)  # 160 short words in under 500 characters
    assert len(many) <= M.WORD_LIST.max_items
    _, errors = validate([M.WORD_LIST], {"word_list": many}, hosted=True)
    assert errors and "at most 50" in errors[0] and "160 items" in errors[0]
    _, errors = validate([M.WORD_LIST], {"word_list": many}, hosted=False)
    assert not errors
    values, errors = validate([M.WORD_LIST], {"word_list": "a b,c  d"}, hosted=True)
    assert not errors and values["word_list"] == "a b,c  d"


def _corpus_upload(sentences: int, tmp_path, monkeypatch) -> str:
    monkeypatch.setenv("DPVIZ_CACHE_DIR", str(tmp_path))
    lines = [f"the film number {i} was good and the plot was fine" for i in range(sentences)]
    return uploads.save_upload("\n".join(lines).encode(), "many.txt")


def test_a_large_corpus_is_refused_on_the_hosted_demo_before_any_attack(tmp_path, monkeypatch):
    ref = _corpus_upload(corpora.HOSTED_MAX_SENTENCES + 1, tmp_path, monkeypatch)
    monkeypatch.setenv("DPVIZ_HOSTED", "1")
    with pytest.raises(corpora.CorpusError, match="hosted demo"):
        H.corpus_vectors(ref)


@pytest.mark.parametrize(
    "raw, fragment",
    [
        ({"targets": "1.0"}, "pairs"),  # every sentence a target
        (
            {"epsilons": "0.001,0.01,0.1,1,3,10,30,100,300,1000", "lambdas": "1,2,5,10,20,50,100,1000"},
            "pair evaluations",
        ),
    ],
)
def test_the_attack_is_held_to_a_hosted_work_budget_whichever_parameter_carries_it(raw, fragment, monkeypatch):
    monkeypatch.setenv("DPVIZ_HOSTED", "1")
    monkeypatch.setattr(
        H.hoho_exact, "attack_counts", lambda *a, **k: pytest.fail("computed before the cap was checked")
    )
    with pytest.raises(ValueError, match=fragment):
        registry.run("hoho-linking", raw)


def test_the_default_attack_fits_the_hosted_budget(monkeypatch):
    monkeypatch.setenv("DPVIZ_HOSTED", "1")
    n = len(H.corpus_vectors()[0])
    targets = len(H.hoho_exact.choose_targets(n, hoho_params.TARGETS.default, 0))
    settings = (len(hoho_params.LAMBDAS.default) + 2) * len(hoho_params.EPSILONS.default)
    H.check_attack_size(targets, n, settings)  # no error
    assert targets * (n - 1) * settings <= H.HOSTED_MAX_WORK


# corpus files ---------------------------------------------------------------------------------


def _csv(rows: list[str], bom: bool = False) -> bytes:
    text = "sentence,label\n" + "\n".join(rows) + "\n"
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode()


def test_corpus_csv_with_a_byte_order_mark_is_read():
    rows = [f"sentence {i} is here,{i % 2}" for i in range(12)]
    sents, labels = corpora.parse_upload(_csv(rows, bom=True), "excel.csv")
    assert sents[0] == "sentence 0 is here" and list(labels[:4]) == [0, 1, 0, 1]


@pytest.mark.parametrize("label", ["2", "-1", "7", "yes", ""])
def test_corpus_labels_other_than_0_and_1_are_refused_with_the_value(label):
    rows = [f"sentence {i} is here,{i % 2}" for i in range(11)] + [f"the odd one,{label}"]
    with pytest.raises(corpora.CorpusError, match="0 or 1"):
        corpora.parse_upload(_csv(rows), "labels.csv")


def test_a_csv_field_beyond_the_csv_limit_is_a_sentence():
    rows = [f"sentence {i},0" for i in range(11)] + ['"' + "x" * 140_000 + '",1']
    with pytest.raises(corpora.CorpusError, match="could not be read"):
        corpora.parse_upload(_csv(rows), "long.csv")


# operator settings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("inf", sys.maxsize),
        ("12", 12 * 2**20),
        ("0.5", 2**19),
        ("nan", 7 * 2**20),
        ("-3", 7 * 2**20),
        ("lots", 7 * 2**20),
    ],
)
def test_quota_settings_never_raise(raw, expected, monkeypatch, capsys):
    monkeypatch.setenv("DPVIZ_TEST_QUOTA_MB", raw)
    assert storage.quota_bytes("DPVIZ_TEST_QUOTA_MB", 7) == expected
    if expected == 7 * 2**20:
        assert "DPVIZ_TEST_QUOTA_MB" in capsys.readouterr().err


def test_an_infinite_cache_quota_serves_figures(tmp_path):
    env = dict(os.environ, DPVIZ_CACHE_QUOTA_MB="inf", DPVIZ_CACHE_DIR=str(tmp_path))
    out = cli("figure", "adept-sensitivity", "--set", "max_dim=16", "--out", str(tmp_path / "s.csv"), env=env)
    assert out.returncode == 0, out.stderr


# every input checked before anything is computed ---------------------------------------------


def test_a_bad_comparison_embedding_is_refused_before_the_main_one_is_computed(monkeypatch):
    monkeypatch.setattr(pipeline.mdp, "word_envelopes", lambda *a, **k: pytest.fail("computed before checking inputs"))
    for bad in ("/dev/zero", "/nonexistent/vectors.vec", "upload:0000000000000000.vec"):
        with pytest.raises(ValueError, match="No embedding file|not on this server"):
            registry.run("metric-stats", {"compare": bad, "words": "3", "samples": "20"})


def test_a_header_bomb_as_comparison_is_refused_before_computing(tmp_path, monkeypatch):
    bomb = tmp_path / "bomb.vec"
    bomb.write_bytes(b"1000000000 300\nthe 0.1\n")
    monkeypatch.setattr(pipeline.mdp, "word_envelopes", lambda *a, **k: pytest.fail("computed before checking inputs"))
    with pytest.raises(ValueError, match="claims 1,000,000,000 words"):
        registry.run("metric-stats", {"compare": str(bomb), "words": "3", "samples": "20"})


# the command line: one line, exit 2 ----------------------------------------------------------


@pytest.mark.parametrize(
    "args, fragment",
    [
        (("sweep", "mdp", "--seed", "-1", "--out", "OUT", "--words", "3"), "--seed"),
        (("sweep", "mdp", "--workers", "0", "--out", "OUT", "--words", "3"), "--workers"),
        (("figure", "partial-query", "--set", "expr=a+log(0)", "--out", "OUT.csv"), "infinite or undefined"),
        (("figure", "partial-query", "--set", "expr=a*(-1)**0.5", "--out", "OUT.csv"), "complex values"),
        (("figure", "partial-query", "--set", "ranges=a=0:2e-16,b=0:1", "--out", "OUT.csv"), "too narrow"),
        (("figure", "metric-stats", "--set", "compare=/dev/zero", "--out", "OUT.csv"), "No embedding file"),
    ],
)
def test_command_line_bad_inputs_are_one_line_and_exit_2(args, fragment, tmp_path):
    out = cli(*(a.replace("OUT", str(tmp_path / "o")) for a in args))
    assert out.returncode == 2, out.stderr
    assert fragment in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
