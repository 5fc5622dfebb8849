"""QuadraticWeightedKappa (MPTc-Bench App. B)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from transcreval.functional.stats.kappa import (
    Unknown,
    check_kappa_labels,
    quadratic_weighted_kappa_from_stats,
    quadratic_weighted_kappa_stats,
)
from transcreval.result import MetricResult
from transcreval.state_checks import list_digest
from transcreval.states import Cat
from transcreval.stats.resampling import BootstrappedMetric


class QuadraticWeightedKappa(BootstrappedMetric):
    """Cohen's kappa with quadratic weights between two raters' numeric ordinal ratings, in
    [-1, 1], higher is better (scikit-learn's ``cohen_kappa_score(weights="quadratic")``).

    Args:
        labels: the ordinal scale (default: the ratings seen).
        unknown: ratings outside ``labels``: "raise" (default) or "drop" (scikit-learn).
    """

    def __init__(self, labels: Sequence[float] | None = None, *, unknown: Unknown = "raise", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.labels = check_kappa_labels(labels, unknown)
        self.unknown = unknown
        self.add_state("preds", Cat(torch.float64))
        self.add_state("target", Cat(torch.float64))

    def _stats(self, preds: Sequence[float], target: Sequence[float]) -> dict[str, Any]:
        """``preds``/``target``: the two raters' ratings (e.g. judge and human scores)."""
        return quadratic_weighted_kappa_stats(preds, target, labels=self.labels, unknown=self.unknown)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return quadratic_weighted_kappa_from_stats(
            stats, self.signature, labels=self.labels, unknown=self.unknown, **self._boot()
        )

    def _signature_options(self) -> dict[str, Any]:
        labels = {"labels": list_digest(self.labels)} if self.labels is not None else {}
        unknown = {"unknown": self.unknown} if self.unknown != "raise" else {}
        return {**labels, **unknown, **super()._signature_options()}
