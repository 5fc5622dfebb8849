"""K-option score: the PosterIQ formula, per-k aggregation, PosterIQ-code mode, bad input."""

from __future__ import annotations

import pytest
import torch

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import KOptionScore
from transcreval.errors import EmptyInputError, InputError
from transcreval.functional import k_option_score


def _formula(correct, k, clamp=True):
    """Direct formula: group by k, max(0, (k a - 1)/(k - 1)), mean over groups."""
    ks = [k] * len(correct) if isinstance(k, int) else list(k)
    groups = {}
    for c, kk in zip(correct, ks):
        groups.setdefault(int(kk), []).append(float(c))
    scores = []
    for kk, cs in groups.items():
        a = sum(cs) / len(cs)
        s = (kk * a - 1) / (kk - 1)
        scores.append(max(0.0, s) if clamp else s)
    return sum(scores) / len(scores)


def test_known_values():
    assert k_option_score([1, 1, 1, 1], k=4).value == 1.0
    assert k_option_score([1, 0, 0, 0], k=4).value == 0.0  # chance level
    assert k_option_score([1, 1, 0, 0], k=4).value == pytest.approx((4 * 0.5 - 1) / 3)
    assert k_option_score([0] * 10, k=4).value == 0.0
    # PosterIQ's code does not clamp: 10% accuracy on 4 options is -0.2 (docs/posteriq-paper-vs-code.md)
    assert k_option_score([1] + [0] * 9, k=4, clamp=False).value == pytest.approx(-0.2)
    assert k_option_score([True, False], k=2).value == 0.0


def test_per_k_groups_are_averaged_with_equal_weight():
    correct = [1, 1, 0, 1, 0, 0, 0]
    ks = [2, 2, 2, 9, 9, 9, 9]
    a2, a9 = 2 / 3, 1 / 4
    expected = (max(0, (2 * a2 - 1) / 1) + max(0, (9 * a9 - 1) / 8)) / 2
    assert k_option_score(correct, k=ks).value == pytest.approx(expected)
    assert k_option_score(correct, k=torch.tensor(ks)).value == pytest.approx(_formula(correct, ks))


def test_single_item_and_ties():
    assert k_option_score([1], k=3).value == 1.0
    assert k_option_score([0], k=3).value == 0.0


def test_bad_inputs():
    with pytest.raises(EmptyInputError):
        k_option_score([], k=4)
    with pytest.raises(InputError, match="at least 2"):
        k_option_score([1], k=1)
    with pytest.raises(InputError, match="0/1"):
        k_option_score([0.5], k=4)
    with pytest.raises(InputError, match="NaN"):
        k_option_score([float("nan")], k=4)
    with pytest.raises(InputError, match="mismatched lengths"):
        k_option_score([1, 0], k=[4])
    with pytest.raises(InputError, match="integer"):
        k_option_score([1], k=[2.5])
    with pytest.raises(InputError, match="max_k"):
        k_option_score([1], k=100)
    with pytest.raises(InputError, match="string"):
        k_option_score("1010", k=4)
    with pytest.raises(InputError, match="needs k"):
        KOptionScore().update([1, 0])


# update(preds, target, k): per-item correctness in preds (no target), the options per item in k
BATCHES = [
    ([1, 0, 1, 1, 0], None, [4, 4, 9, 9, 2]),
    ([0, 0, 1, 1, 1], None, [4, 9, 9, 2, 2]),
    ([1, 0], None, [4, 2]),
]


@pytest.mark.ddp
@pytest.mark.parametrize("clamp", [True, False])
def test_k_option_class_harness(ddp_pool, clamp):
    case = MetricCase(
        factory=partial(KOptionScore, clamp=clamp),
        functional=lambda c, t, k: k_option_score(c, t, k=k, clamp=clamp),
        reference=lambda c, t, k: _formula(c, k, clamp=clamp),
        batches=BATCHES,
        join=join_lists,
        atol=1e-12,
        exact_value=True,
        extras_keys=("per_k",),
    )
    check_metric(case, ddp_pool)


def test_constructor_k_and_extras():
    m = KOptionScore(k=4)
    m.update([1, 1, 0, 0])
    res = m.compute()
    assert res.extras["per_k"] == {4: pytest.approx(1 / 3)}
    assert res.n == 4
    assert str(res).startswith("KOptionScore|k:4|clamp:yes|unreadable:zero|v:")


def test_chosen_options_against_correct_ones():
    # preds = the options the model chose, target = the correct ones (None = no answer: wrong)
    assert k_option_score(["A", "b ", None, "D"], ["A", "B", "C", "C"], k=4).value == pytest.approx((4 * 0.5 - 1) / 3)
    m = KOptionScore(k=4)
    m.update(preds=["A", "B"], target=["A", "C"])
    assert m.compute().value == pytest.approx(k_option_score(["A", "B"], ["A", "C"], k=4).value)


def test_confusing_inputs_get_clear_errors():
    with pytest.raises(InputError, match="target"):
        k_option_score(["A", "B"], k=4)  # letters without the correct options
    with pytest.raises(InputError, match="preds"):
        k_option_score([None, True], k=4)
    with pytest.raises(InputError, match="mismatched"):
        k_option_score(["A"], ["A", "B"], k=4)
    with pytest.raises(InputError, match="meta"):
        k_option_score(torch.empty(2, device="meta"), k=4)
    with pytest.raises(InputError, match="k must"):
        KOptionScore(k=1)


def test_an_answer_or_correct_option_outside_the_k_options_is_refused():
    """An answer of 7 with k=4 (or "E") was silently scored as a wrong answer."""
    with pytest.raises(InputError, match=r"preds\[0\] is 7, not one of the 4 options"):
        k_option_score([7, 1], [1, 1], k=4)
    with pytest.raises(InputError, match=r"preds\[0\] is 'E', not one of the 4 options \(A-D"):
        KOptionScore(k=4).update(["E", "A"], ["A", "A"])
    with pytest.raises(InputError, match=r"target\[1\] is 'F'"):
        k_option_score(["A", "B"], ["A", "F"], k=[4, 4])
    with pytest.raises(InputError, match=r"preds\[1\] is 'C'.*2 options"):
        k_option_score(["A", "C"], ["A", "B"], k=[4, 2])  # the per-item k decides
    with pytest.raises(InputError, match="0-based and 1-based"):
        k_option_score([0, 4], [1, 4], k=4)
    with pytest.raises(InputError, match="not one of the 4 options"):
        k_option_score(["I think B"], ["B"], k=4)
    # the options themselves, None (no answer: wrong), both index conventions, case and spaces
    assert k_option_score([" b", None, "c"], ["B", "A", "C"], k=4).value == pytest.approx((4 * 2 / 3 - 1) / 3)
    assert (
        k_option_score([0, 3], [0, 2], k=4).value == k_option_score([1, 4], [1, 3], k=4).value == pytest.approx(1 / 3)
    )
    assert k_option_score([1.0, 2], [1, 2], k=3).value == 1.0
