"""OverallRatingSimilarity (PosterIQ Eq. 11-12)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from transcreval.common import Mode, check_mode
from transcreval.functional.stats.rating_similarity import (
    overall_rating_similarity_from_stats,
    overall_rating_similarity_stats,
)
from transcreval.metric import Metric
from transcreval.result import MetricResult
from transcreval.states import Cat, Sum


class OverallRatingSimilarity(Metric):
    """Cosine of zero-mean model and human scores (PosterIQ Eq. 11-12), in [-1, 1], higher is
    better. Unreadable pairs are dropped and counted (``n_unparsable``); zero spread is
    undefined (``UndefinedValueError``; PosterIQ's code mode uses the flat vector uncentred)."""

    def __init__(self, *, mode: Mode = "paper", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_mode(mode)
        self.mode = mode
        self.add_state("preds", Cat(torch.float64))
        self.add_state("target", Cat(torch.float64))
        self.add_state("unparsable", Sum(torch.int64))

    def _stats(self, preds: Sequence[Any], target: Sequence[Any]) -> dict[str, Any]:
        """``preds``: the model's scores (numbers or raw answers, 0-10); ``target``: the human scores."""
        return overall_rating_similarity_stats(preds, target, mode=self.mode)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return overall_rating_similarity_from_stats(stats, self.signature, self.mode)

    def _signature_options(self) -> dict[str, Any]:
        return {"mode": self.mode}
