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
    "TextDetector": "transcreval.engines.ocr.base",
    "OCRResult": "transcreval.engines.ocr.base",
    "DetectorInfo": "transcreval.engines.ocr.base",
    "get_detector": "transcreval.engines.ocr.base",
    "register_backend": "transcreval.engines.ocr.base",
    "available_backends": "transcreval.engines.ocr.base",
    "as_rgb_uint8": "transcreval.engines.ocr.images",
    "RapidOCRDetector": "transcreval.engines.ocr.rapid",
    "PPOCRv5MobileDetector": "transcreval.engines.ocr.rapid",
    "PaddleOCRDetector": "transcreval.engines.ocr.paddle",
    "polygons_to_mask": "transcreval.engines.ocr.masks",
    "scale_polygons": "transcreval.engines.ocr.masks",
    "dilate_mask": "transcreval.engines.ocr.masks",
    "result_mask": "transcreval.engines.ocr.masks",
    "text_mask": "transcreval.engines.ocr.masks",
    "background_mask": "transcreval.engines.ocr.masks",
    "mask_iou_counts": "transcreval.engines.ocr.masks",
    "OCRTitleExtractor": "transcreval.engines.ocr.title",
    "TitleReading": "transcreval.engines.ocr.title",
    "choose_title": "transcreval.engines.ocr.title",
    "ocr_title_chrf": "transcreval.engines.ocr.title",
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
