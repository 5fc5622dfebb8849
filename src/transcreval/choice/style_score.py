"""StyleScore (PosterIQ Eq. 13)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.aggregate_metric import AggregateMetric
from transcreval.common import Mode, OnUnreadable, check_mode, check_on_unreadable
from transcreval.functional.choice.style_score import POSTERIQ_STYLES, check_labels, style_score_stats
from transcreval.state_checks import list_digest


class StyleScore(AggregateMetric):
    """Accuracy of the judged style against the target style (PosterIQ Eq. 13), in [0, 1],
    higher is better. Answers naming no label (or several) are counted and scored 0, or left out.

    Args:
        labels: the fixed style list (default: PosterIQ's 17 styles, ``POSTERIQ_STYLES``).
        mode: "paper" or "posteriq-code" (exact lower-case equality).
        on_unreadable: "zero" (default) or "drop" for answers naming no label or several.
    """

    def __init__(
        self,
        labels: Sequence[str] = POSTERIQ_STYLES,
        *,
        mode: Mode = "paper",
        on_unreadable: OnUnreadable = "zero",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        check_mode(mode)
        check_on_unreadable(on_unreadable)
        self.labels = check_labels(labels)
        self.mode, self.on_unreadable = mode, on_unreadable

    def _stats(self, preds: Sequence[Any], target: Sequence[str]) -> dict[str, Any]:
        """``preds``: the judged styles (names or raw answers); ``target``: the true styles."""
        return style_score_stats(preds, target, labels=self.labels, mode=self.mode, on_unreadable=self.on_unreadable)

    def _signature_options(self) -> dict[str, Any]:
        labels = "posteriq17" if tuple(self.labels) == POSTERIQ_STYLES else list_digest(self.labels)
        return {"labels": labels, "mode": self.mode, "unreadable": self.on_unreadable}
