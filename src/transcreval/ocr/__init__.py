"""Offline text detection and the OCR-based metrics.

* :func:`get_detector` / :class:`TextDetector`: ``detect(images) -> list[OCRResult]`` with the
  backends ``"rapidocr"`` (default, offline), ``"ppocrv5-mobile"`` and ``"paddleocr"``;
* :func:`text_mask` / :func:`background_mask`: boolean masks of the detected text regions and
  of the rest of the image;
* :class:`OCRTitleExtractor`: a poster's title read as its largest OCR line, or its most
  confident one (``rule="confidence"``, the MPTc App. B.5 baseline),
  and :func:`ocr_title_chrf`: TitleChrF on the titles it reads;
* :func:`polygons_to_mask`, :func:`dilate_mask`, :func:`mask_iou_counts`: the pure pieces.

Names load lazily: importing :mod:`transcreval.ocr` loads neither rapidocr nor onnxruntime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transcreval.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from transcreval.engines.ocr.base import DetectorInfo as DetectorInfo
    from transcreval.engines.ocr.base import OCRResult as OCRResult
    from transcreval.engines.ocr.base import TextDetector as TextDetector
    from transcreval.engines.ocr.base import available_backends as available_backends
    from transcreval.engines.ocr.base import get_detector as get_detector
    from transcreval.engines.ocr.base import register_backend as register_backend
    from transcreval.engines.ocr.images import as_rgb_uint8 as as_rgb_uint8
    from transcreval.engines.ocr.masks import background_mask as background_mask
    from transcreval.engines.ocr.masks import dilate_mask as dilate_mask
    from transcreval.engines.ocr.masks import mask_iou_counts as mask_iou_counts
    from transcreval.engines.ocr.masks import polygons_to_mask as polygons_to_mask
    from transcreval.engines.ocr.masks import result_mask as result_mask
    from transcreval.engines.ocr.masks import scale_polygons as scale_polygons
    from transcreval.engines.ocr.masks import text_mask as text_mask
    from transcreval.engines.ocr.paddle import PaddleOCRDetector as PaddleOCRDetector
    from transcreval.engines.ocr.rapid import PPOCRv5MobileDetector as PPOCRv5MobileDetector
    from transcreval.engines.ocr.rapid import RapidOCRDetector as RapidOCRDetector
    from transcreval.engines.ocr.title import OCRTitleExtractor as OCRTitleExtractor
    from transcreval.engines.ocr.title import TitleReading as TitleReading
    from transcreval.engines.ocr.title import choose_title as choose_title
    from transcreval.functional.ocr.title_chrf import ocr_title_chrf as ocr_title_chrf
    from transcreval.ocr.mask_iou import OCRMaskIoU as OCRMaskIoU

__all__, __getattr__, __dir__ = lazy_exports(globals())
