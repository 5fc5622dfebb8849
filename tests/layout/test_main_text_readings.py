"""PosterIQ's main text vs its Supp. B (issue 33): Top-1 IoU and Match Acc.

Main text: "Top-1 IoU denotes the maximum IoU over predicted regions"; "Matching Acc. measures
whether the returned region IDs match the requested count and target regions". Supp. B (the
default): Eq. 4 pairs the j-th predicted box with the j-th ground-truth box (largest ground
truth first); Eq. 9 checks only the size of the predicted set. Every expected value below is
worked out by hand.
"""

from __future__ import annotations

import pytest

from transcreval import MatchAccuracy, TextLocalizationIoU
from transcreval.errors import InputError
from transcreval.functional.layout.boxes import text_localization_iou
from transcreval.functional.layout.patches import match_accuracy

# ground truth in query order: A (area .25, the largest), B (area .01)
A, B = [0.0, 0.0, 0.5, 0.5], [0.6, 0.6, 0.7, 0.7]
# the model answers in the wrong order: its first box is B exactly, its second A exactly
SWAPPED = [B, A]
# a second image: one predicted box half over A (IoU .5: [0, 0, .5, .25] inside A)
HALF = [[0.0, 0.0, 0.5, 0.25]]


def test_top1_iou_supp_b_pairs_by_position_main_text_takes_the_best_box():
    # Supp. B, top 1: the largest GT (A, query 0) against predicted box 0 (B): IoU 0
    # main text, top 1: the best predicted box against A: box 1 is A, IoU 1
    assert text_localization_iou([SWAPPED], [[A, B]], top_n=1).value == 0.0
    assert text_localization_iou([SWAPPED], [[A, B]], top_n=1, definition="main-text").value == 1.0
    # second image: Supp. B .5 (box 0 vs A), main text .5 (the only box): mean over images
    both = text_localization_iou([SWAPPED, HALF], [[A, B], [A, B]], top_n=1, definition="main-text")
    assert both.value == pytest.approx((1.0 + 0.5) / 2)
    # top 3 (n = 2 GT boxes): each of A, B takes its best predicted box: (1 + 1) / 2; Supp. B 0
    assert text_localization_iou([SWAPPED], [[A, B]], top_n=3, definition="main-text").value == 1.0
    assert text_localization_iou([SWAPPED], [[A, B]], top_n=3).value == 0.0
    # no boxes: 0 either way
    assert text_localization_iou(["[]"], [[A, B]], top_n=1, definition="main-text").value == 0.0
    m = TextLocalizationIoU(1, definition="main-text")
    m.update([SWAPPED, HALF], [[A, B], [A, B]])
    assert m.compute().value == pytest.approx(0.75) and "def:main-text" in str(m.compute().signature)
    assert "def:" not in str(TextLocalizationIoU(1).options.signature("TextLocalizationIoU"))
    with pytest.raises(InputError, match="definition"):
        text_localization_iou([SWAPPED], [[A, B]], top_n=1, definition="loose")
    with pytest.raises(InputError, match="mode='paper'"):
        text_localization_iou([SWAPPED], [[A, B]], top_n=1, definition="main-text", mode="posteriq-code")


def test_match_accuracy_supp_b_counts_main_text_needs_the_target_patches():
    # GT patches {3, 4, 5}. Answers: [3, 4, 10] (right size, wrong set), [5, 4, 3] (the set),
    # [3, 4] (too few). Supp. B (size 3 requested): 1, 1, 0 -> 2/3; main text: 0, 1, 0 -> 1/3
    preds = [[3, 4, 10], [5, 4, 3], [3, 4]]
    assert match_accuracy(preds, [3, 3, 3]).value == pytest.approx(2 / 3)
    gt = [[3, 4, 5]] * 3
    assert match_accuracy(preds, gt, definition="main-text").value == pytest.approx(1 / 3)
    m = MatchAccuracy(definition="main-text")
    m.update(preds, gt)
    assert m.compute().value == pytest.approx(1 / 3)
    with pytest.raises(InputError, match="target patch ids"):
        match_accuracy(preds, [3, 3, 3], definition="main-text")
    with pytest.raises(InputError, match="definition"):
        match_accuracy(preds, [3, 3, 3], definition="both")
