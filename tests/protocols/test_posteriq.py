"""The PosterIQ protocol: Tables 1-5 and 7 from raw answers.

A small synthetic set with scripted answers; every expected per-item value and cell is worked
out by hand in the comments from the paper's Supp. B (paper mode) or from PosterIQ's script as
docs/posteriq-paper-vs-code.md describes it (code mode), and the tables' layout is checked
against the paper's (rows, columns, units, rounding).
"""

from __future__ import annotations

import json
import math
import statistics

import pytest

from transcreval.errors import InputError
from transcreval.judge import FunctionJudge
from transcreval.protocols.catalog import get_protocol
from transcreval.protocols.posteriq import evaluate, posteriq_summary

A, B, C = [0.0, 0.0, 0.5, 0.5], [0.5, 0.5, 0.6, 0.6], [0.0, 0.6, 1.0, 1.0]  # areas .25, .01, .40


def _r(task, item_id, answer, target, system="Alpha", **extra):
    return {"system": system, "task": task, "item_id": item_id, "answer": answer, "target": target, **extra}


ALPHA = [
    # logo: exact 1; case differs 0; no answer 0 (zero) -> 1/3
    _r("logo_ocr", "l1", "ACANA", "ACANA"),
    _r("logo_ocr", "l2", "Acutas", "ACUTAS"),
    _r("logo_ocr", "l3", None, "ADORNEE"),
    # poster: instances pooled: 2 of 3 and 1 of 1 -> 3/4
    _r("poster_ocr", "p1", "ROCK SHOW\nFRIDAY", ["ROCK SHOW", "FRIDAY", "LIVE"]),
    _r("poster_ocr", "p2", "TICKETS", ["TICKETS"]),
    # simple: 1 and 1/2 (units Grand|Hotel) -> .75; hard: 1/2 and no answer -> .25; delta .5
    _r("simple_ocr", "s1", "Hello World", "Hello World"),
    _r("simple_ocr", "s2", "Grand", "Grand Hotel"),
    _r("hard_ocr", "h1", "Hello", "Hello World"),
    _r("hard_ocr", "h2", None, "Le Voyage"),
    # font size: size 80 -> (1 + 1/2) / 2 = .75, size 40 -> 1/2: WR .625, Std stdev(.75, .5)
    _r("font_size_ocr", "f1", "Hello World", "Hello World", font_size=80),
    _r("font_size_ocr", "f2", "World", "Hello World", font_size=80),
    _r("font_size_ocr", "f3", "Hotel", "Grand Hotel", font_size=40),
    # font matching (k 9): right, wrong, "A or B" unreadable (0): a = 1/3 -> (3 - 1) / 8 = .25
    _r("font matching 1", "fm1", "B", "B"),
    _r("font matching 1", "fm2", "The answer is C.", "D"),
    _r("font matching 2", "fm3", "A or B", "A"),
    # font attributes (k 2): 3 of 4 -> .5
    *[
        _r("font_attributes", f"fa{i}", a, t)
        for i, (a, t) in enumerate([("A", "A"), ("B", "B"), ("A", "B"), ("B", "B")])
    ],
    # font effect 1 (k 4 in the paper): 1 of 2 -> (2 - 1) / 3
    _r("font_effect_1", "fe1", "C", "C"),
    _r("font_effect_1", "fe2", "D", "C"),
    # font effect 2: colours right, right, two colours named (unreadable, 0): a = 2/3, k 16 ->
    # 29/45; effects: recall 1/2 and 1 (the third item has no effect to recall): .75, k 48 -> 35/47
    _r("font_effect_2", "e1", "Color: red. Effects: flame, smoke", {"color": "red", "effects": ["flame", "glossy"]}),
    _r("font_effect_2", "e2", "blue, glowing", ["blue", "glowing"]),
    _r("font_effect_2", "e3", "red and blue", {"color": "red", "effects": []}),
    # text localisation: t1 top 1 (C) .5; top 3 (C .5, A 1, B .25) 7/12; recall 1. t2 "[]": 0s.
    # t3 prose: unreadable, 0s. Means over 3 images: 1/6, 7/36, 7/36, 1/3
    _r("text_localization", "t1", str([A, [0.5, 0.5, 0.7, 0.7], [0.0, 0.6, 1.0, 0.8]]), [A, B, C]),
    _r("text_localization", "t2", "[]", [A]),
    _r("text_localization", "t3", "I could not find them.", [A]),
    # alignment (k 3): 2 of 3 -> .5; rotation (k 3): 1 of 2 -> .25
    _r("alignment", "a1", "['center-aligned']", ["center-aligned"]),
    _r("alignment", "a2", "Left", "right-aligned"),
    _r("alignment", "a3", "right aligned", "right-aligned"),
    _r("rotation", "r1", "counterclockwise rotation", "counterclockwise rotation"),
    _r("rotation", "r2", "no rotation", "clockwise rotation"),
    # empty space: IoU 2/4 and 1/2 -> .5; match: 3 distinct for 3 (1), 1 distinct for 2 (0) -> .5
    _r("empty_space", "es1", "[3, 4, 10]", [3, 4, 5]),
    _r("empty_space", "es2", "[7, 7]", [7, 8]),
    # layout comparison (k 2): 3 of 4 -> .5
    *[
        _r("layout_comparison", f"c{i}", a, t)
        for i, (a, t) in enumerate([("Image A", "A"), ("B", "A"), ("A", "A"), ("Poster B is better", "B")])
    ],
    # layout generation: pairs by position. g1: centres .1414 apart, same area (1); exact (0, 1);
    # recall 1. g2: centres .15 apart, area .01 vs .04 (.25); recall 1/2.
    _r(
        "layout_generation",
        "g1",
        "[[0.0, 0.0, 0.2, 0.2], [0.5, 0.5, 0.9, 0.7]]",
        [[0.1, 0.1, 0.3, 0.3], [0.5, 0.5, 0.9, 0.7]],
    ),
    _r("layout_generation", "g2", "[[0.0, 0.0, 0.1, 0.1]]", [[0.0, 0.0, 0.4, 0.1], [0.0, 0.0, 1.0, 1.0]]),
    # style (k 17): 1 of 2 -> 7.5 / 16
    _r("style_understanding", "st1", "Pop Art", "Pop Art"),
    _r("style_understanding", "st2", "Minimalist Style", "Flat Design"),
    # point scores: every key point covered (1) or not (0); no description: unreadable (0)
    _r("composition_understanding", "cu1", "desc one", ["k1", "k2"], verdicts=["Yes", "Yes"]),
    _r("composition_understanding", "cu2", "desc two", ["k1", "k2"], verdicts=["Yes", "No"]),
    _r("intention_understanding", "iu1", "desc", ["k1"], verdicts=[True]),
    _r("intention_understanding", "iu2", None, ["k1"]),
    # overall rating: readable pairs (7, 6), (3, 2), (8, 9); "no idea" dropped
    _r("overall_rating", "o1", "7", 6),
    _r("overall_rating", "o2", "Score: 3", 2),
    _r("overall_rating", "o3", "8/10", 9),
    _r("overall_rating", "o4", "no idea", 5),
]
BETA = [_r("logo_ocr", "l1", "ACANA", "ACANA", "Beta"), _r("font_matching", "fm1", "B", "B", "Beta")]


def _pearson(x, y):
    mx, my = sum(x) / len(x), sum(y) / len(y)
    cx, cy = [a - mx for a in x], [b - my for b in y]
    return sum(a * b for a, b in zip(cx, cy)) / math.sqrt(sum(a * a for a in cx) * sum(b * b for b in cy))


EXPECTED = {  # Alpha, paper mode, on_unreadable="zero"
    "table1": [1 / 3, 0.75, 0.75, 0.25, 0.5, 0.625, statistics.stdev([0.75, 0.5])],
    "table2": [0.25, 0.5, 1 / 3, 29 / 45, 35 / 47],
    "table3": [7.5 / 16, 0.5, 0.5],
    "table4": [
        1 / 6,
        7 / 36,
        7 / 36,
        1 / 3,
        0.5,
        0.25,
        0.5,
        0.5,
        0.5,
        (math.sqrt(0.02) + 0 + 0.15) / 3,
        (1 + 1 + 0.25) / 3,
        0.75,
    ],
    "table5": [_pearson([7, 3, 8], [6, 2, 9])],
}
COLUMNS = {  # the paper's columns left to right, its two header rows joined
    "table1": (
        "Logo OCR AC",
        "Poster OCR AC",
        "Simple OCR WR",
        "Hard OCR WR",
        "Δ",
        "Font Size OCR WR",
        "Font Size OCR Std",
    ),
    "table2": (
        "Font Matching Score",
        "Font Attributes Score",
        "Font Effect 1 Effect Score",
        "Font Effect 2 Color Score",
        "Font Effect 2 Effect Score",
    ),
    "table3": (
        "Style Understanding Score",
        "Composition Understanding Points Score",
        "Intention Understanding Points Score",
    ),
    "table4": (
        "Text Localization Top-1 IoU",
        "Text Localization Top-3 IoU",
        "Text Localization Mean IoU",
        "Text Localization Recall",
        "Text Positioning Alignment",
        "Text Positioning Rotation",
        "Empty-Space Mean IoU",
        "Empty-Space Match Acc.",
        "Layout Comparison Score",
        "Layout Generation Center Bias",
        "Layout Generation Area Ratio",
        "Layout Generation Recall",
    ),
    "table5": ("Overall Rating Sim",),
    "table7": ("OCR", "Font", "Layout", "Understanding", "Overall Rating", "Average"),
}


@pytest.fixture(scope="module")
def result():
    return evaluate(ALPHA + BETA)


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_each_table_reproduces_the_hand_worked_values(result, key):
    table = result.tables[key]
    assert table.columns == COLUMNS[key] and table.rows == ("Alpha", "Beta")
    assert table.decimals == 3 and table.units == "0-1"
    for column, expected in zip(table.columns, EXPECTED[key]):
        assert table.cell("Alpha", column).value == pytest.approx(expected, abs=1e-12), column


def test_table7_groups_the_positively_oriented_scores(result):
    t1, t2, t3, t4, t5 = (EXPECTED[k] for k in ("table1", "table2", "table3", "table4", "table5"))
    groups = {
        "OCR": [t1[0], t1[1], t1[2], t1[3], t1[5]],  # delta and Std left out
        "Font": t2,
        "Layout": [*t4[:9], t4[10]],  # centre bias and layout-generation recall left out
        "Understanding": t3,
        "Overall Rating": t5,
    }
    table = result.tables["table7"]
    assert table.columns == COLUMNS["table7"]
    means = {g: sum(v) / len(v) for g, v in groups.items()}
    for g, v in means.items():
        assert table.cell("Alpha", g).value == pytest.approx(v, abs=1e-12)
    assert table.cell("Alpha", "Average").value == pytest.approx(sum(means.values()) / 5, abs=1e-12)
    # Beta has two tasks: its Average is over OCR and Font, and the table says so
    assert table.cell("Beta", "OCR").value == 1.0 and table.cell("Beta", "Average").value == 1.0
    assert any("Beta" in n and "Layout" in n for n in table.notes)
    scores = {k: c.value for k, c in _cells(result, "Alpha").items()}
    assert posteriq_summary(scores)["Average"] == pytest.approx(table.cell("Alpha", "Average").value)


def _cells(result, system):
    from transcreval.protocols.posteriq import TABLE_COLUMNS

    out = {}
    for key, (_, columns) in TABLE_COLUMNS.items():
        for col, name in columns:
            if (system, col) in result.tables[key].cells:
                out[name] = result.tables[key].cell(system, col)
    return out


def test_layout_rounding_missing_cells_and_notes(result):
    md = result.tables["table1"].to_markdown()
    assert "| Alpha | 0.333 | 0.750 | 0.750 | 0.250 | 0.500 | 0.625 | 0.177 |" in md
    assert "| Beta | 1.000 | - | - | - | - | - | - |" in md
    notes = "\n".join(result.tables["table1"].notes)
    assert "Alpha, logo_ocr: 1 unreadable answer(s), scored 0" in notes and "lower is better" in notes
    assert result.tables["table1"].cell("Alpha", "Logo OCR AC").n == 3


def test_records_line_up_with_the_items(result):
    logo = {r.item_id: r for r in result.select(system="Alpha", metric="logo_ocr_ac")}
    assert [logo[i].value for i in ("l1", "l2", "l3")] == [1.0, 0.0, 0.0]
    assert logo["l3"].status == "ok" and logo["l3"].meta["unreadable"] is True
    assert result.values("Alpha", "text_localization_top3_iou", ["t1", "t2", "t3"]) == pytest.approx([7 / 12, 0, 0])
    assert result.values("Alpha", "font_size_ocr_wr", ["f1", "f2", "f3"]) == [1.0, 0.5, 0.5]
    assert {r.meta["font_size"] for r in result.select(metric="font_size_ocr_wr")} == {80, 40}
    effect = {r.item_id: r for r in result.select(metric="font_effect2_effect_recall")}
    assert effect["e3"].status == "undefined" and math.isnan(effect["e3"].value)
    rating = {r.item_id: r for r in result.select(metric="overall_rating_score")}
    assert rating["o1"].value == 7.0 and rating["o1"].meta["human"] == 6.0 and rating["o4"].status == "unparsable"
    # a cell that is a mean of per-item values equals the mean of its records
    vals = [r.value for r in result.select(system="Alpha", metric="empty_space_iou")]
    assert result.tables["table4"].cell("Alpha", "Empty-Space Mean IoU").value == pytest.approx(sum(vals) / len(vals))
    assert [r.value for r in result.select(system="Alpha", metric="alignment_correct")] == [1.0, 0.0, 1.0]
    assert json.dumps(result.to_dict(), allow_nan=False)
    assert result.options["mode"] == "paper" and result.options["k"]["font_effect_1"] == 4
    assert set(result.signatures) == {r.metric for r in result.records}


def test_drop_leaves_unreadable_answers_out_and_counts_them():
    res = evaluate(ALPHA, on_unreadable="drop")
    logo = res.tables["table1"].cell("Alpha", "Logo OCR AC")
    assert (logo.value, logo.n, logo.n_missing) == (0.5, 2, 1)
    assert res.tables["table1"].cell("Alpha", "Hard OCR WR").value == 0.5  # the missing answer left out
    fm = res.tables["table2"].cell("Alpha", "Font Matching Score")
    assert fm.value == pytest.approx((9 * 0.5 - 1) / 8)  # 1 of 2 readable
    assert res.tables["table4"].cell("Alpha", "Text Localization Top-1 IoU").value == pytest.approx(0.25)
    assert res.tables["table3"].cell("Alpha", "Intention Understanding Points Score").value == 1.0
    assert "left out" in "\n".join(res.tables["table1"].notes)


CODE_SET = [
    # subsets averaged first: (1/2 + 1) / 2 = .75 -> (9 * .75 - 1) / 8; "none of these" refused
    _r("font matching 1", "m1", "B", "B"),
    _r("font matching 1", "m2", "C", "D"),
    _r("font matching 1", "m3", "none of these", "A"),
    _r("font matching 2", "m4", "A, B, C", "C"),  # "ABC": kept, "C" in it: right (the script's rule)
    _r("font_effect_1", "x1", "C", "C"),
    _r("font_effect_1", "x2", "D", "C"),  # a = 1/2 with the code's k = 9: 3.5 / 8
    _r("layout_comparison", "y1", "Image A", "A"),  # first cleaned character "I": wrong
    _r("layout_comparison", "y2", "B", "B"),  # a = 1/2 -> 0
    _r("poster_ocr", "z1", "nothing legible", [f"T{i}" for i in range(21)]),  # 0 < .05: left out
    _r("poster_ocr", "z2", "rock show", ["ROCK SHOW", "LIVE"]),  # 1/2
    _r("font_attributes", "w1", "B", "A"),  # a = 0: the code's unclamped score is -1, the paper's 0
]


def test_code_mode_reproduces_the_script_rules():
    res = evaluate(CODE_SET, mode="posteriq-code")
    assert res.options["refusal_filter"] is True and res.options["k"]["font_effect_1"] == 9
    t2 = res.tables["table2"]
    assert t2.cell("Alpha", "Font Matching Score").value == pytest.approx((9 * 0.75 - 1) / 8)
    assert t2.cell("Alpha", "Font Effect 1 Effect Score").value == pytest.approx(3.5 / 8)
    assert res.tables["table4"].cell("Alpha", "Layout Comparison Score").value == 0.0
    assert t2.cell("Alpha", "Font Attributes Score").value == -1.0
    assert res.tables["table1"].cell("Alpha", "Poster OCR AC").value == 0.5
    refused = {r.item_id for r in res.select(status="refused")}
    assert refused == {"m3", "z1"}
    off = evaluate(CODE_SET, mode="posteriq-code", refusal_filter=False)
    # without the filter the refusal is a wrong answer: subsets (1/3, 1) -> a = 2/3
    assert off.tables["table2"].cell("Alpha", "Font Matching Score").value == pytest.approx((9 * (2 / 3) - 1) / 8)
    assert off.tables["table1"].cell("Alpha", "Poster OCR AC").value == 0.25
    paper = evaluate(CODE_SET)  # pooled: 1 of 4 right ("none of these", "A, B, C" unreadable: 0)
    assert paper.tables["table2"].cell("Alpha", "Font Matching Score").value == pytest.approx((9 * 0.25 - 1) / 8)
    assert paper.tables["table4"].cell("Alpha", "Layout Comparison Score").value == 1.0
    assert paper.tables["table2"].cell("Alpha", "Font Attributes Score").value == 0.0
    with pytest.raises(InputError, match="posteriq-code"):
        evaluate(CODE_SET, refusal_filter=True)


def _score(records, table, column, **options):
    return evaluate(records, **options).tables[table].cell("Alpha", column).value


def test_paper_vs_code_rows_19_to_28():
    """docs/posteriq-paper-vs-code.md rows 19-28, number for number (paper, then code)."""
    code = {"mode": "posteriq-code"}
    logo = [_r("logo_ocr", "x", "acana", "ACANA")]
    assert (_score(logo, "table1", "Logo OCR AC"), _score(logo, "table1", "Logo OCR AC", **code)) == (0.0, 1.0)
    posters = [
        _r("poster_ocr", "z1", "nothing", [f"T{i}" for i in range(21)]),
        _r("poster_ocr", "z2", "rock show", ["rock show", "LIVE"]),
    ]
    assert _score(posters, "table1", "Poster OCR AC", **code, refusal_filter=False) == 0.25  # row 20
    assert _score(posters, "table1", "Poster OCR AC", **code) == 0.5
    effect1 = [_r("font_effect_1", "a", "C", "C"), _r("font_effect_1", "b", "D", "C")]  # row 21
    assert _score(effect1, "table2", "Font Effect 1 Effect Score") == pytest.approx(1 / 3)
    assert _score(effect1, "table2", "Font Effect 1 Effect Score", **code) == pytest.approx(0.4375)
    refusal = [_r("font_matching", "a", "none of these", "B"), _r("font_matching", "b", "B", "B")]  # row 22
    assert _score(refusal, "table2", "Font Matching Score") == pytest.approx(0.4375)
    assert _score(refusal, "table2", "Font Matching Score", **code) == 1.0
    subsets = [
        _r("font matching 1", "a", "B", "B"),
        _r("font matching 1", "b", "C", "D"),
        _r("font matching 2", "c", "A", "A"),
    ]
    assert _score(subsets, "table2", "Font Matching Score") == pytest.approx(0.625)  # row 23
    assert _score(subsets, "table2", "Font Matching Score", **code) == pytest.approx(0.71875)
    abc = [_r("font_matching", "a", "A, B, C", "C")]  # row 24: unreadable (0) vs right
    assert (_score(abc, "table2", "Font Matching Score"), _score(abc, "table2", "Font Matching Score", **code)) == (
        0.0,
        1.0,
    )
    metal = [_r("font_effect_2", "a", "red, metallic texture", ["red", "metallic texture"])]  # row 25
    assert _score(metal, "table2", "Font Effect 2 Effect Score") == 1.0
    assert _score(metal, "table2", "Font Effect 2 Effect Score", **code) == pytest.approx(-1 / 47)
    comp = [_r("layout_comparison", "a", "Image A", "A")]  # row 26: right (1.0) vs wrong (unclamped -1)
    assert (
        _score(comp, "table4", "Layout Comparison Score"),
        _score(comp, "table4", "Layout Comparison Score", **code),
    ) == (1.0, -1.0)
    align = [_r("alignment", "a", "Centered", "center-aligned")]  # row 27
    assert _score(align, "table4", "Text Positioning Alignment") == 1.0
    assert _score(align, "table4", "Text Positioning Alignment", **code) == -0.5
    style = [_r("style_understanding", "a", "", "Pop Art")]  # row 28: unreadable (0) vs right (1)
    assert _score(style, "table3", "Style Understanding Score") == 0.0
    # code mode's table prints the script's style number (test_posteriq_bench.py); its per-item rule:
    assert evaluate(style, **code).values("Alpha", "style_understanding_correct") == [1.0]


def test_a_judge_checks_key_points_without_verdicts():
    asked = []

    def reply(request):
        asked.append(request)
        return '{"covered": true}'

    rec = [_r("composition_understanding", "cu", "a poster with a red sun", ["red sun", "blue sea"])]
    res = evaluate(rec, judge=FunctionJudge(reply))
    assert len(asked) == 2 and res.tables["table3"].cell("Alpha", "Composition Understanding Points Score").value == 1.0
    with pytest.raises(InputError, match=r"row 1 .*judge"):
        evaluate(rec)


def test_jsonl_file_and_system_argument(tmp_path):
    path = tmp_path / "answers.jsonl"
    rows = [{k: v for k, v in r.items() if k != "system"} for r in ALPHA[:3]]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    res = evaluate(path, system="Gamma")
    assert res.tables["table1"].rows == ("Gamma",)
    assert res.tables["table1"].cell("Gamma", "Logo OCR AC").value == pytest.approx(1 / 3)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(rows[0]) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 2"):
        evaluate(bad, system="Gamma")
    with pytest.raises(InputError, match="system"):
        evaluate(path)


@pytest.mark.parametrize(
    "record,message",
    [
        (_r("logo ocr", "x", "A", "A") | {"anwser": "A"}, r"row 1 .*unknown field.*anwser"),
        ({"task": "logo_ocr", "item_id": "x", "target": "A", "system": "S"}, r"row 1 .*missing field 'answer'.*null"),
        (_r("posters", "x", "A", "A"), r"row 1: unknown task 'posters'"),
        (_r("font_matching", "x", "A", "J"), r"row 1 .*item 'x'.*letter|one of"),
        (_r("font_size_ocr", "x", "A", "A"), r"font_size"),
        (_r("text_localization", "x", "[]", [[0, 0, 1]]), r"box"),
        (_r("alignment", "x", "left", "justified"), r"one of"),
        (_r("font_effect_2", "x", "red", {"color": "", "effects": []}), r"color.*one of"),
        (_r("overall_rating", "x", "7", 11), r"\[0, 10\]"),
        (_r("composition_understanding", "x", "d", ["k"], verdicts=["Yes", "No"]), r"one verdict per key point"),
        (_r("logo_ocr", "x", ["A"], "A"), r"raw answer"),
        (_r("logo_ocr", True, "A", "A"), r"item_id"),
    ],
)
def test_bad_records_name_the_row(record, message):
    with pytest.raises(InputError, match=message):
        evaluate([record])


def test_duplicates_boxes_in_pixels_and_options():
    dup = [_r("logo_ocr", "x", "A", "A"), _r("logo_ocr", "x", "B", "B")]
    with pytest.raises(InputError, match=r"row 2 .*same system, task and item_id as row 1"):
        evaluate(dup)
    # PosterIQ's own data: ground-truth boxes in pixels with the image size
    px = [_r("text_localization", "t", "[[0.1, 0.1, 0.5, 0.3]]", [[100, 150, 500, 450]], size=[1000, 1500])]
    res = evaluate(px, target_coords="pixel")
    assert res.tables["table4"].cell("Alpha", "Text Localization Top-1 IoU").value == pytest.approx(1.0)
    with pytest.raises(InputError, match=r"row 1 .*target_coords='pixel'"):
        evaluate(px)
    with pytest.raises(InputError, match="size"):
        evaluate([px[0], _r("text_localization", "u", "[]", [A])], target_coords="pixel")
    for bad in ({"mode": "code"}, {"on_unreadable": "skip"}, {"mean_iou_top_n": 0}, {"ddof": -1}):
        with pytest.raises(InputError):
            evaluate(px, **bad)
    with pytest.raises(InputError, match="no records"):
        evaluate([])


def test_catalog_lists_the_tables():
    info = get_protocol("posteriq")
    assert info.tables == ("Table 1", "Table 2", "Table 3", "Table 4", "Table 5", "Table 7")
    assert info.load().evaluate is evaluate


def test_main_text_definitions_of_top1_iou_and_match_accuracy():
    """PosterIQ's main text vs Supp. B (docs/posteriq-paper-vs-code.md), by hand. Text
    localisation: GT A (area .25) and B (.01), the answer gives B then A: Top-1 IoU is 0 by Eq. 4
    (position 0 is B) and 1 by the main text (the best box for A). Empty space: GT {3, 4, 5},
    answers [3, 4, 10] and [5, 4, 3]: Match Acc. 1 and 1 by Eq. 9 (three ids each), 0 and 1 by
    the main text (the ids must be the target regions)."""
    a, b = [0.0, 0.0, 0.5, 0.5], [0.6, 0.6, 0.7, 0.7]
    recs = [
        _r("text_localization", "t", str([b, a]), [a, b]),
        _r("empty_space", "e1", "[3, 4, 10]", [3, 4, 5]),
        _r("empty_space", "e2", "[5, 4, 3]", [3, 4, 5]),
    ]
    col_iou, col_acc = "Text Localization Top-1 IoU", "Empty-Space Match Acc."
    assert (_score(recs, "table4", col_iou), _score(recs, "table4", col_acc)) == (0.0, 1.0)
    main = {"definition": "main-text"}
    assert (_score(recs, "table4", col_iou, **main), _score(recs, "table4", col_acc, **main)) == (1.0, 0.5)
    assert evaluate(recs, **main).options["definition"] == "main-text"
    with pytest.raises(InputError, match="mode='paper'"):
        evaluate(recs, mode="posteriq-code", definition="main-text")
