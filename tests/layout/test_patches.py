"""PatchIoU, MatchAccuracy (transcreval.layout.patches): PosterIQ's empty-space patches in both
modes (hand-worked), unreadable answers, the harness.
"""

from __future__ import annotations

import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import (
    MatchAccuracy,
    PatchIoU,
)
from transcreval.errors import InputError
from transcreval.functional import (
    match_accuracy,
    patch_iou,
)

CODE = "posteriq-code"


def test_patch_iou_and_match_accuracy():
    assert patch_iou([[3, 4, 10], []], [[3, 4, 5], []]).value == pytest.approx((2 / 4 + 1) / 2)
    assert patch_iou(["I pick [3, 4, 10]"], [[3, 4, 5]]).value == pytest.approx(0.5)
    # duplicates: the paper counts distinct patches, the code counts list entries
    assert match_accuracy([[3, 3, 4]], [3]).value == 0.0
    assert match_accuracy([[3, 3, 4]], [3], mode=CODE).value == 1.0
    # "3.0" is not an int for the code's int(): its script crashes; we count it unparsable and
    # score it 0 (default earlier item 4; (1.0, 1, 1) with on_unreadable="drop")
    m = PatchIoU(mode=CODE)
    m.update(["[3.0, 4]", "[3, 4]"], [[3, 4], [3, 4]])
    res = m.compute()
    assert (res.value, res.n, res.extras["n_unparsable"]) == (0.5, 2, 1)
    m = PatchIoU(mode=CODE, on_unreadable="drop")
    m.update(["[3.0, 4]", "[3, 4]"], [[3, 4], [3, 4]])
    res = m.compute()
    assert (res.value, res.n, res.extras["n_unparsable"]) == (1.0, 1, 1)
    with pytest.raises(InputError, match=r"0\.\.48"):
        patch_iou([[49]], [[1]])


@pytest.mark.ddp
def test_patch_classes_harness(ddp_pool):
    preds = [[3, 4, 10], [], [1, 2], [5, 5, 6], [7]]
    gts = [[3, 4, 5], [], [1, 2], [5, 6], [8]]
    batches = [(preds[:2], gts[:2]), (preds[2:4], gts[2:4]), (preds[4:], gts[4:])]

    def ref_iou(p, g):
        v = [len(set(a) & set(b)) / len(set(a) | set(b)) if set(a) | set(b) else 1.0 for a, b in zip(p, g)]
        return sum(v) / len(v)

    check_metric(MetricCase(partial(PatchIoU), patch_iou, ref_iou, batches, join_lists, atol=1e-12), ddp_pool)
    counts = [(p, [len(g) for g in gs]) for p, gs in batches]
    check_metric(
        MetricCase(
            partial(MatchAccuracy),
            match_accuracy,
            lambda p, n: sum(len(set(a)) == k for a, k in zip(p, n)) / len(p),
            counts,
            join_lists,
            atol=1e-12,
        ),
        ddp_pool,
    )
