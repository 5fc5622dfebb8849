"""Answers that must never become scores: refusals, negations, prose, answers naming something
outside the vocabulary, and answers that make a reader raise. Each is counted as a failure."""

from __future__ import annotations

import json
import re

import pytest

from tests.judge.oracle import img
from transcreval.engines.judge.parse import Read
from transcreval.engines.judge.verdicts import ask, item_statuses
from transcreval.errors import JudgeFailure
from transcreval.functional.judge.csi_overlap import csi_overlap_stats, read_objects
from transcreval.functional.judge.posteriq import (
    judged_font_richness_stats,
    judged_point_score_stats,
    judged_style_score_stats,
    label_of,
    read_covered,
)
from transcreval.functional.judge.quiz_hit_rate import quiz_hit_rate_stats, read_quiz_answer
from transcreval.judge import FunctionJudge, JudgeCache, PromptTemplate
from transcreval.judge.judge_score import JudgeScore

CTX = {"target_market": "Japan", "source_market": "USA", "genre": "drama"}


def failures(stats):
    from transcreval.engines.judge.verdicts import judge_extras

    return judge_extras(stats)["failures"]


# ---------------------------------------------------------------------- CSIOverlap's object lists
@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry, but I can't assist with that.",
        "There is a cat, a dog and a tree.",
        "I cannot identify objects in this image.",
        "The image shows a kimono, sushi",
        "Objects: kimono, sushi",
        "kimono, sushi. Also a lantern, probably",
    ],
)
def test_objects_reader_reads_no_list_from_refusals_or_sentences(text):
    r = read_objects(text)
    assert not r.ok and r.value is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kimono, sushi, Mount Fuji", ["kimono", "sushi", "Mount Fuji"]),
        ("kimono, sushi, Mount Fuji.", ["kimono", "sushi", "Mount Fuji"]),
        ("- kimono\n- Statue of Liberty\n- hot dog", ["kimono", "Statue of Liberty", "hot dog"]),
    ],
)
def test_objects_reader_still_reads_the_papers_comma_separated_list(text, expected):
    assert read_objects(text).value == expected


@pytest.mark.parametrize(
    ("answer", "status"),
    [("I'm sorry, but I can't assist with that.", "refused"), ("There is a cat, a dog and a tree.", "unparsable")],
)
def test_csi_overlap_counts_a_refused_or_prose_object_list_as_a_failure(answer, status):
    def fn(req):
        if req.template_id.startswith("khanuja.csi-objects"):
            source = req.images[0].image.getpixel((0, 0)) == tuple(int(x) for x in img(1)[0, 0])
            return '{"objects": ["kimono", "sushi"]}' if source else answer
        if req.template_id.startswith("khanuja.csi-replacements"):
            return json.dumps({"reasoning": "x", "replacements": {"kimono": ["sari"], "sushi": ["dosa"]}})
        return '{"reasoning": "none", "matches": []}'

    st = csi_overlap_stats([img(2)], [img(1)], judge=FunctionJudge(fn), country="India", category="food")
    # per-item values line up with the inputs: the failed item is NaN, with its status
    assert st["count"] == 0 and [v != v for v in st["values"]] == [True]
    assert failures(st)[status] == 1 and item_statuses(st["item_status"]) == [status]


# ---------------------------------------------------------------------- quiz letters
def quiz_judge(say):
    """A judge that names the correct option's letter inside ``say`` (a format string)."""
    answers = {}

    def fn(req):
        i = req.images[0].image.getpixel((0, 0))[0] // 20
        letter = re.search(rf"^([A-D])\. {answers[i]}$", req.text, re.M).group(1)
        return say.format(letter=letter, option=answers[i])

    return fn, answers


@pytest.mark.parametrize(
    "say",
    [
        "I cannot tell from this poster, but it is definitely not {letter}.",
        "Not {letter}.",
        "I would rule out {letter}; the poster is unclear.",
        "The answer could be {letter} or another one",
        '{{"answer": "not {letter}"}}',
    ],
)
def test_quiz_never_reads_a_letter_out_of_a_negation_or_prose(say):
    import numpy as np

    fn, answers = quiz_judge(say)
    answers.update(enumerate(["Drama", "Comedy", "Horror", "Action"]))
    posters = [np.full((8, 8, 3), i * 20, np.uint8) for i in range(4)]
    labels = ["Drama", "Comedy", "Horror", "Action", "Sci-Fi"]
    st = quiz_hit_rate_stats(posters, [answers[i] for i in range(4)], judge=FunctionJudge(fn), labels=labels)
    assert st["count"] == 0 and failures(st)["unparsable"] == 4


@pytest.mark.parametrize("say", ["{letter}", "({letter})", "**{letter}**", "Answer: {letter}", "{letter}. {option}"])
def test_quiz_reads_an_answer_that_is_only_the_letter(say):
    import numpy as np

    fn, answers = quiz_judge(say)
    answers.update(enumerate(["Drama", "Comedy"]))
    posters = [np.full((8, 8, 3), i * 20, np.uint8) for i in range(2)]
    st = quiz_hit_rate_stats(
        posters, ["Drama", "Comedy"], judge=FunctionJudge(fn), labels=["Drama", "Comedy", "X", "Y"]
    )
    assert st["count"] == 2 and list(st["values"]) == [1.0, 1.0]


def test_quiz_letter_with_the_wrong_option_text_is_unparsable():
    r = read_quiz_answer("AB", ["Drama", "Comedy"])
    assert r("B. Comedy").value == "B"
    assert not r("B. Drama").ok and not r('{"answer": "B) Drama"}').ok
    assert r('{"answer": "b) Comedy"}').value == "B"


# ---------------------------------------------------------------------- PosterIQ readers
def test_style_label_must_be_the_whole_answer():
    labels = ["Minimalist", "Retro", "Memphis Style"]
    assert label_of("minimalist.", labels) == "Minimalist"
    assert label_of("Memphis", labels) == "Memphis Style" and label_of("Retro Style", labels) == "Retro"
    for answer in ("definitely not Minimalist", "Minimalist or Retro", "mostly Memphis Style", "Swiss"):
        assert label_of(answer, labels) is None

    st = judged_style_score_stats(
        [img(1)],
        ["Minimalist"],
        judge=FunctionJudge(lambda r: '{"style": "definitely not Minimalist"}'),
        labels=["Minimalist", "Retro"],
    )
    assert st["count"] == 0 and failures(st)["unparsable"] == 1


def test_font_answer_with_no_attribute_of_the_vocabulary_is_unparsable():
    vocab = ["bold", "serif"]
    oov = FunctionJudge(lambda r: '{"attributes": ["cannot determine from this image"]}')
    st = judged_font_richness_stats([img(1)], judge=oov, vocabulary=vocab)
    assert st["count"] == 0 and failures(st)["unparsable"] == 1
    mixed = FunctionJudge(lambda r: '{"attributes": ["bold", "wobbly"]}')
    st = judged_font_richness_stats([img(1)], judge=mixed, vocabulary=vocab)
    assert st["count"] == 1 and st["out_of_vocabulary"] == 1 and list(st["values"]) == [0.5]
    none = FunctionJudge(lambda r: '{"attributes": []}')  # "no attribute fits" is an answer
    assert judged_font_richness_stats([img(1)], judge=none, vocabulary=vocab)["count"] == 1


@pytest.mark.parametrize(("text", "value"), [("Yes", True), ("no.", False), ("**Yes**", True), ("Answer: No", False)])
def test_point_verdict_reads_a_plain_yes_or_no(text, value):
    assert read_covered(text).value is value


@pytest.mark.parametrize("text", ["Yes, mostly", "No idea", "yes or no", "It is not there, yes?"])
def test_point_verdict_reads_nothing_from_prose(text):
    assert not read_covered(text).ok


def test_a_template_asking_for_yes_or_no_scores(tmp_path):
    f = tmp_path / "yesno.txt"
    f.write_text("{image:poster}\nIs this in the poster: {point}? Answer Yes or No.\n")
    answers = iter(["Yes", "No.", "Maybe"])
    st = judged_point_score_stats(
        [img(1), img(2), img(3)], [["a title"]] * 3, judge=FunctionJudge(lambda r: next(answers)), template=str(f)
    )
    assert list(st["values"])[:2] == [1.0, 0.0] and st["values"][2] != st["values"][2]
    assert failures(st)["unparsable"] == 1 and item_statuses(st["item_status"]) == ["ok", "ok", "unparsable"]


# ---------------------------------------------------------------------- a reader that raises
def test_a_reader_that_raises_makes_that_answer_unparsable_and_keeps_the_batch():
    judge = FunctionJudge(lambda r: r.text)
    reqs = [PromptTemplate(id="t", version="1", user=u).render() for u in ("good", "bad", "good too")]

    def reader(text):
        if text == "bad":
            raise OverflowError("cannot convert float infinity to integer")
        return Read(text)

    got = ask(judge, reqs, reader)
    assert [v.status for v in got] == ["ok", "unparsable", "ok"]
    assert "OverflowError" in got[1].detail and got[0].value == "good"


def test_a_huge_score_is_unparsable_now_and_on_every_rerun_from_the_cache(tmp_path):
    from transcreval.engines.judge.images import to_image_part

    cache = tmp_path / "c.sqlite"
    imgs = [img(i) for i in range(3)]
    middle = to_image_part(imgs[1]).sha256
    huge = '{"score": "' + "9" * 400 + '"}'

    def fn(r):
        return huge if r.images[0].sha256 == middle else '{"score": 4}'

    for attempt in range(2):
        judge = FunctionJudge(fn, cache=cache)
        m = JudgeScore(judge=judge, aspect="aesthetic")
        m.update(imgs, imgs, **CTX)
        r = m.compute()
        assert r.value == 4.0 and r.extras["failures"]["unparsable"] == 1
        assert judge.calls_made == (3 if attempt == 0 else 0)
    assert len(JudgeCache(cache)) == 3
    with pytest.raises(JudgeFailure, match="unparsable: 1"):
        JudgeScore(judge=FunctionJudge(fn, cache=cache), on_failure="raise").update(imgs, imgs, **CTX)
