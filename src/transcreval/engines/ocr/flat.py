"""Detections on flat colour: regions with no texture hold no text, and are dropped.

DB-style detectors (rapidocr's, PaddleOCR's) can answer a plain image with a full-frame "text"
box: rapidocr 3.10 does on plain red, green or navy images, on a 1 x 1 image and on a smooth red
gradient, which made the OCR mask IoU of a blank output against a poster 0.16 instead of 0.
Text needs contrast between neighbouring pixels, so the built-in backends drop every detected
polygon whose pixels (those :func:`~transcreval.engines.ocr.raster.polygons_to_mask` fills) hold
no step of more than :data:`FLAT_STEP` levels (of 255) between two horizontally or vertically
neighbouring pixels, in any channel. The rule is conservative: it drops flat colour and smooth
gradients only; noise is texture, and a polygon with a single sharp edge inside is kept. Each
:class:`~transcreval.engines.ocr.detector.OCRResult` counts what was dropped (``n_flat_dropped``)
and each :class:`~transcreval.engines.ocr.detector.DetectorInfo` records the rule
(``det_params["flat_step"]``), so the numbers' signatures say it was applied.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from transcreval.engines.ocr.detector import DetectorInfo, OCRResult
from transcreval.engines.ocr.raster import polygons_to_mask

__all__ = ["FLAT_STEP", "is_flat", "result_without_flat", "without_flat"]

#: the largest step between neighbouring pixels (levels of 255, any channel) of a region with no texture
FLAT_STEP = 8


def _crop(rgb: np.ndarray, polygon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pixels of ``rgb`` inside the polygon's bounding box, and the polygon's mask over them."""
    h, w = rgb.shape[:2]
    x0 = min(w, max(0, math.floor(float(polygon[:, 0].min()))))
    y0 = min(h, max(0, math.floor(float(polygon[:, 1].min()))))
    x1 = min(w, max(0, math.ceil(float(polygon[:, 0].max())) + 1))
    y1 = min(h, max(0, math.ceil(float(polygon[:, 1].max())) + 1))
    crop = rgb[y0:y1, x0:x1]
    if crop.size == 0:
        return crop, np.zeros(crop.shape[:2], dtype=bool)
    return crop, polygons_to_mask([polygon - np.array([x0, y0], dtype=np.float64)], crop.shape[:2])


def _steps_above(channel: np.ndarray, mask: np.ndarray, step: int, axis: int) -> bool:
    """Whether two neighbours along ``axis``, both inside ``mask``, differ by more than ``step``."""
    if channel.shape[axis] < 2:
        return False
    a = channel[1:] if axis == 0 else channel[:, 1:]
    b = channel[:-1] if axis == 0 else channel[:, :-1]
    both = (mask[1:] & mask[:-1]) if axis == 0 else (mask[:, 1:] & mask[:, :-1])
    diff = np.maximum(a, b) - np.minimum(a, b)  # uint8, no wrap-around
    return bool((diff[both] > step).any())


def is_flat(rgb: np.ndarray, polygon: Any, step: int = FLAT_STEP) -> bool:
    """True when the polygon's pixels of the H x W x 3 uint8 image ``rgb`` have no texture: no two
    neighbouring pixels inside it differ by more than ``step`` in any channel (a region of one
    pixel, or none, is flat)."""
    poly = np.asarray(polygon, dtype=np.float64)
    crop, mask = _crop(rgb, poly)
    if crop.size == 0 or not mask.any():
        return True
    spread = crop.reshape(-1, crop.shape[2])
    if int((spread.max(axis=0).astype(np.int16) - spread.min(axis=0)).max()) <= step:
        return True  # the whole bounding box is within the step: so is every pair of neighbours
    for c in range(crop.shape[2]):
        channel = np.ascontiguousarray(crop[..., c])
        if _steps_above(channel, mask, step, 0) or _steps_above(channel, mask, step, 1):
            return False
    return True


def without_flat(
    rgb: np.ndarray,
    polygons: Sequence[np.ndarray],
    texts: Sequence[str] | None = None,
    scores: Sequence[float] | None = None,
) -> tuple[tuple[np.ndarray, ...], tuple[str, ...] | None, tuple[float, ...] | None, int]:
    """The polygons (with their texts and scores, when given) that are not flat, and how many were
    dropped; ``rgb`` is the image the polygons' coordinates refer to."""
    keep = [i for i, p in enumerate(polygons) if not is_flat(rgb, p)]
    return (
        tuple(polygons[i] for i in keep),
        None if texts is None else tuple(texts[i] for i in keep),
        None if scores is None else tuple(scores[i] for i in keep),
        len(polygons) - len(keep),
    )


def result_without_flat(
    rgb: np.ndarray,
    polygons: Sequence[np.ndarray],
    size: tuple[int, int],
    info: DetectorInfo,
    texts: Sequence[str] | None = None,
    scores: Sequence[float] | None = None,
) -> OCRResult:
    """A backend's :class:`OCRResult` for ``rgb`` (the unpadded image) once flat detections are dropped."""
    kept, kept_t, kept_s, flat = without_flat(rgb, polygons, texts, scores)
    return OCRResult(kept, size, info, texts=kept_t, scores=kept_s, n_flat_dropped=flat)
