"""SeparabilityAUC (MPTc-Bench App. B.2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from transcreval.core.result import MetricResult
from transcreval.functional.stats.separability import separability_auc_from_stats, separability_auc_stats
from transcreval.stats.resampling import BootstrappedMetric


class SeparabilityAUC(BootstrappedMetric):
    """ROC AUC of a distance for deep (positive) vs surface pairs (MPTc App. B.2), in [0, 1],
    higher is better."""

    target_dtype = torch.int64

    def _stats(self, preds: Sequence[float], target: Sequence[Any]) -> dict[str, Any]:
        """``preds``: the distances; ``target``: 1/True/"deep" or 0/False/"surface" per pair."""
        return separability_auc_stats(preds, target)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return separability_auc_from_stats(stats, self.options)
