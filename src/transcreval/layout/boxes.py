"""Box metrics (PosterIQ Eq. 4-7): TextLocalizationIoU, BoxRecallRate, CenterBias, AreaRatio."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.aggregate_metric import AggregateMetric
from transcreval.common import Mode, OnUnreadable, check_on_unreadable, check_positive_int
from transcreval.functional.layout.box_reading import Coords, check_box_options
from transcreval.functional.layout.boxes import (
    area_ratio_stats,
    box_recall_rate_stats,
    center_bias_stats,
    text_localization_iou_stats,
)


class _BoxMetric(AggregateMetric):
    def __init__(
        self,
        *,
        mode: Mode = "paper",
        coords: Coords = "normalized",
        target_coords: Coords = "normalized",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        check_box_options(mode, coords, target_coords)
        self.mode, self.coords, self.target_coords = mode, coords, target_coords

    def _options(self) -> dict[str, Any]:
        return {"mode": self.mode, "coords": self.coords, "target_coords": self.target_coords}

    def _signature_options(self) -> dict[str, Any]:
        return {"mode": self.mode, "coords": self.coords, "target": self.target_coords}


class TextLocalizationIoU(_BoxMetric):
    """Top-n text-localisation IoU (PosterIQ Eq. 4), in [0, 1], higher is better.

    See :func:`~transcreval.functional.text_localization_iou`; the paper mode averages per
    image, the code mode pools matched boxes. An unreadable answer scores 0
    (``on_unreadable="zero"``, the default: PosterIQ's code reads it as no boxes) or is left
    out (``"drop"``); ``[]`` is an answer with no boxes.
    """

    def __init__(self, top_n: int, *, on_unreadable: OnUnreadable = "zero", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_positive_int("top_n", top_n)
        check_on_unreadable(on_unreadable)
        self.top_n, self.on_unreadable = top_n, on_unreadable

    def _stats(self, preds: Sequence[Any], target: Sequence[Any], image_sizes: Any = None) -> dict[str, Any]:
        """``preds[i]``: predicted boxes or the raw answer of image ``i``; ``target[i]``: its
        ground-truth boxes in query order; ``image_sizes[i]``: ``(W, H)`` for pixel boxes."""
        return text_localization_iou_stats(
            preds,
            target,
            top_n=self.top_n,
            image_sizes=image_sizes,
            on_unreadable=self.on_unreadable,
            **self._options(),
        )

    def _signature_options(self) -> dict[str, Any]:
        return {"top_n": self.top_n, **super()._signature_options(), "unreadable": self.on_unreadable}


class BoxRecallRate(AggregateMetric):
    """Mean of ``min(1, n_pred / n_query)`` (PosterIQ Eq. 5), in [0, 1], higher is better.

    ``preds[i]`` is a box count, the boxes or the raw answer (read as
    :class:`TextLocalizationIoU` reads it, with ``mode`` and ``coords``); an unreadable answer
    scores 0 (``on_unreadable="zero"``) or is left out (``"drop"``).
    """

    def __init__(
        self,
        *,
        mode: Mode = "paper",
        coords: Coords = "normalized",
        on_unreadable: OnUnreadable = "zero",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        check_box_options(mode, coords, "normalized")
        check_on_unreadable(on_unreadable)
        self.mode, self.coords, self.on_unreadable = mode, coords, on_unreadable

    def _stats(self, preds: Sequence[Any], target: Sequence[Any], image_sizes: Any = None) -> dict[str, Any]:
        """``preds``: boxes returned per item (counts, boxes or answers); ``target``: boxes asked
        for (counts or the ground-truth boxes); ``image_sizes``: ``(W, H)`` for pixel answers."""
        return box_recall_rate_stats(
            preds,
            target,
            mode=self.mode,
            coords=self.coords,
            image_sizes=image_sizes,
            on_unreadable=self.on_unreadable,
        )

    def _signature_options(self) -> dict[str, Any]:
        return {"mode": self.mode, "coords": self.coords, "unreadable": self.on_unreadable}


class CenterBias(_BoxMetric):
    """Mean distance of normalised box centres (PosterIQ Eq. 6), in [0, sqrt(2)], lower is better.

    Averages over paired boxes: an unreadable answer adds no pair (counted in ``n_unparsable``)."""

    def _stats(self, preds: Sequence[Any], target: Sequence[Any], image_sizes: Any = None) -> dict[str, Any]:
        """``preds[i]``/``target[i]``: the predicted and ground-truth boxes of image ``i``, paired by position."""
        return center_bias_stats(preds, target, image_sizes=image_sizes, **self._options())


class AreaRatio(_BoxMetric):
    """Mean of ``min(A_pred, A_gt) / max(A_pred, A_gt)`` (PosterIQ Eq. 7), in [0, 1], higher is
    better. Averages over paired boxes: an unreadable answer adds no pair (counted)."""

    def _stats(self, preds: Sequence[Any], target: Sequence[Any], image_sizes: Any = None) -> dict[str, Any]:
        """``preds[i]``/``target[i]``: the predicted and ground-truth boxes of image ``i``, paired by position."""
        return area_ratio_stats(preds, target, image_sizes=image_sizes, **self._options())
