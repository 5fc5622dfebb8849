"""StyleScore (PosterIQ Eq. 13)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.core.aggregate_metric import AggregateMetric
from transcreval.core.common import Mode, OnUnreadable
from transcreval.core.result import MetricResult
from transcreval.functional.choice.style_score import (
    PACKAGES,
    POSTERIQ_STYLES,
    StyleScoreOptions,
    style_score_from_stats,
    style_score_stats,
)


class StyleScore(AggregateMetric):
    """Accuracy of the judged style against the target style (PosterIQ Eq. 13), in [0, 1],
    higher is better. Answers naming no label (or several) are counted and scored 0, or left out.

    Args:
        labels: the fixed style list (default: PosterIQ's 17 styles, ``POSTERIQ_STYLES``).
        mode: "paper" or "posteriq-code" (exact lower-case equality).
        on_unreadable: "zero" (default) or "drop" for answers naming no label or several.
    """

    version_packages = PACKAGES

    def __init__(
        self,
        labels: Sequence[str] = POSTERIQ_STYLES,
        *,
        mode: Mode = "paper",
        on_unreadable: OnUnreadable = "zero",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.options = StyleScoreOptions(labels=labels, mode=mode, on_unreadable=on_unreadable)

    def _stats(self, preds: Sequence[Any], target: Sequence[str]) -> dict[str, Any]:
        """``preds``: the judged styles (names or raw answers); ``target``: the true styles."""
        return style_score_stats(preds, target, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return style_score_from_stats(stats, self.options)
