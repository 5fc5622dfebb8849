"""Bad inputs that let a raw ValueError/TypeError escape, or a wrong number through: each is now
an InputError saying what was wrong, or the right value."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from transcreval import (
    FontRichness,
    FontSizeStability,
    MatchAccuracy,
    OverallRatingSimilarity,
    PatchIoU,
    SegmentKendallTau,
)
from transcreval.errors import InputError


@pytest.mark.parametrize("bad", [math.nan, math.inf, 2.5])
def test_patch_ids_that_are_not_integers(bad):
    with pytest.raises(InputError, match="patch ids must be integers"):
        PatchIoU()([[1, bad]], [[1, 2]])
    with pytest.raises(InputError, match="patch ids must be integers"):
        MatchAccuracy()([[1, bad]], [2])
    assert PatchIoU()([[1, 2.0]], [[1, 2]]).value == 1.0  # a whole float is an id


def test_text_passed_to_segment_kendall_tau():
    with pytest.raises(InputError, match="preds must hold numbers"):
        SegmentKendallTau()(["a", "b", "c"], [1.0, 2.0, 3.0], ["s", "s", "s"])
    m = SegmentKendallTau()
    m.update([1.0, None, 3.0], [1.0, 2.0, 3.0], ["s"] * 3)  # None still marks an unparsable score
    m.update([1.0, 2.0, 3.0], [1.0, 2.0, 3.5], ["t"] * 3)
    assert m.compute().value == 1.0


@pytest.mark.parametrize("sizes", [["big", "small", "big"], [[12], [10], [12]], [True, 10, 12], [b"12", 10, 12]])
def test_font_sizes_that_are_not_numbers(sizes):
    with pytest.raises(InputError, match=r"font_sizes\[0\] must be a positive number"):
        FontSizeStability()(["abcde"] * 3, ["abcde"] * 3, sizes)


def test_nested_font_richness_lists():
    m = FontRichness(vocabulary=["bold", "serif"])
    with pytest.raises(InputError, match=r"preds\[0\]\[0\] must be an attribute name \(a string\), got list"):
        m([[["bold"]], ["serif"]])
    with pytest.raises(InputError, match=r"preds\[1\]\[1\].*got int"):
        m([["bold"], ["serif", 3]])
    assert m([["bold"], ["serif", "bold"]]).value == pytest.approx((2 / 2 + 1 / 2) / 2)


@pytest.mark.parametrize(
    ("preds", "target"),
    [
        ([1e308, -1e308, 1e308, 0.0], [1.0, 2.0, 3.0, 1.0]),  # gave 0.0 (the squares overflowed)
        ([1e308, 1e308, -1e308], [1.0, 2.0, 3.0]),  # gave "produced NaN; this is a bug"
        ([1.0, 2.0, 3.0], [-1e308, 1e308, 1e308]),
        ([1e-310, 2e-310, 3e-310], [1.0, 2.0, 4.0]),  # the squares underflowed to 0: "zero spread"
    ],
)
def test_rating_similarity_of_extreme_scores_is_pearsons_r(preds, target):
    p, t = np.array(preds), np.array(target)
    expected = stats.pearsonr(p / np.abs(p).max(), t / np.abs(t).max())[0]
    assert OverallRatingSimilarity()(preds, target).value == pytest.approx(expected, abs=1e-12)
