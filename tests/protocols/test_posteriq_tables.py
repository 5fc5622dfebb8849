"""PosterIQ's tables and its paper-vs-code document: Table 7's groups and average from Tables
1-5 (posteriq_summary), the rows that cannot be reproduced, and every example row of
docs/posteriq-paper-vs-code.md across the metrics, number for number.

Each metric's own hand-worked examples and harness live in its mirrored file
(tests/text/test_word_recall.py, tests/layout/test_boxes.py, tests/choice/test_style_score.py, ...).
"""

from __future__ import annotations

import pytest

from tests.choice.test_style_score import LABELS
from tests.layout.test_boxes import PRED, A, B, C
from transcreval.errors import EmptyInputError, InputError, UndefinedValueError
from transcreval.functional import (
    match_accuracy,
    overall_rating_similarity,
    patch_iou,
    point_score,
    style_score,
    text_localization_iou,
    word_recall,
)
from transcreval.protocols.posteriq import posteriq_summary

CODE = "posteriq-code"


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


def test_paper_vs_code_rows_29_to_31():
    """docs/posteriq-paper-vs-code.md rows 29-31 (the protocol's printed style column, the score
    reader's cue words, ground-truth defects), paper then code."""
    from transcreval.functional.stats.rating_similarity import read_score
    from transcreval.protocols.posteriq import evaluate

    rec = [
        {"system": "S", "task": "style_understanding", "item_id": "a", "answer": "Pop Art", "target": "Pop Art"},
        {"system": "S", "task": "style_understanding", "item_id": "b", "answer": "Pop Art", "target": "Retro Style"},
        *[
            {"system": "S", "task": "layout_comparison", "item_id": str(i), "answer": a, "target": "A"}
            for i, a in enumerate("AAAB")
        ],
    ]
    col = "Style Understanding Score"
    assert evaluate(rec).tables["table3"].cell("S", col).value == pytest.approx((17 * 0.5 - 1) / 16)  # 0.469
    assert evaluate(rec, mode=CODE).tables["table3"].cell("S", col).value == pytest.approx((17 * 0.75 - 1) / 16)
    answer = "I'd give it a 9 - it loses 1 point"  # row 30
    assert (read_score(answer), read_score(answer, CODE)) == (None, 1.0)
    fe2 = [
        {
            "system": "S",
            "task": "font_effect_2",
            "item_id": "x",
            "answer": "red, lightning",
            "target": {"color": "red", "effects": ["lightning", "flame", "flame"]},
        }
    ]  # row 31
    paper, code = evaluate(fe2), evaluate(fe2, mode=CODE)
    assert paper.values("S", "font_effect2_effect_recall") == [0.5]  # lightning of {lightning, flame}
    assert code.values("S", "font_effect2_effect_recall") == [pytest.approx(1 / 3)]  # 1 of the 3 listed
    assert len(paper.notes) == len(code.notes) == 2
