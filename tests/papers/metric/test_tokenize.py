"""The try-it box's tokens (mechanism.simple_preprocess) against gensim's simple_preprocess, which
it stands in for without importing gensim."""

import pytest
from gensim.utils import simple_preprocess as gensim_preprocess
from hypothesis import given, settings
from hypothesis import strategies as st

from dpviz.papers.metric import mechanism as mdp

CASES = [
    "",
    "The patient was admitted to the hospital in Boston on Monday",
    "don't stop-believing: it's 2024, A1 b2c3 x_y _private __dunder__ tail_",
    "Ünïcödé façade naïve ΣΊΣΥΦΟΣ straße İstanbul ǅemal",  # lower() changes lengths and letters
    "٣٤٥ arabic digits ٣x, full-width ＡＢＣ１２３, superscript x² and ½",
    "tabs\tand\nnewlines\r\nand  spaces",
    "emoji 🙂 joined🙂words, ümlaut-ending-",
    "a" * 41 + " " + "b" * 40 + " c",  # the length bounds
    "中文字符 日本語の文 한국어",
    "mixed123letters 123mixed mixed_123_",
]


@pytest.mark.parametrize("text", CASES)
@pytest.mark.parametrize("bounds", [(1, 40), (2, 15), (3, 5)])
def test_the_same_tokens_as_gensim(text, bounds):
    lo, hi = bounds
    assert mdp.simple_preprocess(text, lo, hi) == gensim_preprocess(text, min_len=lo, max_len=hi)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_the_same_tokens_as_gensim_on_any_text(text):
    assert mdp.simple_preprocess(text) == gensim_preprocess(text, min_len=1, max_len=40)


def test_tokenize_keeps_its_limits():
    assert mdp.tokenize("The cat, the DOG!") == ["the", "cat", "the", "dog"]
    with pytest.raises(ValueError, match="no words"):
        mdp.tokenize("123 456 !!!")
    with pytest.raises(ValueError, match="at most 40"):
        mdp.tokenize(" ".join(["w"] * 41))
