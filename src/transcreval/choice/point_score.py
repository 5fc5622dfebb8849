"""PointScore (PosterIQ Eq. 10)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.core.aggregate_metric import MeanMetric
from transcreval.core.common import Mode, OnUnreadable
from transcreval.core.result import MetricResult
from transcreval.functional.choice.point_score import (
    PACKAGES,
    CodeYes,
    PointScoreOptions,
    point_score_from_stats,
    point_score_stats,
)


class PointScore(MeanMetric):
    """Fraction of posters whose every key point the judge found covered (PosterIQ Eq. 10), in
    [0, 1], higher is better.

    ``extras["per_point"]`` is the mean covered fraction (what ``mode="posteriq-code"``
    reports as the value); ``extras["n_unparsable"]`` counts posters with an unreadable verdict,
    which reads as "not covered" (``on_unreadable="zero"``, the default) or leaves the poster out
    (``"drop"``).
    """

    version_packages = PACKAGES
    side_counters = ("unparsable",)
    side_totals = ("covered_fraction",)
    per_item_status = True

    def __init__(
        self,
        *,
        mode: Mode = "paper",
        code_yes: CodeYes = "substring",
        on_unreadable: OnUnreadable = "zero",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.options = PointScoreOptions(mode=mode, code_yes=code_yes, on_unreadable=on_unreadable)

    def _stats(self, preds: Sequence[Sequence[Any]]) -> dict[str, Any]:
        """``preds[i]``: the verdicts (bools or yes/no answers) on poster ``i``'s key points."""
        return point_score_stats(preds, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return point_score_from_stats(stats, self.options)
