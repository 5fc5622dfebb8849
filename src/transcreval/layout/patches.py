"""Empty-space metrics (PosterIQ Eq. 8-9): PatchIoU and MatchAccuracy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.aggregate_metric import AggregateMetric
from transcreval.common import Mode, check_mode, check_positive_int
from transcreval.functional.layout.patches import match_accuracy_stats, patch_iou_stats


class _PatchMetric(AggregateMetric):
    def __init__(self, *, mode: Mode = "paper", n_patches: int = 49, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_mode(mode)
        check_positive_int("n_patches", n_patches)
        self.mode, self.n_patches = mode, n_patches

    def _signature_options(self) -> dict[str, Any]:
        return {"mode": self.mode, "patches": self.n_patches}


class PatchIoU(_PatchMetric):
    """Mean set IoU of predicted vs ground-truth patch ids (PosterIQ Eq. 8), in [0, 1], higher is better."""

    def _stats(self, preds: Sequence[Any], target: Sequence[Sequence[int]]) -> dict[str, Any]:
        """``preds[i]``: predicted patch ids (or the raw answer); ``target[i]``: the true empty patches."""
        return patch_iou_stats(preds, target, mode=self.mode, n_patches=self.n_patches)


class MatchAccuracy(_PatchMetric):
    """Fraction of answers with the requested number of patches (PosterIQ Eq. 9), in [0, 1],
    higher is better; paper: distinct ids, code: list length."""

    def _stats(self, preds: Sequence[Any], target: Sequence[int]) -> dict[str, Any]:
        """``preds[i]``: predicted patch ids (or the raw answer); ``target[i]``: how many were asked for."""
        return match_accuracy_stats(preds, target, mode=self.mode, n_patches=self.n_patches)
