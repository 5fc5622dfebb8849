"""The MPTc-Bench runner adapter equals the protocol's own functions on the same data.

The synthetic set and scripted judge of tests/_helpers/mptc_set.py, written to disk as a
manifest and three systems' outputs; the runner's tables are compared cell by cell with
``mptc.judge_tables`` / ``mptc.similarity_table`` on the same records.
"""

from __future__ import annotations

import json
import math

import pytest
from PIL import Image

from tests._helpers.mptc_set import SYSTEMS, ScriptedJudge, build
from transcreval import Run, evaluate
from transcreval.protocols import mptc
from transcreval.protocols.mptc.scoring.judged import JUDGE_METRICS


def _same_table(a, b):
    assert a.rows == b.rows and a.columns == b.columns, (a.name, a.rows, b.rows)
    assert set(a.cells) == set(b.cells), a.name
    for key, want in b.cells.items():
        got = a.cells[key]
        assert (got.n, got.n_missing) == (want.n, want.n_missing), (a.name, key, got, want)
        assert (math.isnan(got.value) and math.isnan(want.value)) or got.value == pytest.approx(want.value, abs=1e-9)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    root = tmp_path_factory.mktemp("mptc-set")
    items, outputs, who = build()
    lines = []
    for it in items:
        Image.fromarray(it["source"]).save(root / f"{it['item_id']}_src.png")
        Image.fromarray(it["gt"]).save(root / f"{it['item_id']}_gt.png")
        meta = {k: it[k] for k in ("source_market", "genre", "year", "split") if it.get(k) is not None}
        lines.append(
            {
                "id": it["item_id"],
                "group": f"movie-{it['item_id']}",
                "source_image": f"{it['item_id']}_src.png",
                "reference_image": f"{it['item_id']}_gt.png",
                "target_locale": it["target_market"],
                "meta": {**meta, **it["meta"]},
            }
        )
    (root / "manifest.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    systems = {}
    for name, (p, e) in SYSTEMS.items():
        rows = []
        for o in outputs:
            if (o["planner"], o["editor"]) == (p, e) and o["output"] is not None:
                fn = f"{p}-{e}-{o['item_id']}.png".replace(" ", "_")
                Image.fromarray(o["output"]).save(root / fn)
                rows.append({"id": o["item_id"], "image": fn, "text": o.get("plan")})
        systems[name] = root / f"{p}-{e}.jsonl".replace(" ", "_")
        systems[name].write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rows))
    return root, items, outputs, who, systems


def test_judge_tables_equal_the_protocols_own(written, tmp_path):
    root, items, outputs, who, systems = written
    scripted = ScriptedJudge(who)
    run = evaluate(
        "mptc",
        root / "manifest.jsonl",
        systems,
        tmp_path / "run",
        judge=scripted.judge(),
        options={"split_by": "field"},
    )
    ref = mptc.judge_tables(mptc.load(items, outputs, split_by="field"), judge=ScriptedJudge(who).judge())
    for key in ("table3", "table4", "fig6"):
        _same_table(run.tables[key], ref.tables[key])
    mine = {(r.item_id, r.system, r.metric): r for r in run.results.records if r.metric in JUDGE_METRICS}
    theirs = {(r.item_id, r.system, r.metric): r for r in ref.records}
    for k, r in theirs.items():
        got = mine[k]
        assert got.status == r.status and (got.value == r.value or (math.isnan(got.value) and math.isnan(r.value))), k
        assert got.group == f"movie-{k[0]}"  # the manifest's group, for the clustered tests
    assert "fig7_summary" in run.tables and "win_matrix" in run.tables
    asked = len(scripted.asked)
    again = evaluate(
        "mptc",
        root / "manifest.jsonl",
        systems,
        tmp_path / "run",
        judge=scripted.judge(),
        options={"split_by": "field"},
    )
    assert len(scripted.asked) == asked  # resumed: the judge is not asked again
    assert again.results.records == run.results.records
    assert Run(tmp_path / "run").rescore().tables == run.results.tables


@pytest.mark.parametrize("fault", ["api_error", "timeout"])
def test_a_failed_gt_title_is_asked_again_on_resume(written, tmp_path, fault):
    """A transient failure of the GT poster's title call gives the systems' title records the
    derived status ``gt_title_<status>``: those lines are redone on resume, as ``api_error`` is."""
    from transcreval.engines.judge.replay import FunctionJudge
    from transcreval.engines.judge.types import JudgeReply

    root, _, _, who, systems = written
    scripted = ScriptedJudge(who)
    failing = {"on": True}

    def flaky(request):
        if failing["on"] and request.template_id == "mptc.title" and scripted._key(request.images[0])[1] == "GT":
            return JudgeReply(fault, detail="the endpoint failed this call")
        return scripted(request)

    def run():
        judge = FunctionJudge(flaky, model="scripted", params={"temperature": 0})
        return evaluate(
            "mptc", root / "manifest.jsonl", systems, tmp_path / "run", judge=judge, options={"split_by": "field"}
        )

    first = run()
    derived = [r for r in first.results.records if r.status == f"gt_title_{fault}"]
    assert derived  # the failure is on record, not a score
    failing["on"] = False
    asked = len(scripted.asked)
    again = run()
    assert len(scripted.asked) > asked  # the failed lines were redone
    assert not [r for r in again.results.records if r.status == f"gt_title_{fault}"]
    clean = evaluate(
        "mptc",
        root / "manifest.jsonl",
        systems,
        tmp_path / "clean",
        judge=ScriptedJudge(who).judge(),
        options={"split_by": "field"},
    )
    assert again.results.records == clean.results.records


def test_system_names_map_to_planner_and_editor(written, tmp_path):
    root, _, _, who, systems = written
    one = {"Solo Editor": systems["Gemini 3 + GPT-4.1"]}
    run = evaluate(
        "mptc",
        root / "manifest.jsonl",
        one,
        tmp_path / "run",
        judge=ScriptedJudge(who).judge(),
        options={"split_by": "field", "planner": "GPT-4.1"},
    )
    assert run.tables["table3"].rows == ("Solo Editor", "GT")
    assert "Deep / GPT-4.1 / Aes." in run.tables["table3"].columns
    assert {r.system for r in run.results.records} == {"Solo Editor", "GT"}


@pytest.mark.slow  # about 36 Inception passes at 299 x 299 on the CPU (30 s idle, minutes on a busy machine)
def test_table5_clip_and_fid_from_stored_features_equal_similarity_table(written, tmp_path):
    pytest.importorskip("open_clip")
    from tests._helpers.model_weights import TINY_CLIP, inception_file, tiny_clip_checkpoint

    root, items, outputs, _, systems = written
    name = "Gemini 3 + GPT-4.1"  # one system keeps the Inception passes few (CPU)
    opts = {
        "split_by": "field",
        "clip_model": TINY_CLIP,
        "clip_pretrained": tiny_clip_checkpoint(),
        "fid_weights": inception_file(0),
    }
    run = evaluate(
        "mptc", root / "manifest.jsonl", {name: systems[name]}, tmp_path / "run", options=opts, metrics=["clip", "fid"]
    )
    mine = [o for o in outputs if (o["planner"], o["editor"]) == SYSTEMS[name]]
    ref = mptc.similarity_table(
        mptc.load(items, mine, split_by="field"),
        clip_model=TINY_CLIP,
        clip_pretrained=tiny_clip_checkpoint(),
        fid_weights=inception_file(0),
    )
    a, b = run.tables["table5"], ref.tables["table5"]
    assert a.rows == b.rows and a.columns == b.columns and set(a.cells) == set(b.cells)
    for key, want in b.cells.items():
        got = a.cells[key]
        assert (got.n, got.n_missing) == (want.n, want.n_missing), key
        assert got.value == pytest.approx(want.value, rel=1e-5, abs=1e-6), key
    assert run.store.cache_dir.joinpath("features.sqlite").is_file()  # features cached across systems
    rescored = Run(tmp_path / "run").rescore()  # FID again from the stored features: no model
    assert rescored.tables["table5"] == run.tables["table5"]


def test_table10_ocr_unit_equals_ocr_tables(tmp_path):
    """The OCR unit's per-item IoUs rebuild Table 10 as ``mptc.ocr_tables`` computes it (rapidocr,
    offline, on the OCR demo posters, whose titles are set in real type)."""
    pytest.importorskip("rapidocr")
    from transcreval.data.demo_ocr import build_ocr_demo_set

    posters = build_ocr_demo_set()[:2]
    items, outputs, lines, outs = [], [], [], {"text-edit": [], "redesign": []}
    for p in posters:
        for role, im in (("src", p.source), ("gt", p.target)):
            im.save(tmp_path / f"{p.poster_id}_{role}.png")
        items.append(
            {
                "item_id": p.poster_id,
                "source": p.source,
                "gt": p.target,
                "source_market": "USA",
                "target_market": p.market,
                "split": "surface",
            }
        )
        lines.append(
            {
                "id": p.poster_id,
                "source_image": f"{p.poster_id}_src.png",
                "reference_image": f"{p.poster_id}_gt.png",
                "target_locale": p.market,
                "meta": {"source_market": "USA", "split": "surface"},
            }
        )
        for s in outs:
            p.outputs[s].save(tmp_path / f"{p.poster_id}_{s}.png")
            outs[s].append({"id": p.poster_id, "image": f"{p.poster_id}_{s}.png"})
            outputs.append({"item_id": p.poster_id, "planner": "-", "editor": s, "output": p.outputs[s]})
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    systems = {}
    for s, rows in outs.items():
        systems[s] = tmp_path / f"{s}.jsonl"
        systems[s].write_text("".join(json.dumps(x) + "\n" for x in rows))
    run = evaluate(
        "mptc", tmp_path / "m.jsonl", systems, tmp_path / "run", metrics=["ocr"], options={"split_by": "field"}
    )
    ref = mptc.ocr_tables(mptc.load(items, outputs, split_by="field"))
    a, b = run.tables["table10"], ref.tables["table10"]
    assert [r.replace(" + -", "") for r in b.rows] == list(a.rows)  # rows in the run's system names
    assert a.notes == b.notes  # the same OCR identity (backend and package), splits and resampling
    for (row, col), want in b.cells.items():
        got = a.cells[(row.replace(" + -", ""), col)]
        assert (got.n, got.n_missing) == (want.n, want.n_missing), (row, col)
        assert (math.isnan(got.value) and math.isnan(want.value)) or got.value == pytest.approx(want.value, abs=1e-9)
