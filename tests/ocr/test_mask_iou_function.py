"""OCR text-mask IoU (MPTc App. B.5): the functional twin and its properties, the MPTc table."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from PIL import Image

from tests._helpers.text_images import render
from transcreval.errors import EmptyInputError, InputError
from transcreval.functional.ocr.mask_iou import (
    empty_counts,
    mean_defined,
    ocr_mask_counts,
    ocr_mask_iou,
    ocr_mask_iou_from_counts,
    ocr_mask_ious,
)
from transcreval.ocr import get_detector

SIZE = (640, 400)


def _at(dx: int = 0, dy: int = 0, text: str = "GRAND OPENING") -> Image.Image:
    return render(text, "latin", size=SIZE, font_px=44, origin=(120 + dx, 150 + dy)).image


def _blank(colour: int = 120, size: tuple[int, int] = SIZE) -> Image.Image:
    return Image.new("RGB", size, (colour, colour, colour))


def _reference_iou(pred: Image.Image, target: Image.Image) -> float:
    """Continuous IoU of the union of rapidocr's own boxes (shapely), the pred scaled first."""
    import shapely
    from rapidocr import RapidOCR

    eng = RapidOCR(params={"Global.log_level": "error"})
    pred = pred.resize(target.size, Image.Resampling.BICUBIC) if pred.size != target.size else pred
    a, b = (eng(im, use_det=True, use_cls=False, use_rec=False).boxes for im in (pred, target))
    ua = shapely.union_all([shapely.Polygon(p) for p in a])
    ub = shapely.union_all([shapely.Polygon(p) for p in b])
    return ua.intersection(ub).area / ua.union(ub).area


def test_agrees_with_the_union_of_rapidocr_boxes():
    """Pixel-mask IoU vs the exact polygon IoU from rapidocr's boxes: equal up to the outline pixels."""
    target = _at()
    preds = [_at(10, 4), _at(-30, 12), _at(0, 0, "GRAND REOPENING"), _at(60, 30).resize((960, 600))]
    got = ocr_mask_ious(preds, [target] * len(preds))
    for g, p in zip(got.tolist(), preds):
        assert g == pytest.approx(_reference_iou(p, target), abs=0.02)


def test_iou_of_an_image_with_itself_is_one():
    img = _at()
    assert ocr_mask_ious([img, img], [img, img]).tolist() == [1.0, 1.0]


def test_decreases_monotonically_as_the_text_moves_away():
    shifts = [0, 3, 6, 12, 24, 48, 96, 200]
    target = _at()
    ious = ocr_mask_ious([_at(d, d // 3) for d in shifts], [target] * len(shifts)).tolist()
    assert ious[0] == 1.0 and ious[-1] == 0.0
    assert all(a > b for a, b in itertools.pairwise(ious)), ious


@pytest.mark.parametrize("factor", [0.5, 0.8, 1.37, 2.0])
def test_invariant_when_the_output_is_the_target_rescaled(factor):
    target = _at()
    pred = target.resize((round(SIZE[0] * factor), round(SIZE[1] * factor)), Image.Resampling.BICUBIC)
    (iou,) = ocr_mask_ious([pred], [target]).tolist()
    assert iou >= 0.95


def test_empty_unions_are_nan_and_counted_never_zero_or_one():
    text, blank = _at(), _blank()
    stats = ocr_mask_counts([blank, text, blank], [blank, blank, text], detector=get_detector())
    iou = ocr_mask_iou_from_counts(stats["intersection"], stats["union"])
    assert torch.isnan(iou[0]) and iou[1] == 0.0 and iou[2] == 0.0
    assert empty_counts(stats["pred_area"], stats["target_area"]) == (1, 2)
    assert stats["union"][0] == 0 and stats["pred_area"][1] > 0 and stats["target_area"][2] > 0
    assert mean_defined(iou) == (0.0, 2)
    value, n = mean_defined(ocr_mask_ious([blank], [_blank(200)]))
    assert n == 0 and np.isnan(value)


def test_counts_are_exact_pixel_counts():
    from transcreval.engines.ocr.masks import mask_iou_counts, result_mask

    det = get_detector()
    a, b = _at(), _at(24, 8)
    stats = ocr_mask_counts([a], [b], detector=det)
    ma, mb = (result_mask(det.detect(x)[0]) for x in (a, b))
    assert (int(stats["intersection"][0]), int(stats["union"][0])) == mask_iou_counts(ma, mb)
    assert int(stats["pred_area"][0]) == ma.sum() and int(stats["target_area"][0]) == mb.sum()
    assert stats["intersection"].dtype == torch.int64


def test_dilation_and_resample_options():
    a, b = _at(), _at(24, 8)
    plain = float(ocr_mask_ious([a], [b])[0])
    grown = float(ocr_mask_ious([a], [b], dilate_px=12)[0])
    assert grown > plain
    small = a.resize((320, 200))
    for r in ("nearest", "bilinear", "bicubic", "lanczos", "area"):
        assert float(ocr_mask_ious([small], [a], resample=r)[0]) >= 0.9
    with pytest.raises(InputError, match="resample"):
        ocr_mask_ious([a], [b], resample="cubic")  # type: ignore[arg-type]


def test_backends_can_be_chosen_and_move_the_value():
    a, b = _at(), _at(24, 8)
    v6 = float(ocr_mask_ious([a], [b])[0])
    v5 = float(ocr_mask_ious([a], [b], backend="ppocrv5-mobile")[0])
    compat = float(ocr_mask_ious([a], [b], paddle_compat=True)[0])
    assert all(0.3 < v < 0.9 for v in (v6, v5, compat))
    assert len({round(v6, 6), round(v5, 6), round(compat, 6)}) > 1  # the detector is part of the metric


def test_bad_inputs():
    a = _at()
    with pytest.raises(InputError, match="pair up"):
        ocr_mask_iou([a, a], [a])
    with pytest.raises(EmptyInputError):
        ocr_mask_iou([], [])
    with pytest.raises(InputError, match="unknown OCR backend"):
        ocr_mask_iou([a], [a], backend="easyocr")
    with pytest.raises(InputError, match="dilate_px"):
        ocr_mask_iou([a], [a], dilate_px=-2)


# ---------------------------------------------------------------- MPTc Table 10
def test_mptc_table_rows_equal_the_function_and_pool_overall():
    from transcreval.protocols.mptc import format_ocr_iou_table, ocr_iou_table

    src = [_at(), _at(0, 0, "NIGHT TRAIN"), _blank()]
    gt = [_at(40, 20), _at(0, 60, "TRAIN DE NUIT"), _blank(90)]
    outs = {"A": [_at(6, 2), _at(0, 0, "TRAIN DE NUIT"), _blank(60)], "B": [_at(90, 40), None, _at()]}
    rows = ocr_iou_table(src, gt, outs)
    assert [r.system for r in rows] == ["A", "B", "Overall"]
    a_mtc = ocr_mask_ious(outs["A"], src)
    a_gt = ocr_mask_ious(gt, src)
    assert rows[0].n == 3 and rows[0].empty_mtc == 1 and rows[0].empty_gt == 1
    assert rows[0].src_mtc == pytest.approx(float(np.nanmean(a_mtc.numpy())))
    assert rows[0].src_gt == pytest.approx(float(np.nanmean(a_gt.numpy())))
    assert rows[0].delta == pytest.approx(rows[0].src_mtc - rows[0].src_gt)
    assert rows[0].defined == 2
    b_idx = [0, 2]
    b_mtc = ocr_mask_ious([outs["B"][i] for i in b_idx], [src[i] for i in b_idx])
    assert b_mtc[1] == 0.0  # item 2: the output has text, the blank source none (IoU 0, defined)
    # item 2's (SRC, GT) pair is empty on both sides: the triplet leaves *both* means, so the
    # delta compares the same triplets (not src_mtc over items 0 and 2 against src_gt over item 0)
    assert rows[1].n == 2 and rows[1].defined == 1 and rows[1].empty_gt == 1 and rows[1].empty_mtc == 0
    assert rows[1].src_mtc == pytest.approx(float(b_mtc[0]))
    assert rows[1].src_gt == pytest.approx(float(a_gt[0]))
    assert rows[1].delta == pytest.approx(float(b_mtc[0] - a_gt[0]))
    pooled_mtc, pooled_gt = torch.cat([a_mtc, b_mtc]), torch.cat([a_gt, a_gt[b_idx]])
    both = ~(torch.isnan(pooled_mtc) | torch.isnan(pooled_gt))
    assert rows[2].n == 5 and rows[2].defined == 3
    assert rows[2].src_mtc == pytest.approx(float(pooled_mtc[both].mean()))
    assert rows[2].src_gt == pytest.approx(float(pooled_gt[both].mean()))
    text = format_ocr_iou_table(rows)
    assert "SRC-GT IoU (ref)" in text and "Overall" in text and f"{rows[0].delta:+.3f}" in text


def test_mptc_table_checks_alignment():
    from transcreval.protocols.mptc import ocr_iou_table

    a = _at()
    with pytest.raises(InputError, match="align"):
        ocr_iou_table([a], [a, a], {"A": [a]})
    with pytest.raises(InputError, match="outputs"):
        ocr_iou_table([a], [a], {"A": [a, a]})
    with pytest.raises(InputError, match="no outputs"):
        ocr_iou_table([a], [a], {"A": [None]})
    with pytest.raises(InputError, match="empty"):
        ocr_iou_table([a], [a], {})
