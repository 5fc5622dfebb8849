"""The Khanuja et al. and PosterIQ runner adapters equal the protocols' own functions.

Khanuja: the synthetic set of tests/protocols/test_khanuja.py (scripted VLM and CSI judges, a
random-init SigLIP, the authors' rating layout) written to disk and run through `evaluate`;
Table 3 must equal ``khanuja_table3`` on the same items. PosterIQ: the hand-worked records of
tests/protocols/test_posteriq.py as a manifest and answers, and PosterIQ's own result files with
no manifest; the tables (notes included) and records must equal ``evaluate``'s.
"""

from __future__ import annotations

import json
import math

import pytest
from PIL import Image

from transcreval import Run
from transcreval import evaluate as run_evaluate
from transcreval.judge import FunctionJudge
from transcreval.protocols import posteriq


def _same(a, b):
    assert a.rows == b.rows and a.columns == b.columns and set(a.cells) == set(b.cells), a.name
    for key, want in b.cells.items():
        got = a.cells[key]
        assert (got.n, got.n_missing) == (want.n, want.n_missing), (a.name, key, got, want)
        assert (math.isnan(got.value) and math.isnan(want.value)) or got.value == pytest.approx(want.value, abs=1e-9)


def test_khanuja_table3_through_the_runner_equals_khanuja_table3(tmp_path):
    pytest.importorskip("open_clip")
    from tests._helpers.model_weights import tiny_siglip_dir, tiny_tokenizer_dir
    from tests.protocols.test_khanuja import SYSTEMS, csi_judge, synthetic, vlm_judge, write_ratings
    from transcreval.protocols.khanuja import khanuja_table3

    items, plan, human = synthetic()
    ratings = write_ratings(tmp_path / "ratings", human, plan)
    data = tmp_path / "data"
    data.mkdir()
    lines, outs = {}, {s: [] for s in SYSTEMS}
    for k, it in enumerate(items):
        seg = f"{it.country}/{it.image}"
        if seg not in lines:
            Image.fromarray(it.source.permute(1, 2, 0).numpy()).save(data / f"src{k}.png")
            lines[seg] = {"id": seg, "source_image": f"src{k}.png", "target_locale": it.country}
        Image.fromarray(it.output.permute(1, 2, 0).numpy()).save(data / f"out{k}.png")
        outs[it.system].append({"id": seg, "image": f"out{k}.png"})
    (data / "manifest.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines.values()))
    systems = {}
    for s, rows in outs.items():
        systems[s] = data / f"{s}.jsonl"
        systems[s].write_text("".join(json.dumps(x) + "\n" for x in rows))
    vlm, csi = vlm_judge("GPT-4o", plan), csi_judge(plan)

    def both(request):  # one judge for the run: the CSI steps and the VLM scores
        j = csi if request.template_id.startswith("khanuja.csi") else vlm
        return j.complete([request])[0].text

    emb = {"model": tiny_siglip_dir(), "tokenizer": tiny_tokenizer_dir()}
    opts = {"ratings": str(ratings), "embedding": emb, "vlm_label": "GPT-4o", "chunk_size": 5}
    run = run_evaluate(
        "khanuja", data / "manifest.jsonl", systems, tmp_path / "run", judge=FunctionJudge(both), options=opts
    )
    ref = khanuja_table3(
        items,
        ratings,
        embedding=emb,
        object_judge=csi_judge(plan),
        vlm_judges={"GPT-4o": vlm_judge("GPT-4o", plan)},
        chunk_size=5,
    )
    assert set(run.tables) == set(ref.tables)
    for key in ref.tables:
        _same(run.tables[key], ref.tables[key])
        assert run.tables[key].notes == ref.tables[key].notes, key
    mine = {(r.item_id, r.system, r.metric): r for r in run.results.records}
    assert len(mine) == len(ref.records)
    for r in ref.records:
        got = mine[(r.item_id, r.system, r.metric)]
        assert got.status == r.status and dict(got.meta) == dict(r.meta), (r.item_id, r.system, r.metric)
        assert (math.isnan(got.value) and math.isnan(r.value)) or got.value == pytest.approx(r.value, abs=1e-9)
    assert Run(tmp_path / "run").rescore().tables == run.results.tables


def _posteriq_files(tmp_path, records):
    """The records as a manifest (one line per task item) and one answers file per system."""
    lines, answers = {}, {}
    for r in records:
        iid = f"{r['task']}/{r['item_id']}"
        meta = {"task": r["task"], "target": r["target"], **{k: r[k] for k in ("font_size", "size") if k in r}}
        lines[iid] = {"id": iid, "meta": meta}
        out = {"id": iid, "text": r["answer"]}
        if "verdicts" in r:
            out["meta"] = {"verdicts": r["verdicts"]}
        answers.setdefault(r["system"], []).append(out)
    (tmp_path / "manifest.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines.values()))
    systems = {}
    for s, rows in answers.items():
        systems[s] = tmp_path / f"{s}.jsonl"
        systems[s].write_text("".join(json.dumps(x) + "\n" for x in rows))
    return tmp_path / "manifest.jsonl", systems


def test_posteriq_tables_through_the_runner_equal_evaluate(tmp_path):
    from tests.protocols.test_posteriq import ALPHA

    manifest, systems = _posteriq_files(tmp_path, ALPHA)
    run = run_evaluate("posteriq", manifest, systems, tmp_path / "run")
    ids = [{**r, "item_id": f"{r['task']}/{r['item_id']}"} for r in ALPHA]
    ref = posteriq.evaluate(ids)
    assert set(run.tables) == set(ref.tables)
    for key in ref.tables:
        _same(run.tables[key], ref.tables[key])
    assert sorted(run.results.records, key=repr) == sorted(ref.records, key=repr)


@pytest.mark.parametrize("mode", ["paper", "posteriq-code"])
def test_posteriq_result_files_through_the_runner_equal_evaluate_on_the_same_files(tmp_path, mode):
    """``-s NAME=X_bench.json`` with no manifest and ``posteriq.evaluate({NAME: file})``: equal
    tables, notes and records, with a wrong answer, an item whose calls failed (no ``response``,
    the runner's ``error``), a null response and an item one file lacks."""
    from tests._helpers.posteriq_files import write_bench
    from tests.protocols.test_posteriq_bench import RIGHT

    worse = [dict(it) for it in RIGHT[:-1]]  # lacks the last item (the second overall rating)
    worse[0]["response"] = "ACME"
    del worse[1]["response"]
    worse[1]["error"] = "Error code: 500"
    worse[2]["response"] = None
    files = {
        "Good": write_bench(tmp_path / "Good_bench.json", RIGHT),
        "Bad": write_bench(tmp_path / "Bad_bench.json", worse),
    }
    ref = posteriq.evaluate(files, mode=mode)
    run = run_evaluate(
        "posteriq", None, {k: str(v) for k, v in files.items()}, tmp_path / "run", options={"mode": mode}
    )
    assert set(run.tables) == set(ref.tables)
    for key in ref.tables:
        _same(run.tables[key], ref.tables[key])
        assert run.tables[key].notes == ref.tables[key].notes, key
    assert any("without an answer" in n for n in ref.tables["table1"].notes)  # the case is exercised
    # the runner's item ids are "<task>:<path>"; the Python entry's records name the file they came from
    mine = {(r.item_id, r.system, r.metric): r for r in run.results.records}
    assert len(mine) == len(ref.records)
    for r in ref.records:
        got = mine[(f"{r.meta['task']}:{r.item_id}", r.system, r.metric)]
        assert got.status == r.status, (r.item_id, r.system, r.metric)
        assert (math.isnan(got.value) and math.isnan(r.value)) or got.value == r.value, (r.item_id, r.metric)
        assert dict(got.meta) == {k: v for k, v in r.meta.items() if k != "file"}, (r.item_id, r.system, r.metric)
    assert Run(tmp_path / "run").rescore().tables == run.results.tables


def test_posteriq_points_unit_asks_the_judge_once_per_key_point_and_stores_the_verdicts(tmp_path):
    asked = []

    def reply(request):
        asked.append(request)
        return '{"covered": false}' if "blue sea" in request.text else '{"covered": true}'

    recs = [
        {
            "system": "A",
            "task": "composition_understanding",
            "item_id": "c1",
            "answer": "a red sun",
            "target": ["red sun", "blue sea"],
        },
        {"system": "A", "task": "logo_ocr", "item_id": "l1", "answer": "ACANA", "target": "ACANA"},
    ]
    manifest, systems = _posteriq_files(tmp_path, recs)
    run = run_evaluate("posteriq", manifest, systems, tmp_path / "run", judge=FunctionJudge(reply))
    assert len(asked) == 2
    col = "Composition Understanding Points Score"
    want = posteriq.evaluate([{**recs[0], "item_id": "composition_understanding/c1", "verdicts": [True, False]}])
    assert run.tables["table3"].cell("A", col) == want.tables["table3"].cell("A", col)
    run_evaluate("posteriq", manifest, systems, tmp_path / "run", judge=FunctionJudge(reply))
    assert len(asked) == 2  # resumed: the verdicts are stored, not asked again
    assert Run(tmp_path / "run").rescore().tables == run.results.tables  # no judge needed to rescore
    no_judge = run_evaluate("posteriq", manifest, systems, tmp_path / "run2")
    rec = next(r for r in no_judge.results.records if r.metric == "composition_point")
    assert rec.status == "no_verdicts" and math.isnan(rec.value)


def test_posteriq_points_whose_judge_call_failed_are_asked_again_on_resume(tmp_path):
    asked = []
    failing = {"on": True}

    def reply(request):
        asked.append(request.text)
        if failing["on"] and "blue sea" in request.text:
            raise ConnectionError("the endpoint dropped the call")  # an api_error reply
        return '{"covered": false}' if "blue sea" in request.text else '{"covered": true}'

    rec = {"system": "A", "task": "composition_understanding", "item_id": "c1", "answer": "a red sun"}
    manifest, systems = _posteriq_files(tmp_path, [{**rec, "target": ["red sun", "blue sea"]}])
    run_evaluate("posteriq", manifest, systems, tmp_path / "run", judge=FunctionJudge(reply))
    failing["on"] = False
    run = run_evaluate("posteriq", manifest, systems, tmp_path / "run", judge=FunctionJudge(reply))
    assert sum("blue sea" in t for t in asked) == 2  # the failed verdict was asked again
    assert run.store.latest("A", "points")["composition_understanding/c1"]["payload"] == {"verdicts": [True, False]}
    col = "Composition Understanding Points Score"
    want = posteriq.evaluate(
        [
            {
                **rec,
                "item_id": "composition_understanding/c1",
                "target": ["red sun", "blue sea"],
                "verdicts": [True, False],
            }
        ]
    )
    assert run.tables["table3"].cell("A", col) == want.tables["table3"].cell("A", col)


def test_khanuja_refuses_to_start_without_human_ratings(tmp_path):
    from transcreval.errors import InputError

    (tmp_path / "m.jsonl").write_text(
        '{"id": "india/japan_food_sushi", "source_image": "x.png", "target_locale": "india"}\n'
    )
    with pytest.raises(InputError, match="--option ratings=DIR"):
        run_evaluate("khanuja", tmp_path / "m.jsonl", {"a": tmp_path}, tmp_path / "run")
    with pytest.raises(InputError, match="not a folder"):
        run_evaluate("khanuja", tmp_path / "m.jsonl", {"a": tmp_path}, tmp_path / "run", options={"ratings": "nowhere"})
    assert not (tmp_path / "run").exists()  # nothing written before the options are right
