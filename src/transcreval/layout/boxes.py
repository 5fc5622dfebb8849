"""Box metrics (PosterIQ Eq. 4-7): TextLocalizationIoU, BoxRecallRate, CenterBias, AreaRatio."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from transcreval.aggregate_metric import AggregateMetric
from transcreval.errors import InputError
from transcreval.functional.posteriq import (
    Aggregate,
    Mode,
    _area_ratio_agg,
    _box_recall_agg,
    _center_bias_agg,
    _check_mode,
    _text_localization_agg,
)

Coords = Literal["normalized", "pixel"]


class _BoxMetric(AggregateMetric):
    def __init__(self, *, mode: Mode = "paper", coords: Coords = "normalized", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_mode(mode)
        if coords not in ("normalized", "pixel"):
            raise InputError(f"coords must be 'normalized' or 'pixel', got {coords!r}")
        self.mode, self.coords = mode, coords

    def _signature_options(self) -> dict[str, Any]:
        return {"mode": self.mode, "coords": self.coords}


class TextLocalizationIoU(_BoxMetric):
    """Top-n text-localisation IoU, in [0, 1] (see :func:`~transcreval.functional.text_localization_iou`).

    ``update(pred_boxes, gt_boxes, image_sizes=None)``; the paper mode averages per image, the
    code mode pools matched boxes.
    """

    def __init__(self, top_n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(top_n, int) or isinstance(top_n, bool) or top_n < 1:
            raise InputError(f"top_n must be a positive integer, got {top_n!r}")
        self.top_n = top_n

    def _aggregate(self, pred_boxes: Sequence[Any], gt_boxes: Sequence[Any], image_sizes: Any = None) -> Aggregate:
        return _text_localization_agg(pred_boxes, gt_boxes, self.top_n, self.mode, self.coords, image_sizes)

    def _signature_options(self) -> dict[str, Any]:
        return {"top_n": self.top_n, **super()._signature_options()}


class BoxRecallRate(AggregateMetric):
    """Mean of ``min(1, n_pred / n_query)`` (PosterIQ Eq. 5), in [0, 1]. ``update(n_pred, n_query)``."""

    def _aggregate(self, n_pred: Sequence[int], n_query: Sequence[int]) -> Aggregate:
        return _box_recall_agg(n_pred, n_query)


class CenterBias(_BoxMetric):
    """Mean distance of normalised box centres (PosterIQ Eq. 6), lower is better.

    ``update(pred_boxes, gt_boxes, image_sizes=None)``."""

    higher_is_better: ClassVar[bool] = False
    value_range: ClassVar[tuple[float, float]] = (0.0, 2**0.5)

    def _aggregate(self, pred_boxes: Sequence[Any], gt_boxes: Sequence[Any], image_sizes: Any = None) -> Aggregate:
        return _center_bias_agg(pred_boxes, gt_boxes, self.mode, self.coords, image_sizes)


class AreaRatio(_BoxMetric):
    """Mean of ``min(A_pred, A_gt) / max(A_pred, A_gt)`` (PosterIQ Eq. 7), in [0, 1].

    ``update(pred_boxes, gt_boxes, image_sizes=None)``."""

    def _aggregate(self, pred_boxes: Sequence[Any], gt_boxes: Sequence[Any], image_sizes: Any = None) -> Aggregate:
        return _area_ratio_agg(pred_boxes, gt_boxes, self.mode, self.coords, image_sizes)
