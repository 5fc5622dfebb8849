"""PosterIQ's own result files (``{model}_bench.json``) read as PosterIQ writes them, ground-truth
defects as named notes, and the code-mode numbers PosterIQ's script prints.

The items here are our own, in the shape of PosterIQ's files (task names, ``subtask``, ``gt`` in
each task's form, ``texts``/``text_bbox`` in pixels with ``size``, ``response``, ``judge``,
``error``); every expected number is worked out by hand in the comments. The real ground truth
is read by the realdata tier (test_posteriq_realdata.py).
"""

from __future__ import annotations

import math

import pytest

from tests._helpers.posteriq_files import bench_item, write_bench
from transcreval.errors import InputError
from transcreval.protocols.posteriq import evaluate


def _bench(tmp_path, items, name="Model-X_bench.json"):
    return write_bench(tmp_path / name, items)


#: one item per task in PosterIQ's own layout, each answered right
RIGHT = [
    bench_item("logo ocr", "logo_ocr/ACANA.jpg", "ACANA", "ACANA"),
    bench_item("poster ocr", "poster_ocr_1024/p.png", None, "ROCK SHOW FRIDAY", texts=["ROCK SHOW", "FRIDAY"]),
    bench_item("simple ocr", "simple_ocr/s.png", ["Hello World", "Grand Hotel"], "Hello World\nGrand Hotel"),
    bench_item("hard ocr", "hard_ocr/s.png", ["Hello World"], "Hello World"),
    bench_item("font size ocr", "font_size_ocr/f80.png", ["Hello World"], "Hello World", subtask=80),
    bench_item("font size ocr", "font_size_ocr/f40.png", ["Hello World"], "Hello World", subtask=40),
    bench_item("font matching 1", "font_matching1/a.png", "D", "D", font="Acme"),
    bench_item("font matching 2", "font_matching2/a.png", "B", "B", font="Acme"),
    bench_item("font attributes", "font_attributes/a.png", "B", "B", subtask="angular"),
    bench_item("font effect", "font_effect/a.png", "A", "A", subtask="shadow"),
    bench_item("font effect 2", "font_effect2/0000.jpg", ["orange", "glowing"], "orange, glowing"),
    bench_item(
        "text localization",
        "poster_ocr_1024/p.png",
        None,
        "[[0.1, 0.2, 0.5, 0.6]]",
        size=[1000, 500],
        texts=["ROCK SHOW"],
        text_bbox=[[100, 100, 500, 300]],
    ),
    bench_item("alignment", "alignment/a.png", ["center-aligned"], "['center-aligned']", alignment=["center-aligned"]),
    bench_item(
        "rotation",
        "rotation/r.png",
        ["clockwise rotation", "right-aligned"],
        "['clockwise rotation', 'right-aligned']",
        rotation=["clockwise rotation"],
        alignment=["right-aligned"],
    ),
    bench_item("empty space", "empty_space/e.png", [3, 4], "[3, 4]"),
    bench_item("layout comparison", "layout_comparison/l.png", "B", "B"),
    bench_item(
        "layout generation",
        "layout_generation/g.png",
        [[0, 0, 50, 100]],
        "[[0.0, 0.0, 0.5, 0.5]]",
        size=[100, 200],
        texts=["Mother"],
        text_bbox=[[0, 0, 50, 100]],
    ),
    bench_item("style understanding", "style_understanding/s.jpg", "Pop Art", "Pop Art"),
    bench_item("composition understanding", "composition_understanding/c.jpg", ["a", "b"], "...", judge=["Yes", "Yes"]),
    bench_item("intention understanding", "intention_understanding/i.jpg", ["a"], "...", judge=["Yes"]),
    bench_item("overall rating", "overall_rating/o1.jpg", 5.0, "5"),
    bench_item("overall rating", "overall_rating/o2.jpg", 8.0, "8"),
]


@pytest.mark.parametrize("mode", ["paper", "posteriq-code"])
def test_a_result_file_is_read_as_posteriq_writes_it(tmp_path, mode):
    res = evaluate(_bench(tmp_path, RIGHT), mode=mode)
    assert [t.rows for t in res.tables.values()] == [("Model-X",)] * 6  # named after the file
    for key in ("table1", "table2", "table3", "table4", "table5"):
        for (_, column), cell in res.tables[key].cells.items():
            want = 0.0 if column in ("Δ", "Font Size OCR Std", "Layout Generation Center Bias") else 1.0
            assert cell.value == pytest.approx(want, abs=1e-12), (mode, column)
    # the pixel ground-truth boxes were divided by the size: [0.1, 0.2, 0.5, 0.6]
    assert res.values("Model-X", "text_localization_top1_iou") == [pytest.approx(1.0)]
    rec = res.select(metric="font_attributes_correct")[0]
    assert rec.item_id == "font_attributes/a.png" and rec.meta["subtask"] == "angular"
    assert res.select(metric="font_size_ocr_wr")[0].meta["font_size"] == 80.0
    assert res.notes == ()


def test_system_names_folders_lists_and_mappings(tmp_path):
    a = _bench(tmp_path, RIGHT[:1], "Qwen3-VL-8B-Instruct_bench.json")
    b = _bench(tmp_path, [bench_item("logo ocr", "logo_ocr/ACANA.jpg", "ACANA", "acana")], "GPT-5_bench.json")
    (tmp_path / "notes.json").write_text("[]", encoding="utf-8")  # not a *_bench.json: not read

    def logo(res):
        return {s: res.tables["table1"].cell(s, "Logo OCR AC").value for s in res.tables["table1"].rows}

    assert logo(evaluate(a)) == {"Qwen3-VL-8B-Instruct": 1.0}
    assert logo(evaluate(a, system="qwen")) == {"qwen": 1.0}
    assert logo(evaluate(tmp_path)) == {"GPT-5": 0.0, "Qwen3-VL-8B-Instruct": 1.0}  # sorted by file
    assert logo(evaluate([a, b])) == {"Qwen3-VL-8B-Instruct": 1.0, "GPT-5": 0.0}
    assert logo(evaluate({"q": a, "g": str(b)}, mode="posteriq-code")) == {"q": 1.0, "g": 1.0}
    with pytest.raises(InputError, match="several files"):
        evaluate([a, b], system="x")
    with pytest.raises(InputError, match="folder holds one system per file"):
        evaluate(tmp_path, system="x")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"no PosterIQ result file \(\*_bench.json\)"):
        evaluate(tmp_path / "empty")


def test_the_record_format_still_works_and_a_mixed_file_is_refused(tmp_path):
    rec = {"system": "S", "task": "logo_ocr", "item_id": "x", "answer": "ACANA", "target": "ACANA"}
    assert evaluate([rec]).tables["table1"].cell("S", "Logo OCR AC").value == 1.0
    with pytest.raises(InputError, match=r"mixes PosterIQ's items .*item 2 differs from item 1"):
        evaluate(_bench(tmp_path, [RIGHT[0], rec]))
    with pytest.raises(InputError, match=r"item 1 \(composition understanding, .*'judge' must be a list"):
        evaluate(_bench(tmp_path, [{**RIGHT[-4], "judge": "Yes"}]))
    odd = evaluate(_bench(tmp_path, [{**RIGHT[0], "response": 5}]))  # not text: unanswered, noted
    assert odd.select(metric="logo_ocr_ac")[0].meta["no_answer"] == "a int response, not text"
    with pytest.raises(InputError, match=r"Model-X_bench.json, item 1 \(task logo_ocr, item 'logo_ocr/ACANA.jpg'\)"):
        evaluate(_bench(tmp_path, [{**RIGHT[0], "gt": ""}]))
    with pytest.raises(InputError, match="unknown task 'poster qa'"):
        evaluate(_bench(tmp_path, [{**RIGHT[0], "task": "poster qa"}]))


def test_an_item_without_a_response_is_unanswered_counted_and_named(tmp_path):
    items = [
        bench_item("logo ocr", "logo_ocr/a.jpg", "ACANA", "ACANA"),
        bench_item("logo ocr", "logo_ocr/b.jpg", "ACUTAS", None, error="Error code: 429 - rate limited"),
        bench_item("logo ocr", "logo_ocr/c.jpg", "ADORNEE", None),
    ]
    res = evaluate(_bench(tmp_path, items))
    cell = res.tables["table1"].cell("Model-X", "Logo OCR AC")
    assert (cell.value, cell.n, cell.n_missing) == (pytest.approx(1 / 3), 3, 0)  # unanswered: 0 by default
    notes = res.tables["table1"].notes
    assert (
        "Model-X, logo_ocr: 2 item(s) without an answer (no response: 2; the runner's error, first: 'Error code: "
        "429 - rate limited'), scored 0 as unreadable"
    ) in notes
    assert not any("unreadable answer" in n for n in notes)  # counted once, as unanswered
    b = res.select(metric="logo_ocr_ac")[1]
    assert b.meta["unanswered"] and b.meta["error"].startswith("Error code: 429") and b.meta["unreadable"]
    dropped = evaluate(_bench(tmp_path, items), on_unreadable="drop").tables["table1"].cell("Model-X", "Logo OCR AC")
    assert (dropped.value, dropped.n, dropped.n_missing) == (1.0, 1, 2)


def test_a_list_response_is_joined_as_the_script_joins_it(tmp_path):
    item = bench_item("logo ocr", "logo_ocr/a.jpg", "ACANA", ["AC", "ANA"])
    assert evaluate(_bench(tmp_path, [item])).values("Model-X", "logo_ocr_ac") == [1.0]


# --------------------------------------------------------------------------- ground-truth defects
def _defects(tmp_path, mode):
    items = [
        # an effect outside the 48 options (PosterIQ's font_effect2/0097.jpg says "lightning",
        # its options "lighting"); the answer names it
        bench_item("font effect 2", "font_effect2/0097.jpg", ["yellow", "lightning"], "yellow, lightning"),
        # the same effect listed twice (font_effect2/0012.jpg): the paper's share counts it once
        bench_item("font effect 2", "font_effect2/0012.jpg", ["white", "outline", "outline"], "white outline"),
        # an empty key point (composition_understanding/027.jpg)
        bench_item(
            "composition understanding",
            "composition_understanding/027.jpg",
            ["a", "b", ""],
            "...",
            judge=["Yes", "No", "Yes"],
        ),
    ]
    return evaluate(_bench(tmp_path, items), mode=mode)


def test_ground_truth_defects_are_named_notes_not_the_end_of_the_run(tmp_path):
    res = _defects(tmp_path, "paper")
    assert res.notes == (
        "ground truth of font_effect_2 item 'font_effect2/0097.jpg': effect 'lightning' is not among the task's "
        "48 options (closest option: 'lighting'); scored as given",
        "ground truth of font_effect_2 item 'font_effect2/0012.jpg': effect 'outline' is listed 2 times; paper "
        "mode scores the share of distinct effects, code mode (as the script) the share of the list",
        "ground truth of composition_understanding item 'composition_understanding/027.jpg': key point 3 is empty "
        "(of 3); judged like any other",
    )
    assert set(res.notes[:2]) <= set(res.tables["table2"].notes) and res.notes[2] in res.tables["table3"].notes
    # paper: the named labels count, "lightning" too (1 of 1) and "outline" once (1 of 1); Eq. 10:
    # the poster counts only when every key point is covered (No on point 2): 0
    assert res.values("Model-X", "font_effect2_effect_recall") == [1.0, 1.0]
    assert res.values("Model-X", "composition_point") == [0.0]


def test_ground_truth_defects_in_code_mode_follow_the_script(tmp_path):
    res = _defects(tmp_path, "posteriq-code")
    assert len(res.notes) == 3
    # the script's substring test: "lightning" is in "yellowlightning" (1 of 1); "outline" twice in
    # the list, both found (2 of 2); the covered share of the key points, "Yes" substring: 2/3
    assert res.values("Model-X", "font_effect2_effect_recall") == [1.0, 1.0]
    assert res.values("Model-X", "composition_point") == [pytest.approx(2 / 3)]


def test_a_defect_note_names_each_item_once_whatever_the_systems(tmp_path):
    items = [bench_item("font effect 2", "font_effect2/0097.jpg", ["yellow", "lightning"], "yellow")]
    res = evaluate({"A": _bench(tmp_path, items, "a_bench.json"), "B": _bench(tmp_path, items, "b_bench.json")})
    assert len(res.notes) == 1 and res.tables["table2"].rows == ("A", "B")


# --------------------------------------------------------------------------- numbers the script prints
def test_code_mode_prints_the_layout_comparison_accuracy_as_the_style_score(tmp_path):
    """und_metric.py prints k_option_norm(layout-comparison accuracy, k=17) as the style score."""
    items = [
        bench_item("style understanding", "style_understanding/a.jpg", "Pop Art", "Pop Art"),
        bench_item("style understanding", "style_understanding/b.jpg", "Retro Style", "Pop Art"),
        *[bench_item("layout comparison", f"layout_comparison/{i}.png", "A", a) for i, a in enumerate("AAAB")],
    ]
    code = evaluate(_bench(tmp_path, items), mode="posteriq-code")
    # layout accuracy 3/4: (17 * 3/4 - 1) / 16 = 0.734375; the style accuracy (1/2) stays in the records
    style = code.tables["table3"].cell("Model-X", "Style Understanding Score")
    assert (style.value, style.n) == (0.734375, 4)
    assert code.values("Model-X", "style_understanding_correct") == [1.0, 0.0]
    assert any("layout-comparison accuracy normalised with k = 17" in n for n in code.tables["table3"].notes)
    paper = evaluate(_bench(tmp_path, items)).tables["table3"].cell("Model-X", "Style Understanding Score")
    assert paper.value == pytest.approx((17 * 0.5 - 1) / 16)  # paper mode: the style accuracy itself
    alone = evaluate(_bench(tmp_path, items[:2]), mode="posteriq-code").tables["table3"]
    assert math.isnan(alone.cell("Model-X", "Style Understanding Score").value)  # the script crashes there


@pytest.mark.parametrize(
    "answer,code,paper",
    [
        # the script's five patterns in order, the first in-range match wins
        ("I'd give it a 9 - it loses 1 point", 1.0, None),  # "1 point" (pattern 4) before any number
        ("Score is 6 out of ten, so 3 points", 3.0, 6.0),  # "Score" needs a colon or spaces before the number
        ("rating:  8", 8.0, 8.0),
        ("7./10", 7.0, 7.0),  # "7." is a number to the script
        ("8outof10", 8.0, None),
        ("Score: 12, then 8", None, None),
    ],
)
def test_overall_rating_reads_scores_as_the_script_does(answer, code, paper):
    from transcreval.functional.stats.rating_similarity import read_score

    assert read_score(answer, "posteriq-code") == code
    assert read_score(answer, "paper") == paper


@pytest.mark.parametrize(
    "answer,ids",
    [("[19, 20,]", [19, 20]), ("[]", []), ("[ 1 ,, 2 ]", [1, 2]), ("use [1] then [ ]", []), ("[３, 4]", [3, 4])],
)
def test_empty_space_reads_patch_lists_as_the_script_does(answer, ids):
    from transcreval.utils.parsing import posteriq_code_patch_ids

    got = posteriq_code_patch_ids(answer)
    assert (got.status, got.value) == ("ok", ids)


def test_empty_space_table_with_an_empty_list_and_a_trailing_comma(tmp_path):
    items = [
        bench_item("empty space", "empty_space/a.png", [19, 20], "[19, 20,]"),  # IoU 1, 2 patches for 2: match
        bench_item("empty space", "empty_space/b.png", [1, 2], "[]"),  # IoU 0, 0 for 2: no match
    ]
    t = evaluate(_bench(tmp_path, items), mode="posteriq-code").tables["table4"]
    assert t.cell("Model-X", "Empty-Space Mean IoU").value == 0.5
    assert t.cell("Model-X", "Empty-Space Match Acc.").value == 0.5


def test_a_model_answering_boxes_in_pixels_is_unreadable_there_not_the_end_of_the_run(tmp_path):
    """TextLocalizationIoU alone refuses an answer in other units (BoxUnitsError: the caller's
    setting); over many models' answers the protocol scores such an answer as unreadable and
    notes it, and code mode reads it as the script does (the /[W, H] reading)."""
    from transcreval.functional.layout.box_reading import BoxUnitsError
    from transcreval.functional.layout.boxes import text_localization_iou

    def box(path, answer):  # one pixel box [100, 100, 500, 300] on a 1000 x 500 image
        return bench_item(
            "text localization", path, None, answer, size=[1000, 500], texts=["A"], text_bbox=[[100, 100, 500, 300]]
        )

    pixels = "[[100.0, 100.0, 500.0, 300.0]]"
    items = [box("p/1.png", pixels), box("p/2.png", "[[0.1, 0.2, 0.5, 0.6]]")]
    with pytest.raises(BoxUnitsError, match="coords='pixel'"):
        text_localization_iou([pixels], [[(0.1, 0.2, 0.5, 0.6)]], top_n=1)
    paper = evaluate(_bench(tmp_path, items))
    t = paper.tables["table4"]
    assert t.cell("Model-X", "Text Localization Top-1 IoU").value == 0.5  # 0 (unreadable) and 1
    assert any("1 answer(s) give box coordinates above 1" in n for n in t.notes)
    assert not any("unreadable answer(s)" in n for n in t.notes)  # noted once
    assert paper.select(metric="text_localization_recall")[0].meta["box_units"] == "above 1"
    code = evaluate(_bench(tmp_path, items), mode="posteriq-code").tables["table4"]
    assert code.cell("Model-X", "Text Localization Top-1 IoU").value == 1.0
