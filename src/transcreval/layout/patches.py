"""Empty-space metrics (PosterIQ Eq. 8-9): PatchIoU and MatchAccuracy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.aggregate_metric import AggregateMetric
from transcreval.common import Mode, OnUnreadable, check_mode, check_on_unreadable, check_positive_int
from transcreval.functional.layout.patches import match_accuracy_stats, patch_iou_stats


class _PatchMetric(AggregateMetric):
    def __init__(
        self, *, mode: Mode = "paper", n_patches: int = 49, on_unreadable: OnUnreadable = "zero", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        check_mode(mode)
        check_positive_int("n_patches", n_patches)
        check_on_unreadable(on_unreadable)
        self.mode, self.n_patches, self.on_unreadable = mode, n_patches, on_unreadable

    def _options(self) -> dict[str, Any]:
        return {"mode": self.mode, "n_patches": self.n_patches, "on_unreadable": self.on_unreadable}

    def _signature_options(self) -> dict[str, Any]:
        return {"mode": self.mode, "patches": self.n_patches, "unreadable": self.on_unreadable}


class PatchIoU(_PatchMetric):
    """Mean set IoU of predicted vs ground-truth patch ids (PosterIQ Eq. 8), in [0, 1], higher is
    better. An unreadable answer scores 0 (``on_unreadable="zero"``) or is left out (``"drop"``)."""

    def _stats(self, preds: Sequence[Any], target: Sequence[Sequence[int]]) -> dict[str, Any]:
        """``preds[i]``: predicted patch ids (or the raw answer); ``target[i]``: the true empty patches."""
        return patch_iou_stats(preds, target, **self._options())


class MatchAccuracy(_PatchMetric):
    """Fraction of answers with the requested number of patches (PosterIQ Eq. 9), in [0, 1],
    higher is better; paper: distinct ids, code: list length."""

    def _stats(self, preds: Sequence[Any], target: Sequence[int]) -> dict[str, Any]:
        """``preds[i]``: predicted patch ids (or the raw answer); ``target[i]``: how many were asked for."""
        return match_accuracy_stats(preds, target, **self._options())
