"""QuadraticWeightedKappa (MPTc-Bench App. B)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.core.result import MetricResult
from transcreval.functional.stats.kappa import (
    KappaOptions,
    Unknown,
    quadratic_weighted_kappa_from_stats,
    quadratic_weighted_kappa_stats,
)
from transcreval.stats.resampling import BootstrappedMetric


class QuadraticWeightedKappa(BootstrappedMetric):
    """Cohen's kappa with quadratic weights between two raters' numeric ordinal ratings, in
    [-1, 1], higher is better (scikit-learn's ``cohen_kappa_score(weights="quadratic")``).

    Args:
        labels: the ordinal scale (default: the ratings seen).
        unknown: ratings outside ``labels``: "raise" (default) or "drop" (scikit-learn).
    """

    options: KappaOptions

    def __init__(self, labels: Sequence[float] | None = None, *, unknown: Unknown = "raise", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.options = KappaOptions(labels=labels, unknown=unknown, **self.options.as_kwargs())

    def _stats(self, preds: Sequence[float], target: Sequence[float]) -> dict[str, Any]:
        """``preds``/``target``: the two raters' ratings (e.g. judge and human scores)."""
        return quadratic_weighted_kappa_stats(preds, target, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return quadratic_weighted_kappa_from_stats(stats, self.options)
