"""Answer parsers: exact cases, and property tests that no string can make them raise or invent."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transcreval.utils.parsing import (
    parse_boxes,
    parse_choice,
    parse_patch_ids,
    parse_score,
    parse_yes_no,
    posteriq_code_boxes,
    posteriq_code_patch_ids,
    posteriq_code_score,
)

STATUSES = {"ok", "empty", "unparsable", "ambiguous", "out_of_range"}


@pytest.mark.parametrize(
    "text,expected",
    [
        ("[[0.1, 0.2, 0.3, 0.4], [0.5, 0.5, 0.9, 0.9]]", [(0.1, 0.2, 0.3, 0.4), (0.5, 0.5, 0.9, 0.9)]),
        ("Sure! The box is [0.1, 0.2, 0.3, 0.4].", [(0.1, 0.2, 0.3, 0.4)]),
        ('```json\n{"boxes": [[0, 0, 1, 1]]}\n```', [(0.0, 0.0, 1.0, 1.0)]),
        ("((0.1, 0.2, 0.3, 0.4), (0.2, 0.2, 0.4, 0.4))", [(0.1, 0.2, 0.3, 0.4), (0.2, 0.2, 0.4, 0.4)]),
        ("first (0.1,0.2,0.3,0.4) then (0.5,0.6,0.7,0.8)", [(0.1, 0.2, 0.3, 0.4), (0.5, 0.6, 0.7, 0.8)]),
        ("[[1e-1, 2E-1, 0.3, 0.4]]", [(0.1, 0.2, 0.3, 0.4)]),
    ],
)
def test_parse_boxes_ok(text, expected):
    got = parse_boxes(text)
    assert got.ok and _flat(got.value) == pytest.approx(_flat(expected))


def _flat(boxes):
    return [v for b in boxes for v in b]


def test_parse_boxes_statuses_and_pixels():
    assert parse_boxes("").status == "empty"
    assert parse_boxes(None).status == "empty"
    assert parse_boxes("I cannot see any text.").status == "unparsable"
    assert parse_boxes("[[-0.1, 0.2, 0.3, 0.4]]").status == "out_of_range"
    assert parse_boxes("[[10, 20, 30, 40]]").status == "out_of_range"  # pixels, asked normalised
    px = parse_boxes("[[10, 20, 30, 40]]", coords="pixel", image_size=(100, 200))
    assert px.ok and _flat(px.value) == pytest.approx([0.1, 0.1, 0.3, 0.2])
    with pytest.raises(ValueError):
        parse_boxes("[[1,2,3,4]]", coords="pixel")


def test_empty_list_is_an_answer_with_no_boxes_and_prose_stays_unreadable():
    # PosterIQ's prompt asks for "[]" when nothing matches
    for text in ("[]", " [] ", "No matches: []", '{"boxes": []}', "```json\n[]\n```"):
        got = parse_boxes(text)
        assert got.ok and got.value == [], text
    for text in ("I cannot find any text.", "none", "[[]]", "[0.1, 0.2]"):
        assert parse_boxes(text).status == "unparsable", text


def test_parse_patch_ids():
    assert parse_patch_ids("I choose [3, 4, 10].").value == [3, 4, 10]
    assert parse_patch_ids("3, 4, 10").value == [3, 4, 10]
    assert parse_patch_ids("['3', '4']").value == [3, 4]
    assert parse_patch_ids("[3, 3, 4]").value == [3, 3, 4]  # duplicates kept
    assert parse_patch_ids("[3, 4.5]").status == "unparsable"
    assert parse_patch_ids("[49]").status == "out_of_range"
    assert parse_patch_ids("patches three and four").status == "unparsable"


@pytest.mark.parametrize(
    "text,expected",
    [
        ("B", "B"),
        ("(C)", "C"),
        ("Answer: D", "D"),
        ('{"answer": "A"}', "A"),
        ("The answer is C.", "C"),
        ("A.", "A"),
        ("A poster with option B", "B"),
        ("b", None),
        ("I think B or C", None),
        ("None of them", None),
    ],
)
def test_parse_choice(text, expected):
    got = parse_choice(text)
    assert got.value == expected
    if expected is None:
        assert got.status in ("ambiguous", "unparsable")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Yes.", True),
        ("No, it is not mentioned", False),
        ("The description says yes", True),
        ('{"answer": "no"}', False),
        ("maybe", None),
        ("是", True),
        ("否", False),
    ],
)
def test_parse_yes_no(text, expected):
    assert parse_yes_no(text).value == expected


@pytest.mark.parametrize(
    "text,expected,status",
    [
        ("8/10", 8.0, "ok"),
        ("I'd give it 7 out of 10", 7.0, "ok"),
        ("Score: 6.5", 6.5, "ok"),
        ('{"score": 9}', 9.0, "ok"),
        ("7", 7.0, "ok"),
        ("Score: 12", None, "out_of_range"),
        ("2024 poster, 9", None, "ambiguous"),
        ("no idea", None, "unparsable"),
        ("评分：8", 8.0, "ok"),
    ],
)
def test_parse_score(text, expected, status):
    got = parse_score(text)
    assert (got.value, got.status) == (expected, status)


def test_posteriq_code_parsers_reproduce_the_script():
    # integers are dropped, minus signs vanish, incomplete groups are dropped
    assert posteriq_code_boxes("[[10, 20, 30, 40]]") == []
    assert posteriq_code_boxes("[[-0.1, 0.2, 0.3, 0.4, 0.5]]") == [(0.1, 0.2, 0.3, 0.4)]
    assert posteriq_code_patch_ids("use [1, 2] or rather [3,4]").value == [3, 4]
    assert posteriq_code_patch_ids("no brackets").value == []
    assert posteriq_code_patch_ids("['3']").status == "unparsable"  # the script crashes here
    assert posteriq_code_score("Score: 12, then 8") is None
    assert posteriq_code_score("2024 poster, 9") is None
    assert posteriq_code_score("7.5/10") == 7.5


answers = st.one_of(
    st.text(max_size=200),
    st.text(alphabet="[](){},.:;-+0123456789eE xyABCDyesno/\"'", max_size=120),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=9).map(str),
    st.lists(st.lists(st.integers(-5000, 5000), min_size=0, max_size=5), max_size=4).map(str),
)


@settings(max_examples=400, deadline=None)
@given(answers)
def test_parsers_never_raise_and_never_invent(text):
    boxes = parse_boxes(text)
    assert boxes.status in STATUSES and (boxes.value is not None) == boxes.ok
    if boxes.ok:  # no boxes only for an answer holding an empty list
        assert boxes.value or re.search(r"\[\s*\]", text)
        assert all(-1e-6 <= v <= 1 + 1e-6 and math.isfinite(v) for b in boxes.value for v in b)
    ids = parse_patch_ids(text)
    assert ids.status in STATUSES and (ids.value is not None) == ids.ok
    if ids.ok:
        assert all(0 <= i < 49 for i in ids.value)
    ch = parse_choice(text)
    assert ch.status in STATUSES and (ch.value is not None) == ch.ok
    if ch.ok:
        assert ch.value in "ABCD" and ch.value in text.upper()
    yn = parse_yes_no(text)
    assert yn.status in STATUSES and (yn.value is not None) == yn.ok
    sc = parse_score(text)
    assert sc.status in STATUSES and (sc.value is not None) == sc.ok
    if sc.ok:
        assert 0 <= sc.value <= 10
        assert any(
            math.isclose(float(n), sc.value) for n in re.findall(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?", text)
        )
    assert isinstance(posteriq_code_boxes(text), list)
    assert posteriq_code_patch_ids(text).status in STATUSES
    code_score = posteriq_code_score(text)
    assert code_score is None or 0 <= code_score <= 10


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 300))
def test_deep_nesting_is_harmless(depth):
    text = "[" * depth + "0.1, 0.2, 0.3, 0.4" + "]" * depth
    assert parse_boxes(text).status in STATUSES
    assert parse_patch_ids("[" * depth).status in STATUSES


@pytest.mark.parametrize("text", ["A-1", "7-8", "score: 1-2", "v2", "grade B+3"])
def test_score_glued_to_a_word_or_range_is_not_read(text):
    # found by the property test: "A-1" was read as the score 1
    assert parse_score(text).status == "unparsable"


@pytest.mark.parametrize(
    "text", ["Not A.", "I would rule out C", "The answer could be A or B", "It isn't D", "B is wrong"]
)
def test_choices_that_negate_or_hedge_are_not_read(text):
    assert parse_choice(text).status == "ambiguous"


@pytest.mark.parametrize(
    ("text", "letter"),
    [("B", "B"), ("(C)", "C"), ("Answer: D", "D"), ('{"answer": "A"}', "A"), ("The answer is B, not A.", "B")],
)
def test_plain_choices_are_still_read(text, letter):
    assert parse_choice(text).value == letter
