"""transcreval.protocols.imtbench end to end, offline: 12 rendered items, 2 scenarios, 2 languages.

The tiny COMET model (tests/_helpers/comet_model.py), random-init LPIPS weights (squeeze), the
rapidocr backend for the background masks and a scripted judge. Every per-item value is
computed here on its own (comet's predict, the BackgroundPreservation function on the same
pair, the judge's intended scores / 10), and Table 2's cells from those values by hand.
Needs the comet environment (`make test-comet`).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests._helpers import random_weights as rw
from tests._helpers.comet_env import WHY
from tests._helpers.text_images import render
from tests.text.test_comet import comet_reference
from transcreval.judge import FunctionJudge

pytestmark = [
    pytest.mark.comet,
    pytest.mark.skipif(WHY is not None, reason=f"unbabel-comet cannot be imported here ({WHY}): run `make test-comet`"),
]

H, W = 96, 192
SRC_WORDS = [
    "OPEN DAILY",
    "SALE 50%",
    "NEW MENU",
    "CAFE",
    "HOTEL",
    "EXIT",
    "BAKERY",
    "PARK",
    "MUSEUM",
    "TAXI",
    "BANK",
    "ZOO",
]
REF_WORDS = [
    "OUVERT",
    "SOLDES",
    "NOUVEAU",
    "CAFE",
    "HOTEL",
    "SORTIE",
    "BACKEREI",
    "PARK",
    "MUSEUM",
    "TAXI",
    "BANK",
    "ZOO",
]
SYS_WORDS = ["OUVERT", "SOLDE", "MENU", "KAFFEE", None, "SORTIE", "BACKER", "PARC", "MUSEE", "TAXI", "BANQUE", "ZOO"]
SCEN = ["document", "scene"]
LANG = ["fr", "de"]
NAT = [7, 8, 6, 9, 5, 7, 4, 8, 6, 7, 9, 3]
ALIGN = [9, 6, 7, 8, 0, 5, 6, 9, 4, 7, 8, 2]
NO_OUTPUT = 9  # the system gave nothing for this item
UNPARSABLE_ALIGN = 1  # the judge's alignment is out of range: S_align fails, S_vis stands
REFUSED = 6  # the judge refuses: both judge scores fail
BIGGER = 5  # the system's image is 1.5 times the reference's size: resized before LPIPS


def _meta(k):
    return SCEN[k % 2], LANG[(k // 2) % 2]


def _img(text, bg=(236, 230, 218), size=(W, H), font_px=22):
    return render(text, "latin", size=size, font_px=font_px, origin=(14, 34), bg=bg).image


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    from tests._helpers.comet_model import build_tiny_comet

    root = tmp_path_factory.mktemp("imtbench")
    ckpt = build_tiny_comet(root / "comet")
    feats = rw.features_only(rw.trunk_state("squeeze", seed=5))
    lpips_path = root / "lpips_squeeze.pth"
    torch.save(rw.lpips_layout_state("squeeze", feats, rw.lin_state("squeeze", seed=15)), lpips_path)
    manifest, outputs = [], []
    for k in range(12):
        scen, lang = _meta(k)
        _img(SRC_WORDS[k]).save(root / f"src{k}.png")
        _img(REF_WORDS[k]).save(root / f"ref{k}.png")
        manifest.append(
            {
                "id": f"it{k}",
                "scenario": scen,
                "language": lang,
                "source_image": f"src{k}.png",
                "reference_image": f"ref{k}.png",
                "source_text": SRC_WORDS[k].title(),
                "reference_text": REF_WORDS[k].title(),
            }
        )
        if k == NO_OUTPUT:
            continue
        bg = (236 - 3 * k, 230, 218 + k)  # backgrounds drift a little: S_bg varies by item
        size, font_px = ((W * 3 // 2, H * 3 // 2), 33) if k == BIGGER else ((W, H), 22)
        _img(SYS_WORDS[k] or REF_WORDS[k], bg=bg, size=size, font_px=font_px).save(root / f"out{k}.png")
        text = None if SYS_WORDS[k] is None else SYS_WORDS[k].title()
        outputs.append({"id": f"it{k}", "image": f"out{k}.png", "text": text})
    (root / "manifest.jsonl").write_text("\n".join(json.dumps(r) for r in manifest), encoding="utf-8")
    (root / "sys.jsonl").write_text("\n".join(json.dumps(r) for r in outputs), encoding="utf-8")
    return root, ckpt, lpips_path


class ScriptedJudge:
    """The judge's answers, decided per output image (picklable: it travels to the gloo workers)."""

    def __init__(self, root):
        self.root = root
        self.shas = None

    def __call__(self, request):
        if self.shas is None:
            from PIL import Image

            from transcreval.engines.judge.images import to_image_part

            outs = [k for k in range(12) if k != NO_OUTPUT]
            self.shas = {to_image_part(Image.open(self.root / f"out{k}.png")).sha256: k for k in outs}
        k = self.shas[request.images[0].sha256]
        assert len(request.images) == 2  # the reference image is shown (Eq. 4)
        if k == REFUSED:
            return "I'm sorry, but I can't evaluate this image."
        obj = {"reasoning": "ok", "naturalness": NAT[k], "artifacts": 5, "alignment": ALIGN[k]}
        if k == UNPARSABLE_ALIGN:
            obj["alignment"] = 12
        return json.dumps(obj)


def judge_fn(root):
    return ScriptedJudge(root)


def _expected(root, ckpt, lpips_path):
    """Per item and component, the value computed here (None where the protocol must say missing)."""
    from PIL import Image

    from transcreval.functional import background_preservation_per_pair
    from transcreval.io import to_rgb_float

    exp = {c: [None] * 12 for c in ("S_text", "S_bg", "S_align", "S_vis")}
    with_text = [k for k in range(12) if k != NO_OUTPUT and SYS_WORDS[k] is not None]
    scores, _ = comet_reference(
        ckpt,
        [SYS_WORDS[k].title() for k in with_text],
        [REF_WORDS[k].title() for k in with_text],
        [SRC_WORDS[k].title() for k in with_text],
    )
    for k, s in zip(with_text, scores):
        exp["S_text"][k] = s
    for k in range(12):
        if k == NO_OUTPUT:
            continue
        out = to_rgb_float(Image.open(root / f"out{k}.png"))
        ref = to_rgb_float(Image.open(root / f"ref{k}.png"))
        if k == BIGGER:
            out = F.interpolate(out, size=(H, W), mode="bicubic", antialias=True, align_corners=False).clamp(0, 1)
        bg = background_preservation_per_pair(out, ref, "ocr", net="squeeze", weights=str(lpips_path))
        exp["S_bg"][k] = float(bg[0])
        if k != REFUSED:
            exp["S_vis"][k] = NAT[k] / 10
            if k not in (UNPARSABLE_ALIGN,) and SYS_WORDS[k] is not None:
                exp["S_align"][k] = ALIGN[k] / 10
    return exp


@pytest.fixture(scope="module")
def run(bench):
    from transcreval.protocols import imtbench

    root, ckpt, lpips_path = bench
    result = imtbench.evaluate(
        root / "manifest.jsonl",
        {"sys": root / "sys.jsonl"},
        judge=FunctionJudge(judge_fn(root)),
        comet={"model": "test/tiny-comet", "checkpoint": ckpt},
        lpips_net="squeeze",
        lpips_weights=str(lpips_path),
        chunk_size=5,
    )
    return result, _expected(root, ckpt, lpips_path)


def test_per_item_records_equal_the_values_computed_here(run):
    result, exp = run
    assert len(result.records) == 12 * 5
    for c, values in exp.items():
        got = result.values("sys", c, [f"it{k}" for k in range(12)])
        for k, (g, e) in enumerate(zip(got, values)):
            if e is None:
                assert math.isnan(g), (c, k)
            else:
                assert g == pytest.approx(e, abs=1e-6), (c, k)
    status = {(r.item_id, r.metric): r.status for r in result.records}
    assert status[(f"it{NO_OUTPUT}", "S_bg")] == "missing_output"
    assert status[("it4", "S_text")] == status[("it4", "S_align")] == "missing_output"
    assert status[(f"it{UNPARSABLE_ALIGN}", "S_align")] == "unparsable"
    assert status[(f"it{REFUSED}", "S_vis")] == status[(f"it{REFUSED}", "S_align")] == "refused"
    assert status[(f"it{UNPARSABLE_ALIGN}", "S_vis")] == "ok"
    for k in range(12):
        s = result.values("sys", "S", [f"it{k}"])[0]
        parts = [exp[c][k] for c in exp]
        if any(p is None for p in parts):
            assert math.isnan(s) and status[(f"it{k}", "S")] == "missing_component"
        else:
            assert s == pytest.approx(sum(parts) / 4, abs=1e-6)


def test_table2_cells_by_hand(run):
    result, exp = run
    t = result.tables["table2/sys"]

    def per_item(k, col):
        if col == "S":
            parts = [exp[c][k] for c in exp]
            return None if any(p is None for p in parts) else sum(parts) / 4
        return exp[col][k]

    def hand(ks, col):
        vals = [v for k in ks if (v := per_item(k, col)) is not None]
        return (100 * sum(vals) / len(vals) if vals else math.nan), len(vals), len(ks) - len(vals)

    label = {"document": "Doc.", "scene": "Scene"}
    groups = {(label[s], "all"): [k for k in range(12) if _meta(k)[0] == s] for s in SCEN}
    groups.update({(label[s], la): [k for k in range(12) if _meta(k) == (s, la)] for s in SCEN for la in LANG})
    groups.update({("All", la): [k for k in range(12) if _meta(k)[1] == la] for la in LANG})
    groups[("All", "item-weighted")] = list(range(12))
    assert set(t.rows) == {*groups, ("All", "S_avg")}
    for row, ks in groups.items():
        for col in t.columns:
            value, n, missing = hand(ks, col)
            cell = t.cell(row, col)
            assert (cell.n, cell.n_missing) == (n, missing), (row, col)
            assert cell.value == pytest.approx(value, abs=1e-4), (row, col)
    for col in t.columns:
        doc, scene = hand(groups[("Doc.", "all")], col), hand(groups[("Scene", "all")], col)
        assert t.cell(("All", "S_avg"), col).value == pytest.approx((doc[0] + scene[0]) / 2, abs=1e-4)


def test_result_is_json_and_records_what_produced_it(run):
    result, _ = run
    d = json.loads(json.dumps(result.to_dict()))
    assert d["protocol"] == "imtbench" and d["options"]["judge_call"] == "joint"
    assert result.signatures["S_text"].startswith("COMETScore|model:test/tiny-comet|ckpt:")
    assert "call:joint" in result.signatures["S"] and "tpl:imtbench.joint-ref@1" in result.signatures["S"]
    assert "bg:ocr:rapidocr" in result.signatures["S"]


def test_separate_calls_and_bad_options(bench):
    from transcreval.errors import InputError
    from transcreval.protocols import imtbench

    root, ckpt, lpips_path = bench
    calls = []
    fn = judge_fn(root)

    def counting(request):
        calls.append(request.template_id)
        return fn(request) if request.template_id != "imtbench.alignment" else json.dumps({"alignment": 5})

    opts = {"comet": {"model": "test/tiny-comet", "checkpoint": ckpt}, "lpips_net": "squeeze"}
    res = imtbench.evaluate(
        root / "manifest.jsonl",
        {"sys": root / "sys.jsonl"},
        judge=FunctionJudge(counting),
        judge_call="separate",
        lpips_weights=str(lpips_path),
        **opts,
    )
    assert calls.count("imtbench.harmonization-ref") == 11 and calls.count("imtbench.alignment") == 10
    assert res.options["judge_call"] == "separate"
    with pytest.raises(InputError, match="judge_call"):
        imtbench.evaluate(root / "manifest.jsonl", {"s": root / "sys.jsonl"}, judge=FunctionJudge(fn), judge_call="x")
    with pytest.raises(InputError, match="outputs must be"):
        imtbench.evaluate(root / "manifest.jsonl", {}, judge=FunctionJudge(fn))
    with pytest.raises(InputError, match="no 'mask'"):
        imtbench.evaluate(
            root / "manifest.jsonl",
            {"s": root / "sys.jsonl"},
            judge=FunctionJudge(fn),
            bg_mask="given",
            lpips_weights=str(lpips_path),
            **opts,
        )
    assert np.isfinite(res.tables["table2/sys"].cell(("All", "S_avg"), "S").value)
