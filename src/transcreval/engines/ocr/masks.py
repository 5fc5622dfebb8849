"""Text masks from detected polygons: union masks, text and background masks, their IoU.

Rasterisation: pixel ``(row, col)`` has its centre at ``(x, y) = (col, row)`` (the coordinates
detectors report) and is text when that centre lies inside a polygon or on its outline, tested
exactly (a scanline fill, not Pillow's or OpenCV's approximate drawing). All polygons of an
image are filled into one boolean H x W mask (their union); overlapping regions count once.

``text_mask(images)`` runs a detector and returns one mask per image (True = text);
``background_mask(images)`` is its complement (True = background), the mask
:class:`MaskedLPIPS` / ``BackgroundPreservation`` score when a user has none.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np

from transcreval.engines.ocr.base import OCRResult, TextDetector, get_detector
from transcreval.engines.ocr.raster import polygons_to_mask
from transcreval.errors import InputError


def scale_polygons(polygons: Sequence[Any], src_size: tuple[int, int], dst_size: tuple[int, int]) -> list[np.ndarray]:
    """Polygons of an image of ``src_size`` mapped onto ``dst_size`` (both ``(height, width)``).

    Pixel edges map onto pixel edges, as image resizing does: ``x' = (x + 0.5) * W'/W - 0.5``.
    """
    sy, sx = dst_size[0] / src_size[0], dst_size[1] / src_size[1]
    out = []
    for p in polygons:
        a = np.asarray(p, dtype=np.float64).copy()
        a[:, 0] = (a[:, 0] + 0.5) * sx - 0.5
        a[:, 1] = (a[:, 1] + 0.5) * sy - 0.5
        out.append(a.astype(np.float32))
    return out


def check_dilate_px(value: Any, name: str = "dilate_px") -> float:
    """A dilation radius checked to be a finite real number >= 0 (``InputError`` otherwise)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value < 0:
        raise InputError(
            f"{name} must be a finite number of pixels >= 0, got {value!r} "
            "(to cover a whole image, use a radius of at least its diagonal)"
        )
    return float(value)


def dilate_mask(mask: np.ndarray, radius: float) -> np.ndarray:
    """Grow a boolean mask by ``radius`` pixels (Euclidean: every pixel within ``radius`` of text).

    ``radius`` must be finite and >= 0. Computed with a Euclidean distance transform on the
    mask's bounding box plus the margin, so its cost does not grow with the radius.
    """
    radius = check_dilate_px(radius)
    if radius == 0 or not mask.any():
        return mask.copy()
    from scipy import ndimage

    r = int(np.ceil(radius))
    ys, xs = np.nonzero(np.any(mask, axis=1))[0], np.nonzero(np.any(mask, axis=0))[0]
    y0, y1 = max(0, ys[0] - r), min(mask.shape[0], ys[-1] + r + 1)
    x0, x1 = max(0, xs[0] - r), min(mask.shape[1], xs[-1] + r + 1)
    crop = mask[y0:y1, x0:x1]
    dist = ndimage.distance_transform_edt(~crop)
    out = np.zeros_like(mask)
    out[y0:y1, x0:x1] = dist <= radius
    return out


def result_mask(result: OCRResult, *, size: tuple[int, int] | None = None, dilate_px: float = 0) -> np.ndarray:
    """The union mask of one :class:`OCRResult` (optionally onto another ``size`` and dilated)."""
    polys: Sequence[Any] = result.polygons
    target = result.image_size if size is None else (int(size[0]), int(size[1]))
    if target != result.image_size:
        polys = scale_polygons(polys, result.image_size, target)
    m = polygons_to_mask(polys, target)
    return dilate_mask(m, dilate_px) if dilate_px else m


def text_mask(
    images: Any,
    *,
    backend: str | TextDetector = "rapidocr",
    dilate_px: float = 0,
    input_range: tuple[float, float] | None = None,
    **backend_options: Any,
) -> list[np.ndarray]:
    """Boolean H x W text masks (True = text), one per image, from a text detector.

    Args:
        images: one image or a batch (paths, PIL, numpy, tensors; see :mod:`transcreval.io`).
        backend: ``"rapidocr"`` (default, offline), ``"ppocrv5-mobile"``, ``"paddleocr"`` or
            a :class:`~transcreval.engines.ocr.base.TextDetector`.
        dilate_px: grow the text regions by this many pixels (Euclidean; finite, >= 0), for
            example to cover glyph edges and anti-aliasing that the detector's boxes leave out.
        input_range: the value range of float images (default (0, 1); e.g. ``(-1, 1)`` or
            ``(0, 255)``), as in :func:`transcreval.io.to_rgb_float`.
        **backend_options: options of the backend (see :func:`~transcreval.ocr.get_detector`).

    Detection only (no recognition), so every detected region counts.
    """
    dilate_px = check_dilate_px(dilate_px)
    det = get_detector(backend, **backend_options)
    results = det.detect(images, recognize=False, input_range=input_range)
    return [result_mask(r, dilate_px=dilate_px) for r in results]


def background_mask(
    images: Any,
    *,
    backend: str | TextDetector = "rapidocr",
    dilate_px: float = 0,
    input_range: tuple[float, float] | None = None,
    **backend_options: Any,
) -> list[np.ndarray]:
    """Boolean H x W background masks (True = not text): the complement of :func:`text_mask`
    (same arguments).

    An image whose every pixel is text has an empty background mask; metrics that average
    over the mask raise on it rather than return NaN.
    """
    masks = text_mask(images, backend=backend, dilate_px=dilate_px, input_range=input_range, **backend_options)
    return [~m for m in masks]


def mask_iou_counts(a: np.ndarray, b: np.ndarray) -> tuple[int, int]:
    """``(intersection, union)`` pixel counts of two boolean masks of the same shape."""
    if a.shape != b.shape:
        raise InputError(f"masks differ in shape: {a.shape} vs {b.shape}")
    return int(np.count_nonzero(a & b)), int(np.count_nonzero(a | b))
