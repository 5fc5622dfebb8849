"""Answer parsing: a table of real-looking answers, and properties fuzzed with hypothesis."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from transcreval.engines.judge.parse import (
    extract_json,
    looks_like_refusal,
    read_bare,
    read_bool,
    read_choice,
    read_int,
    read_str,
    read_str_list,
)

OK_CASES = [
    ('{"score": 4}', {"score": 4}),
    ('  {"score": 4, "comment": "fine"}\n', {"score": 4, "comment": "fine"}),
    ('```json\n{"score": 3}\n```', {"score": 3}),
    ('```\n{"score": 3}\n```\nHope this helps!', {"score": 3}),
    (
        'Sure! Here is my rating:\n{"reason": "clear {title} text", "score": 5}\nThanks.',
        {"reason": "clear {title} text", "score": 5},
    ),
    ("{'score': 2, 'comment': 'ok'}", {"score": 2, "comment": "ok"}),
    ('{"score": 2,}', {"score": 2}),
    ('{"answer": "B"} and again {"answer": "B"}', {"answer": "B"}),
    (
        '||V^=^V||\n"harmonization_score" : [7], "alignment_score" : [6], "reasoning" : "fine"\n||V^=^V||',
        {"harmonization_score": [7], "alignment_score": [6], "reasoning": "fine"},
    ),
    ('||Vˆ=ˆV|| {"score": 8} ||Vˆ=ˆV||', {"score": 8}),
    ('{"a": {"b": [1, 2]}, "c": "}{"}', {"a": {"b": [1, 2]}, "c": "}{"}),
]

BAD_CASES = [
    None,
    "",
    "   ",
    "The poster is beautiful, I'd say 4.",
    '{"score": 4} {"score": 5}',  # two different objects: never pick one
    '```json\n{"score": 4}\n``` or maybe ```json\n{"score": 2}\n```',
    '{"score": 4',  # truncated
    "[1, 2, 3]",
    "||V^=^V|| not json at all ||V^=^V||",
]


@pytest.mark.parametrize(("text", "expected"), OK_CASES)
def test_extract_json_reads_the_wrappings_models_use(text, expected):
    r = extract_json(text)
    assert r.ok and r.value == expected


@pytest.mark.parametrize("text", BAD_CASES)
def test_extract_json_never_guesses(text):
    r = extract_json(text)
    assert not r.ok and r.value is None and r.error


@pytest.mark.parametrize(
    ("value", "expected"),
    [(4, 4), (4.0, 4), ("4", 4), (" 5 ", 5), ([7], 7), ("3.0", 3), (1, 1)],
)
def test_read_int_accepts_integers_in_their_common_spellings(value, expected):
    assert read_int({"score": value}, ["score"], 1, 10).value == expected


@pytest.mark.parametrize("value", [4.5, "4.5", True, None, "four", [4, 5], {"v": 4}, 0, 11, -1, "1e1"])
def test_read_int_rejects_everything_else(value):
    r = read_int({"score": value}, ["score"], 1, 10)
    assert not r.ok and r.value is None


def test_read_int_uses_the_first_key_present_case_insensitively():
    assert read_int({"Aesthetic_Score": 2, "score": 5}, ["aesthetic_score", "score"], 1, 5).value == 2
    assert not read_int({"other": 2}, ["score"], 1, 5).ok


@pytest.mark.parametrize("value", ["B", "b", "(B)", " B. ", "Image B", "Option B", "poster b", "**B**"])
def test_read_choice_spellings(value):
    assert read_choice({"preferred": value}, ["preferred"], "AB").value == "B"


@pytest.mark.parametrize("value", ["C", "AB", "A or B", "", 1, None, "Both"])
def test_read_choice_rejects(value):
    assert not read_choice({"preferred": value}, ["preferred"], "AB").ok


def test_other_readers():
    assert read_str({"title": "  Le Voyage  "}, ["title"]).value == "Le Voyage"
    assert read_str({"title": ""}, ["title"]).value == ""
    assert read_str({"title": None}, ["title"]).value == ""
    assert not read_str({"title": 3}, ["title"]).ok
    assert not read_str({"title": ""}, ["title"], allow_empty=False).ok
    assert read_bool({"covered": True}, ["covered"]).value is True
    assert read_bool({"covered": "No."}, ["covered"]).value is False
    assert not read_bool({"covered": "maybe"}, ["covered"]).ok
    assert not read_bool({"covered": 1}, ["covered"]).ok
    assert read_str_list({"objects": ["cup", " tea ", "cup", ""]}, ["objects"]).value == ["cup", "tea"]
    assert not read_str_list({"objects": "cup, tea"}, ["objects"]).ok


def test_refusal_detection():
    assert looks_like_refusal("I'm sorry, but I can't evaluate this image.")
    assert looks_like_refusal("I cannot help with that request.")
    assert not looks_like_refusal('{"score": 3}')
    assert not looks_like_refusal("The poster is sorry-looking.")
    assert not looks_like_refusal(None)


# ---------------------------------------------------------------------- properties
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(max_size=20))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=10), json_values, min_size=1, max_size=5)
prose = st.text(alphabet=st.characters(blacklist_characters="{}`|"), max_size=60)


@given(st.text(max_size=400))
def test_extract_json_never_raises(text):
    r = extract_json(text)
    assert r.ok == (r.value is not None) and (r.ok or r.error)
    if r.ok:
        assert isinstance(r.value, dict)


@given(json_objects, prose, prose, st.sampled_from(["plain", "fence", "fence-lang", "delim"]))
def test_an_object_wrapped_in_prose_is_found_exactly(obj, before, after, wrap):
    body = json.dumps(obj, ensure_ascii=False)
    if wrap == "fence":
        body = f"```\n{body}\n```"
    elif wrap == "fence-lang":
        body = f"```json\n{body}\n```"
    elif wrap == "delim":
        body = f"||V^=^V||\n{body}\n||V^=^V||"
    r = extract_json(f"{before}\n{body}\n{after}")
    assert r.ok and r.value == obj


@given(json_objects, json_objects, prose)
def test_two_different_objects_are_never_resolved(a, b, between):
    if a == b:
        return
    r = extract_json(json.dumps(a) + "\n" + between + "\n" + json.dumps(b))
    assert not r.ok


@given(json_values, st.integers(-5, 5), st.integers(0, 10))
def test_read_int_only_returns_integers_on_the_scale(value, low, span):
    r = read_int({"score": value}, ["score"], low, low + span)
    if r.ok:
        assert isinstance(r.value, int) and not isinstance(r.value, bool) and low <= r.value <= low + span
    else:
        assert r.value is None


@given(json_values)
def test_read_choice_only_returns_an_option(value):
    r = read_choice({"answer": value}, ["answer"], "ABCD")
    assert (r.ok and r.value in "ABCD" and len(r.value) == 1) or (not r.ok and r.value is None)


@given(json_values)
def test_other_readers_never_raise(value):
    obj = {"k": value}
    for r in (read_str(obj, ["k"]), read_bool(obj, ["k"]), read_str_list(obj, ["k"])):
        assert r.ok or r.value is None


# ---------------------------------------------------------------------- review 11: never pick one of several
@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"score": 2}\n```\nOn reflection the final answer is {"score": 5}',  # fenced vs prose
        '{"score": 2}\n```json\n{"score": 5}\n```',
        '||V^=^V|| "score": 2 ||V^=^V|| then ||V^=^V|| "score": 5 ||V^=^V||',  # two delimited blocks
        '||V^=^V|| "score": 2 ||V^=^V|| but really {"score": 5}',
        '||V^=^V|| "score": 2 ||V^=^V|| "score": 5 ||V^=^V||',  # unpaired delimiters
        '{"score": 2, "score": 5}',  # a key twice (JSON keeps the last)
        "{'score': 2, 'score': 5}",  # a key twice (Python literal)
        'I think {"score": 2, "score": 2, "score": 5}',
    ],
)
def test_extract_json_refuses_answers_holding_two_answers(text):
    r = extract_json(text)
    assert not r.ok and r.value is None and r.error


def test_the_same_object_twice_is_one_answer():
    assert extract_json('```json\n{"score": 3}\n```\nSo: {"score": 3}').value == {"score": 3}
    assert extract_json('||V^=^V|| "score": 3 ||V^=^V|| ||V^=^V|| "score": 3 ||V^=^V||').value == {"score": 3}


def test_a_key_written_in_two_cases_with_different_values_is_unreadable():
    assert not read_int({"Score": 2, "score": 5}, ["score"], 1, 5).ok
    assert not read_choice({"Answer": "A", "answer ": "B"}, ["answer"], "AB").ok
    assert read_int({"Score": 4, "score": 4}, ["score"], 1, 5).value == 4  # the same value twice is fine


@pytest.mark.parametrize("value", ["9" * 400, "-" + "9" * 400, "9" * 31, "1" * 400 + ".0"])
def test_read_int_on_huge_digit_strings_is_a_failure_not_an_exception(value):
    r = read_int({"score": value}, ["score"], 1, 5)
    assert not r.ok and r.value is None and len(r.error) < 200


@pytest.mark.parametrize(
    ("text", "expected"),
    [("B", "B"), ("b", "B"), ("(B)", "B"), ("**B**", "B"), ("B.", "B"), ("Answer: B", "B"), ("The answer is C", "C")],
)
def test_read_bare_reads_an_answer_that_is_only_the_word(text, expected):
    assert read_bare(text, {c: c for c in "ABCD"}, prefixes=("the answer", "answer")).value == expected


@pytest.mark.parametrize(
    "text",
    [
        "It is definitely not B.",
        "Not A.",
        "I would rule out C",
        "could be A or B",
        "B or C",
        "A, B",
        "Answer: not B",
        "",
    ],
)
def test_read_bare_reads_nothing_from_prose(text):
    r = read_bare(text, {c: c for c in "ABCD"}, prefixes=("the answer", "answer"))
    assert not r.ok and r.value is None
