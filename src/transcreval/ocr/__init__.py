"""Offline text detection and the OCR-based metrics.

* :func:`get_detector` / :class:`TextDetector`: ``detect(images) -> list[OCRResult]`` with the
  backends ``"rapidocr"`` (default, offline), ``"ppocrv5-mobile"`` and ``"paddleocr"``;
* :func:`text_mask` / :func:`background_mask`: boolean masks of the detected text regions and
  of the rest of the image;
* :class:`OCRTitleExtractor`: a poster's title read as its largest OCR line (the MPTc baseline);
* :func:`polygons_to_mask`, :func:`dilate_mask`, :func:`mask_iou_counts`: the pure pieces.

Names load lazily: importing :mod:`transcreval.ocr` loads neither rapidocr nor onnxruntime.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "TextDetector": "transcreval.ocr.base",
    "OCRResult": "transcreval.ocr.base",
    "DetectorInfo": "transcreval.ocr.base",
    "get_detector": "transcreval.ocr.base",
    "register_backend": "transcreval.ocr.base",
    "available_backends": "transcreval.ocr.base",
    "as_rgb_uint8": "transcreval.ocr.images",
    "RapidOCRDetector": "transcreval.ocr.rapid",
    "PPOCRv5MobileDetector": "transcreval.ocr.rapid",
    "PaddleOCRDetector": "transcreval.ocr.paddle",
    "polygons_to_mask": "transcreval.ocr.masks",
    "scale_polygons": "transcreval.ocr.masks",
    "dilate_mask": "transcreval.ocr.masks",
    "result_mask": "transcreval.ocr.masks",
    "text_mask": "transcreval.ocr.masks",
    "background_mask": "transcreval.ocr.masks",
    "mask_iou_counts": "transcreval.ocr.masks",
    "OCRTitleExtractor": "transcreval.ocr.title",
    "TitleReading": "transcreval.ocr.title",
    "choose_title": "transcreval.ocr.title",
    "ocr_title_chrf": "transcreval.ocr.title",
    "OCRMaskIoU": "transcreval.ocr.mask_iou",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'transcreval.ocr' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
