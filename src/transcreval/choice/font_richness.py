"""FontRichness (PosterIQ Eq. 14-15)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from transcreval.common import Mode, check_mode
from transcreval.functional.choice.font_richness import (
    check_vocabulary,
    font_richness_from_stats,
    font_richness_stats,
)
from transcreval.metric import Metric
from transcreval.result import MetricResult
from transcreval.state_checks import list_digest
from transcreval.states import Sum


class FontRichness(Metric):
    """Mean over the attribute vocabulary of the fraction of posters showing each attribute
    (PosterIQ Eq. 14-15), in [0, 1], higher is better. ``extras["coverage"]`` maps each
    attribute to its coverage R_a."""

    def __init__(self, vocabulary: Sequence[str], *, mode: Mode = "paper", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_mode(mode)
        self.vocabulary = check_vocabulary(vocabulary)
        self.mode = mode
        self.add_state("attribute_counts", Sum(torch.int64, (len(self.vocabulary),)))
        self.add_state("posters", Sum(torch.int64))

    def _stats(self, preds: Sequence[Any]) -> dict[str, Any]:
        """``preds[i]``: the attributes assigned to poster ``i`` (a list) or its raw description."""
        return font_richness_stats(preds, vocabulary=self.vocabulary, mode=self.mode)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return font_richness_from_stats(stats, self.signature, self.vocabulary)

    def _signature_options(self) -> dict[str, Any]:
        return {"attrs": list_digest(self.vocabulary), "mode": self.mode}
