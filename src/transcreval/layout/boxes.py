"""Box metrics (PosterIQ Eq. 4-7): TextLocalizationIoU, BoxRecallRate, CenterBias, AreaRatio."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.core.aggregate_metric import AggregateMetric
from transcreval.core.options import takes_options
from transcreval.core.result import MetricResult
from transcreval.functional.layout import boxes as F


class _BoxMetric(AggregateMetric):
    """A box metric: ``self.options`` (checked once) and the functional module's statistics."""

    version_packages = F.PACKAGES
    options: Any


class _PairedBoxMetric(_BoxMetric):
    @takes_options(F.BoxOptions)
    def __init__(self, **kwargs: Any) -> None:
        options, rest = F.BoxOptions.split(kwargs)
        super().__init__(**rest)
        self.options = F.BoxOptions(**options)


class TextLocalizationIoU(_BoxMetric):
    """Top-n text-localisation IoU (PosterIQ Eq. 4), in [0, 1], higher is better.

    See :func:`~transcreval.functional.text_localization_iou`; the paper mode averages per
    image, the code mode pools matched boxes. An unreadable answer scores 0
    (``on_unreadable="zero"``, the default: PosterIQ's code reads it as no boxes) or is left
    out (``"drop"``); ``[]`` is an answer with no boxes. ``definition="main-text"``: each
    ground-truth box takes its best predicted box (PosterIQ's main text, "the maximum IoU over
    predicted regions") instead of the box at its position (Eq. 4).
    """

    @takes_options(F.TextLocalizationOptions)
    def __init__(self, top_n: int, **kwargs: Any) -> None:
        options, rest = F.TextLocalizationOptions.split(kwargs)
        super().__init__(**rest)
        self.options = F.TextLocalizationOptions(top_n=top_n, **options)

    def _stats(self, preds: Sequence[Any], target: Sequence[Any], image_sizes: Any = None) -> dict[str, Any]:
        """``preds[i]``: predicted boxes or the raw answer of image ``i``; ``target[i]``: its
        ground-truth boxes in query order; ``image_sizes[i]``: ``(W, H)`` for pixel boxes."""
        return F.text_localization_iou_stats(preds, target, image_sizes, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return F.text_localization_iou_from_stats(stats, self.options)


class BoxRecallRate(_BoxMetric):
    """Mean of ``min(1, n_pred / n_query)`` (PosterIQ Eq. 5), in [0, 1], higher is better.

    ``preds[i]`` is a box count, the boxes or the raw answer (read as
    :class:`TextLocalizationIoU` reads it, with ``mode`` and ``coords``); an unreadable answer
    scores 0 (``on_unreadable="zero"``) or is left out (``"drop"``).
    """

    @takes_options(F.BoxRecallOptions)
    def __init__(self, **kwargs: Any) -> None:
        options, rest = F.BoxRecallOptions.split(kwargs)
        super().__init__(**rest)
        self.options = F.BoxRecallOptions(**options)

    def _stats(self, preds: Sequence[Any], target: Sequence[Any], image_sizes: Any = None) -> dict[str, Any]:
        """``preds``: boxes returned per item (counts, boxes or answers); ``target``: boxes asked
        for (counts or the ground-truth boxes); ``image_sizes``: ``(W, H)`` for pixel answers."""
        return F.box_recall_rate_stats(preds, target, image_sizes, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return F.box_recall_rate_from_stats(stats, self.options)


class CenterBias(_PairedBoxMetric):
    """Mean distance of normalised box centres (PosterIQ Eq. 6), in [0, sqrt(2)], lower is better.

    Averages over paired boxes: an unreadable answer adds no pair (counted in ``n_unparsable``)."""

    def _stats(self, preds: Sequence[Any], target: Sequence[Any], image_sizes: Any = None) -> dict[str, Any]:
        """``preds[i]``/``target[i]``: the predicted and ground-truth boxes of image ``i``, paired by position."""
        return F.center_bias_stats(preds, target, image_sizes, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return F.center_bias_from_stats(stats, self.options)


class AreaRatio(_PairedBoxMetric):
    """Mean of ``min(A_pred, A_gt) / max(A_pred, A_gt)`` (PosterIQ Eq. 7), in [0, 1], higher is
    better. Averages over paired boxes: an unreadable answer adds no pair (counted)."""

    def _stats(self, preds: Sequence[Any], target: Sequence[Any], image_sizes: Any = None) -> dict[str, Any]:
        """``preds[i]``/``target[i]``: the predicted and ground-truth boxes of image ``i``, paired by position."""
        return F.area_ratio_stats(preds, target, image_sizes, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return F.area_ratio_from_stats(stats, self.options)
