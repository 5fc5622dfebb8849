"""SpearmanRho (MPTc-Bench App. B.4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.core.result import MetricResult
from transcreval.functional.stats.spearman import spearman_rho_from_stats, spearman_rho_stats
from transcreval.stats.resampling import BootstrappedMetric


class SpearmanRho(BootstrappedMetric):
    """Spearman's rho between two sequences, in [-1, 1], higher is better; agrees with
    ``scipy.stats.spearmanr``. Pairs may arrive in any batches and ranks."""

    def _stats(self, preds: Sequence[float], target: Sequence[float]) -> dict[str, Any]:
        """``preds``/``target``: the two paired sequences (e.g. title chrF and release year)."""
        return spearman_rho_stats(preds, target)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return spearman_rho_from_stats(stats, self.options)
