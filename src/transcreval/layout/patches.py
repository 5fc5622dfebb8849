"""Empty-space metrics (PosterIQ Eq. 8-9): PatchIoU and MatchAccuracy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.core.aggregate_metric import AggregateMetric
from transcreval.core.options import takes_options
from transcreval.core.result import MetricResult
from transcreval.functional.layout import patches as F


class _PatchMetric(AggregateMetric):
    version_packages = F.PACKAGES
    options_type: type[F.PatchOptions] = F.PatchOptions

    @takes_options(F.PatchOptions)
    def __init__(self, **kwargs: Any) -> None:
        options, rest = self.options_type.split(kwargs)
        super().__init__(**rest)
        self.options = self.options_type(**options)


class PatchIoU(_PatchMetric):
    """Mean set IoU of predicted vs ground-truth patch ids (PosterIQ Eq. 8), in [0, 1], higher is
    better. An unreadable answer scores 0 (``on_unreadable="zero"``) or is left out (``"drop"``)."""

    def _stats(self, preds: Sequence[Any], target: Sequence[Sequence[int]]) -> dict[str, Any]:
        """``preds[i]``: predicted patch ids (or the raw answer); ``target[i]``: the true empty patches."""
        return F.patch_iou_stats(preds, target, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return F.patch_iou_from_stats(stats, self.options)


class MatchAccuracy(_PatchMetric):
    """Fraction of answers with the requested number of patches (PosterIQ Eq. 9), in [0, 1],
    higher is better; paper: distinct ids, code: list length. ``definition="main-text"``: the
    answer must be the target set itself (``target[i]`` the ground-truth ids), as PosterIQ's
    main text words it."""

    options_type = F.MatchAccuracyOptions
    options: F.MatchAccuracyOptions

    @takes_options(F.MatchAccuracyOptions)
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def _stats(self, preds: Sequence[Any], target: Sequence[int]) -> dict[str, Any]:
        """``preds[i]``: predicted patch ids (or the raw answer); ``target[i]``: how many were asked for."""
        return F.match_accuracy_stats(preds, target, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return F.match_accuracy_from_stats(stats, self.options)
