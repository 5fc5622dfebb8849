"""StyleScore (PosterIQ Eq. 13)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.aggregate_metric import AggregateMetric
from transcreval.common import Mode, check_mode
from transcreval.functional.choice.style_score import POSTERIQ_STYLES, check_labels, style_score_stats
from transcreval.state_checks import list_digest


class StyleScore(AggregateMetric):
    """Accuracy of the judged style against the target style (PosterIQ Eq. 13), in [0, 1],
    higher is better. Answers naming no label (or several) are counted, not scored.

    Args:
        labels: the fixed style list (default: PosterIQ's 17 styles, ``POSTERIQ_STYLES``).
        mode: "paper" or "posteriq-code" (exact lower-case equality).
    """

    def __init__(self, labels: Sequence[str] = POSTERIQ_STYLES, *, mode: Mode = "paper", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_mode(mode)
        self.labels = check_labels(labels)
        self.mode = mode

    def _stats(self, preds: Sequence[Any], target: Sequence[str]) -> dict[str, Any]:
        """``preds``: the judged styles (names or raw answers); ``target``: the true styles."""
        return style_score_stats(preds, target, labels=self.labels, mode=self.mode)

    def _signature_options(self) -> dict[str, Any]:
        labels = "posteriq17" if tuple(self.labels) == POSTERIQ_STYLES else list_digest(self.labels)
        return {"labels": labels, "mode": self.mode}
