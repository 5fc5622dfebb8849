"""MaskedLPIPS and BackgroundPreservation (IMTBench §4, Eq. 3: S_bg = 1 - masked LPIPS)."""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from transcreval.functional.image.lpips import MaskMode, mean_from_stats
from transcreval.functional.image.masked_lpips import (
    DEFAULT_MIN_COVERAGE,
    check_masked_options,
    masked_lpips_stats,
)
from transcreval.image.lpips import LPIPSFamily
from transcreval.result import MetricResult
from transcreval.states import Sum


class MaskedLPIPS(LPIPSFamily):
    """Mean LPIPS over the pixels a mask keeps (1 = pixels that count), lower means more similar.

    ``update(preds, target, mask)``: paired images and their masks (bool or {0,1}; ``HxW`` for
    every pair, ``NxHxW``/``Nx1xHxW``, or a list of per-pair ``HxW`` masks). ``mode="area"``
    (IMTBench Eq. 3) averages each layer's distance map under the mask area-pooled to that
    layer's resolution, then sums layers: with an all-ones mask it *is* LPIPS. ``mode="upsample"``
    averages lpips' spatial map under the mask. A mask of another size is resized (nearest, with
    a warning); an all-zero mask is an InputError. ``extras``: ``mean_coverage`` (mean fraction
    of pixels that count) and ``low_coverage`` (pairs whose mask keeps less than
    ``min_coverage`` of the image: their value rests on few pixels).

    Args:
        mode: "area" (default) or "upsample".
        min_coverage: the coverage below which a pair is counted in ``low_coverage`` (0.05).
        net, weights, input_range, device, dtype, batch_size, feature_cache, **kwargs: as
            :class:`~transcreval.image.lpips.LPIPS`.
    """

    def __init__(
        self,
        net: str = "alex",
        weights: Any = None,
        *,
        mode: MaskMode = "area",
        min_coverage: float = DEFAULT_MIN_COVERAGE,
        **kwargs: Any,
    ) -> None:
        check_masked_options(mode, min_coverage)
        super().__init__(net, weights, **kwargs)
        self.mode = mode
        self.min_coverage = float(min_coverage)
        self.add_state("coverage", Sum(torch.float64))
        self.add_state("low_coverage", Sum(torch.int64))

    def _stats(self, preds: Any, target: Any, mask: Any) -> dict[str, Any]:
        """``preds``/``target``: paired images of equal size; ``mask``: 1 = pixels that count."""
        return masked_lpips_stats(
            preds, target, mask, self.network, mode=self.mode, min_coverage=self.min_coverage, **self._options()
        )

    def _extras(self, stats: dict[str, Any]) -> dict[str, Any]:
        n = max(int(stats["count"]), 1)
        return {
            "mean_coverage": float(stats["coverage"]) / n,
            "low_coverage": int(stats["low_coverage"]),
            "min_coverage": self.min_coverage,
        }

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return mean_from_stats(stats, self.signature, self.name, self._extras(stats))

    def _signature_options(self) -> dict[str, Any]:
        return {**super()._signature_options(), "mode": self.mode}


class BackgroundPreservation(MaskedLPIPS):
    """IMTBench's background score S_bg = 1 - masked LPIPS (§4, Eq. 3), higher is better.

    ``update(preds, target, mask)``: the edited images, the references, and the background
    masks (1 = background, i.e. outside the text regions). The value is the mean over pairs of
    ``1 - MaskedLPIPS`` (``mode="area"``, IMTBench's Eq. 3, by default); ``per_item`` holds each
    pair's score. Not clipped to [0, 1]: a pair beyond LPIPS' usual range scores below 0.
    Options are :class:`MaskedLPIPS`'s.
    """

    higher_is_better: ClassVar[bool] = True
    value_range: ClassVar[tuple[float, float]] = (float("-inf"), 1.0)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        n = int(stats["count"])
        flipped = {"total": n - stats["total"], "count": stats["count"], "values": 1 - stats["values"]}
        return mean_from_stats(flipped, self.signature, self.name, self._extras(stats))
