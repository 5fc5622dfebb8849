"""BackgroundPreservation(mask="ocr"): IMTBench's S_bg with background masks made by OCR.

The reference is written independently: rapidocr called directly on each reference image, its
boxes filled by shapely's exact point test, the complement as the background, and Eq. 3 (each
lpips layer map averaged under the mask pooled to the layer) from lpips' own pieces on the
same random weights.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests._helpers import random_weights as rw
from tests._helpers.tester import MetricCase, check_metric, join_lists, partial
from tests._helpers.text_images import render
from transcreval import BackgroundPreservation
from transcreval.engines.ocr.rapid import RapidOCRDetector
from transcreval.errors import InputError
from transcreval.functional import background_preservation, background_preservation_per_pair
from transcreval.ocr import background_mask, get_detector

H, W = 96, 192


@pytest.fixture(scope="module")
def squeeze(tmp_path_factory):
    feats = rw.features_only(rw.trunk_state("squeeze", seed=5))
    lins = rw.lin_state("squeeze", seed=15)
    path = tmp_path_factory.mktemp("sbg") / "lpips_squeeze.pth"
    torch.save(rw.lpips_layout_state("squeeze", feats, lins), path)
    return str(path), rw.reference_lpips("squeeze", feats, lins)


def _img(text: str, dx: int = 0, bg: tuple[int, int, int] = (236, 230, 218)) -> torch.Tensor:
    im = render(text, "latin", size=(W, H), font_px=22, origin=(14 + dx, 34), bg=bg).image
    return torch.from_numpy(np.asarray(im).copy()).permute(2, 0, 1).float() / 255.0


def _ref_background(ref_img: torch.Tensor) -> torch.Tensor:
    import shapely
    from PIL import Image
    from rapidocr import RapidOCR

    pil = Image.fromarray((ref_img.permute(1, 2, 0) * 255).round().byte().numpy())
    boxes = RapidOCR(params={"Global.log_level": "error"})(pil, use_det=True, use_cls=False, use_rec=False).boxes
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float64)
    text = np.zeros((H, W), bool)
    for b in [] if boxes is None else boxes:
        text |= shapely.intersects_xy(shapely.Polygon(b), xx.ravel(), yy.ravel()).reshape(H, W)
    return torch.from_numpy(~text)


def _reference(ref, preds: torch.Tensor, target: torch.Tensor) -> float:
    import lpips as lp

    mask = torch.stack([_ref_background(t) for t in target]).float()[:, None]
    with torch.no_grad():
        fa, fb = ref.net(ref.scaling_layer(2 * preds - 1)), ref.net(ref.scaling_layer(2 * target - 1))
        total = 0
        for k, (x, y) in enumerate(zip(fa, fb)):
            s = ref.lins[k]((lp.normalize_tensor(x) - lp.normalize_tensor(y)) ** 2)
            ml = F.adaptive_avg_pool2d(mask, s.shape[-2:])
            total = total + (ml * s).sum((2, 3)) / ml.sum((2, 3))
    return float((1 - total.flatten().double()).mean())


def _batches():
    refs = [_img("OPEN DAILY"), _img("SALE 50%"), _img("NEW MENU"), _img("CAFE"), _img("HOTEL")]
    edits = [
        _img("OUVERT"),  # text replaced, background kept
        _img("SOLDES", bg=(226, 230, 218)),  # background tinted too
        _img("NOUVEAU", dx=20),
        _img("CAFE"),  # unchanged
        _img("HOTEL", bg=(200, 190, 180)),
    ]
    stack = torch.stack
    return [
        (stack(edits[:2]), stack(refs[:2])),
        (stack(edits[2:4]), stack(refs[2:4])),
        (stack(edits[4:]), stack(refs[4:])),
    ]


@pytest.mark.ddp
def test_background_preservation_with_ocr_masks_through_the_harness(squeeze, ddp_pool):
    path, ref = squeeze
    case = MetricCase(
        factory=partial(BackgroundPreservation, net="squeeze", weights=path, mask="ocr", version="0.1"),
        functional=lambda a, b: background_preservation(a, b, "ocr", net="squeeze", weights=path, version="0.1"),
        reference=lambda a, b: _reference(ref, a, b),
        batches=_batches(),
        join=join_lists,
        atol=1e-6,
        extras_keys=("mean_coverage", "low_coverage", "min_coverage"),
    )
    check_metric(case, ddp_pool)


def test_ocr_masks_equal_passing_the_background_mask(squeeze):
    path, _ = squeeze
    (edits, refs) = _batches()[0]
    auto = BackgroundPreservation(net="squeeze", weights=path, mask="ocr").forward(edits, refs)
    given = BackgroundPreservation(net="squeeze", weights=path).forward(edits, refs, mask=background_mask(refs))
    assert torch.equal(auto.per_item, given.per_item) and auto.value == given.value
    assert 0.3 < auto.extras["mean_coverage"] < 1.0  # the text regions are left out
    grown = BackgroundPreservation(net="squeeze", weights=path, mask="ocr", ocr_dilate_px=4).forward(edits, refs)
    assert grown.extras["mean_coverage"] < auto.extras["mean_coverage"]


class _Counting(RapidOCRDetector):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def _detect_many(self, rgbs, recognize, done=None):  # every image not in the cache comes through here
        self.calls += len(rgbs)
        return super()._detect_many(rgbs, recognize, done)


def test_each_reference_is_detected_once(squeeze):
    path, _ = squeeze
    det = _Counting()
    refs = torch.stack([_img("OPEN DAILY"), _img("CAFE")])
    m = BackgroundPreservation(net="squeeze", weights=path, mask="ocr", ocr_backend=det)
    for system in ("A", "B", "C"):  # three systems scored against the same references
        m.update(torch.stack([_img(system * 3), _img(system)]), refs)
    assert det.calls == 2 and m.compute().n == 6


def test_options_and_inputs_are_checked(squeeze):
    path, _ = squeeze
    edits, refs = _batches()[0]
    with pytest.raises(InputError, match="mask"):
        BackgroundPreservation(net="squeeze", weights=path, mask="auto")
    with pytest.raises(InputError, match="ocr_dilate_px"):
        BackgroundPreservation(net="squeeze", weights=path, mask="ocr", ocr_dilate_px=-3)
    with pytest.raises(InputError, match="unknown OCR backend"):
        BackgroundPreservation(net="squeeze", weights=path, mask="ocr", ocr_backend="tesseract")
    ocr = BackgroundPreservation(net="squeeze", weights=path, mask="ocr")
    with pytest.raises(InputError, match="do not pass mask"):
        ocr.update(edits, refs, mask=torch.ones(H, W, dtype=torch.bool))
    with pytest.raises(InputError, match="mask='ocr'"):
        BackgroundPreservation(net="squeeze", weights=path).update(edits, refs)
    with pytest.raises(InputError, match="'ocr'"):
        background_preservation_per_pair(edits, refs, "auto", net="squeeze", weights=path)


def test_signature_names_the_ocr_detector(squeeze):
    path, _ = squeeze
    s = str(BackgroundPreservation(net="squeeze", weights=path, mask="ocr").signature)
    info = get_detector().info
    assert "|mask:ocr|ocr:rapidocr|" in s and f"ocr_det:{info.det_model}@{info.det_sha256[:12]}" in s
    assert "mask:" not in str(BackgroundPreservation(net="squeeze", weights=path).signature)


@pytest.mark.parametrize("rng", [(-1.0, 1.0), (0.0, 255.0)])
def test_ocr_masks_read_the_references_with_the_metrics_input_range(squeeze, rng):
    """Review 10, item 1: the OCR mask path used to ignore ``input_range`` and fail every update."""
    path, _ = squeeze
    edits, refs = _batches()[0]
    lo, hi = rng
    e2, r2 = edits * (hi - lo) + lo, refs * (hi - lo) + lo
    want = BackgroundPreservation(net="squeeze", weights=path, mask="ocr").forward(edits, refs)
    got = BackgroundPreservation(net="squeeze", weights=path, mask="ocr", input_range=rng).forward(e2, r2)
    assert torch.allclose(got.per_item, want.per_item, atol=1e-5)
    assert got.extras["mean_coverage"] == pytest.approx(want.extras["mean_coverage"])
    fn = background_preservation_per_pair(e2, r2, "ocr", net="squeeze", weights=path, input_range=rng)
    assert torch.allclose(fn, want.per_item.to(fn.dtype), atol=1e-5)


def test_non_finite_ocr_dilation_is_refused_when_built(squeeze):
    path, _ = squeeze
    for bad in (float("inf"), float("nan")):
        with pytest.raises(InputError, match="ocr_dilate_px"):
            BackgroundPreservation(net="squeeze", weights=path, mask="ocr", ocr_dilate_px=bad)
