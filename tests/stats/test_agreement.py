"""judge_agreement (transcreval.stats): accuracy, Cohen's kappa and QWK against scikit-learn and
by hand, per label and overall, the seeded bootstrap, and every bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score, recall_score

from transcreval.errors import EmptyInputError, InputError
from transcreval.stats import judge_agreement


def test_verdicts_by_hand():
    # 4 of 6 agree; each side says yes 3 times: p_e = 1/2, kappa = (2/3 - 1/2) / (1/2) = 1/3
    judge = ["yes", "no", "yes", "yes", "no", "no"]
    human = ["yes", "no", "no", "yes", "no", "yes"]
    got = judge_agreement(judge, human, bootstrap=0)
    assert got.kind == "labels" and got.labels == ("no", "yes") and got.n == 6
    assert got.accuracy.value == pytest.approx(4 / 6)
    assert got.kappa.value == pytest.approx(1 / 3)
    assert got.qwk is None
    # humans said yes on items 0, 3, 5; the judge agreed on 0 and 3
    assert got.per_label["yes"]["accuracy"].value == pytest.approx(2 / 3)
    assert got.per_label["yes"]["accuracy"].n == 3
    assert got.counts == {"no": (3, 3), "yes": (3, 3)}
    assert got.accuracy.ci is None


def test_scores_by_hand():
    # O has (1,1), (2,3), (3,3); judge marginals 1,1,1; human 1,0,2.
    # sum W*O = 1/4, sum W*E = 2/3 + 1/4 + 1/3 = 5/4: QWK = 1 - 1/5 = 0.8
    # plain: p_o = 2/3, p_e = (1*1 + 1*0 + 1*2) / 9 = 1/3: kappa = 0.5
    got = judge_agreement([1, 2, 3], [1, 3, 3], bootstrap=0)
    assert got.kind == "scores" and got.labels == (1, 2, 3)
    assert got.qwk is not None and got.qwk.value == pytest.approx(0.8)
    assert got.kappa.value == pytest.approx(0.5)
    assert got.accuracy.value == pytest.approx(2 / 3)
    # nobody rated 2: its recall is undefined and says why
    assert got.per_label[2]["accuracy"].value is None
    assert "no item" in got.per_label[2]["accuracy"].note
    assert "2 accuracy: no item" in str(got)


def test_the_whole_scale_changes_qwk_positions():
    # seen labels {1, 4, 5} sit at positions 0, 1, 2; on the scale 1-5 they sit at 0, 3, 4
    j, h = [1, 4, 5, 5], [4, 4, 5, 1]
    seen = judge_agreement(j, h, bootstrap=0)
    scale = judge_agreement(j, h, labels=[1, 2, 3, 4, 5], bootstrap=0)
    assert seen.qwk.value == pytest.approx(cohen_kappa_score(j, h, weights="quadratic"))
    assert scale.qwk.value == pytest.approx(cohen_kappa_score(j, h, weights="quadratic", labels=[1, 2, 3, 4, 5]))
    assert seen.qwk.value != pytest.approx(scale.qwk.value)


@pytest.mark.filterwarnings("ignore:.*cohen_kappa_score. is undefined")  # sklearn's NaN cases, compared below
@settings(max_examples=80, deadline=None)
@given(st.data())
def test_agrees_with_sklearn(data):
    j = data.draw(st.lists(st.integers(1, 5), min_size=2, max_size=30))
    h = data.draw(st.lists(st.integers(1, 5), min_size=len(j), max_size=len(j)))
    got = judge_agreement(j, h, labels=[1, 2, 3, 4, 5], bootstrap=0)
    assert got.accuracy.value == pytest.approx(np.mean(np.array(j) == np.array(h)))
    for name, weights in (("kappa", None), ("qwk", "quadratic")):
        ref = cohen_kappa_score(j, h, weights=weights, labels=[1, 2, 3, 4, 5])
        value = got.overall[name].value
        if np.isnan(ref):
            assert value is None and "undefined" in got.overall[name].note
        else:
            assert value == pytest.approx(ref, abs=1e-12)
    for lab in range(1, 6):
        jb, hb = [int(v == lab) for v in j], [int(v == lab) for v in h]
        ref = cohen_kappa_score(jb, hb) if len(set(jb) | set(hb)) > 1 else math.nan
        one = got.per_label[lab]["kappa"].value
        assert (one is None) if np.isnan(ref) else one == pytest.approx(ref, abs=1e-12)
        if lab in h:
            assert got.per_label[lab]["accuracy"].value == pytest.approx(
                recall_score(h, j, labels=[lab], average="macro", zero_division=0)
            )


def test_string_verdicts_agree_with_sklearn():
    rng = np.random.default_rng(3)
    h = rng.choice(["A", "B", "C", "D"], 40).tolist()
    j = [v if rng.random() < 0.7 else str(rng.choice(["A", "B", "C", "D"])) for v in h]
    got = judge_agreement(j, h, bootstrap=0)
    assert got.kappa.value == pytest.approx(cohen_kappa_score(j, h), abs=1e-12)


def test_bootstrap_is_seeded_and_matches_the_percentiles_by_hand():
    j = ["yes", "no", "yes", "yes", "no", "no", "yes", "no", "yes", "yes"]
    h = ["yes", "no", "no", "yes", "no", "yes", "yes", "no", "yes", "no"]
    a = judge_agreement(j, h, bootstrap=300, seed=7)
    assert a.accuracy.ci == judge_agreement(j, h, bootstrap=300, seed=7).accuracy.ci
    other = judge_agreement(j, h, bootstrap=300, seed=8)
    assert (a.accuracy.ci, a.kappa.ci) != (other.accuracy.ci, other.kappa.ci)
    rng = np.random.default_rng(7)
    eq = np.array(j) == np.array(h)
    accs = [eq[rng.integers(0, 10, 10)].mean() for _ in range(300)]
    assert a.accuracy.ci == pytest.approx(tuple(np.quantile(accs, [0.025, 0.975])))
    assert a.accuracy.ci[0] <= a.accuracy.value <= a.accuracy.ci[1]
    assert a.to_dict()["overall"]["accuracy"]["ci"] == list(a.accuracy.ci)


def test_mappings_join_by_item_id():
    got = judge_agreement({"b": "no", "a": "yes"}, {"a": "yes", "b": "yes"}, bootstrap=0)
    assert got.accuracy.value == 0.5 and got.n == 2
    with pytest.raises(InputError, match=r"different items.*\['c'\]"):
        judge_agreement({"a": 1, "c": 2}, {"a": 1, "b": 2})
    with pytest.raises(InputError, match="both mappings"):
        judge_agreement({"a": 1}, [1])


def test_undefined_kappa_is_named_not_nan():
    got = judge_agreement(["yes"] * 4, ["yes"] * 4, bootstrap=50)
    assert got.accuracy.value == 1.0
    assert got.kappa.value is None and "undefined" in got.kappa.note
    assert "both sides give the same single label" in got.kappa.note  # chance agreement 1, not "one side"
    assert math.isnan(float(got.kappa))
    assert got.kappa.ci is None and got.kappa.bootstrap_dropped == 50


def test_kappa_is_defined_when_only_one_side_gives_a_single_label():
    # the judge always says yes, the humans vary: p_e = 1 * 2/4 = 1/2 < 1, p_o = 1/2, kappa = 0
    got = judge_agreement(["yes"] * 4, ["yes", "no", "yes", "no"], bootstrap=0)
    assert got.kappa.value == 0.0 and got.kappa.note == ""
    assert got.kappa.value == pytest.approx(cohen_kappa_score(["yes"] * 4, ["yes", "no", "yes", "no"]))


@pytest.mark.parametrize(
    ("judge", "human", "kwargs", "match"),
    [
        ([1, 2, 3], [1, 2], {}, "mismatched lengths: judge has 3 values, human 2"),
        ([], [], {}, "no items"),
        ([1, float("nan"), 3], [1, 2, 3], {}, r"judge item 1 is missing .*missing='drop'"),
        (["yes", None], ["yes", "no"], {}, "judge item 1 is missing"),
        (["Yes", "No"], ["yes", "no"], {}, "share none"),
        ([1, 0], ["yes", "no"], {}, "label set mismatch"),
        ([1, 2, 7], [1, 2, 3], {"labels": [1, 2, 3, 4, 5]}, r"judge uses label\(s\) \[7\]"),
        (["yes", "no"], ["yes", "maybe"], {"labels": ["yes", "no"]}, r"human uses label\(s\) \['maybe'\]"),
        (["a", "b"], ["a", "b"], {"kind": "scores"}, "not a finite number"),
        ([1, 2], [1, 2], {"kind": "ordinal"}, "kind"),
        ([1, 2], [1, 2], {"missing": "skip"}, "missing"),
        ([1, 2], [1, 2], {"bootstrap": -1}, "bootstrap"),
        ("yes", "no", {}, "single string"),
    ],
)
def test_bad_input_is_a_clear_error(judge, human, kwargs, match):
    with pytest.raises(InputError, match=match):
        judge_agreement(judge, human, **kwargs)


def test_missing_drop_counts_what_it_leaves_out():
    got = judge_agreement([1, None, 3, 4], [1, 2, float("nan"), 4], missing="drop", bootstrap=0)
    assert got.n == 2 and got.n_dropped == 2 and got.accuracy.value == 1.0
    assert "2 item(s) with a missing value left out" in str(got)
    with pytest.raises(EmptyInputError, match="all 1 items"):
        judge_agreement([None], [1], missing="drop")


def test_bools_mixed_with_numbers_are_refused_not_merged():
    # True == 1 in Python: read as one label, the judge's True and the human's 1 would agree
    with pytest.raises(InputError, match=r"mix True/False with numbers"):
        judge_agreement([True, False, True], [1, 0, 0], bootstrap=0)
    assert judge_agreement([True, False, True], [True, False, False], bootstrap=0).overall["accuracy"].value == 2 / 3
