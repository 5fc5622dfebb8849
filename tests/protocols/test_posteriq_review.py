"""Defects a skeptical review found in reading PosterIQ's own result files (``{model}_bench.json``),
the no-manifest run path and the claim that code mode equals ``und_metric.py``'s printed numbers;
each test failed on the reviewed code and keeps its fix in place.

The items are our own, in the shape of PosterIQ's files; every expected number is worked out by
hand from the script's rules in the comments (the script is read, never copied).
"""

from __future__ import annotations

import json
import math
import re

import pytest

from tests._helpers.posteriq_files import bench_item, write_bench
from transcreval.errors import InputError
from transcreval.protocols.posteriq import evaluate


def _box_item(path, response):
    # one pixel box [100, 100, 500, 300] on a 1000 x 500 image: [0.1, 0.2, 0.5, 0.6] normalised
    return bench_item(
        "text localization",
        path,
        None,
        response,
        size=[1000, 500],
        texts=["ROCK"],
        text_bbox=[[100, 100, 500, 300]],
    )


def _all_notes(res):
    return list(res.notes) + [n for t in res.tables.values() for n in t.notes]


# ------------------------------------------------------------------------------ run layer
def test_review_a_records_file_of_two_systems_without_a_manifest_loses_no_system(tmp_path):
    """Defect: ``-s X=records.jsonl`` with no manifest (PosterIQAdapter.own_inputs) keys the
    outputs by item id only, so when the records file holds two systems (S1, S2) on the same
    item, one system's answer silently overwrites the other's: validate says "ok" with 1 output
    and the run scores one answer. Fix: refuse a file whose records name several systems under
    one -s name (InputError naming them), or keep each record's system."""
    from transcreval.runs import evaluate as run_evaluate
    from transcreval.runs import validate

    recs = tmp_path / "recs.jsonl"
    rows = [
        {"system": "S1", "task": "logo_ocr", "item_id": "x", "answer": "ACANA", "target": "ACANA"},
        {"system": "S2", "task": "logo_ocr", "item_id": "x", "answer": "nope", "target": "ACANA"},
    ]
    recs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = validate("posteriq", None, {"X": str(recs)})
    assert not report["ok"], "validate accepts a two-system records file and counts one output"
    try:
        run = run_evaluate("posteriq", None, {"X": str(recs)}, tmp_path / "run")
    except InputError:
        return  # refusing the file is a fix
    cells = run.results.tables["table1"].cells
    assert sum(c.n for (_, col), c in cells.items() if col == "Logo OCR AC") == 2  # both answers scored


def test_review_a_folder_where_one_file_lacks_items_agrees_with_the_cli_and_says_so(tmp_path, capsys):
    """Defect: when one result file lacks items the others have, ``evaluate(folder)`` scores that
    system over fewer items and says nothing, while ``transcreval evaluate`` on the same files
    notes the missing items and scores them 0 (missing outputs): Table 1 differs between Python
    and the CLI (here B's logo accuracy 1.0 vs 0.5). Fix: one rule for both (the run layer's
    missing output, or the script's leave-out) and a note naming the lacking file's items."""
    from transcreval.cli import main

    folder = tmp_path / "results"
    folder.mkdir()
    a = [
        bench_item("logo ocr", "logo_ocr/a.jpg", "ACANA", "ACANA"),
        bench_item("logo ocr", "logo_ocr/b.jpg", "ACUTAS", "ACUTAS"),
    ]
    write_bench(folder / "A_bench.json", a)
    write_bench(folder / "B_bench.json", a[:1])  # B's file lacks logo_ocr/b.jpg
    py = evaluate(folder).tables["table1"].cell("B", "Logo OCR AC")
    args = ["-s", f"A={folder / 'A_bench.json'}", "-s", f"B={folder / 'B_bench.json'}"]
    assert main(["evaluate", "-p", "posteriq", *args, "-o", str(tmp_path / "run"), "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    cli = next(c for c in got["tables"]["table1"]["cells"] if c["row"] == "B" and c["column"] == "Logo OCR AC")
    assert cli["value"] == pytest.approx(py.value), "Python and the CLI score the same folder differently"
    assert any("logo_ocr/b.jpg" in n for n in _all_notes(evaluate(folder))), "the missing item is not noted"


def test_review_an_error_in_one_file_of_a_folder_names_that_file(tmp_path):
    """Defect: parse errors of PosterIQ's files are raised in the record format's words: "row 5"
    counts records over all files read (not the item's place in its file) and no file is named,
    so with a folder, a list or several ``-s`` the user cannot tell which file is wrong (here
    B_bench.json's item 2; the message says "row 4 ... target ... got []"). Fix: carry the file
    and its item number into the records' ``where`` (as bench.py's own messages already do)."""
    from transcreval.runs import validate

    folder = tmp_path / "results"
    folder.mkdir()
    good = [
        bench_item("logo ocr", "logo_ocr/a.jpg", "ACANA", "ACANA"),
        bench_item("composition understanding", "composition_understanding/1.jpg", ["a"], "...", judge=["Yes"]),
    ]
    bad = [good[0], {**good[1], "gt": []}]  # no key points: structure that cannot be read
    write_bench(folder / "A_bench.json", good)
    write_bench(folder / "B_bench.json", bad)
    with pytest.raises(InputError, match=r"B_bench\.json"):
        evaluate(folder)
    with pytest.raises(InputError, match=r"B_bench\.json"):
        evaluate([folder / "A_bench.json", folder / "B_bench.json"])
    with pytest.raises(InputError, match=r"A_bench\.json"):  # the same file twice: which one?
        evaluate([folder / "A_bench.json", folder / "A_bench.json"])
    report = validate("posteriq", None, {"A": str(folder / "A_bench.json"), "B": str(folder / "B_bench.json")})
    assert any("B_bench.json" in e for e in report["errors"]), report["errors"]


def test_review_an_item_without_a_response_is_counted_once_in_the_notes(tmp_path):
    """Defect: one item without a ``response`` is reported twice in its table's notes, as "1
    unreadable answer(s), scored 0" and as "1 item(s) without a response ..., scored 0 as
    unreadable", so a reader counts two problem items where there is one. Fix: leave unanswered
    items out of the unreadable count (or give one note: "1 unreadable, of which 1 without a
    response")."""
    items = [
        bench_item("logo ocr", "logo_ocr/a.jpg", "ACANA", "ACANA"),
        bench_item("logo ocr", "logo_ocr/b.jpg", "ACUTAS", None, error="Error code: 429"),
    ]
    notes = evaluate(write_bench(tmp_path / "M_bench.json", items)).tables["table1"].notes
    counted = [int(re.match(r"M, logo_ocr: (\d+) ", n).group(1)) for n in notes if n.startswith("M, logo_ocr:")]
    assert sum(counted) == 1, notes


def test_review_a_folder_reads_result_files_whatever_the_case_of_json(tmp_path):
    """Defect: ``evaluate("B_bench.JSON")`` reads the file, but a folder holding it skips it
    silently (the folder filter is case-sensitive), so system B vanishes from the tables with no
    note. Fix: match the suffix case-insensitively, as the file reader does (and say which files
    of a folder were not read)."""
    items = [bench_item("logo ocr", "logo_ocr/a.jpg", "ACANA", "ACANA")]
    write_bench(tmp_path / "A_bench.json", items)
    write_bench(tmp_path / "B_bench.JSON", items)
    assert evaluate(tmp_path / "B_bench.JSON").tables["table1"].rows == ("B",)
    assert evaluate(tmp_path).tables["table1"].rows == ("A", "B")


def test_review_validate_names_the_ground_truth_defects(tmp_path):
    """Defect: ``transcreval validate -p posteriq -s A=X_bench.json`` on the released ground truth
    says "ok" with no warning, although evaluate then notes its defects by item (an effect outside
    the 48 options, an effect listed twice, an empty key point). validate is where a user checks
    the files first. Fix: pass the defects found while reading into validate's warnings."""
    from transcreval.runs import validate

    path = write_bench(
        tmp_path / "A_bench.json",
        [bench_item("font effect 2", "font_effect2/0097.jpg", ["yellow", "lightning"], "yellow, lightning")],
    )
    report = validate("posteriq", None, {"A": str(path)})
    assert any("lightning" in w and "font_effect2/0097.jpg" in w for w in report["warnings"]), report["warnings"]


def test_review_code_mode_notes_say_how_a_duplicated_effect_was_scored(tmp_path):
    """Defect: the note for an effect listed twice (PosterIQ's font_effect2/0012.jpg) says "the
    paper's share counts it once" in both modes, but code mode counts it twice, as the script does
    (docs/protocols/posteriq.md): a code-mode report then describes a rule it did not apply.
    Fix: word the note by mode (code mode: the script's share over the list as given)."""
    items = [bench_item("font effect 2", "font_effect2/0012.jpg", ["white", "outline", "outline"], "white")]
    code = evaluate(write_bench(tmp_path / "M_bench.json", items), mode="posteriq-code")
    assert code.values("M", "font_effect2_effect_recall") == [0.0]
    (note,) = code.notes
    assert "counts it once" not in note, note


# ------------------------------------------------------------------------------ code mode vs the script
@pytest.mark.parametrize("odd", [7, 7.5])
def test_review_a_non_string_rating_response_is_skipped_as_the_script_skips_it(tmp_path, odd):
    """Defect: a ``response`` that is a number ends the whole run with InputError ("'response'
    must be the model's answer (a string)"), though the script does not crash on it: its overall
    rating skips an item whose response is neither a string nor a list. Gt 2, 5, 8 with answers
    "2", <number>, "8": the script pairs (2, 2) and (8, 8): centred [-3, 3] and [-3, 3], cosine 1.
    Fix: read a non-string response the way each task of the script does (or, at least, as an
    unreadable answer of that item, never the end of the run)."""
    items = [
        bench_item("overall rating", "overall_rating/1.jpg", 2.0, "2"),
        bench_item("overall rating", "overall_rating/2.jpg", 5.0, odd),
        bench_item("overall rating", "overall_rating/3.jpg", 8.0, "8"),
    ]
    res = evaluate(write_bench(tmp_path / "M_bench.json", items), mode="posteriq-code")
    cell = res.tables["table5"].cell("M", "Overall Rating Sim")
    assert cell.value == pytest.approx(1.0) and cell.n == 2


def test_review_overall_rating_of_all_zero_scores_is_what_the_script_prints(tmp_path):
    """Defect: when every model score reads 0 the script's model vector has zero spread, so it is
    used uncentred: all zeros, norm 0, and its cosine is 0/0 = nan (what it prints). Code mode
    prints 0.0 instead (rating_cosine returns 0.0 when a norm is 0). Fix: in code mode a zero
    norm gives nan, with a note saying why (the script divides by zero)."""
    items = [
        bench_item("overall rating", "overall_rating/1.jpg", 2.0, "0"),
        bench_item("overall rating", "overall_rating/2.jpg", 5.0, "0/10"),
        bench_item("overall rating", "overall_rating/3.jpg", 8.0, "Score: 0"),
    ]
    res = evaluate(write_bench(tmp_path / "M_bench.json", items), mode="posteriq-code")
    assert math.isnan(res.tables["table5"].cell("M", "Overall Rating Sim").value)


def test_review_a_null_response_is_unanswered_and_noted_where_the_script_departs(tmp_path):
    """PosterIQ's runner stores ``message.content``, null when a model returns no text. The script
    then keeps the previous item's answer in its text-localisation, layout-generation, alignment
    and rotation loops (whatever that item's task); here a null response is an item without an
    answer, scored as ``on_unreadable`` says and noted by cause. docs/protocols/posteriq.md states
    this one departure from the script's printed numbers."""
    items = [
        _box_item("poster_ocr_1024/1.png", "[[0.1, 0.2, 0.5, 0.6]]"),
        _box_item("poster_ocr_1024/2.png", None),
    ]
    items[1]["response"] = None
    res = evaluate(write_bench(tmp_path / "M_bench.json", items), mode="posteriq-code")
    # item 1: 1 box for 1 (1.0); item 2: no answer, recall 0: 0.5 (the script would print 1.0)
    assert res.tables["table4"].cell("M", "Text Localization Recall").value == pytest.approx(0.5)
    assert res.select(metric="text_localization_recall")[1].meta["no_answer"] == "null response"
    assert any("1 item(s) without an answer (null response: 1)" in n for n in res.tables["table4"].notes)
