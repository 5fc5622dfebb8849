"""The OCR demo posters: typeset titles that the bundled fonts cover, drawn deterministically."""

from __future__ import annotations

import numpy as np

from transcreval.data.demo_ocr import build_ocr_demo_set, missing_glyphs, script_of
from transcreval.data.demo_set import build_demo_set


def test_every_demo_title_has_glyphs_in_the_bundled_fonts():
    titles = [t for p in build_demo_set() for t in (p.source_title, p.target_title, *p.output_titles.values())]
    assert missing_glyphs(titles) == {}
    assert missing_glyphs(["漢字"]) == {"漢字": ["漢", "字"]}  # the check does see a missing glyph


def test_scripts_are_told_apart():
    assert [script_of(t) for t in ("Amélie", "パラサイト", "أميلي", "आरआरआर", "半地下")] == [
        "latin", "cjk", "arabic", "devanagari", "cjk"
    ]  # fmt: skip


def test_ocr_demo_set_mirrors_the_demo_set_and_is_deterministic():
    a, b, base = build_ocr_demo_set(), build_ocr_demo_set(), build_demo_set()
    assert [p.poster_id for p in a] == [p.poster_id for p in base]
    for p, q, r in zip(a, b, base):
        assert (p.source_title, p.target_title, p.output_titles) == (r.source_title, r.target_title, r.output_titles)
        assert set(p.outputs) == set(r.outputs)
        for x, y in zip([p.source, p.target, *p.outputs.values()], [q.source, q.target, *q.outputs.values()]):
            assert x.size == (320, 480) and np.array_equal(np.asarray(x), np.asarray(y))


def _ocr_section() -> str:
    import io

    from transcreval.demo import run_demo

    buf = io.StringIO()
    assert run_demo(buf, sections=("ocr",), tour=True, evaluate=False) == 0
    return buf.getvalue()


def test_demo_ocr_section_numbers_come_from_the_metrics():
    from sacrebleu.metrics import CHRF

    from transcreval.functional import ocr_mask_ious
    from transcreval.ocr import OCRTitleExtractor
    from transcreval.protocols.mptc import format_ocr_iou_table, ocr_iou_table

    text = _ocr_section()
    lines = text.splitlines()
    posters = build_ocr_demo_set()
    source = [p.source for p in posters]
    read = OCRTitleExtractor()
    gt_read = read([p.target for p in posters])
    ref = ocr_mask_ious([p.target for p in posters], source).tolist()
    for system in ("text-edit", "redesign"):
        outs = [p.outputs[system] for p in posters]
        ious = ocr_mask_ious(outs, source).tolist()
        titles = read(outs)
        for p, v, r, t, g in zip(posters, ious, ref, titles, gt_read):
            row = next(x for x in lines if x.startswith(p.poster_id) and f" {system} " in x)
            score = CHRF().sentence_score(t, [g]).score
            assert f" {v:.3f} " in row and f" {r:.3f} " in row and row.rstrip().endswith(f"{score:.2f}")
    table = ocr_iou_table(
        source, [p.target for p in posters], {s: [p.outputs[s] for p in posters] for s in ("text-edit", "redesign")}
    )
    assert format_ocr_iou_table(table) in text
    assert "OCRMaskIoU|ocr:rapidocr|" in text and "TitleChrF (OCR out vs OCR GT)" in text
    # the surface edit keeps the source's text layout, the redesign does not (MPTc's finding, in small)
    assert table[0].src_mtc > table[0].src_gt > table[1].src_mtc


def test_demo_ocr_section_is_skipped_in_one_line_without_rapidocr(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "rapidocr" else real(n, *a))
    from transcreval.engines.ocr import base

    monkeypatch.setattr(base, "_INSTANCES", {})  # no detector built earlier in this process
    text = _ocr_section()
    assert "skipped: " in text and "transcreval[ocr]" in text
