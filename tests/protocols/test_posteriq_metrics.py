"""PosterIQ metrics: paper formulas, the public code's behaviour, Table 7, classes under DDP.

Expected numbers in the hand-worked examples are derived in the comments from the paper's
formulas (mode="paper") or from the documented behaviour of PosterIQ's code
(docs/posteriq-paper-vs-code.md; mode="posteriq-code").
"""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from transcreval import (
    AreaRatio,
    BoxRecallRate,
    CenterBias,
    FontRichness,
    MatchAccuracy,
    OverallRatingSimilarity,
    PatchIoU,
    PointScore,
    StyleScore,
    TextLocalizationIoU,
    WordRecall,
)
from transcreval.errors import EmptyInputError, InputError, UndefinedValueError, UndefinedValueWarning
from transcreval.functional import (
    area_ratio,
    box_recall_rate,
    center_bias,
    font_richness,
    font_size_stability,
    match_accuracy,
    ocr_robustness_gap,
    overall_rating_similarity,
    patch_iou,
    point_score,
    point_score_per_point,
    posteriq_summary,
    style_score,
    text_localization_iou,
    word_recall,
)
from transcreval.protocols.posteriq import font_size_std, wr_gap

CODE = "posteriq-code"


# ---------------------------------------------------------------- word recall
def test_word_recall_hand_examples():
    # "Hello World Poster" -> "HelloWorldPoster": units Hello|World|Poste|r; the prediction
    # lacks "Hello" (case differs): 3/4. Code: chunks Hello|World|Poste (tail "r" dropped): 2/3.
    gt, pred = ["Hello World Poster"], ["hello World Poster!"]
    assert word_recall(pred, gt).value == 0.75
    assert word_recall(pred, gt, mode=CODE).value == pytest.approx(2 / 3)
    # CJK is kept by the paper's rule, deleted by the code's ASCII-only cleaning (then < 5 chars: 0)
    assert word_recall(["千と千尋の神隠し"], ["千と千尋の神隠し"]).value == 1.0
    assert word_recall(["千と千尋の神隠し"], ["千と千尋の神隠し"], mode=CODE).value == 0.0
    # short ground truth: one short unit (paper) vs score 0 (code)
    assert word_recall(["RRR!"], ["RRR"]).value == 1.0
    assert word_recall(["RRR!"], ["RRR"], mode=CODE).value == 0.0
    # spaces, newlines and literal escape sequences are stripped from both texts
    assert word_recall(["Line1\\nLine2"], ["Line1\nLine2"]).value == 1.0


def test_word_recall_missing_answers_are_counted_and_scored_zero():
    # issue 18 item 4: a missing answer scores WR 0 by default (PosterIQ's code, Eq. 2 read
    # literally): a perfect answer plus a missing one is 0.5 (it was 1.0 when missing answers were
    # left out, which on_unreadable="drop" still gives)
    m = WordRecall()
    m.update(preds=["Hello World", None], target=["Hello World", "Poster"])
    res = m.compute()
    assert res.value == 0.5 and res.n == 2 and res.extras["n_unparsable"] == 1
    assert res.per_item.tolist() == [1.0, 0.0] and res.extras["item_status"] == ["ok", "unparsable"]
    d = WordRecall(on_unreadable="drop")
    d.update(preds=["Hello World", None], target=["Hello World", "Poster"])
    res = d.compute()
    assert res.value == 1.0 and res.n == 1 and res.extras["n_unparsable"] == 1
    assert res.per_item[0] == 1.0 and math.isnan(res.per_item[1])
    assert word_recall([None], ["abc"]).value == 0.0
    with pytest.raises(EmptyInputError, match="1 unparsable"):
        word_recall([None], ["abc"], on_unreadable="drop")
    with pytest.raises(InputError, match="empty"):
        word_recall(["x"], ["  \n "])
    with pytest.raises(InputError, match="mismatched"):
        word_recall(["a", "b"], ["a"])
    with pytest.raises(InputError, match="list"):
        word_recall("abc", "abc")
    with pytest.raises(InputError, match="mode"):
        word_recall(["a"], ["a"], mode="code")


def test_robustness_gap_and_font_size_stability():
    # Table 1 statistics from WR values already computed (the protocol helpers)
    assert wr_gap(0.965, 0.496) == pytest.approx(0.469)  # GPT-5, Table 1
    assert wr_gap([1.0, 0.5], [0.25]) == pytest.approx(0.5)
    by_size = {80: [1.0, 0.8], 60: [0.6], 40: 0.5}
    mean, std = font_size_std(by_size)
    assert mean == pytest.approx((0.9 + 0.6 + 0.5) / 3)
    assert std == pytest.approx(statistics.stdev([0.9, 0.6, 0.5]))
    assert font_size_std(by_size, ddof=0)[1] == pytest.approx(statistics.pstdev([0.9, 0.6, 0.5]))
    with pytest.raises(InputError):
        font_size_std({80: 1.0})
    # the functional twins take the texts, as the classes do
    preds, target = ["Hello World", "Hel", "Grand Hotel"], ["Hello World", "Hello", "Grand Hotel"]
    assert ocr_robustness_gap(preds, target, ["simple", "hard", "simple"]).value == pytest.approx(1.0 - 0.0)
    assert font_size_stability(preds, target, [20, 40, 40]).value == pytest.approx(statistics.stdev([1.0, 0.5]))
    with pytest.raises(UndefinedValueError, match="hard"):
        ocr_robustness_gap(preds, target, ["simple"] * 3)
    with pytest.raises(InputError, match="'simple' or 'hard'"):
        ocr_robustness_gap(preds, target, ["simple", "easy", "hard"])


# ---------------------------------------------------------------- boxes
A, B, C = (0.0, 0.0, 0.5, 0.5), (0.5, 0.5, 0.6, 0.6), (0.0, 0.6, 1.0, 1.0)  # areas .25, .01, .40
PRED = [A, (0.5, 0.5, 0.7, 0.7), (0.0, 0.6, 1.0, 0.8)]


def test_text_localization_hand_example():
    # paper, top 2 by ground-truth area: C (IoU .2/.4 = .5) and A (IoU 1): (0.5 + 1) / 2 = .75
    assert text_localization_iou([PRED], [[A, B, C]], top_n=2).value == pytest.approx(0.75)
    # code: the first two by position: A (1.0) and B (.01/.04 = .25), pooled: .625
    assert text_localization_iou([PRED], [[A, B, C]], top_n=2, mode=CODE).value == pytest.approx(0.625)
    # a missing prediction counts 0 in the paper's mean over n
    assert text_localization_iou([[A]], [[A, B, C]], top_n=3).value == pytest.approx(1 / 3)
    # raw answers are parsed; an unreadable one is counted and scores 0 (the default; it was left
    # out before issue 18 item 4: 0.75, as on_unreadable="drop" still gives)
    m = TextLocalizationIoU(top_n=2)
    m.update([str([list(b) for b in PRED]), "I cannot find the text."], [[A, B, C], [A]])
    res = m.compute()
    assert res.value == pytest.approx(0.375) and res.extras["n_unparsable"] == 1
    m = TextLocalizationIoU(top_n=2, on_unreadable="drop")
    m.update([str([list(b) for b in PRED]), "I cannot find the text."], [[A, B, C], [A]])
    assert m.compute().value == pytest.approx(0.75)
    # code mode drops integers: "[[0, 0, 1, 1]]" parses to no boxes at all
    m2 = TextLocalizationIoU(top_n=1, mode=CODE)
    m2.update(["[[0.0, 0.0, 0.5, 0.5]]", "[[0, 0, 1, 1]]"], [[A], [C]])
    res2 = m2.compute()
    assert (res2.value, res2.n) == (1.0, 1)  # the integer answer adds no box at all
    m3 = TextLocalizationIoU(top_n=1, mode=CODE)
    m3.update(["[[0, 0, 0.5, 0.5]]"], [[A]])
    with pytest.raises(EmptyInputError):
        m3.compute()


def test_code_mode_best_of_four_readings():
    # a pixel answer for a 100x200 image: the code tries /[W, H], as is, /1024, /1000
    pixel = [(0.0, 0.0, 50.0, 100.0)]
    assert text_localization_iou([pixel], [[A]], top_n=1, mode=CODE, image_sizes=[(100, 200)]).value == 1.0
    assert text_localization_iou([pixel], [[A]], top_n=1, coords="pixel", image_sizes=[(100, 200)]).value == 1.0


def test_box_recall_center_bias_area_ratio():
    assert box_recall_rate([1, 3, 0], [2, 2, 4]).value == pytest.approx(0.5)
    assert center_bias([[(0, 0, 0.2, 0.2)]], [[(0.1, 0.1, 0.3, 0.3)]]).value == pytest.approx(math.sqrt(0.02))
    assert area_ratio(
        [[(0, 0, 0.2, 0.2), (0, 0, 0.1, 0.1)]], [[(0, 0, 0.4, 0.1), (0, 0, 0.4, 0.1)]]
    ).value == pytest.approx((1 + 0.25) / 2)
    # pixels: the code's /[W, H] reading finds the exact box; the paper needs coords="pixel"
    px, gt = [[(10, 10, 30, 30)]], [[(0.1, 0.1, 0.3, 0.3)]]
    assert center_bias(px, gt, mode=CODE, image_sizes=[(100, 100)]).value == 0.0
    assert center_bias(px, gt, coords="pixel", image_sizes=[(100, 100)]).value == 0.0
    with pytest.raises(InputError, match="coords='pixel'"):
        center_bias(px, gt)  # pixel boxes given as normalised
    with pytest.raises(InputError, match="zero area"):
        area_ratio([[(0, 0, 1, 1)]], [[(0.2, 0.2, 0.2, 0.5)]])
    with pytest.raises(InputError, match="positive"):
        box_recall_rate([1], [0])
    with pytest.raises(EmptyInputError):
        center_bias([], [])


# ---------------------------------------------------------------- empty space
def test_patch_iou_and_match_accuracy():
    assert patch_iou([[3, 4, 10], []], [[3, 4, 5], []]).value == pytest.approx((2 / 4 + 1) / 2)
    assert patch_iou(["I pick [3, 4, 10]"], [[3, 4, 5]]).value == pytest.approx(0.5)
    # duplicates: the paper counts distinct patches, the code counts list entries
    assert match_accuracy([[3, 3, 4]], [3]).value == 0.0
    assert match_accuracy([[3, 3, 4]], [3], mode=CODE).value == 1.0
    # "3.0" is not an int for the code's int(): its script crashes; we count it unparsable and
    # score it 0 (default since issue 18 item 4; (1.0, 1, 1) with on_unreadable="drop")
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


# ---------------------------------------------------------------- overall rating
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


# ---------------------------------------------------------------- judge verdicts
def test_point_score():
    v = [["Yes", "Yes"], ["Yes", "No"], ["yes."]]
    assert point_score(v).value == pytest.approx(2 / 3)  # paper: images with every point covered
    assert point_score_per_point(v) == pytest.approx((1 + 0.5 + 1) / 3)
    # code (understanding): "Yes" substring, case-sensitive: "yes." fails -> (1 + .5 + 0) / 3
    assert point_score(v, mode=CODE).value == pytest.approx(0.5)
    assert point_score(v, mode=CODE, code_yes="exact").value == pytest.approx(0.5)  # "yes." != "yes"
    assert point_score([[True, True], [False]]).value == 0.5
    # an unreadable verdict reads as "not covered" by default (issue 18 item 4; the poster was
    # left out before, 1.0, as on_unreadable="drop" still does)
    m = PointScore()
    m.update([["Yes", "maybe"], ["Yes"]])
    res = m.compute()
    assert res.value == 0.5 and res.extras["n_unparsable"] == 1 and res.extras["per_point"] == 0.75
    m = PointScore(on_unreadable="drop")
    m.update([["Yes", "maybe"], ["Yes"]])
    res = m.compute()
    assert res.value == 1.0 and res.extras["n_unparsable"] == 1


LABELS = ["minimalist", "pop art", "retro", "vintage", "pop"]


def test_style_score():
    pred = ["Minimalist", "pop art poster", "I think it's retro or vintage", "Retro "]
    target = ["minimalist", "pop art", "retro", "retro"]
    # paper: 3 readable answers, all right; the retro-or-vintage answer is ambiguous: scored 0 by
    # default (issue 18 item 4; it was left out, 1.0, as on_unreadable="drop" still does)
    assert style_score(pred, target, labels=LABELS).value == 0.75
    assert style_score(pred, target, labels=LABELS, on_unreadable="drop").value == 1.0
    # code: exact lower-case equality, no stripping: only the first
    assert style_score(pred, target, mode=CODE).value == 0.25
    # the label list is fixed (default: PosterIQ's 17 styles), never taken from a batch
    assert style_score(["I'd say pop art"], ["Pop Art"]).value == 1.0
    with pytest.raises(InputError, match="labels"):
        style_score(["retro"], ["retro"])  # not one of PosterIQ's style names
    m = StyleScore(LABELS)
    m.update(pred, target)
    assert m.compute().extras["n_unparsable"] == 1
    with pytest.raises(InputError, match="not one of the labels"):
        style_score(["retro"], ["grunge"], labels=LABELS)


def test_font_richness():
    vocab = ["serif", "sans-serif", "italic", "bold"]
    desc = ["A bold sans-serif title", "serif italic"]
    # paper: whole words -> {sans-serif, bold}, {serif, italic}: 4 / (2 * 4)
    assert font_richness(desc, vocabulary=vocab).value == 0.5
    # code: substrings -> "serif" also inside "sans-serif": 5 / 8
    assert font_richness(desc, vocabulary=vocab, mode=CODE).value == 0.625
    assert font_richness([["bold"], ["bold", "italic", "unknown"]], vocabulary=vocab).value == pytest.approx(3 / 8)
    m = FontRichness(vocab)
    m.update(desc)
    assert m.compute().extras["coverage"] == {"serif": 0.5, "sans-serif": 0.5, "italic": 0.5, "bold": 0.5}
    with pytest.raises(InputError):
        font_richness(desc, vocabulary=["bold", "bold"])


# ---------------------------------------------------------------- Table 7
# PosterIQ Table 1 (logo AC, poster AC, simple WR, hard WR, delta, font-size WR, std).
# Table 7's OCR group is the mean of the five positively oriented columns (delta and Std left
# out). It reproduces for these six models (to the 3 printed decimals) and NOT for GPT-5
# (0.844 vs the published 0.838) or Gemini-2.5-Pro (0.845 vs 0.855): for those two the
# published value is the mean with delta in place of hard-OCR WR (0.8386 and 0.8552), a column
# slip in the paper's own aggregation, so they cannot be reproduced from Table 1 by the rule
# the paper states (test_table7_ocr_of_gpt5_and_gemini_uses_delta_not_hard_wr).
TABLE1 = {
    "Claude-Sonnet-4.5": (0.902, 0.884, 0.951, 0.579, 0.372, 0.878, 0.035),
    "Grok-4-fast": (0.440, 0.834, 0.769, 0.044, 0.725, 0.288, 0.105),
    "MiniCPM-V-4.5": (0.883, 0.932, 0.989, 0.521, 0.468, 0.865, 0.023),
    "Gemma-3n-e4b-it": (0.895, 0.891, 0.991, 0.231, 0.760, 0.712, 0.115),
    "Qwen3-VL-4B": (0.887, 0.921, 0.963, 0.726, 0.237, 0.679, 0.196),
    "Qwen3-VL-8B": (0.882, 0.931, 0.937, 0.781, 0.156, 0.676, 0.242),
}
TABLE1_NOT_REPRODUCED = {
    "GPT-5": (0.952, 0.922, 0.965, 0.496, 0.469, 0.885, 0.113),
    "Gemini-2.5-Pro": (0.923, 0.952, 0.997, 0.472, 0.525, 0.879, 0.037),
}
TABLE3 = {
    "GPT-5": (0.851, 0.730, 0.824),
    "Claude-Sonnet-4.5": (0.813, 0.608, 0.761),
    "Gemini-2.5-Pro": (0.830, 0.802, 0.788),
    "Grok-4-fast": (0.560, 0.717, 0.771),
    "MiniCPM-V-4.5": (0.631, 0.635, 0.691),
    "Gemma-3n-e4b-it": (0.514, 0.504, 0.598),
    "Qwen3-VL-4B": (0.805, 0.672, 0.701),
    "Qwen3-VL-8B": (0.610, 0.684, 0.710),
}
TABLE4 = {
    "GPT-5": (0.432, 0.308, 0.171, 0.971, 0.347, 0.480, 0.384, 0.820, 0.719, 0.084, 0.484, 1.000),
    "Claude-Sonnet-4.5": (0.163, 0.104, 0.060, 0.905, 0.468, 0.488, 0.300, 0.976, 0.648, 0.145, 0.423, 0.953),
    "Gemini-2.5-Pro": (0.491, 0.404, 0.295, 0.899, 0.325, 0.576, 0.491, 0.982, 0.680, 0.084, 0.569, 1.000),
    "Grok-4-fast": (0.087, 0.065, 0.033, 0.978, 0.205, 0.129, 0.241, 0.784, 0.172, 0.130, 0.439, 1.000),
    "MiniCPM-V-4.5": (0.269, 0.228, 0.150, 0.992, 0.017, 0.232, 0.280, 0.407, 0.305, 0.243, 0.376, 0.991),
    "Gemma-3n-e4b-it": (0.182, 0.115, 0.056, 0.974, -0.087, 0.254, 0.249, 0.689, 0.086, 0.259, 0.352, 1.000),
    "Qwen3-VL-4B": (0.430, 0.368, 0.223, 0.819, 0.130, 0.290, 0.264, 0.778, 0.633, 0.250, 0.337, 0.955),
    "Qwen3-VL-8B": (0.741, 0.680, 0.450, 0.978, 0.152, 0.495, 0.230, 0.874, 0.266, 0.214, 0.394, 0.917),
}
TABLE7 = {  # OCR, Font, Layout, Understanding, Overall Rating, Average (inputs are rounded to 3 places: 1e-3 slack)
    "GPT-5": (0.838, 0.615, 0.511, 0.801, 0.347, 0.622),
    "Claude-Sonnet-4.5": (0.838, 0.603, 0.453, 0.727, 0.384, 0.601),
    "Gemini-2.5-Pro": (0.855, 0.606, 0.571, 0.806, 0.399, 0.647),
    "Grok-4-fast": (0.475, 0.420, 0.313, 0.682, 0.465, 0.471),
    "MiniCPM-V-4.5": (0.838, 0.421, 0.325, 0.652, 0.095, 0.466),
    "Gemma-3n-e4b-it": (0.744, 0.381, 0.287, 0.538, 0.483, 0.486),
    "Qwen3-VL-4B": (0.835, 0.480, 0.427, 0.726, 0.172, 0.538),
    "Qwen3-VL-8B": (0.841, 0.445, 0.526, 0.668, 0.237, 0.543),
}
OCR_KEYS = (
    "logo_ocr_ac",
    "poster_ocr_ac",
    "simple_ocr_wr",
    "hard_ocr_wr",
    "ocr_delta",
    "font_size_ocr_wr",
    "font_size_ocr_std",
)
LAYOUT_KEYS = (
    "text_localization_top1_iou",
    "text_localization_top3_iou",
    "text_localization_mean_iou",
    "text_localization_recall",
    "alignment_score",
    "rotation_score",
    "empty_space_iou",
    "empty_space_match_acc",
    "layout_comparison_score",
    "layout_generation_center_bias",
    "layout_generation_area_ratio",
    "layout_generation_recall",
)


@pytest.mark.parametrize("model", sorted(TABLE1))
def test_summary_reproduces_table7_ocr(model):
    out = posteriq_summary(dict(zip(OCR_KEYS, TABLE1[model])))
    assert out["OCR"] == pytest.approx(TABLE7[model][0], abs=1e-3)


@pytest.mark.parametrize("model", sorted(TABLE1_NOT_REPRODUCED))
def test_table7_ocr_of_gpt5_and_gemini_uses_delta_not_hard_wr(model):
    row = TABLE1_NOT_REPRODUCED[model]
    stated_rule = posteriq_summary(dict(zip(OCR_KEYS, row)))["OCR"]
    assert abs(stated_rule - TABLE7[model][0]) > 5e-3  # not reproducible from Table 1 by the stated rule
    slipped = (row[0] + row[1] + row[2] + row[4] + row[5]) / 5  # delta where hard WR belongs
    assert slipped == pytest.approx(TABLE7[model][0], abs=1e-3)


@pytest.mark.parametrize("model", sorted(TABLE4))
def test_summary_reproduces_table7_layout_and_understanding(model):
    scores = dict(zip(LAYOUT_KEYS, TABLE4[model]))
    scores.update(zip(("style_understanding_score", "composition_point_score", "intention_point_score"), TABLE3[model]))
    out = posteriq_summary(scores)
    assert out["Layout"] == pytest.approx(TABLE7[model][2], abs=1e-3)
    assert out["Understanding"] == pytest.approx(TABLE7[model][3], abs=1e-3)


# Qwen3-VL-4B's printed Average (0.538) is not the mean of its printed groups (0.528): a typo
AVERAGE_NOT_REPRODUCED = {"Qwen3-VL-4B"}


@pytest.mark.parametrize("model", sorted(set(TABLE7) - AVERAGE_NOT_REPRODUCED))
def test_summary_average_of_groups(model):
    groups = dict(zip(("OCR", "Font", "Layout", "Understanding", "Overall Rating"), TABLE7[model][:5]))
    out = posteriq_summary(
        {f"g{k}": v for k, v in enumerate(groups.values())}, groups={f"g{k}": g for k, g in enumerate(groups)}
    )
    assert list(out)[:5] == list(groups)
    assert out["Average"] == pytest.approx(TABLE7[model][5], abs=1e-3)


def test_summary_reproduces_table7_font_and_overall_rating():
    # Table 2's Gemini-2.5-Pro row (the only row whose five font scores survive in the paper's
    # text: the others lost their colour score in extraction) and Table 5's similarities
    font = dict(
        zip(
            (
                "font_matching_score",
                "font_attributes_score",
                "font_effect1_score",
                "font_effect2_color_score",
                "font_effect2_effect_score",
            ),
            (0.362, 0.720, 0.790, 0.804, 0.358),
        )
    )
    assert posteriq_summary(font)["Font"] == pytest.approx(TABLE7["Gemini-2.5-Pro"][1], abs=1e-3)
    for model, sim in (("GPT-5", 0.347), ("Grok-4-fast", 0.465)):
        assert posteriq_summary({"overall_rating_similarity": sim})["Overall Rating"] == TABLE7[model][4]


@pytest.mark.parametrize("model", sorted(TABLE3))
def test_published_style_score_is_the_layout_comparison_accuracy_with_k17(model):
    # PosterIQ's script prints k_option_norm(layout-comparison accuracy, 17) as the style score;
    # Table 3's style column is exactly that for all eight models, so it cannot be reproduced from
    # style answers (docs/protocols/posteriq.md)
    from transcreval.functional.choice.k_option import k_option_normalise

    layout_accuracy = (TABLE4[model][8] + 1) / 2  # Table 4's score, k = 2, unnormalised
    assert k_option_normalise(layout_accuracy, 17, clamp=False) == pytest.approx(TABLE3[model][0], abs=1e-3)


def test_qwen3_vl_4b_printed_average_is_not_the_mean_of_its_groups():
    groups = TABLE7["Qwen3-VL-4B"][:5]
    assert sum(groups) / 5 == pytest.approx(0.528, abs=1e-3) and TABLE7["Qwen3-VL-4B"][5] == 0.538


def test_summary_errors():
    with pytest.raises(InputError, match="unknown PosterIQ score keys"):
        posteriq_summary({"made_up": 1.0})
    with pytest.raises(EmptyInputError):
        posteriq_summary({"ocr_delta": 0.3})
    with pytest.raises(InputError):
        posteriq_summary({"logo_ocr_ac": float("nan")})


# ---------------------------------------------------------------- classes: harness
def _ref_word_recall(pred, gt):  # the paper's Eq. 2, written out independently
    vals = []
    for g, p in zip(gt, pred):
        g2, p2 = "".join(g.split()), "".join(p.split())
        units = [g2[i : i + 5] for i in range(0, len(g2), 5)]
        vals.append(sum(u in p2 for u in units) / len(units))
    return sum(vals) / len(vals)


def _ref_word_recall_code(pred, gt):  # the code's chunks: ASCII alnum only, full 5-char chunks
    vals = []
    for g, p in zip(gt, pred):
        g2, p2 = (
            "".join(c for c in g if c.isascii() and c.isalnum()),
            "".join(c for c in p if c.isascii() and c.isalnum()),
        )
        chunks = [g2[i : i + 5] for i in range(0, len(g2) - 4, 5)]
        vals.append(sum(u in p2 for u in chunks) / len(chunks) if chunks else 0.0)
    return sum(vals) / len(vals)


GT_TEXT = [
    "Grand Budapest Hotel",
    "千と千尋の神隠し",
    "Amélie Poulain",
    "RRR",
    "Le Voyage de Chihiro",
    "Parasite 2019",
    "Film noir",
]
PRED_TEXT = [
    "The Grand Budapest Hotel",
    "千と千尋",
    "Amelie Poulain",
    "RRR",
    "Le voyage de Chihiro",
    "PARASITE 2019",
    "Film noir!",
]


@pytest.mark.ddp
@pytest.mark.parametrize("mode,ref", [("paper", _ref_word_recall), (CODE, _ref_word_recall_code)])
def test_word_recall_class_harness(ddp_pool, mode, ref):
    batches = [(PRED_TEXT[:3], GT_TEXT[:3]), (PRED_TEXT[3:6], GT_TEXT[3:6]), (PRED_TEXT[6:], GT_TEXT[6:])]
    case = MetricCase(
        factory=partial(WordRecall, mode=mode),
        functional=partial(word_recall, mode=mode),
        reference=ref,
        batches=batches,
        join=join_lists,
        atol=1e-12,
        extras_keys=("n_unparsable",),
    )
    check_metric(case, ddp_pool)


def _iou(a, b):
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    area = lambda r: max(0.0, r[2] - r[0]) * max(0.0, r[3] - r[1])  # noqa: E731
    return inter / (area(a) + area(b) - inter)


def _ref_topn_iou(preds, gts, n=2):  # Eq. 4 per image, mean over images
    vals = []
    for p, g in zip(preds, gts):
        order = sorted(range(len(g)), key=lambda i: -(g[i][2] - g[i][0]) * (g[i][3] - g[i][1]))[: min(n, len(g))]
        vals.append(sum(_iou(p[i], g[i]) if i < len(p) else 0.0 for i in order) / len(order))
    return sum(vals) / len(vals)


BOX_PREDS = [PRED, [A], [C, B], [(0.1, 0.1, 0.4, 0.4)], [A, A, A]]
BOX_GTS = [[A, B, C], [A, C], [C, B], [A], [A, B, C]]


@pytest.mark.ddp
def test_box_classes_harness(ddp_pool):
    batches = [(BOX_PREDS[:2], BOX_GTS[:2]), (BOX_PREDS[2:4], BOX_GTS[2:4]), (BOX_PREDS[4:], BOX_GTS[4:])]
    check_metric(
        MetricCase(
            factory=partial(TextLocalizationIoU, top_n=2),
            functional=lambda p, g: text_localization_iou(p, g, top_n=2),
            reference=_ref_topn_iou,
            batches=batches,
            join=join_lists,
            atol=1e-12,
        ),
        ddp_pool,
    )

    def ref_center(p, g):
        d = [
            math.dist(((a[0] + a[2]) / 2, (a[1] + a[3]) / 2), ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2))
            for pi, gi in zip(p, g)
            for a, b in zip(pi, gi)
        ]
        return sum(d) / len(d)

    check_metric(
        MetricCase(partial(CenterBias), lambda p, g: center_bias(p, g), ref_center, batches, join_lists, atol=1e-12),
        ddp_pool,
    )

    def ref_area(p, g):
        area = lambda r: (r[2] - r[0]) * (r[3] - r[1])  # noqa: E731
        r = [min(area(a), area(b)) / max(area(a), area(b)) for pi, gi in zip(p, g) for a, b in zip(pi, gi)]
        return sum(r) / len(r)

    check_metric(
        MetricCase(partial(AreaRatio), lambda p, g: area_ratio(p, g), ref_area, batches, join_lists, atol=1e-12),
        ddp_pool,
    )


@pytest.mark.ddp
def test_count_and_patch_classes_harness(ddp_pool):
    rec = [([1, 3], [2, 2]), ([0, 5], [4, 5]), ([2], [3])]
    check_metric(
        MetricCase(
            partial(BoxRecallRate),
            box_recall_rate,
            lambda p, q: sum(min(1, a / b) for a, b in zip(p, q)) / len(p),
            rec,
            join_lists,
            atol=1e-12,
        ),
        ddp_pool,
    )
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


@pytest.mark.ddp
def test_judge_classes_harness(ddp_pool):
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
    pred = ["retro", "pop art", "vintage", "retro", "minimalist"]
    target = ["retro", "pop", "vintage", "vintage", "minimalist"]
    sb = [(pred[:2], target[:2]), (pred[2:4], target[2:4]), (pred[4:], target[4:])]
    check_metric(
        MetricCase(
            partial(StyleScore, labels=LABELS),
            lambda p, t: style_score(p, t, labels=LABELS),
            lambda p, t: sum(a == b for a, b in zip(p, t)) / len(p),
            sb,
            join_lists,
            atol=1e-12,
        ),
        ddp_pool,
    )
    vocab = ["serif", "bold", "italic"]
    fb = [([["serif"], ["bold", "serif"]],), ([["italic"], []],), ([["bold"]],)]

    def ref_rich(sets):
        return sum(sum(a in s for s in sets) / len(sets) for a in vocab) / len(vocab)

    check_metric(
        MetricCase(
            partial(FontRichness, vocabulary=vocab),
            lambda s: font_richness(s, vocabulary=vocab),
            ref_rich,
            fb,
            join_lists,
            atol=1e-12,
            exact_value=True,
        ),
        ddp_pool,
    )


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


# ---------------------------------------------------------------- docs/posteriq-paper-vs-code.md
def both(fn, *args, **kwargs):
    return float(fn(*args, **kwargs)), float(fn(*args, mode=CODE, **kwargs))


def test_paper_vs_code_table_examples():
    """Every example row of docs/posteriq-paper-vs-code.md, number for number."""
    assert both(word_recall, ["千と千尋の神隠し"], ["千と千尋の神隠し"]) == (1.0, 0.0)  # row 2
    assert both(word_recall, ["Hello World Poste"], ["Hello World Posters"]) == (0.75, 1.0)  # row 3
    assert both(word_recall, ["RRR"], ["RRR"]) == (1.0, 0.0)  # row 4
    assert both(text_localization_iou, [PRED], [[A, B, C]], top_n=2) == pytest.approx((0.75, 0.625))  # row 5
    # row 6: per-image mean vs pooled boxes: image 1 (A, B exact) and image 2 (IoU .5)
    assert both(text_localization_iou, [[A, B], [(0.0, 0.0, 0.25, 0.5)]], [[A, B], [A]], top_n=2) == pytest.approx(
        ((1 + 0.5) / 2, (1 + 1 + 0.5) / 3)
    )
    answers, gts = ["[[0, 0, 1, 1]]", "[[0.0, 0.0, 0.25, 0.5]]"], [[(0, 0, 1, 1)], [A]]
    assert both(text_localization_iou, answers, gts, top_n=1) == pytest.approx((0.75, 0.5))  # row 7
    assert (
        text_localization_iou(
            [[(0.0, 0.0, 50.0, 100.0)]], [[A]], top_n=1, coords="pixel", image_sizes=[(100, 200)]
        ).value
        == 1.0
    )
    assert both(match_accuracy, [[3, 3, 4]], [3]) == (0.0, 1.0)  # row 11
    assert both(patch_iou, ["[3.0, 4]", "[3, 4]"], [[3, 4], [3, 5]]) == pytest.approx(
        ((1 + 1 / 3) / 2, (0 + 1 / 3) / 2)
    )  # row 12 (the item the script crashes on scores 0; left out with on_unreadable="drop": 1/3)
    assert patch_iou(["[3.0, 4]", "[3, 4]"], [[3, 4], [3, 5]], mode=CODE, on_unreadable="drop").value == pytest.approx(
        1 / 3
    )
    with pytest.raises(UndefinedValueError):  # row 14: undefined in the paper's reading...
        overall_rating_similarity([3, 3, 3], [5, 5, 5])
    assert overall_rating_similarity([3, 3, 3], [5, 5, 5], mode=CODE).value == pytest.approx(
        1.0
    )  # ...1.0 in the code's
    v = [[True, True], [True, False], [True]]
    assert point_score(v).value == pytest.approx(2 / 3) and point_score(v, mode=CODE).value == pytest.approx(
        2.5 / 3
    )  # row 15
    pred, target = ["Minimalist", "pop art poster", "Retro "], ["minimalist", "pop art", "retro"]
    assert style_score(pred, target, labels=LABELS).value == 1.0 and style_score(
        pred, target, mode=CODE
    ).value == pytest.approx(1 / 3)


@pytest.mark.ddp
def test_gap_and_stability_classes_harness(ddp_pool):
    from transcreval import FontSizeStability, OCRRobustnessGap

    gt = ["Grand Budapest Hotel", "Le Voyage de Chihiro", "Parasite 2019", "Film noir", "Amelie Poulain", "Spirited"]
    pred = ["Grand Budapest", "Le voyage de Chihiro", "Parasite 2019", "Film", "Amelie", "Spirited Away"]
    split = ["simple", "hard", "simple", "hard", "simple", "hard"]
    batches = [(pred[:2], gt[:2], split[:2]), (pred[2:4], gt[2:4], split[2:4]), (pred[4:], gt[4:], split[4:])]

    def reference(p, g, s):  # Table 1's delta: mean simple WR - mean hard WR, Eq. 2 written out
        wr = {"simple": [], "hard": []}
        for a, b, c in zip(p, g, s):
            wr[c].append(_ref_word_recall([a], [b]))
        return sum(wr["simple"]) / len(wr["simple"]) - sum(wr["hard"]) / len(wr["hard"])

    check_metric(
        MetricCase(partial(OCRRobustnessGap), ocr_robustness_gap, reference, batches, join_lists, atol=1e-12), ddp_pool
    )

    sizes = [80, 60, 40, 80, 60, 40, 80, 60, 40]
    gt2 = [*gt, "Hotel", "Chihiro", "Noir"]
    pred2 = [*pred, "Hotel", "Chihir", "noir"]
    sb = [(pred2[:4], gt2[:4], sizes[:4]), (pred2[4:7], gt2[4:7], sizes[4:7]), (pred2[7:], gt2[7:], sizes[7:])]

    def stab_reference(p, g, s):
        by = {}
        for a, b, c in zip(p, g, s):
            by.setdefault(c, []).append(_ref_word_recall([a], [b]))
        return statistics.stdev([sum(v) / len(v) for v in by.values()])

    check_metric(
        MetricCase(partial(FontSizeStability), font_size_stability, stab_reference, sb, join_lists, atol=1e-12),
        ddp_pool,
    )


# ---------------------------------------------------------------- PosterIQ's own data format
def test_pixel_ground_truth_with_image_sizes_in_both_modes():
    # PosterIQ's text_localization.json: ground truth in pixels with size = [W, H]; the model
    # answers in normalised coordinates. PosterIQ's script scores this exact answer 1.00.
    size = (1000, 1500)
    gt_px = [[(100, 150, 500, 450)]]
    answer = ["[[0.1, 0.1, 0.5, 0.3]]"]
    for mode in ("paper", CODE):
        got = text_localization_iou(answer, gt_px, top_n=1, mode=mode, target_coords="pixel", image_sizes=[size]).value
        assert got == pytest.approx(1.0)
        # pixel ground truth read as normalised: an error in both modes, never a silent number
        with pytest.raises(InputError, match="target_coords='pixel'"):
            text_localization_iou(answer, gt_px, top_n=1, mode=mode, image_sizes=[size])
        with pytest.raises(InputError, match="image_sizes"):
            text_localization_iou(answer, gt_px, top_n=1, mode=mode, target_coords="pixel")
    # predictions and ground truth both in pixels
    px_pred = [[(100, 150, 500, 450)]]
    assert (
        text_localization_iou(px_pred, gt_px, top_n=1, coords="pixel", target_coords="pixel", image_sizes=[size]).value
        == 1.0
    )
    # ground truth that looks normalised while pixels were announced
    with pytest.raises(InputError, match="look normalised"):
        text_localization_iou(answer, [[A]], top_n=1, target_coords="pixel", image_sizes=[size])
    m = TextLocalizationIoU(top_n=1, target_coords="pixel")
    m.update(answer, gt_px, image_sizes=[size])
    assert m.compute().value == pytest.approx(1.0)
    assert center_bias(
        [[(0.1, 0.1, 0.5, 0.3)]], gt_px, target_coords="pixel", image_sizes=[size]
    ).value == pytest.approx(0)


def test_inverted_boxes_are_errors_or_unreadable_never_scores():
    with pytest.raises(InputError, match="inverted"):
        center_bias([[(1, 1, 0, 0)]], [[(0.1, 0.1, 0.3, 0.3)]])
    with pytest.raises(InputError, match="inverted"):
        text_localization_iou([[A]], [[(0.5, 0.5, 0.0, 0.0)]], top_n=1)
    m = TextLocalizationIoU(top_n=1)
    m.update(["[[0.9, 0.9, 0.1, 0.1]]", [A]], [[A], [A]])  # an inverted box in an answer: unreadable
    res = m.compute()
    assert res.extras["n_unparsable"] == 1 and res.value == 0.5  # scored 0 (1.0 with on_unreadable="drop")


def _script_area_ratio(pred, gt, size):  # PosterIQ's layout-generation rule, written out independently
    area = lambda b: (b[2] - b[0]) * (b[3] - b[1])  # noqa: E731
    w, h = size
    readings = [
        (pred[0] / w, pred[1] / h, pred[2] / w, pred[3] / h),
        pred,
        tuple(v / 1024 for v in pred),
        tuple(v / 1000 for v in pred),
    ]
    ratios = [area(gt) / area(r) if area(r) > 0 else 0.0 for r in readings]
    r = min(ratios, key=lambda q: abs(q - 1))
    return 1 / r if r > 1 else r


def test_code_mode_area_ratio_follows_the_script_rule():
    rng = np.random.default_rng(4)
    size = (1400, 1400)
    pred = (100.0, 100.0, 640.0, 640.0)  # a 540 px box: the readings disagree on which is closest to 1
    gt = (0.1, 0.1, 0.5, 0.45)
    assert area_ratio([[pred]], [[gt]], mode=CODE, image_sizes=[size]).value == pytest.approx(
        _script_area_ratio(pred, gt, size), abs=1e-12
    )
    for _ in range(300):
        x0, y0 = rng.uniform(0, 900, 2)
        p = (x0, y0, x0 + rng.uniform(1, 500), y0 + rng.uniform(1, 500))
        g0 = rng.uniform(0, 0.5, 2)
        g = (g0[0], g0[1], g0[0] + rng.uniform(0.01, 0.5), g0[1] + rng.uniform(0.01, 0.5))
        got = area_ratio([[p]], [[g]], mode=CODE, image_sizes=[size]).value
        assert got == pytest.approx(_script_area_ratio(p, g, size), abs=1e-12)


def test_pixel_boxes_past_the_image_say_so():
    with pytest.raises(InputError, match="goes past the 1000x1000 image"):
        center_bias([[(0, 0, 1010, 20)]], [[(0.0, 0.0, 0.5, 0.5)]], coords="pixel", image_sizes=[(1000, 1000)])
    with pytest.raises(InputError, match="goes past the 1000x1000 image"):
        text_localization_iou([[A]], [[(0, 0, 1001, 20)]], top_n=1, target_coords="pixel", image_sizes=[(1000, 1000)])
    sizes = np.array([[100, 200]])  # an (N, 2) array of sizes is fine
    assert (
        text_localization_iou([[(0.0, 0.0, 50.0, 100.0)]], [[A]], top_n=1, coords="pixel", image_sizes=sizes).value
        == 1.0
    )


def test_code_box_parser_reads_unicode_digits_like_the_script():
    from transcreval.parsing import posteriq_code_boxes

    assert posteriq_code_boxes("１.５ 0.2 0.3 0.4 0.5") == [(1.5, 0.2, 0.3, 0.4)]
