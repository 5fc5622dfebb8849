"""Edge cases for every judge metric: an empty batch, a single item, constant inputs (one call
for identical requests); and the metric-specific answer readers fuzzed."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests._helpers.comet_env import registry_params
from tests.judge.cases import CASES, answer, call
from transcreval.errors import InputError
from transcreval.functional.judge.csi_overlap import read_matches, read_objects, read_replacements
from transcreval.functional.judge.quiz_hit_rate import read_quiz_answer
from transcreval.judge import FunctionJudge


@pytest.mark.parametrize("name", registry_params(sorted(CASES)))
def test_single_item(name):
    factory, args, value = CASES[name]
    r = call(factory(FunctionJudge(answer)), args(1))
    assert value is None or r.value == pytest.approx(value)
    assert r.n == 1 and r.extras["n_failed"] == 0


@pytest.mark.parametrize("name", registry_params(sorted(CASES)))
def test_constant_inputs_make_one_call_per_distinct_request(name):
    factory, args, value = CASES[name]
    calls = []
    judge = FunctionJudge(lambda r: (calls.append(r.template_id), answer(r))[1])
    r1 = call(factory(judge), args(1))
    n1 = len(calls)
    calls.clear()
    r5 = call(factory(judge), args(5))
    assert r5.value == pytest.approx(r1.value) and r5.n == 5
    assert value is None or r1.value == pytest.approx(value)
    assert len(calls) == n1  # five identical items cost what one does


@pytest.mark.parametrize("name", registry_params(sorted(CASES)))
def test_empty_batch_is_a_clear_error(name):
    factory, args, _ = CASES[name]
    with pytest.raises(InputError, match=r"empty|no items|at least one"):
        call(factory(FunctionJudge(answer)), args(0))


# ---------------------------------------------------------------------- the readers, fuzzed
text = st.text(max_size=300)


@given(text)
def test_objects_reader_never_raises(t):
    r = read_objects(t)
    assert (r.ok and all(isinstance(x, str) and x for x in r.value)) or (not r.ok and r.value is None)


@given(st.dictionaries(st.text(max_size=10), st.lists(st.text(max_size=10), max_size=4) | st.text(max_size=5)))
def test_replacements_reader_only_returns_lists_of_strings(obj):
    r = read_replacements(json.dumps(obj))
    if r.ok:
        assert all(isinstance(k, str) and all(isinstance(x, str) for x in v) for k, v in r.value.items())
    else:
        assert r.value is None


@given(
    text, st.lists(st.text(min_size=1, max_size=8), max_size=4), st.lists(st.text(min_size=1, max_size=8), max_size=4)
)
def test_matches_reader_only_returns_items_of_list_1(t, l1, l2):
    from transcreval.functional.judge.csi_overlap import normalise_name

    r = read_matches(l1, l2)(t)
    assert (r.ok and r.value <= {normalise_name(x) for x in l1}) or (not r.ok and r.value is None)


@given(text)
def test_quiz_reader_only_returns_a_letter_shown(t):
    r = read_quiz_answer("ABCD")(t)
    assert (r.ok and r.value in ("A", "B", "C", "D")) or (not r.ok and r.value is None)


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("VLMTranscreationScore", [{"aspect": a} for a in ("intent", "creativity", "cultural")]),
        ("JudgeScore", [{"aspect": a} for a in ("aesthetic", "adaptation")]),
        ("HarmonizationScore", [{"combine": c} for c in ("naturalness", "min", "mean")]),
    ],
)
def test_the_registry_direction_is_every_instances_direction_or_none(name, options):
    """The registry (and the docs' facts table) may only claim a direction that every instance
    has; VLMTranscreationScore(aspect="creativity") has none, so the metric's entry is None."""
    from transcreval.core.registry import get_metric

    info = get_metric(name)
    directions = {info.load()(judge=FunctionJudge(answer), **o).higher_is_better for o in options}
    assert info.higher_is_better == (directions.pop() if len(directions) == 1 else None)
    assert info.load().higher_is_better == info.higher_is_better
