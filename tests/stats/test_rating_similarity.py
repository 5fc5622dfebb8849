"""OverallRatingSimilarity (transcreval.stats.rating_similarity): PosterIQ's rating similarity in
both modes (hand-worked, against Pearson's r written out), zero spread, the harness.
"""

from __future__ import annotations

import math

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import (
    OverallRatingSimilarity,
)
from transcreval.errors import UndefinedValueError, UndefinedValueWarning
from transcreval.functional import (
    overall_rating_similarity,
)

CODE = "posteriq-code"


def test_overall_rating_similarity():
    assert overall_rating_similarity([1, 2, 3, 4], [2, 4, 6, 8]).value == pytest.approx(1.0)
    assert overall_rating_similarity([1, 2, 3, 4], [8, 6, 4, 2]).value == pytest.approx(-1.0)
    human, answers = (
        [1, 2, 3, 4, 5],
        ["8/10", "Score: 12, then 8", "7", "6 points", "I rate it 9 (out of 10, where 7 is average)"],
    )
    # paper: "Score: 12" is out of range and the last answer is ambiguous: pairs (1,8) (3,7) (4,6)
    assert overall_rating_similarity(answers, human).value == pytest.approx(_pearson([1, 3, 4], [8, 7, 6]))
    # code: the last answer reads as 9 (first bare number in range): pairs (1,8) (3,7) (4,6) (5,9)
    assert overall_rating_similarity(answers, human, mode=CODE).value == pytest.approx(
        _pearson([1, 3, 4, 5], [8, 7, 6, 9])
    )
    # zero spread: the cosine is undefined, never a made-up 0.0
    with pytest.raises(UndefinedValueError, match="zero spread"):
        overall_rating_similarity([1, 2, 3], [5, 5, 5])
    m = OverallRatingSimilarity()
    m.update(preds=[5, 5, "n/a"], target=[1, 2, 3])
    with pytest.raises(UndefinedValueError, match="zero spread"):
        m.compute()
    with pytest.warns(UndefinedValueWarning):
        assert OverallRatingSimilarity().forward(preds=[5, 5], target=[1, 2]).defined is False


def _pearson(x, y):
    mx, my = sum(x) / len(x), sum(y) / len(y)
    cx, cy = [a - mx for a in x], [b - my for b in y]
    return sum(a * b for a, b in zip(cx, cy)) / math.sqrt(sum(a * a for a in cx) * sum(b * b for b in cy))


@pytest.mark.ddp
def test_overall_rating_class_harness(ddp_pool):
    human = [7.0, 3.0, 5.5, 8.0, 2.0, 6.0, 9.0, 1.0]
    model = [6.0, 4.0, 5.0, 9.0, 3.0, 5.0, 8.5, 2.5]
    batches = [(model[:3], human[:3]), (model[3:6], human[3:6]), (model[6:], human[6:])]
    check_metric(
        MetricCase(
            partial(OverallRatingSimilarity),
            overall_rating_similarity,
            _pearson,
            batches,
            join_lists,
            atol=1e-12,
            extras_keys=("n_unparsable", "zero_spread"),
        ),
        ddp_pool,
    )
