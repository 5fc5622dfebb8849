"""FontRichness (PosterIQ Eq. 14-15)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from transcreval.core.common import Mode
from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult
from transcreval.core.states import Sum
from transcreval.functional.choice.font_richness import (
    PACKAGES,
    FontRichnessOptions,
    font_richness_from_stats,
    font_richness_stats,
)


class FontRichness(Metric):
    """Mean over the attribute vocabulary of the fraction of posters showing each attribute
    (PosterIQ Eq. 14-15), in [0, 1], higher is better. ``extras["coverage"]`` maps each
    attribute to its coverage R_a."""

    version_packages = PACKAGES

    def __init__(self, vocabulary: Sequence[str], *, mode: Mode = "paper", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.options = FontRichnessOptions(vocabulary=vocabulary, mode=mode)
        self.add_state("attribute_counts", Sum(torch.int64, (len(self.options.vocabulary),)))
        self.add_state("posters", Sum(torch.int64))

    def _stats(self, preds: Sequence[Any]) -> dict[str, Any]:
        """``preds[i]``: the attributes assigned to poster ``i`` (a list) or its raw description."""
        return font_richness_stats(preds, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return font_richness_from_stats(stats, self.options)
