"""OCR text-mask IoU throughput vs calling rapidocr directly, on the same 512x768 posters.

Targets (issue 10): OCRMaskIoU (update + compute) >= 1x rapidocr's own detection calls on the same image pairs
(we add no overhead: conversion, rasterising and IoU must cost less than noise), and
detection-only faster than detection + recognition.

The reference does the least any OCR IoU needs: rapidocr's detection on both images of each
pair (PIL input, as its README shows), no masks at all. Ours runs the whole metric with the
result cache off (``cache_size=0``), so both sides detect every image. The last group shows
the MPTc pattern (one source poster compared with several systems' outputs), where our
content cache detects the shared source once.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image
from tests._helpers.text_images import poster

from transcreval import OCRMaskIoU
from transcreval.engines.ocr.rapid import RapidOCRDetector

N = 4  # pairs; each detection takes ~0.3-0.5 s on a 2-core VM (rapidocr upscales to 736 px)


TITLES = ["THE GRAND HOTEL", "NIGHT TRAIN", "SUMMER OF 84", "LOST HORIZON"]
CREDITS = ("A FILM BY ANNA LEE", "WITH JOHN DOE AND MARY MAJOR", "MUSIC BY SAM ROE")


def _outputs(shift: int) -> list[Image.Image]:
    """One system's outputs: the same artwork as the sources, another title and credit order."""
    return [
        poster(i, title=TITLES[(i + shift) % 4], credits=CREDITS[shift % 3 :] + CREDITS[: shift % 3]) for i in range(N)
    ]


def _pairs() -> tuple[list[Image.Image], list[Image.Image]]:
    target = [poster(i, title=TITLES[i], credits=CREDITS) for i in range(N)]
    preds = _outputs(1)
    for im in (*target, *preds):
        im.load()
    return preds, target


@pytest.fixture(scope="module")
def pairs() -> tuple[list[Image.Image], list[Image.Image]]:
    return _pairs()


@pytest.fixture(scope="module")
def engine():
    from rapidocr import RapidOCR

    return RapidOCR(params={"Global.log_level": "error"})


@pytest.fixture(scope="module")
def fresh() -> RapidOCRDetector:
    return RapidOCRDetector(cache_size=0)


def _reference(engine, preds, target):
    return [(engine(p, use_det=True, use_cls=False, use_rec=False).boxes,
             engine(t, use_det=True, use_cls=False, use_rec=False).boxes) for p, t in zip(preds, target)]  # fmt: skip


def test_same_boxes_first(pairs, engine, fresh):
    preds, target = pairs
    for (bp, bt), p, t in zip(_reference(engine, preds, target), preds, target):
        ours_p, ours_t = fresh.detect(p)[0], fresh.detect(t)[0]
        np.testing.assert_array_equal(np.stack(ours_p.polygons), bp)
        np.testing.assert_array_equal(np.stack(ours_t.polygons), bt)


GROUP = f"ocr mask IoU: {N} pairs of 512x768 posters"


def _metric(detector: RapidOCRDetector, preds: list[Image.Image], target: list[Image.Image]) -> float:
    m = OCRMaskIoU(backend=detector)
    m.update(preds, target)
    return m.compute().value


def test_paired_iou_vs_rapidocr(paired, pairs, engine, fresh):
    preds, target = pairs
    ratio = paired(
        GROUP, lambda p, t: _reference(engine, p, t), lambda p, t: _metric(fresh, p, t), preds, target, pairs=5
    )
    assert ratio > 0


GROUP_REC = f"ocr detect: {2 * N} 512x768 posters, det+rec (reference) vs det only (ours)"


def test_paired_detection_only_vs_with_recognition(paired, pairs, fresh):
    preds, target = pairs
    images = [*preds, *target]
    paired(
        GROUP_REC,
        lambda ims: fresh.detect(ims, recognize=True),
        lambda ims: fresh.detect(ims, recognize=False),
        images,
        pairs=3,
    )


GROUP_MPTC = f"ocr mask IoU, MPTc pattern: {N} sources x 3 systems"


def test_paired_shared_sources_are_detected_once(paired, pairs, engine):
    _, target = pairs
    outputs = [*_outputs(1), *_outputs(2), *_outputs(3)]  # 3 systems' outputs of the N sources, all distinct
    sources = target * 3

    cached = RapidOCRDetector()

    def ours(o, s):
        cached.clear_cache()  # every round starts cold and detects each source once
        return _metric(cached, o, s)

    paired(GROUP_MPTC, lambda o, s: _reference(engine, o, s), ours, outputs, sources, pairs=3)
