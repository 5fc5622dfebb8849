"""Empty-space metrics (PosterIQ Eq. 8-9): PatchIoU and MatchAccuracy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.core.aggregate_metric import AggregateMetric
from transcreval.core.common import Definition, Mode, OnUnreadable
from transcreval.core.result import MetricResult
from transcreval.functional.layout import patches as F


class _PatchMetric(AggregateMetric):
    version_packages = F.PACKAGES

    def __init__(
        self, *, mode: Mode = "paper", n_patches: int = 49, on_unreadable: OnUnreadable = "zero", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.options = F.PatchOptions(mode=mode, n_patches=n_patches, on_unreadable=on_unreadable)


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

    def __init__(
        self,
        *,
        mode: Mode = "paper",
        n_patches: int = 49,
        on_unreadable: OnUnreadable = "zero",
        definition: Definition = "supp-b",
        **kwargs: Any,
    ) -> None:
        super().__init__(mode=mode, n_patches=n_patches, on_unreadable=on_unreadable, **kwargs)
        self.options = F.MatchAccuracyOptions(
            mode=mode, n_patches=n_patches, on_unreadable=on_unreadable, definition=definition
        )

    def _stats(self, preds: Sequence[Any], target: Sequence[int]) -> dict[str, Any]:
        """``preds[i]``: predicted patch ids (or the raw answer); ``target[i]``: how many were asked for."""
        return F.match_accuracy_stats(preds, target, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return F.match_accuracy_from_stats(stats, self.options)
