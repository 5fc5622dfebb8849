"""OverallRatingSimilarity (PosterIQ Eq. 11-12)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from transcreval.core.common import Mode
from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult
from transcreval.core.states import Cat, Sum
from transcreval.functional.stats.rating_similarity import (
    PACKAGES,
    RatingSimilarityOptions,
    overall_rating_similarity_from_stats,
    overall_rating_similarity_stats,
)


class OverallRatingSimilarity(Metric):
    """Cosine of zero-mean model and human scores (PosterIQ Eq. 11-12), in [-1, 1], higher is
    better. Unreadable pairs are dropped and counted (``n_unparsable``); zero spread is
    undefined (``UndefinedValueError``; PosterIQ's code mode uses the flat vector uncentred)."""

    version_packages = PACKAGES

    def __init__(self, *, mode: Mode = "paper", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.options = RatingSimilarityOptions(mode=mode)
        self.add_state("preds", Cat(torch.float64))
        self.add_state("target", Cat(torch.float64))
        self.add_state("unparsable", Sum(torch.int64))

    def _stats(self, preds: Sequence[Any], target: Sequence[Any]) -> dict[str, Any]:
        """``preds``: the model's scores (numbers or raw answers, 0-10); ``target``: the human scores."""
        return overall_rating_similarity_stats(preds, target, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return overall_rating_similarity_from_stats(stats, self.options)
