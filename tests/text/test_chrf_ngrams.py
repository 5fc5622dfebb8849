"""chrF's two n-gram engines (dictionaries on shared stretches, integer codes in numpy) give the
exact statistics of a plain Counter per order, and sacrebleu's floats, on texts with repeats."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF

from transcreval.functional import sentence_chrf
from transcreval.functional.text import chrf_ngrams
from transcreval.functional.text.chrf_ngrams import _char_matches_dict, _char_matches_np, _Text


def _matches(hyp: str, ref: str, order: int) -> list[int]:
    """Matched n-grams per order 1..order, written out: the sum of the smaller counts."""
    out = []
    for n in range(1, order + 1):
        h = Counter(hyp[i : i + n] for i in range(len(hyp) - n + 1))
        r = Counter(ref[i : i + n] for i in range(len(ref) - n + 1))
        out.append(sum(min(c, r[g]) for g, c in h.items()))
    return out


# small alphabets, so that texts share stretches and repeat n-grams on both sides
small = st.text(st.sampled_from("abcé🎬 "), max_size=40)
wide = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(small, small, st.integers(1, 7), st.booleans())
def test_dictionary_engine_counts_exact_matches(hyp, ref, order, whitespace):
    h, r = _Text(hyp, order, 0, whitespace), _Text(ref, order, 0, whitespace)
    if not whitespace:  # sacrebleu's default: whitespace deleted first
        hyp, ref = "".join(hyp.split()), "".join(ref.split())
    assert _char_matches_dict(h, r, order) == _matches(hyp, ref, order)


@settings(max_examples=300, deadline=None)
@given(st.one_of(small, wide), st.one_of(small, wide), st.integers(1, 7))
def test_integer_engine_counts_exact_matches(hyp, ref, order):
    got = _char_matches_np(hyp, ref, order)
    if got is not None:  # None: the alphabet is too large for the codes (dictionaries then)
        assert got == _matches(hyp, ref, order)


@pytest.mark.parametrize("numpy_min_chars", [0, 10**9], ids=["integer codes", "dictionaries"])
@pytest.mark.parametrize("kw", [{}, {"whitespace": True}, {"char_order": 2, "word_order": 2}, {"lowercase": True}])
def test_both_engines_give_sacrebleu_floats(monkeypatch, numpy_min_chars, kw):
    monkeypatch.setattr(chrf_ngrams, "NUMPY_MIN_CHARS", numpy_min_chars)
    hyps = ["abab abab", "aaaa", "the cat sat", "Le Voyage", "ab", "", "xyz", "cabbage cab", "ÉTÉ été"]
    refs = ["ababab", "aaa", "the cat sat", "Voyage de Chihiro", "ba", "abc", "", "bag cab cabbage", "été"]
    m = CHRF(**kw)
    expected = [m.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
    assert sentence_chrf(hyps, refs, **kw).tolist() == expected  # identical floats
