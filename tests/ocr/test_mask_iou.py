"""OCRMaskIoU through the harness (class == function == reference; 1/2/4 processes) and its edges."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import torch
from PIL import Image

from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from tests._helpers.text_images import render
from transcreval import OCRMaskIoU
from transcreval.engines.ocr.rapid import RapidOCRDetector
from transcreval.errors import EmptyInputError, InputError, MissingDependencyError, UndefinedValueError
from transcreval.functional import ocr_mask_iou, ocr_mask_ious
from transcreval.ocr import get_detector

SIZE = (240, 144)


def _txt(text: str, dx: int = 0, dy: int = 0, size: tuple[int, int] = SIZE) -> Image.Image:
    return render(text, "latin", size=size, font_px=26, origin=(24 + dx, 50 + dy)).image


def _blank(c: int = 110) -> Image.Image:
    return Image.new("RGB", SIZE, (c, c, c))


# ---------------------------------------------------------------- an independent reference
_REF_MASKS: dict[bytes, np.ndarray] = {}


def _ref_mask(im: Image.Image) -> np.ndarray:
    """rapidocr's own boxes, filled by shapely's exact closed point-in-polygon test."""
    import shapely
    from rapidocr import RapidOCR

    key = im.tobytes() + repr(im.size).encode()
    if key not in _REF_MASKS:
        boxes = RapidOCR(params={"Global.log_level": "error"})(im, use_det=True, use_cls=False, use_rec=False).boxes
        w, h = im.size
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
        mask = np.zeros((h, w), bool)
        for b in [] if boxes is None else boxes:
            mask |= shapely.intersects_xy(shapely.Polygon(b), xx.ravel(), yy.ravel()).reshape(h, w)
        _REF_MASKS[key] = mask
    return _REF_MASKS[key]


def _reference(preds: list[Image.Image], target: list[Image.Image]) -> float:
    ious = []
    for p, t in zip(preds, target):
        if p.size != t.size:  # MPTc: scale the output to its target's size first
            p = p.resize(t.size, Image.Resampling.BICUBIC)
        a, b = _ref_mask(p), _ref_mask(t)
        union = (a | b).sum()
        if union:
            ious.append((a & b).sum() / union)
    return float(np.mean(ious))


def _batches():
    src = [_txt("OPEN DAILY"), _txt("SALE 50%"), _txt("NEW MENU"), _txt("OPEN DAILY", 0, 40), _txt("CAFE")]
    preds = [
        _txt("OPEN DAILY", 8, 3),  # a small shift
        _txt("SOLDES 50%").resize((360, 216)),  # another size: scaled to the target's first
        _txt("NEW MENU", 70, 30),  # moved a lot
        _blank(),  # text removed: one side empty, IoU 0
        _txt("CAFE"),  # unchanged
    ]
    return [([preds[0], preds[1]], [src[0], src[1]]), ([preds[2], preds[3]], [src[2], src[3]]), ([preds[4]], [src[4]])]


@pytest.mark.ddp
def test_ocr_mask_iou_through_the_harness(ddp_pool):
    case = MetricCase(
        factory=partial(OCRMaskIoU),
        functional=ocr_mask_iou,
        reference=_reference,
        batches=_batches(),
        join=join_lists,
        atol=1e-12,
        extras_keys=("pairs", "both_empty", "one_empty", "pooled"),
    )
    check_metric(case, ddp_pool)


def test_per_item_extras_and_empty_unions():
    both = (_blank(), _blank(60))
    pairs = [(_txt("OPEN DAILY", 8, 3), _txt("OPEN DAILY")), both, (_blank(), _txt("CAFE"))]
    preds, target = [p for p, _ in pairs], [t for _, t in pairs]
    m = OCRMaskIoU()
    m.update(preds, target)
    res = m.compute()
    per_pair = ocr_mask_ious(preds, target)
    assert torch.equal(torch.isnan(res.per_item), torch.tensor([False, True, False]))
    assert torch.allclose(res.per_item[[0, 2]], per_pair[[0, 2]], rtol=0, atol=0)
    assert res.value == pytest.approx(float(torch.nanmean(per_pair))) and res.n == 2
    assert res.extras["pairs"] == 3 and res.extras["both_empty"] == 1 and res.extras["one_empty"] == 1
    assert 0 < res.extras["pooled"] < 1
    assert res.per_item[2] == 0.0  # one side empty: IoU 0, defined
    twin = ocr_mask_iou(preds, target)
    assert str(twin.signature) == str(res.signature) and twin.value == res.value and twin.n == res.n
    assert torch.equal(torch.isnan(twin.per_item), torch.isnan(res.per_item))
    assert twin.extras == res.extras


def test_the_options_object_is_kept_and_checked_before_the_inputs():
    from transcreval.functional.ocr.mask_iou import OCRMaskIoUOptions, ocr_mask_iou_from_stats, ocr_mask_iou_stats

    m = OCRMaskIoU(resample="lanczos", dilate_px=2)
    assert isinstance(m.options, OCRMaskIoUOptions) and m._signature_options() == m.options.signature_options()
    assert m.options.dilate_px == 2.0 and m.resample == "lanczos" and "resize:lanczos|dil:2.0|" in str(m.signature)
    raw = ocr_mask_iou_stats([_txt("CAFE", 3)], [_txt("CAFE")], detector=m.detector, options=m.options)
    m.update([_txt("CAFE", 3)], [_txt("CAFE")])
    assert ocr_mask_iou_from_stats(raw, m.options).value == m.compute().value
    for fn in (ocr_mask_iou, ocr_mask_ious):  # placeholder inputs: the option fails first
        with pytest.raises(InputError, match="resample"):
            fn(None, None, resample="cubic")
        with pytest.raises(InputError, match="dilate_px"):
            fn(None, None, dilate_px=-1)
        with pytest.raises(InputError, match="unknown OCR backend"):
            fn(None, None, backend="tesseract")


def test_no_text_anywhere_is_undefined_never_zero_or_one():
    m = OCRMaskIoU()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batch = m.forward([_blank()], [_blank(70)])
    assert not batch.defined and "undefined" in batch.extras and any("undefined" in str(w.message) for w in caught)
    with pytest.raises(UndefinedValueError, match="none of the 1 pairs"):
        m.compute()
    m.update([_txt("CAFE")], [_txt("CAFE")])  # the empty pair was kept; a defined pair now gives a value
    res = m.compute()
    assert res.value == 1.0 and res.n == 1 and res.extras["both_empty"] == 1
    with pytest.raises(EmptyInputError):
        OCRMaskIoU().compute()


def test_self_iou_is_one_and_rescaled_targets_stay_close():
    img = _txt("GRAND OPENING", 0, 0, size=(480, 240))
    m = OCRMaskIoU()
    assert m.forward([img], [img]).value == 1.0
    for f in (0.5, 2.0):
        scaled = img.resize((int(480 * f), int(240 * f)), Image.Resampling.BICUBIC)
        assert OCRMaskIoU().forward([scaled], [img]).value >= 0.95


def test_signature_names_the_detector_and_changes_with_it():
    a = str(OCRMaskIoU().signature)
    info = get_detector().info
    assert f"det:{info.det_model}@{info.det_sha256[:12]}" in a and "pkg:rapidocr-" in a and "rt:onnxruntime-" in a
    assert "pillow:" in a and "resize:bicubic" in a
    b = str(OCRMaskIoU(backend_options={"paddle_compat": True}).signature)
    c = str(OCRMaskIoU(backend="ppocrv5-mobile").signature)
    assert len({a, b, c}) == 3
    res = OCRMaskIoU().forward([_txt("CAFE")], [_txt("CAFE")])
    assert str(res).startswith("OCRMaskIoU|ocr:rapidocr|")


def test_options_are_checked_when_built(monkeypatch):
    with pytest.raises(InputError, match="resample"):
        OCRMaskIoU(resample="cubic")
    with pytest.raises(InputError, match="dilate_px"):
        OCRMaskIoU(dilate_px=-1)
    with pytest.raises(InputError, match="unknown OCR backend"):
        OCRMaskIoU(backend="tesseract")
    with pytest.raises(InputError, match="unknown rapidocr parameter"):
        OCRMaskIoU(backend_options={"params": {"thresh_box": 1}})
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "rapidocr" else real(n, *a))
    with pytest.raises(MissingDependencyError, match=r"transcreval\[ocr\]"):
        OCRMaskIoU(backend_options={"threads": 1})


def test_bad_inputs_raise():
    m = OCRMaskIoU()
    with pytest.raises(InputError, match="pair up"):
        m.update([_txt("A")], [_txt("A"), _txt("B")])
    with pytest.raises(InputError):
        m.update([np.zeros((10, 10, 3), np.int32)], [_txt("A")])
    assert m.update_count == 0


class _Counting(RapidOCRDetector):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def _detect_many(self, rgbs, recognize, done=None):  # every image not in the cache comes through here
        self.calls += len(rgbs)
        return super()._detect_many(rgbs, recognize, done)


def test_a_shared_target_is_detected_once():
    det = _Counting()
    src = _txt("OPEN DAILY")
    outs = [_txt("OPEN DAILY", 4), _txt("OPEN DAILY", 12), _txt("OPEN DAILY", 30)]
    m = OCRMaskIoU(backend=det)
    for o in outs:  # three systems compared with the same source poster
        m.update([o], [src])
    assert det.calls == 4
    assert m.compute().extras["pairs"] == 3


def test_pickled_metric_shares_the_process_detector():
    m = OCRMaskIoU()
    m.update([_txt("CAFE", 3)], [_txt("CAFE")])
    clone = pickle.loads(pickle.dumps(m))
    assert clone.detector is get_detector()
    assert clone.compute().value == m.compute().value
