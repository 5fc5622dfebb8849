"""PointScore (transcreval.choice.point_score): PosterIQ's point coverage in both modes
(hand-worked), unreadable verdicts, the harness.
"""

from __future__ import annotations

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import (
    PointScore,
)
from transcreval.functional import (
    point_score,
    point_score_per_point,
)

CODE = "posteriq-code"


def test_point_score():
    v = [["Yes", "Yes"], ["Yes", "No"], ["yes."]]
    assert point_score(v).value == pytest.approx(2 / 3)  # paper: images with every point covered
    assert point_score_per_point(v) == pytest.approx((1 + 0.5 + 1) / 3)
    # code (understanding): "Yes" substring, case-sensitive: "yes." fails -> (1 + .5 + 0) / 3
    assert point_score(v, mode=CODE).value == pytest.approx(0.5)
    assert point_score(v, mode=CODE, code_yes="exact").value == pytest.approx(0.5)  # "yes." != "yes"
    assert point_score([[True, True], [False]]).value == 0.5
    # an unreadable verdict reads as "not covered" by default (the poster was
    # left out before, 1.0, as on_unreadable="drop" still does)
    m = PointScore()
    m.update([["Yes", "maybe"], ["Yes"]])
    res = m.compute()
    assert res.value == 0.5 and res.extras["n_unparsable"] == 1 and res.extras["per_point"] == 0.75
    m = PointScore(on_unreadable="drop")
    m.update([["Yes", "maybe"], ["Yes"]])
    res = m.compute()
    assert res.value == 1.0 and res.extras["n_unparsable"] == 1


@pytest.mark.ddp
def test_point_score_class_harness(ddp_pool):
    verdicts = [[True, True], [True, False], [True], [False, False], [True, True, True]]
    batches = [(verdicts[:2],), (verdicts[2:4],), (verdicts[4:],)]
    check_metric(
        MetricCase(
            partial(PointScore),
            point_score,
            lambda v: sum(all(x) for x in v) / len(v),
            batches,
            join_lists,
            atol=1e-12,
            extras_keys=("per_point", "n_unparsable"),
        ),
        ddp_pool,
    )
