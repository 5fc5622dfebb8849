"""OCRMaskIoU (MPTc-Bench App. B.5, Table 10)."""

from __future__ import annotations

from typing import Any

import torch

from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult
from transcreval.core.states import Cat, Sum
from transcreval.engines.ocr.base import TextDetector
from transcreval.functional.ocr.mask_iou import (
    PACKAGES,
    OCRMaskIoUOptions,
    bind_detector,
    ocr_mask_iou_from_stats,
    ocr_mask_iou_stats,
)


class OCRMaskIoU(Metric):
    """How well system outputs keep the text layout of reference images: the IoU of OCR text
    masks (MPTc-Bench App. B.5), 0-1, higher is better.

    ``update(preds, target)`` takes the system outputs and, pair by pair, the images whose text
    layout they should keep (MPTc: the source posters). Each output is first scaled to its
    target's size; text is detected in both (detection only); all detected polygons of an
    image are filled into one union mask; the pair's value is ``|A & B| / |A | B|``. The
    result is the mean over pairs; ``per_item`` holds every pair's IoU in update order.

    A pair where neither image has detected text has no IoU (0 / 0): its ``per_item`` entry is
    NaN, it is counted in ``extras["both_empty"]`` and left out of the mean (never scored 0 or
    1). ``extras["one_empty"]`` counts pairs where only one side has text (IoU 0),
    ``extras["pairs"]`` all pairs and ``extras["pooled"]`` the pooled IoU (summed intersections
    over summed unions). When no pair has any text, ``compute`` raises ``UndefinedValueError``.

    The detector is part of the metric: the signature records the backend, the package and
    runtime versions, the detection model's SHA-256 and a digest of the detection parameters.
    Results are cached by image content, so a target shared by several outputs (one source
    poster, several systems) is detected once per process.

    Args:
        backend: ``"rapidocr"`` (default; offline, PP-OCRv6 small from the rapidocr wheel),
            ``"ppocrv5-mobile"``, ``"paddleocr"`` (PP-OCRv5 server, the paper's detector) or a
            :class:`~transcreval.ocr.TextDetector`.
        resample: how outputs are scaled to their target's size (Pillow; default "bicubic",
            Pillow's own default: the paper does not say).
        dilate_px: grow both masks by this many pixels before comparing (default 0; finite).
        input_range: the value range of float images, for both ``preds`` and ``target``
            (default (0, 1); e.g. ``(-1, 1)`` or ``(0, 255)``), as in
            :func:`transcreval.io.to_rgb_float`; uint8 images and files are read as 0-255.
        backend_options: options of the backend (e.g. ``{"paddle_compat": True}``,
            ``{"det_model_dir": ...}``); see :func:`~transcreval.ocr.get_detector`.
        **kwargs: :class:`~transcreval.core.metric.Metric` options (process_group, ...).

    The options are kept checked in ``metric.options`` (:class:`OCRMaskIoUOptions`, bound to
    the detector), the object :func:`~transcreval.functional.ocr_mask_iou` builds.
    """

    version_packages: tuple[str, ...] = PACKAGES

    def __init__(
        self,
        *,
        backend: str | TextDetector = "rapidocr",
        resample: str = "bicubic",
        dilate_px: float = 0,
        input_range: tuple[float, float] | None = None,
        backend_options: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._options = OCRMaskIoUOptions(backend, resample, dilate_px, input_range, backend_options or {})
        self.detector = self._options.detector()  # checks the backend now
        for name, kind in (("iou", Cat), ("iou_sum", Sum)):
            self.add_state(name, kind(torch.float64))
        for name in ("defined", "pairs", "both_empty", "one_empty", "intersection", "union"):
            self.add_state(name, Sum(torch.int64))

    @property
    def options(self) -> OCRMaskIoUOptions:
        """The checked options, bound to the detector (its identity as it is now: a model's
        hash appears once the model is downloaded)."""
        return bind_detector(self._options, self.detector)

    # the options by their old attribute names (read-only: the options object is frozen)
    backend = property(lambda self: self._options.backend, doc="The backend name or detector.")
    backend_options = property(lambda self: dict(self._options.backend_options), doc="The backend's options.")
    resample = property(lambda self: self._options.resample, doc="How outputs are scaled to their target.")
    dilate_px = property(lambda self: self._options.dilate_px, doc="Mask dilation in pixels.")
    input_range = property(lambda self: self._options.input_range, doc="The value range of float images.")

    def _stats(self, preds: Any, target: Any) -> dict[str, Any]:
        """``preds``: the system outputs; ``target``: the images whose text layout they should keep."""
        return ocr_mask_iou_stats(preds, target, detector=self.detector, options=self._options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return ocr_mask_iou_from_stats(stats, self.options)

    def __getstate__(self) -> dict[str, Any]:
        d = super().__getstate__()
        if isinstance(self._options.backend, str):
            d["detector"] = None  # rebuilt from the name (and shared) where it is unpickled
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        super().__setstate__(d)
        if self.detector is None:
            self.detector = self._options.detector()
