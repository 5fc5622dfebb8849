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

from typing import TYPE_CHECKING

from transcreval.lazy import lazy_exports

_EXPORTS = {
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
__all__, __getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

# the same names for type checkers (tests/test_lazy_exports.py keeps this block equal to _EXPORTS)
if TYPE_CHECKING:
    from transcreval.ocr.base import DetectorInfo as DetectorInfo
    from transcreval.ocr.base import OCRResult as OCRResult
    from transcreval.ocr.base import TextDetector as TextDetector
    from transcreval.ocr.base import available_backends as available_backends
    from transcreval.ocr.base import get_detector as get_detector
    from transcreval.ocr.base import register_backend as register_backend
    from transcreval.ocr.images import as_rgb_uint8 as as_rgb_uint8
    from transcreval.ocr.mask_iou import OCRMaskIoU as OCRMaskIoU
    from transcreval.ocr.masks import background_mask as background_mask
    from transcreval.ocr.masks import dilate_mask as dilate_mask
    from transcreval.ocr.masks import mask_iou_counts as mask_iou_counts
    from transcreval.ocr.masks import polygons_to_mask as polygons_to_mask
    from transcreval.ocr.masks import result_mask as result_mask
    from transcreval.ocr.masks import scale_polygons as scale_polygons
    from transcreval.ocr.masks import text_mask as text_mask
    from transcreval.ocr.paddle import PaddleOCRDetector as PaddleOCRDetector
    from transcreval.ocr.rapid import PPOCRv5MobileDetector as PPOCRv5MobileDetector
    from transcreval.ocr.rapid import RapidOCRDetector as RapidOCRDetector
    from transcreval.ocr.title import OCRTitleExtractor as OCRTitleExtractor
    from transcreval.ocr.title import TitleReading as TitleReading
    from transcreval.ocr.title import choose_title as choose_title
    from transcreval.ocr.title import ocr_title_chrf as ocr_title_chrf
