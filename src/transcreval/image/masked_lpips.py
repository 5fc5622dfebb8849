"""MaskedLPIPS and BackgroundPreservation (IMTBench §4, Eq. 3: S_bg = 1 - masked LPIPS)."""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from transcreval.core.result import MetricResult
from transcreval.core.states import Sum
from transcreval.errors import InputError
from transcreval.functional.image.lpips import LPIPSOptions
from transcreval.functional.image.masked_lpips import (
    BackgroundOptions,
    MaskedLPIPSOptions,
    background_masks,
    background_preservation_from_stats,
    background_preservation_stats,
    masked_lpips_from_stats,
    masked_lpips_stats,
    masked_values,
)
from transcreval.image.lpips import LPIPSFamily


class MaskedLPIPS(LPIPSFamily):
    """Mean LPIPS over the pixels a mask keeps (1 = pixels that count), lower means more similar.

    ``update(preds, target, mask)``: paired images and their masks (bool or {0,1}; ``HxW`` for
    every pair, ``NxHxW``/``Nx1xHxW``, or a list of per-pair ``HxW`` masks). ``mode="area"``
    (IMTBench Eq. 3) averages each layer's distance map under the mask area-pooled to that
    layer's resolution, then sums layers: with an all-ones mask it *is* LPIPS. ``mode="upsample"``
    averages lpips' spatial map under the mask. A mask of another size with the images' aspect
    ratio is resized by area majority (with a warning); another aspect ratio (a transposed mask)
    is an InputError unless ``resize_mask=True``; a colour mask or an all-zero mask is an
    InputError (see :mod:`transcreval.functional.image.masked_lpips`). ``extras``: ``mean_coverage`` (mean fraction
    of pixels that count) and ``low_coverage`` (pairs whose mask keeps less than
    ``min_coverage`` of the image: their value rests on few pixels).

    Args:
        mode: "area" (default) or "upsample".
        min_coverage: the coverage below which a pair is counted in ``low_coverage`` (0.05).
        resize_mask: resize masks of another aspect ratio too, without a warning (default False).
        net, weights, input_range, device, dtype, batch_size, feature_cache, max_pixels, **kwargs:
            as :class:`~transcreval.image.lpips.LPIPS`.
    """

    options_type: ClassVar[type[LPIPSOptions]] = MaskedLPIPSOptions
    options: MaskedLPIPSOptions

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.add_state("coverage", Sum(torch.float64))
        self.add_state("low_coverage", Sum(torch.int64))

    def _stats(self, preds: Any, target: Any, mask: Any) -> dict[str, Any]:
        """``preds``/``target``: paired images of equal size; ``mask``: 1 = pixels that count."""
        return masked_lpips_stats(preds, target, mask, self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return masked_lpips_from_stats(stats, self.options)

    def spatial_map(self, preds: Any, target: Any, mask: Any = None) -> torch.Tensor | list[torch.Tensor]:
        """lpips' spatial distance map of each pair times its mask (0 where the mask is off), for
        pictures (nothing is accumulated): N x 1 x H x W, or a list of 1 x H x W maps in pair order
        when sizes differ. ``mask`` as for ``update``."""
        _, _, maps = masked_values(preds, target, self._mask_for(target, mask), self.options, return_map=True)
        assert maps is not None
        return maps

    def _mask_for(self, target: Any, mask: Any) -> Any:
        if mask is None:
            raise InputError("pass the masks (mask=..., 1 = pixels that count)")
        return mask


class BackgroundPreservation(MaskedLPIPS):
    """IMTBench's background score S_bg = 1 - masked LPIPS (§4, Eq. 3), higher is better.

    ``update(preds, target, mask)``: the edited images, the references, and the background
    masks (1 = background, i.e. outside the text regions). The value is the mean over pairs of
    ``1 - MaskedLPIPS`` (``mode="area"``, IMTBench's Eq. 3, by default); ``per_item`` holds each
    pair's score. Not clipped to [0, 1]: a pair beyond LPIPS' usual range scores below 0.

    With ``mask="ocr"`` the metric makes the masks itself: ``update(preds, target)``, and the
    background is everything outside the text an OCR detector finds in each ``target`` image
    (:func:`transcreval.ocr.background_mask`; detection only, offline with the default
    rapidocr backend). Each reference is detected once: results are cached by image content.
    The references are read for OCR with the metric's ``input_range``, as for LPIPS.

    Args:
        mask: "given" (default: pass masks to ``update``) or "ocr".
        ocr_backend: the OCR backend for ``mask="ocr"`` ("rapidocr", "ppocrv5-mobile",
            "paddleocr" or a :class:`~transcreval.ocr.TextDetector`).
        ocr_dilate_px: grow the detected text regions by this many pixels (0; finite).
        ocr_options: options of the OCR backend.
        **kwargs: :class:`MaskedLPIPS`'s options.
    """

    options_type: ClassVar[type[LPIPSOptions]] = BackgroundOptions
    options: BackgroundOptions

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.options.detector  # noqa: B018 - built now for mask="ocr": a missing backend fails here

    def _mask_for(self, target: Any, mask: Any) -> Any:
        return background_masks(target, mask, self.options)

    def _stats(self, preds: Any, target: Any, mask: Any = None) -> dict[str, Any]:
        """``preds``: edited images; ``target``: references; ``mask``: 1 = background (not with mask="ocr")."""
        return background_preservation_stats(preds, target, mask, self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return background_preservation_from_stats(stats, self.options)
