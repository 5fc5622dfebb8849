"""Empty-space metrics (PosterIQ Eq. 8-9): PatchIoU and MatchAccuracy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.aggregate_metric import AggregateMetric
from transcreval.functional.posteriq import Aggregate, Mode, _check_mode, _patch_agg


class _PatchMetric(AggregateMetric):
    def __init__(self, *, mode: Mode = "paper", n_patches: int = 49, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_mode(mode)
        self.mode, self.n_patches = mode, n_patches

    def _signature_options(self) -> dict[str, Any]:
        return {"mode": self.mode, "patches": self.n_patches}


class PatchIoU(_PatchMetric):
    """Mean set IoU of predicted vs ground-truth patch ids, in [0, 1]. ``update(pred_ids, gt_ids)``."""

    def _aggregate(self, pred_ids: Sequence[Any], gt_ids: Sequence[Sequence[int]]) -> Aggregate:
        return _patch_agg(pred_ids, gt_ids, self.mode, self.n_patches)[0]


class MatchAccuracy(_PatchMetric):
    """Fraction of answers with the requested number of patches, in [0, 1].

    ``update(pred_ids, n_requested)``; paper: distinct ids, code: list length."""

    def _aggregate(self, pred_ids: Sequence[Any], n_requested: Sequence[int]) -> Aggregate:
        return _patch_agg(pred_ids, n_requested, self.mode, self.n_patches, count_only=True)[1]
