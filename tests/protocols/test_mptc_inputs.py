"""MPTc-Bench protocol inputs: JSONL records, the pHash split, and errors that name the bad row."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from PIL import Image

from tests._helpers.mptc_set import image
from transcreval.errors import InputError
from transcreval.functional import phash_distances
from transcreval.judge import FunctionJudge
from transcreval.protocols import mptc

ANY = json.dumps({"title": "T", "answer": "A", "aesthetic_score": 3, "adaptation_score": 3, "preferred": "A"})


def _write(tmp_path, pairs, split_field=None):
    """SRC/GT PNGs under tmp_path/img and the two JSONL files (relative image paths)."""
    (tmp_path / "img").mkdir()
    items, outputs = [], []
    for k, (src, gt) in enumerate(pairs):
        Image.fromarray(src).save(tmp_path / "img" / f"src{k}.png")
        Image.fromarray(gt).save(tmp_path / "img" / f"gt{k}.png")
        Image.fromarray(image(50 + k, (32, 48))).save(tmp_path / "img" / f"out{k}.png")
        it = {"item_id": f"i{k}", "source": f"img/src{k}.png", "gt": f"img/gt{k}.png"}
        it.update(source_market="USA", target_market="Japan", genre="Drama", year=1990 + k)
        if split_field:
            it["split"] = split_field[k]
        items.append(it)
        outputs.append({"item_id": f"i{k}", "planner": "P", "editor": "E", "output": f"img/out{k}.png", "plan": "x"})
    for name, rows in (("items.jsonl", items), ("outputs.jsonl", outputs)):
        (tmp_path / name).write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    return tmp_path / "items.jsonl", tmp_path / "outputs.jsonl"


def _pairs():
    a = [image(1, (32, 48)), image(2, (32, 48)), image(3, (32, 48))]
    return [(a[0], a[0].copy()), (a[1], 255 - a[1]), (a[2], image(9, (32, 48)))]  # pHash 0, 62, 28


def test_jsonl_with_relative_paths_and_the_phash_split(tmp_path):
    pairs = _pairs()
    items, outputs = _write(tmp_path, pairs, split_field=["surface", "surface", "deep"])
    with pytest.warns(UserWarning, match="2 item"):
        data = mptc.load(items, outputs)
    want = phash_distances([p[0] for p in pairs], [p[1] for p in pairs]).tolist()
    assert [data.phash[f"i{k}"] for k in range(3)] == want == [0, 62, 28]
    assert data.splits == {"i0": "surface", "i1": "deep", "i2": "intermediate"}
    assert data.options["split_mismatch"] == ["i1", "i2"]
    assert data.item("i0").source == str(tmp_path / "img" / "src0.png")
    assert data.planners == ("P",) and data.editors == ("E",)
    # the thresholds are options (inclusive): 28 is Deep from deep_min=28
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert mptc.load(items, outputs, deep_min=28).splits["i2"] == "deep"
    # the field split, when asked for
    by_field = mptc.load(items, outputs, split_by="field")
    assert by_field.splits == {"i0": "surface", "i1": "surface", "i2": "deep"} and by_field.phash["i0"] is None
    # intermediate items are not scored: no judge call, no record
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = mptc.load(items, outputs)
    res = mptc.judge_tables(data, judge=FunctionJudge(lambda r: ANY), genre_labels=["Drama", "Comedy", "Horror", "War"])
    assert {r.item_id for r in res.records} == {"i0", "i1"}
    assert res.tables["table3"].columns[0].startswith("Deep / P") and res.options["split_by"] == "phash"


def _item(**kw):
    base = {"item_id": "a", "source": image(1), "gt": image(2), "source_market": "USA", "target_market": "Japan"}
    return {**base, **kw}


@pytest.mark.parametrize(
    ("item", "match"),
    [
        (_item(targt_market="x"), r"items\[0\]: unknown key\(s\) \['targt_market'\]"),
        ({k: v for k, v in _item().items() if k != "gt"}, r"items\[0\]: 'gt' \(an image file path\) is required"),
        (_item(target_market=""), r"items\[0\]: 'target_market' must be a non-empty string"),
        (_item(year="199x"), r"items\[0\]: 'year' must be a release year"),
        (_item(year=20), r"'year' 20 is not a plausible"),
        (_item(split="medium"), r"'split' must be 'surface' or 'deep'"),
        (_item(genre="Drama", genre_options=["Comedy", "Horror"]), r"'genre_options' .* must hold the genre"),
        (_item(year=1994, decade_options=["1980s", "2000s"]), r"'decade_options' must hold the decade"),
        (_item(source="missing.png"), r"'source' names 'missing.png', which is not a file"),
        (_item(meta=[1]), r"'meta' must be a JSON object"),
        ("not a dict", r"items\[0\]: a item record must be a JSON object"),
    ],
)
def test_bad_item_records_name_the_row_and_key(item, match):
    with pytest.raises(InputError, match=match):
        mptc.load([item], split_by="field")


@pytest.mark.parametrize(
    ("output", "match"),
    [
        ({"item_id": "a", "planner": "P"}, r"outputs\[0\]: 'editor' is required"),
        ({"item_id": "zz", "planner": "P", "editor": "E"}, r"outputs\[0\]: item_id 'zz' is not among the items"),
        ({"item_id": "a", "planner": "P", "editor": "E", "plan": 3}, r"'plan' must be the plan text"),
        ({"item_id": "a", "planner": "P", "editor": "E", "error_labels": ["wrong_script"]}, r"one list of error types"),
        (
            {"item_id": "a", "planner": "P", "editor": "E", "error_labels": [["typo"]]},
            r"unknown error type\(s\) \['typo'\]",
        ),
    ],
)
def test_bad_output_records_name_the_row_and_key(output, match):
    with pytest.raises(InputError, match=match):
        mptc.load([_item(split="deep")], [output], split_by="field")


def test_records_must_agree_with_each_other(tmp_path):
    a, b = _item(split="deep"), _item(item_id="b", split="surface")
    out = {"item_id": "a", "planner": "P", "editor": "E"}
    with pytest.raises(InputError, match=r"items\[1\]: item_id 'a' repeats items\[0\]"):
        mptc.load([a, {**b, "item_id": "a"}], split_by="field")
    with pytest.raises(InputError, match=r"outputs\[1\]: a second output of 'E \+ P' for item 'a'"):
        mptc.load([a, b], [out, out], split_by="field")
    with pytest.raises(InputError, match="needs 'split' on every item"):
        mptc.load([a, {**b, "split": None}], split_by="field")
    with pytest.raises(InputError, match=r"planners= must list every planner once; it lacks \['Q'\]"):
        mptc.load([a, b], [out, {**out, "planner": "Q"}], split_by="field", planners=["P"])
    data = mptc.load([a, b], [out, {**out, "planner": "Q"}], split_by="field", planners=["Q", "P"], editors=["E"])
    assert data.planners == ("Q", "P")
    with pytest.raises(InputError, match="no items"):
        mptc.load([], split_by="field")
    with pytest.raises(InputError, match="split_by"):
        mptc.load([a], split_by="size")
    with pytest.raises(InputError, match="below"):
        mptc.load([a], surface_max=30, deep_min=12)
    bad = tmp_path / "items.jsonl"
    bad.write_text(json.dumps(a | {"source": "x.png", "gt": "y.png"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"items\.jsonl:1: 'source' names 'x.png'"):
        mptc.load(bad, split_by="field")
    bad.write_text('{"item_id": "a"}\n{oops\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"items\.jsonl:2: not a JSON object"):
        mptc.read_items(bad)
    with pytest.raises(InputError, match="cannot read the items file"):
        mptc.read_items(tmp_path / "nope.jsonl")
    with pytest.raises(InputError, match="JSONL file path or a list"):
        mptc.read_items({"item_id": "a"})


def test_error_labels_and_images_in_python():
    arr = np.zeros((8, 8, 3), np.uint8)
    out = {"item_id": "a", "planner": "P", "editor": "E", "output": arr, "error_labels": [["wrong_script"], []]}
    (o,) = mptc.read_outputs([out])
    assert o.error_labels == (("wrong_script",), ()) and o.output is arr and o.system == "E + P"
