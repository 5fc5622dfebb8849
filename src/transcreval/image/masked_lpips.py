"""MaskedLPIPS and BackgroundPreservation (IMTBench §4, Eq. 3: S_bg = 1 - masked LPIPS)."""

from __future__ import annotations

from typing import Any

import torch

from transcreval.common import check_choice, mean_result
from transcreval.errors import InputError
from transcreval.functional.image.lpips import EMPTY_HINT, MaskMode
from transcreval.functional.image.masked_lpips import (
    DEFAULT_MIN_COVERAGE,
    check_masked_options,
    masked_lpips_stats,
    masked_values,
    ocr_background,
)
from transcreval.functional.image.pairs import pair_maps
from transcreval.image.lpips import LPIPSFamily
from transcreval.result import MetricResult
from transcreval.states import Sum


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
        net, weights, input_range, device, dtype, batch_size, feature_cache, max_pixels,
            **kwargs: as :class:`~transcreval.image.lpips.LPIPS`.
    """

    def __init__(
        self,
        net: str = "alex",
        weights: Any = None,
        *,
        mode: MaskMode = "area",
        min_coverage: float = DEFAULT_MIN_COVERAGE,
        resize_mask: bool = False,
        **kwargs: Any,
    ) -> None:
        check_masked_options(mode, min_coverage, resize_mask)
        super().__init__(net, weights, **kwargs)
        self.mode = mode
        self.resize_mask = resize_mask
        self.min_coverage = float(min_coverage)
        self.add_state("coverage", Sum(torch.float64))
        self.add_state("low_coverage", Sum(torch.int64))

    def _stats(self, preds: Any, target: Any, mask: Any) -> dict[str, Any]:
        """``preds``/``target``: paired images of equal size; ``mask``: 1 = pixels that count."""
        return masked_lpips_stats(
            preds,
            target,
            mask,
            self.network,
            mode=self.mode,
            min_coverage=self.min_coverage,
            resize_mask=self.resize_mask,
            **self._options(),
        )

    def spatial_map(self, preds: Any, target: Any, mask: Any = None) -> torch.Tensor | list[torch.Tensor]:
        """lpips' spatial distance map of each pair times its mask (0 where the mask is off), for
        pictures (nothing is accumulated): N x 1 x H x W, or a list of 1 x H x W maps in pair order
        when sizes differ. ``mask`` as for ``update``."""
        maps: list[tuple[list[int], torch.Tensor]] = []
        masked_values(
            preds,
            target,
            self._mask_for(target, mask),
            self.network,
            mode=self.mode,
            maps=maps,
            resize_mask=self.resize_mask,
            **self._options(),
        )
        return pair_maps(maps, sum(len(idx) for idx, _ in maps))

    def _mask_for(self, target: Any, mask: Any) -> Any:
        if mask is None:
            raise InputError("pass the masks (mask=..., 1 = pixels that count)")
        return mask

    def _extras(self, stats: dict[str, Any]) -> dict[str, Any]:
        n = max(int(stats["count"]), 1)
        return {
            "mean_coverage": float(stats["coverage"]) / n,
            "low_coverage": int(stats["low_coverage"]),
            "min_coverage": self.min_coverage,
        }

    def _signature_options(self) -> dict[str, Any]:
        # min_coverage decides the low_coverage count: states made with other thresholds never mix
        return {**super()._signature_options(), "mode": self.mode, "min_cov": self.min_coverage}


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

    def __init__(
        self,
        net: str = "alex",
        weights: Any = None,
        *,
        mask: str = "given",
        ocr_backend: Any = "rapidocr",
        ocr_dilate_px: float = 0,
        ocr_options: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        from transcreval.engines.ocr.masks import check_dilate_px

        check_choice("mask", mask, ("given", "ocr"))
        dilate = check_dilate_px(ocr_dilate_px, "ocr_dilate_px")
        super().__init__(net, weights, **kwargs)
        self.mask_source = mask
        self.ocr_backend = ocr_backend
        self.ocr_options = dict(ocr_options or {})
        self.ocr_dilate_px = dilate
        self.ocr_detector: Any = None
        if mask == "ocr":
            from transcreval.engines.ocr.base import get_detector

            self.ocr_detector = get_detector(ocr_backend, **self.ocr_options)  # checks the backend now

    def _mask_for(self, target: Any, mask: Any) -> Any:
        if self.mask_source == "ocr":
            if mask is not None:
                raise InputError("this BackgroundPreservation makes its masks by OCR (mask='ocr'): do not pass mask=")
            return ocr_background(
                target, backend=self.ocr_detector, dilate_px=self.ocr_dilate_px, input_range=self.input_range
            )
        if mask is None:
            raise InputError(
                "pass the background masks (mask=..., 1 = background), or build the metric with mask='ocr'"
            )
        return mask

    def _stats(self, preds: Any, target: Any, mask: Any = None) -> dict[str, Any]:
        """``preds``: edited images; ``target``: references; ``mask``: 1 = background (not with mask="ocr")."""
        return super()._stats(preds, target, self._mask_for(target, mask))

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        n = int(stats["count"])
        flipped = {"total": n - stats["total"], "count": stats["count"], "values": 1 - stats["values"]}
        return mean_result(flipped, self.signature, self.name, self._extras(stats), EMPTY_HINT)

    def _signature_options(self) -> dict[str, Any]:
        opts = super()._signature_options()
        if self.mask_source == "ocr":
            info = self.ocr_detector.info_for(False)
            opts.update(mask="ocr", ocr=info.backend, ocr_det=f"{info.det_model}@{info.det_sha256[:12]}")
            opts.update(ocr_detp=info.params_digest, ocr_dil=self.ocr_dilate_px)
        return opts

    def __getstate__(self) -> dict[str, Any]:
        d = super().__getstate__()
        if isinstance(self.ocr_backend, str):
            d["ocr_detector"] = None  # rebuilt from the name (and shared) where it is unpickled
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        super().__setstate__(d)
        if self.mask_source == "ocr" and self.ocr_detector is None:
            from transcreval.engines.ocr.base import get_detector

            self.ocr_detector = get_detector(self.ocr_backend, **self.ocr_options)
