"""MPTc-Bench Table 10 (OCR IoU and the OCR title baseline), Table 5 (CLIP, FID) and Table 9.

Table 10 uses a scripted text detector whose boxes are known, so each IoU is a pixel count
done by hand (a box [x0, x1] x [y0, y1] fills (x1 - x0 + 1)(y1 - y0 + 1) pixel centres); Tables
5 and 9 use random-init CLIP and Inception weights and agree with the metrics' own functions.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch
from sacrebleu.metrics import CHRF

from tests._helpers.model_weights import TINY_CLIP, inception_file, tiny_clip_checkpoint
from tests._helpers.mptc_set import image
from transcreval.engines.ocr.base import DetectorInfo, OCRResult, TextDetector
from transcreval.errors import InputError
from transcreval.judge import FunctionJudge
from transcreval.protocols import mptc
from transcreval.protocols.records import ItemRecord, ProtocolResult


class ScriptedOCR(TextDetector):
    """Boxes (x0, y0, x1, y1), texts and confidences looked up by the image's bytes."""

    backend = "scripted"

    def __init__(self, script):
        super().__init__(cache_size=0)
        self.script = {k.tobytes(): v for k, v in script}

    def _detect_one(self, rgb, recognize):
        rows = self.script[rgb.tobytes()]
        polys = tuple(np.array([[a, b], [c, b], [c, d], [a, d]], np.float32) for (a, b, c, d), _, _ in rows)
        texts = tuple(t for _, t, _ in rows) if recognize else None
        scores = tuple(float(s) for _, _, s in rows) if recognize else None
        return OCRResult(polys, rgb.shape[:2], self.info_for(recognize), texts, scores)

    def _make_info(self, recognize):
        return DetectorInfo("scripted", "scripted 1", "", "boxes", "0" * 64, (), "texts" if recognize else "", "1" * 64)


def _posters():
    src = {k: image(300 + i, (20, 20)) for i, k in enumerate(("s1", "s2", "d1"))}
    gt = {k: image(400 + i, (20, 20)) for i, k in enumerate(("s1", "s2", "d1"))}
    out_a = {k: image(500 + i, (20, 20)) for i, k in enumerate(("s1", "s2", "d1"))}
    out_b = {"s1": image(600, (20, 20))}
    title, cast = ((0, 0, 9, 4), "The Title", 0.7), ((0, 15, 3, 16), "cast", 0.95)
    script = [
        (src["s1"], [title, cast]),  # 50 + 8 pixels
        (gt["s1"], [((0, 0, 9, 9), "GT", 0.9)]),  # 100 pixels, holding the 50 of the title
        (out_a["s1"], [((0, 0, 9, 4), "T", 0.9)]),  # the title's 50 pixels
        (out_b["s1"], []),  # no text: IoU 0
        (src["s2"], []),
        (gt["s2"], []),  # no text on either side of (SRC, GT): undefined
        (out_a["s2"], [((0, 0, 1, 1), "x", 0.9)]),  # 4 pixels: IoU 0
        (src["d1"], [title]),
        (gt["d1"], [title]),
        (out_a["d1"], [title]),
    ]
    items = [
        {"item_id": k, "source": src[k], "gt": gt[k], "source_market": "USA", "target_market": "Japan",
         "split": "deep" if k == "d1" else "surface", "source_title": {"s1": "The Title", "s2": "Other"}.get(k)}
        for k in ("s1", "s2", "d1")
    ]  # fmt: skip
    outputs = [{"item_id": k, "planner": "P", "editor": "A", "output": out_a[k]} for k in ("s1", "s2", "d1")]
    outputs += [{"item_id": "s1", "planner": "P", "editor": "B", "output": out_b["s1"]}]
    outputs += [{"item_id": "s2", "planner": "P", "editor": "B", "output": None}]
    return mptc.load(items, outputs, split_by="field"), ScriptedOCR(script), (src, gt, out_a, out_b)


def test_table10_from_hand_counted_pixels():
    data, det, (src, gt, out_a, out_b) = _posters()
    res = mptc.ocr_tables(data, backend=det)
    t = res.tables["table10"]
    assert t.columns == ("n", "SRC-MTc IoU", "SRC-GT IoU (ref)", "Δ (MTc-GT)", "Empty MTc", "Empty GT")
    assert t.rows == ("A + P", "B + P", "Overall")
    a = {c: t.cell("A + P", c) for c in t.columns}
    assert a["n"].value == 2 and a["SRC-MTc IoU"].n == 1 and a["SRC-MTc IoU"].n_missing == 1
    assert a["SRC-MTc IoU"].value == pytest.approx(50 / 58)  # s2 is left out: its (SRC, GT) has no text
    assert a["SRC-GT IoU (ref)"].value == pytest.approx(50 / 108)
    assert a["Δ (MTc-GT)"].value == pytest.approx(50 / 58 - 50 / 108)
    assert (a["Empty MTc"].value, a["Empty GT"].value) == (0, 1)
    b = t.cell("B + P", "SRC-MTc IoU")
    assert (b.value, t.cell("B + P", "n").value) == (0.0, 1)  # B has no output for s2
    o = t.cell("Overall", "SRC-MTc IoU")
    assert (o.value, o.n, t.cell("Overall", "n").value) == (pytest.approx(50 / 58 / 2), 2, 3)
    assert t.decimals["SRC-MTc IoU"] == 3 and t.decimals["n"] == 0
    # the same rows as ocr_iou_table on aligned lists
    rows = mptc.ocr_iou_table([src["s1"], src["s2"]], [gt["s1"], gt["s2"]], {"A + P": [out_a["s1"], out_a["s2"]],
                              "B + P": [out_b["s1"], None]}, backend=det)  # fmt: skip
    assert [r.src_mtc for r in rows] == pytest.approx([t.cell(r.system, "SRC-MTc IoU").value for r in rows])
    recs = {(r.item_id, r.system, r.metric): r for r in res.records}
    assert recs[("s2", "A + P", "ocr_iou_src_mtc")].value == 0.0
    assert recs[("s2", "A + P", "ocr_iou_src_gt")].status == "empty_union"
    assert recs[("s2", "B + P", "ocr_iou_src_mtc")].status == "missing_output"
    assert not any(k[0] == "d1" for k in recs)  # Surface only by default
    deep = mptc.ocr_tables(data, backend=det, splits=("surface", "deep"))
    assert deep.tables["table10"].cell("A + P (deep)", "SRC-MTc IoU").value == 1.0


def _chrf(h, r):
    return CHRF().sentence_score(h, [r]).score


def test_ocr_title_baseline_defaults_to_the_papers_top_confidence_line():
    # MPTc App. B.5 reports the "top-confidence line" (chrF 0.1341, exact 5.41% with PP-OCRv5):
    # the protocol's default; s1's most confident line is "cast" (0.95), not its largest box
    data, det, _ = _posters()
    res = mptc.ocr_tables(data, backend=det)
    t = res.tables["ocr_title"]
    row = "OCR title (confidence line)"
    assert t.rows == (row,) and res.options["title_rule"] == "confidence"
    assert t.cell(row, "chrF").value == pytest.approx((_chrf("cast", "The Title") + _chrf("", "Other")) / 200)
    assert t.cell(row, "Exact match %").value == 0.0
    assert "confidence OCR line" in t.notes[0]


def test_ocr_title_baseline_rules_references_and_exact_match():
    data, det, (src, *_) = _posters()
    largest = mptc.ocr_tables(data, backend=det, title_rule="largest").tables["ocr_title"]
    row = "OCR title (largest line)"
    assert largest.columns == ("n", "chrF", "Exact match %") and largest.rows == (row,)
    # s1 reads "The Title" (largest box) = its source title; s2 reads nothing against "Other"
    assert largest.cell(row, "Exact match %").value == 50.0
    assert largest.cell(row, "chrF").value == pytest.approx((100 + _chrf("", "Other")) / 2 / 100)
    assert largest.decimals["chrF"] == 4 and largest.decimals["Exact match %"] == 2
    top = mptc.ocr_tables(data, backend=det, title_rule="confidence").tables["ocr_title"]
    row = "OCR title (confidence line)"  # s1 now reads "cast" (confidence 0.95)
    assert top.cell(row, "Exact match %").value == 0.0
    assert top.cell(row, "chrF").value == pytest.approx((_chrf("cast", "The Title") + _chrf("", "Other")) / 200)
    # the judge's reading of SRC as the reference; a normalised exact match
    from transcreval.engines.judge.images import to_image_part

    s1 = to_image_part(src["s1"]).sha256

    def read(request):
        return '{"title": "the  title"}' if request.images[0].sha256 == s1 else '{"title": "Other"}'

    judged = mptc.ocr_tables(
        data, backend=det, title_rule="largest", title_reference="judge", judge=FunctionJudge(read)
    )
    t = judged.tables["ocr_title"]
    assert t.cell("OCR title (largest line)", "Exact match %").value == 0.0  # strict: "The Title" != "the  title"
    norm = mptc.ocr_tables(
        data, backend=det, title_rule="largest", title_reference="judge", judge=FunctionJudge(read), exact="normalized"
    )
    assert norm.tables["ocr_title"].cell("OCR title (largest line)", "Exact match %").value == 50.0
    with pytest.raises(InputError, match="pass judge="):
        mptc.ocr_tables(data, backend=det, title_reference="judge")
    with pytest.raises(InputError, match="exact must be"):
        mptc.ocr_tables(data, backend=det, exact="loose")
    with pytest.raises(InputError, match="splits must name"):
        mptc.ocr_tables(data, backend=det, splits=("middle",))
    bare = mptc.load(
        [dataclasses.replace(i, source_title=None) for i in data.items], list(data.outputs), split_by="field"
    )
    res = mptc.ocr_tables(bare, backend=det)
    assert res.tables["ocr_title"].cell("OCR title (confidence line)", "n").value == 0
    assert {r.status for r in res.records if r.metric == "ocr_title_exact"} == {"no_reference_title"}


# --- Table 5 and Table 9 ---------------------------------------------------------------------


def test_table5_agrees_with_clip_and_fid_with_random_weights():
    """One set with random-init CLIP and Inception weights (kept to two items: FID on a CPU is slow)."""
    from transcreval.functional import clip_similarity, fid

    clip_w, fid_w = tiny_clip_checkpoint(), inception_file(3)
    items = [
        {"item_id": k, "source": image(700 + i, (32, 32)), "gt": image(800 + i, (32, 32)), "source_market": "USA",
         "target_market": "Japan", "split": "surface"}
        for i, k in enumerate(("s1", "s2"))
    ]  # fmt: skip
    outs = [image(900 + i, (32, 32)) for i in range(2)]
    outputs = [{"item_id": k, "planner": "P", "editor": "A", "output": o} for k, o in zip(("s1", "s2"), outs)]
    data = mptc.load(items, outputs, split_by="field")
    res = mptc.similarity_table(data, clip_model=TINY_CLIP, clip_pretrained=clip_w, fid_weights=fid_w)
    t = res.tables["table5"]
    assert t.rows == ("A",) and t.columns == ("Surface / P / CLIP", "Surface / P / FID_GT", "Surface / P / FID_SRC")
    gts = [i["gt"] for i in items]
    clip = clip_similarity(outs, gts, model=TINY_CLIP, pretrained=clip_w)
    assert t.cell("A", "Surface / P / CLIP").value == pytest.approx(clip.value, rel=1e-6)
    assert [r.value for r in res.records] == pytest.approx(clip.per_item.tolist(), rel=1e-6)
    assert t.cell("A", "Surface / P / FID_GT").value == pytest.approx(fid(outs, gts, weights=fid_w).value, rel=1e-9)
    # FID_SRC goes through the same collection with source= (routing: test_table5_layout_sets_and_missing_outputs)
    assert math.isfinite(t.cell("A", "Surface / P / FID_SRC").value)
    assert set(res.signatures) == {"CLIP", "FID_GT", "FID_SRC"}


class _Stub:
    """Stands in for a metric of the Table 5 collection: a value computed from the images' means."""

    def __init__(self, name, box):
        self.name, self.box = name, box

    def compute(self):
        from transcreval.core.result import MetricResult, Signature
        from transcreval.errors import UndefinedValueError

        preds, other = self.box["preds"], self.box["source" if self.name == "FID_SRC" else "target"]
        per = torch.tensor([float(p.mean() - o.mean()) for p, o in zip(preds, other)], dtype=torch.float64)
        if self.name != "CLIP" and len(preds) < 2:
            raise UndefinedValueError("FID needs at least 2 images")
        value = float(per.mean()) if self.name == "CLIP" else float(per.abs().sum())
        return MetricResult(value, len(preds), Signature.make(self.name), per_item=per)


class _StubCollection:
    def __init__(self, **options):
        self.box = {"preds": [], "target": [], "source": []}

    def update(self, preds, target, source):  # accumulates, as the metrics' states do
        for k, v in (("preds", preds), ("target", target), ("source", source)):
            self.box[k] += list(v)

    def items(self):
        return [(n, _Stub(n, self.box)) for n in ("CLIP", "FID_GT", "FID_SRC")]


def test_table5_layout_sets_and_missing_outputs(monkeypatch):
    """Which outputs make each cell, with a stand-in collection (the real one: test above)."""
    from transcreval.protocols.mptc.scoring import study

    monkeypatch.setattr(study, "similarity_metrics", _StubCollection)
    ids = ("s1", "s2", "d1", "d2")
    items = [
        {"item_id": k, "source": image(700 + i), "gt": image(800 + i), "source_market": "USA",
         "target_market": "Japan", "split": "surface" if k[0] == "s" else "deep"}
        for i, k in enumerate(ids)
    ]  # fmt: skip
    outs = {
        (p, e, k): image(900 + 10 * j + i)
        for j, (p, e) in enumerate((("P", "A"), ("Q", "A"), ("P", "B")))
        for i, k in enumerate(ids)
    }
    outputs = [
        {"item_id": k, "planner": p, "editor": e, "output": None if (e, k) == ("B", "d2") else o}
        for (p, e, k), o in outs.items()
        if (p, e, k) != ("Q", "A", "s2")  # no record at all: missing too
    ]
    data = mptc.load(items, outputs, split_by="field")
    res = mptc.similarity_table(data, batch_size=1)  # one item per update: the states accumulate
    t = res.tables["table5"]
    assert t.rows == ("A", "B") and t.decimals == 1
    assert t.columns == tuple(
        f"{s} / {p} / {m}" for s in ("Deep", "Surface") for p in "PQ" for m in ("CLIP", "FID_GT", "FID_SRC")
    )
    by_id = {i["item_id"]: i for i in items}

    def mean_diff(p, e, ks, side):
        return [float(outs[(p, e, k)].mean() - by_id[k][side].mean()) for k in ks]

    d = mean_diff("P", "A", ("d1", "d2"), "gt")
    assert t.cell("A", "Deep / P / CLIP").value == pytest.approx(sum(d) / 2)
    assert t.cell("A", "Deep / P / FID_GT").value == pytest.approx(sum(map(abs, d)))
    assert t.cell("A", "Deep / P / FID_SRC").value == pytest.approx(
        sum(map(abs, mean_diff("P", "A", ("d1", "d2"), "source")))
    )
    one = t.cell("A", "Surface / Q / CLIP")  # Q + A has no record for s2
    assert (one.value, one.n, one.n_missing) == (pytest.approx(mean_diff("Q", "A", ("s1",), "gt")[0]), 1, 1)
    assert ("A", "Surface / Q / FID_GT") not in t.cells and ("B", "Deep / Q / CLIP") not in t.cells
    assert any("B / Deep / P / FID_GT: undefined" in n for n in t.notes)
    status = {(r.item_id, r.system): r.status for r in res.records}
    assert status[("d2", "B + P")] == status[("s2", "A + Q")] == "missing_output" and status[("d1", "B + P")] == "ok"
    assert len(res.records) == 4 + 4 + 4  # every item of every split a system ran
    with pytest.raises(InputError, match="batch_size"):
        mptc.similarity_table(data, batch_size=0)


def test_table9_spearman_of_year_against_title_chrf_and_per_year_fid(monkeypatch):
    """Per-year FID_GT is transcreval.functional.fid (agreement with torch-fidelity: tests/image/test_fid.py);
    here a stand-in gives known per-year values so both rhos are checked against scipy."""
    from scipy.stats import spearmanr

    from transcreval.functional.image import fid as fid_module

    calls = []

    def fake_fid(preds, target, **options):
        calls.append((len(preds), options))
        from transcreval.core.result import MetricResult, Signature

        return MetricResult(
            float(sum(p.mean() for p in preds) - sum(t.mean() for t in target)), len(preds), Signature.make("FID")
        )

    monkeypatch.setattr(fid_module, "fid", fake_fid)
    years = {"s1": 2000, "s2": 2000, "s3": 2010, "s4": 2010, "s5": 2020, "s6": 2020, "s7": 2015, "d1": 2000, "d2": 2000}
    chrf = {
        "s1": 10.0,
        "s2": 30.0,
        "s3": 20.0,
        "s4": math.nan,
        "s5": 50.0,
        "s6": 45.0,
        "s7": 5.0,
        "d1": 40.0,
        "d2": 40.0,
    }
    items = [
        {"item_id": k, "source": image(1000 + i), "gt": image(1100 + i), "source_market": "USA",
         "target_market": "Japan", "year": y, "split": "surface" if k[0] == "s" else "deep"}
        for i, (k, y) in enumerate(years.items())
    ]  # fmt: skip
    outs = {k: image(1200 + i) for i, k in enumerate(years)}
    # a second run (editor F) on the Surface items only, with other title chrF values
    chrf_f = {"s1": 60.0, "s2": 10.0, "s3": 30.0, "s4": 20.0, "s5": 15.0, "s6": 5.0, "s7": 50.0}
    outputs = [{"item_id": k, "planner": "P", "editor": "E", "output": o} for k, o in outs.items()]
    outputs += [{"item_id": k, "planner": "P", "editor": "F", "output": outs[k]} for k in chrf_f]
    data = mptc.load(items, outputs, split_by="field")
    recs = tuple(
        ItemRecord(k, "E + P", "title_chrf", v, "ok" if not math.isnan(v) else "unparsable") for k, v in chrf.items()
    ) + tuple(ItemRecord(k, "F + P", "title_chrf", v) for k, v in chrf_f.items())
    res = mptc.temporal_table(data, ProtocolResult("mptc", recs, {}), min_per_year=2, fid_options={"weights": "w"})
    t = res.tables["table9"]
    assert t.columns == ("n", "years used", "ρ(year, title-chrF)", "ρ(year, FID_GT by-year)")
    assert t.rows == (("E + P", "Surface"), ("E + P", "Deep"), ("F + P", "Surface"), "Median across runs")
    want_f = spearmanr([years[k] for k in chrf_f], list(chrf_f.values())).statistic
    assert t.cell(("F + P", "Surface"), "ρ(year, title-chrF)").value == pytest.approx(want_f, abs=1e-12)
    row = ("E + P", "Surface")
    ks = [k for k in years if k[0] == "s" and not math.isnan(chrf[k])]
    assert t.cell(row, "n").value == 6 and t.cell(row, "years used").value == 3  # 2015 has one output
    want = spearmanr([years[k] for k in ks], [chrf[k] for k in ks]).statistic
    assert t.cell(row, "ρ(year, title-chrF)").value == pytest.approx(want, abs=1e-12)
    by_id = {i["item_id"]: i for i in items}
    fids = []
    for y in (2000, 2010, 2020):
        ks_y = [k for k in years if k[0] == "s" and years[k] == y]
        fids.append(float(sum(outs[k].mean() for k in ks_y) - sum(by_id[k]["gt"].mean() for k in ks_y)))
        assert res.tables["table9_fid_by_year"].cell((*row, y), "FID_GT").value == pytest.approx(fids[-1])
    assert t.cell(row, "ρ(year, FID_GT by-year)").value == pytest.approx(spearmanr([2000, 2010, 2020], fids).statistic)
    assert calls[:3] == [(2, {"weights": "w"})] * 3  # one FID per year with >= 2 outputs
    deep = ("E + P", "Deep")  # one year only, one chrF value: both rhos are undefined, and said so
    assert math.isnan(t.cell(deep, "ρ(year, title-chrF)").value) and t.cell(deep, "years used").value == 1
    assert any("Deep" in n and "undefined" in n for n in t.notes)
    median = t.cell("Median across runs", "ρ(year, title-chrF)")  # over the two defined runs
    assert (median.value, median.n) == (pytest.approx((want + want_f) / 2), 2)
    only_e = mptc.temporal_table(data, ProtocolResult("mptc", recs, {}), min_per_year=2, systems=[("P", "E")])
    assert only_e.tables["table9"].rows == (("E + P", "Surface"), ("E + P", "Deep"), "Median across runs")
    with pytest.raises(InputError, match="min_per_year"):
        mptc.temporal_table(data, ProtocolResult("mptc", recs, {}), min_per_year=1)
    with pytest.raises(InputError, match="title_chrf"):
        mptc.temporal_table(data, ProtocolResult("mptc", (), {}))
    with pytest.raises(InputError, match="no run"):
        mptc.temporal_table(data, ProtocolResult("mptc", recs, {}), systems=[("X", "Y")])


def test_table9_prints_zero_counts_as_0_as_the_paper_prints_counts():
    """Table 9 prints its counts as integers and a dash only where there is no value (its median
    row's counts): a run with no year of ``min_per_year`` outputs used 0 years, printed "0"."""
    years = {"s1": 2000, "s2": 2000, "s3": 2010, "s4": 2010}
    items = [
        {"item_id": k, "source": image(1300 + i), "gt": image(1400 + i), "source_market": "USA",
         "target_market": "Japan", "year": y, "split": "surface"}
        for i, (k, y) in enumerate(years.items())
    ]  # fmt: skip
    outputs = [{"item_id": k, "planner": "P", "editor": "E", "output": image(1500 + i)} for i, k in enumerate(years)]
    data = mptc.load(items, outputs, split_by="field")
    recs = tuple(ItemRecord(k, "E + P", "title_chrf", v) for k, v in zip(years, (10.0, 30.0, 20.0, 40.0)))
    t = mptc.temporal_table(data, ProtocolResult("mptc", recs, {}), min_per_year=3).tables["table9"]
    row = ("E + P", "Surface")
    assert t.cell(row, "years used").value == 0  # no year has 3 outputs: no FID, no rho
    lines = {ln.split("|")[1].strip(): [c.strip() for c in ln.split("|")[2:-1]] for ln in t.to_markdown().splitlines()
             if ln.startswith("| ") and "---" not in ln}  # fmt: skip
    assert lines["E + P / Surface"][:2] == ["4", "0"] and lines["E + P / Surface"][3] == "-"
    assert lines["Median across runs"][:2] == ["-", "-"]
    grid = t.to_text().splitlines()
    assert any(ln.startswith("E + P / Surface") and ln.split()[5:7] == ["4", "0"] for ln in grid), grid
