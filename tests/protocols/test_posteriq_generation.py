"""PosterIQ generation (Table 6) from score files as gen_metric.py writes them: every value worked
out by hand from the rules in docs/protocols/posteriq.md ("Generation"), in both modes, with the
quirks of the file (an "error" reply, "Yes." with a period, mixed case, a list of style replies,
"thin" inside "nothing", an empty reply list, a prompt without an image)."""

from __future__ import annotations

import json
import math

import pytest

from transcreval.errors import InputError
from transcreval.judge import FunctionJudge
from transcreval.protocols.posteriq import evaluate_generation
from transcreval.protocols.posteriq.generation import TABLE6_COLUMNS, read_prompts

CODE = {"mode": "posteriq-code"}


def _item(task, path, judge, **gt):
    return {"task": f"poster {task}", "name": path.split("/")[-1], "path": path, "prompt": "p", **gt, "judge": judge}


#: one system's score file; the values per task are in the tests' comments
ITEMS = [
    # dense: code 1/3 ("Yes." is not "yes"), 1, 0 ("error") -> 4/9; paper 0, 1, left out -> 1/2
    _item("dense", "dense\\1.jpg", ["Yes", "No", "Yes."], gt=["a", "b", "c"]),
    _item("dense", "dense\\2.jpg", ["yes", "YES"], gt=["a", "b"]),
    _item("dense", "dense\\3.jpg", "error", gt=["a", "b"]),
    # style (target Pop Art): code 1, 0, 0, 1/2 -> 3/8; paper 1, 1 (the period aside), left out, 1/2 -> 5/6
    _item("style", "style\\1.jpg", "pop art", style="Pop Art"),
    _item("style", "style\\2.jpg", "Pop Art.", style="Pop Art"),
    _item("style", "style\\3.jpg", "error", style="Pop Art"),
    _item("style", "style\\4.jpg", ["Pop Art", "Retro Style"], style="Pop Art"),
    # font: code 2 ("Thin", "serif"), 1 ("thin" inside "nothing"), 0 -> 3 / (3 * 37);
    # paper 2, 0, left out -> 2 / (2 * 37)
    _item("font", "font/1.jpg", '["Thin", "serif"]'),
    _item("font", "font/2.jpg", "nothing"),
    _item("font", "font/3.jpg", "error"),
    # composition: code 1/2, 1 -> 3/4; paper 0, 1 -> 1/2
    _item("composition", "composition/1.jpg", ["Yes", "No"], gt=["a", "b"]),
    _item("composition", "composition/2.jpg", ["Yes"], gt=["a"]),
    # intention: code 1 (any case), 0 ("Yes, it does" is not "yes") -> 1/2; paper 1, 1 -> 1
    _item("intention", "intention/1.jpg", ["yES"], gt=["a"]),
    _item("intention", "intention/2.jpg", ["Yes, it does"], gt=["a"]),
]
CODE_ROW = {"Dense": 4 / 9, "Font": 3 / 111, "Style": 3 / 8, "Composition": 3 / 4, "Intention": 1 / 2}
PAPER_ROW = {"Dense": 1 / 2, "Font": 1 / 37, "Style": 5 / 6, "Composition": 1 / 2, "Intention": 1.0}


def _write(path, items):
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize(("mode", "row"), [("posteriq-code", CODE_ROW), ("paper", PAPER_ROW)])
def test_table6_from_a_score_file_in_both_modes(tmp_path, mode, row):
    f = _write(tmp_path / "Gen-X_score.json", ITEMS)
    t = evaluate_generation(f, mode=mode).tables["table6"]
    assert t.columns == TABLE6_COLUMNS == ("Dense", "Font", "Style", "Composition", "Intention", "Average")
    assert t.rows == ("Gen-X",)  # the file's stem without _score
    for col, want in row.items():
        assert t.cell("Gen-X", col).value == pytest.approx(want, abs=1e-12), col
    assert t.cell("Gen-X", "Average").value == pytest.approx(sum(row.values()) / 5, abs=1e-12)


def test_paper_mode_leaves_error_replies_out_and_says_so(tmp_path):
    f = _write(tmp_path / "g_score.json", ITEMS)
    res = evaluate_generation(f)
    dense = res.tables["table6"].cell("g", "Dense")
    assert (dense.n, dense.n_missing) == (2, 1)
    assert any(
        n == 'g, dense: 1 image(s) whose judge calls failed ("error"); left out' for n in res.tables["table6"].notes
    )
    rec = {(r.item_id, r.metric): r for r in res.records}
    assert rec[("dense/3.jpg", "dense_point")].status == "judge_error" and math.isnan(
        rec[("dense/3.jpg", "dense_point")].value
    )
    code = evaluate_generation(f, **CODE).tables["table6"].cell("g", "Dense")
    assert (code.n, code.n_missing) == (3, 0)  # the script's denominator: every image present


def test_missing_images_count_per_denominator_and_are_named(tmp_path):
    """Prompts with no image: paper mode counts them as 0 over every prompt; code mode leaves them
    out (the images present); each mode takes the other denominator as an option."""
    f = _write(tmp_path / "g_score.json", [it for it in ITEMS if it["task"] == "poster dense"])
    prompts = [{k: v for k, v in it.items() if k != "judge"} for it in ITEMS if it["task"] == "poster dense"]
    prompts.append({"task": "poster dense", "path": "dense\\9.jpg", "gt": ["a"], "prompt": "p"})
    paper = evaluate_generation(f, tasks=prompts).tables["table6"]
    assert paper.cell("g", "Dense").value == pytest.approx(1 / 3)  # (0 + 1 + 0 for dense/9) / 3; the error left out
    assert any("1 of 4 prompt(s) have no image (first: 'dense/9.jpg'); each scores 0" in n for n in paper.notes)
    assert evaluate_generation(f, tasks=prompts, denominator="present").tables["table6"].cell(
        "g", "Dense"
    ).value == pytest.approx(1 / 2)
    code = evaluate_generation(f, tasks=prompts, **CODE).tables["table6"]
    assert code.cell("g", "Dense").value == pytest.approx(4 / 9)
    assert any("left out (denominator: the images present)" in n for n in code.notes)
    assert evaluate_generation(f, tasks=prompts, denominator="prompts", **CODE).tables["table6"].cell(
        "g", "Dense"
    ).value == pytest.approx((4 / 3) / 4)
    # a system without any font/style items: its Average is over the tasks it has, said in a note
    assert any("no score for Font, Style, Composition, Intention" in n for n in paper.notes)


def test_quirks_are_notes_not_crashes(tmp_path):
    items = [
        _item("dense", "dense/1.jpg", [], gt=["a"]),  # gen_metric.py divides by zero
        _item("dense", "dense/2.jpg", ["Yes", None], gt=["a", "b"]),  # a reply that is not text
        _item("dense", "dense/3.jpg", ["Yes", "Yes", "Yes"], gt=["a", "b"]),  # 3 replies for 2 points
        _item("font", "font/1.jpg", ["bold", "thin"]),  # a list instead of one reply
        {"task": "poster style", "path": "style/1.jpg", "style": "Pop Art", "prompt": "p"},  # no judge field
    ]
    res = evaluate_generation(_write(tmp_path / "q_score.json", items), **CODE)
    t = res.tables["table6"]
    # dense, code: 0 (no replies), 1/2 (None is no yes), 1 -> 1/2
    assert t.cell("q", "Dense").value == pytest.approx(1 / 2)
    assert t.cell("q", "Font").value == pytest.approx(1 / 37)  # "thin" is an attribute, "bold" is not
    assert math.isnan(t.cell("q", "Style").value) and t.cell("q", "Style").n_missing == 1
    notes = "\n".join(t.notes)
    for part in (
        "no replies (an empty list)",
        "reply 2 of 2 is not text",
        "3 replies for 2 key points",
        "a list of attributes",
        "without judge replies",
    ):
        assert part in notes, part


def test_several_files_a_folder_and_a_mapping_name_the_systems(tmp_path):
    _write(tmp_path / "A_score.json", ITEMS)
    _write(tmp_path / "B_score.json", ITEMS[:3])
    t = evaluate_generation(tmp_path, **CODE).tables["table6"]
    assert t.rows == ("A", "B")
    assert t.cell("B", "Dense").value == pytest.approx(4 / 9)
    t2 = evaluate_generation({"Mine": tmp_path / "B_score.json"}, **CODE).tables["table6"]
    assert t2.rows == ("Mine",)
    assert evaluate_generation(tmp_path / "B_score.json", system="Named").tables["table6"].rows == ("Named",)
    with pytest.raises(InputError, match="task"):
        evaluate_generation(
            _write(tmp_path / "bad_score.json", [{"task": "poster x", "path": "a.jpg", "judge": "Yes"}])
        )
    with pytest.raises(InputError, match="denominator"):
        evaluate_generation(tmp_path / "B_score.json", denominator="all")


def _poster(path):
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 12), (200, 30, 30)).save(path)


def test_images_and_a_judge_per_task(tmp_path):
    """An image folder laid out by the prompts' paths, a judge per task (the project's templates):
    one call per key point, one per style or font poster; a missing image is named."""
    prompts = [
        {"task": "poster dense", "path": "dense\\1.jpg", "gt": ["red sun", "blue sea"]},
        {"task": "poster style", "path": "style\\1.jpg", "style": "Pop Art"},
        {"task": "poster font", "path": "font/1.jpg"},
        {"task": "poster composition", "path": "composition/1.jpg", "gt": ["nested frames"]},
        {"task": "poster intention", "path": "intention/1.jpg", "gt": ["safety"]},
        {"task": "poster intention", "path": "intention/2.jpg", "gt": ["peace"]},  # no image
    ]
    for p in prompts[:5]:
        _poster(tmp_path / "imgs" / p["path"].replace("\\", "/"))
    asked = {"main": [], "comp": []}

    def main(request):
        asked["main"].append(request.text)
        if "Pop Art" in request.text and "Retro" in request.text:
            return '{"style": "Pop Art"}'
        if "angular" in request.text:
            return '{"attributes": ["bold", "thin", "serif"]}'
        return '{"covered": false}' if "blue sea" in request.text else '{"covered": true}'

    def comp(request):
        asked["comp"].append(request.text)
        return '{"covered": true}'

    judges = {t: FunctionJudge(main, "main") for t in ("dense", "font", "style", "intention")}
    judges["composition"] = FunctionJudge(comp, "comp")
    res = evaluate_generation({"G": tmp_path / "imgs"}, tasks=prompts, judge=judges)
    t = res.tables["table6"]
    assert len(asked["main"]) == 2 + 1 + 1 + 1 and len(asked["comp"]) == 1
    # dense: blue sea not covered -> 0; font: thin, serif (bold is not one of the 37) -> 2/37;
    # style right -> 1; composition 1; intention 1 covered + 1 missing image over 2 prompts -> 1/2
    want = {"Dense": 0.0, "Font": 2 / 37, "Style": 1.0, "Composition": 1.0, "Intention": 0.5}
    for col, w in want.items():
        assert t.cell("G", col).value == pytest.approx(w), col
    assert any("'intention/2.jpg'" in n for n in t.notes)
    with pytest.raises(InputError, match="tasks="):
        evaluate_generation({"G": tmp_path / "imgs"}, judge=judges)
    with pytest.raises(InputError, match="judge"):
        evaluate_generation({"G": tmp_path / "imgs"}, tasks=prompts)


@pytest.mark.parametrize("mode", ["paper", "posteriq-code"])
@pytest.mark.parametrize("layout", ["empty", "png"])
def test_a_folder_with_no_image_at_the_prompts_paths_still_gets_its_row_and_names_every_prompt(tmp_path, mode, layout):
    """An empty folder, or .png files where the prompts name .jpg: no image is where a prompt says,
    so every prompt is a missing image, counted and named, and the system still has its Table 6
    row (0 over every prompt in paper mode; no image to average in code mode, each cell NaN with
    the prompts in n_missing). A user once got an empty table with no rows, records or notes."""
    prompts = [
        {"task": "poster dense", "path": "dense/1.jpg", "gt": ["a"]},
        {"task": "poster dense", "path": "dense/2.jpg", "gt": ["a"]},
        {"task": "poster style", "path": "style/1.jpg", "style": "Pop Art"},
    ]
    folder = tmp_path / "G"
    folder.mkdir()
    if layout == "png":
        for p in prompts:
            _poster(folder / p["path"].replace(".jpg", ".png"))
    asked = []
    judge = FunctionJudge(lambda request: asked.append(request) or '{"covered": true}')
    res = evaluate_generation(folder, tasks=prompts, judge=judge, mode=mode)
    t = res.tables["table6"]
    assert not asked  # nothing to judge
    assert t.rows == ("G",)
    assert sorted((r.item_id, r.metric, r.status) for r in res.records) == [
        ("dense/1.jpg", "dense_point", "missing_image"),
        ("dense/2.jpg", "dense_point", "missing_image"),
        ("style/1.jpg", "style_correct", "missing_image"),
    ]
    for col, n_prompts in (("Dense", 2), ("Style", 1)):
        c = t.cell("G", col)
        if mode == "paper":  # denominator: every prompt, a missing image scores 0
            assert (c.value, c.n, c.n_missing) == (0.0, n_prompts, 0), col
        else:  # denominator: the images present (none)
            assert math.isnan(c.value) and (c.n, c.n_missing) == (0, n_prompts), col
    assert any("G, dense: 2 of 2 prompt(s) have no image (first: 'dense/1.jpg', 'dense/2.jpg')" in n for n in t.notes)
    assert any("G, style: 1 of 1 prompt(s) have no image (first: 'style/1.jpg')" in n for n in t.notes)
    if layout == "png":
        assert any("'dense/1.jpg' as 'dense/1.png'" in n for n in t.notes), t.notes


def test_read_prompts_refuses_duplicates_and_reads_windows_paths():
    ps = read_prompts([{"task": "poster dense", "path": "dense\\1.jpg", "gt": ["a"]}])
    assert ps[0].item_id == "dense/1.jpg" and ps[0].task == "dense"
    with pytest.raises(InputError, match="second prompt"):
        read_prompts(
            [
                {"task": "dense", "path": "dense/1.jpg", "gt": ["a"]},
                {"task": "dense", "path": "dense\\1.jpg", "gt": ["b"]},
            ]
        )
    with pytest.raises(InputError, match="inside"):
        read_prompts([{"task": "font", "path": "../x.jpg"}])


def test_two_sources_with_one_system_name_are_refused(tmp_path):
    """Two score files named after one system (one stem in two folders, or system= twice) would
    pool their items into one row and count each image twice: an InputError names both."""
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    a = _write(tmp_path / "x" / "A_score.json", ITEMS[:3])
    b = _write(tmp_path / "y" / "A_score.json", ITEMS[:3])
    with pytest.raises(InputError, match=r"system 'A'.*x.A_score\.json.*y.A_score\.json"):
        evaluate_generation([a, b], **CODE)
    with pytest.raises(InputError, match="system 'A'"):
        evaluate_generation([tmp_path / "x", tmp_path / "y"], **CODE)  # two folders of score files
    assert evaluate_generation({"A": a, "B": b}, **CODE).tables["table6"].rows == ("A", "B")


def test_a_null_judge_field_is_a_judge_failure_not_a_crash(tmp_path):
    """``"judge": null`` (the API returned no content; gen_metric.py itself would crash on it) is
    an image without replies: left out, counted and named, as the runner reads it."""
    items = [
        _item("dense", "dense/1.jpg", None, gt=["a"]),
        _item("dense", "dense/2.jpg", ["Yes"], gt=["a"]),
        _item("font", "font/1.jpg", None),
        _item("style", "style/1.jpg", None, style="Pop Art"),
    ]
    f = _write(tmp_path / "n_score.json", items)
    for mode in ("paper", "posteriq-code"):
        res = evaluate_generation(f, mode=mode)
        t = res.tables["table6"]
        assert (t.cell("n", "Dense").value, t.cell("n", "Dense").n, t.cell("n", "Dense").n_missing) == (1.0, 1, 1)
        assert math.isnan(t.cell("n", "Font").value) and t.cell("n", "Font").n_missing == 1
        assert any("n, style: 1 image(s) without judge replies (1 no_judge)" in n for n in t.notes)
        rec = {r.item_id: r for r in res.records}
        assert rec["font/1.jpg"].status == "no_judge" and math.isnan(rec["font/1.jpg"].value)


def test_average_of_a_row_missing_tasks_is_over_the_tasks_it_has(tmp_path):
    """A system with only dense and font items: its Average is the mean of those two cells (not
    of five with the absent ones as 0), and a note says so."""
    f = _write(tmp_path / "p_score.json", [it for it in ITEMS if it["task"] in ("poster dense", "poster font")])
    t = evaluate_generation(f, **CODE).tables["table6"]
    assert t.cell("p", "Average").value == pytest.approx((4 / 9 + 3 / 111) / 2, abs=1e-12)
    assert t.cell("p", "Average").n == 2
    assert any(
        "p: no score for Style, Composition, Intention; its Average is the mean of the other 2" in n for n in t.notes
    )


def test_the_note_on_images_without_replies_counts_each_status():
    """Several reasons for no replies in one task: the note gives each status's count, not the
    first item's status alone."""
    from transcreval.protocols.posteriq.generation import gen_options, score_items
    from transcreval.protocols.posteriq.generation.inputs import GenItem

    prompts = read_prompts([{"task": "dense", "path": f"dense/{i}.jpg", "gt": ["a"]} for i in range(1, 5)])
    statuses = ["no_judge", "not_judged", "no_judge", None]
    entries = [GenItem("S", p, ["Yes"] if st is None else None, True, st or "ok") for p, st in zip(prompts, statuses)]
    t = score_items(entries, prompts, gen_options()).tables["table6"]
    assert "S, dense: 3 image(s) without judge replies (2 no_judge, 1 not_judged); left out" in t.notes, t.notes
    assert (t.cell("S", "Dense").n, t.cell("S", "Dense").n_missing) == (1, 3)
