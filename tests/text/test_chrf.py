"""chrF: sentence, corpus and mean-of-sentences agree with sacrebleu; bad input is rejected."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import PlanChrF, TitleChrF
from transcreval.core.common import image_path_kind
from transcreval.errors import EmptyInputError, InputError
from transcreval.functional import corpus_chrf, plan_chrf, sentence_chrf, title_chrf
from transcreval.functional.text.chrf import chrf_statistics

HYPS = [
    "Le Voyage de Chihiro",
    "千と千尋の神隠し",
    "",
    "hello  world!",
    "x",
    "مرحبا بالعالم",
    "🎬 Film noir",
    "नमस्ते दुनिया",
    "e\u0301te\u0301 cafe\u0301",
    "tab\there\nnewline",
]
REFS = [
    "Le voyage de Chihiro",
    "千と千尋",
    "abc",
    "",
    "x",
    "مرحبا",
    "🎬film Noir",
    "नमस्ते",
    "été café",
    "tab here newline",
]


def _sacre_sentences(hyps, refs, **kw):
    m = CHRF(**kw)
    return [m.sentence_score(h, r if isinstance(r, list) else [r]).score for h, r in zip(hyps, refs)]


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"word_order": 2},
        {"lowercase": True},
        {"whitespace": True},
        {"eps_smoothing": True},
        {"char_order": 3, "beta": 1},
    ],
)
def test_sentence_scores_equal_sacrebleu(kw):
    ours = sentence_chrf(HYPS, REFS, **kw).tolist()
    ref = _sacre_sentences(HYPS, REFS, **kw)
    assert ours == ref  # identical floats


@pytest.mark.parametrize("kw", [{}, {"word_order": 2}, {"eps_smoothing": True}])
def test_corpus_score_equals_sacrebleu(kw):
    assert corpus_chrf(HYPS, REFS, **kw) == CHRF(**kw).corpus_score(HYPS, [REFS]).score  # identical floats


def test_title_chrf_is_mean_of_sentences():
    ref = _sacre_sentences(HYPS, REFS)
    assert title_chrf(HYPS, REFS).value == pytest.approx(sum(ref) / len(ref), abs=1e-9)


def test_multiple_references_pick_the_best_like_sacrebleu():
    hyps = ["the cat", "Parasite", "", "abc"]
    refs = [["a cat", "the cat sat"], ["パラサイト", "Parasite (2019)", "parasite"], ["x", ""], ["zzz", "yyy"]]
    m = CHRF()
    expected = [m.sentence_score(h, r).score for h, r in zip(hyps, refs)]
    assert sentence_chrf(hyps, refs).tolist() == expected  # identical floats
    # stream-major, sacrebleu's corpus layout, with variable reference counts (None = missing)
    streams = [["a cat", "パラサイト", "x", "zzz"], ["the cat sat", None, "", "yyy"]]
    assert corpus_chrf(hyps, streams, ref_layout="stream") == pytest.approx(
        m.corpus_score(hyps, streams).score, abs=1e-9
    )


def test_zero_overlap_keeps_reference_ngrams():
    # torchmetrics#3480: a zero-overlap segment must still count its reference n-grams.
    hyps, refs = ["abc", "xyz"], [["qqq", "rrrr"], ["xyz"]]
    stats, _ = chrf_statistics(hyps, refs)
    assert stats[0, 1] == 3  # unigram reference count of the first reference ("qqq")
    streams = [["qqq", "xyz"], ["rrrr", None]]
    assert corpus_chrf(hyps, refs) == CHRF().corpus_score(hyps, streams).score  # identical floats


# texts that name no image (".JPG" is refused as an image file name, by design: check_text)
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30).filter(lambda t: image_path_kind(t) is None)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(texts, texts), min_size=1, max_size=6), st.sampled_from([0, 2]))
def test_random_unicode_agrees_with_sacrebleu(pairs, word_order):
    hyps, refs = [p[0] for p in pairs], [p[1] for p in pairs]
    m = CHRF(word_order=word_order)
    expected = [m.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
    assert sentence_chrf(hyps, refs, word_order=word_order).tolist() == expected  # identical floats
    assert corpus_chrf(hyps, refs, word_order=word_order) == m.corpus_score(hyps, [refs]).score  # identical floats


def test_identical_and_disjoint_extremes():
    assert title_chrf(["same title"], ["same title"]).value == 100.0
    assert title_chrf(["aaaa"], ["bbbb"]).value == 0.0
    assert title_chrf([""], [""]).value == 0.0  # sacrebleu: no effective order scores 0


def test_bad_inputs_are_clear_errors():
    with pytest.raises(InputError, match="bare string"):
        sentence_chrf("a title", ["a title"])
    with pytest.raises(InputError, match="bare string"):
        sentence_chrf(["a title"], "a title")
    with pytest.raises(InputError, match=r"preds\[1\] must be a string"):
        sentence_chrf(["a", 3], ["a", "b"])
    with pytest.raises(InputError, match=r"preds\[1\] must be a string, got bytes .*decode bytes first"):
        sentence_chrf(["a", b"b"], ["a", "b"])
    with pytest.raises(InputError, match=r"preds\[0\] is 'poster\.png', a file name with an image extension"):
        sentence_chrf(["poster.png"], ["a"])
    with pytest.raises(InputError, match=r"target\[1\] holds a lone surrogate"):
        sentence_chrf(["a", "b"], ["a", "b\udcff"])
    with pytest.raises(InputError, match="must be a string"):
        sentence_chrf(["a", "b"], [["a"], [None, 5]])
    # a flat target with one non-string names that item (it was "target[0] ... nested, got str")
    with pytest.raises(InputError, match=r"target\[1\] must be a string, got bytes .*decode bytes first"):
        TitleChrF().update(["ok", "Parasite"], ["ok", b"Parasite"])
    with pytest.raises(InputError, match=r"target\[1\] must be a string, got NoneType"):
        sentence_chrf(["a", "b"], ["a", None])
    with pytest.raises(InputError, match=r"target\[0\] is bytes.*decode"):
        sentence_chrf(["a", "b"], [b"a", b"b"])  # bytes are not lists of references (of ints)
    with pytest.raises(InputError, match=r"preds must be a list of strings \(one per item\), got bytes: decode"):
        sentence_chrf(b"Parasite", ["x"])
    with pytest.raises(InputError, match=r"target must be a list of references, got bytes"):
        sentence_chrf(["a"], b"a")
    with pytest.raises(InputError, match="mismatched lengths"):
        sentence_chrf(["a", "b"], ["a"])
    with pytest.raises(InputError, match="stream-major"):
        sentence_chrf(["a", "b", "c"], [["a", "b", "c"]])
    with pytest.raises(InputError, match="ambiguous"):
        sentence_chrf(["a", "b"], [["a", "b"], ["c", "d"]])
    with pytest.raises(InputError, match="no reference"):
        sentence_chrf(["a"], [[None]])
    with pytest.raises(InputError, match="char_order"):
        sentence_chrf(["a"], ["a"], char_order=0, word_order=0)
    with pytest.raises(EmptyInputError):
        title_chrf([], [])
    with pytest.raises(EmptyInputError):
        TitleChrF().compute()
    with pytest.raises(InputError):
        TitleChrF().update(["a"], ["a", "b"])


def test_ambiguous_layout_resolved_explicitly():
    hyps, refs = ["ab", "cd"], [["ab", "zz"], ["cd", "yy"]]
    sample = sentence_chrf(hyps, refs, ref_layout="sample").tolist()
    stream = sentence_chrf(hyps, refs, ref_layout="stream").tolist()
    m = CHRF()
    assert sample == pytest.approx(
        [m.sentence_score("ab", ["ab", "zz"]).score, m.sentence_score("cd", ["cd", "yy"]).score]
    )
    assert stream == pytest.approx(
        [m.sentence_score("ab", ["ab", "cd"]).score, m.sentence_score("cd", ["zz", "yy"]).score]
    )


def _batches():
    return [(HYPS[0:4], REFS[0:4]), (HYPS[4:8], REFS[4:8]), (HYPS[8:], REFS[8:])]


@pytest.mark.ddp
@pytest.mark.parametrize("cls", [TitleChrF, PlanChrF])
@pytest.mark.parametrize("kw", [{}, {"word_order": 2}])
def test_title_chrf_class_harness(ddp_pool, cls, kw):
    case = MetricCase(
        factory=partial(cls, **kw),
        functional=partial(title_chrf if cls is TitleChrF else plan_chrf, **kw),
        reference=lambda h, r: sum(_sacre_sentences(h, r, **kw)) / len(h),
        batches=_batches(),
        join=join_lists,
        extras_keys=("corpus",),
    )
    check_metric(case, ddp_pool)


def test_title_chrf_result_carries_corpus_and_signature():
    m = TitleChrF(word_order=2)
    m.update(HYPS, REFS)
    res = m.compute()
    assert res.extras["corpus"] == pytest.approx(CHRF(word_order=2).corpus_score(HYPS, [REFS]).score, abs=1e-9)
    assert str(res).startswith("TitleChrF|nc:6|nw:2|b:2.0|case:mixed|eff:yes|space:no|v:")
    assert res.per_item.tolist() == pytest.approx(_sacre_sentences(HYPS, REFS, word_order=2), abs=1e-9)


def test_options_engine_keywords_are_built_once_and_stay_out_of_equality_and_pickles():
    import pickle

    from transcreval.functional.text.chrf import ChrFOptions

    o = ChrFOptions(char_order=4, word_order=2)
    eng = o.engine()
    assert eng == {
        "char_order": 4,
        "word_order": 2,
        "beta": 2.0,
        "lowercase": False,
        "whitespace": False,
        "eps_smoothing": False,
    }
    assert o.engine() is eng  # kept on the (frozen) object, read only
    with pytest.raises(TypeError):
        eng["beta"] = 5.0  # type: ignore[index]
    import copy

    assert "_engine" not in pickle.loads(pickle.dumps(o)).__dict__  # rebuilt from the fields, never carried
    assert copy.deepcopy(o) == o and copy.copy(o).engine() == eng
    assert o == ChrFOptions(char_order=4, word_order=2) and hash(o) == hash(ChrFOptions(char_order=4, word_order=2))
    back = pickle.loads(pickle.dumps(o))
    assert back == o and back.engine() == eng
    changed = o.replace(beta=1.0)
    assert changed.engine()["beta"] == 1.0 and eng["beta"] == 2.0  # a changed copy builds its own
