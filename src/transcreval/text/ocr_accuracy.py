"""OCRAccuracy (PosterIQ Supp. B, Eq. 1; Table 1 Logo OCR and Poster OCR AC)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.core.aggregate_metric import AggregateMetric
from transcreval.core.common import Mode, OnUnreadable
from transcreval.core.result import MetricResult
from transcreval.functional.text.ocr_accuracy import (
    PACKAGES,
    OCRAccuracyOptions,
    ocr_accuracy_from_stats,
    ocr_accuracy_stats,
)


class OCRAccuracy(AggregateMetric):
    """Share of text instances transcribed exactly, invisible characters stripped (PosterIQ
    Eq. 1), in [0, 1], higher is better.

    ``update(preds, target)``: the model's transcriptions and, per image, its one text (a logo)
    or its text instances (a poster). ``per_item`` holds each image's share of correct
    instances; the value pools instances (paper) or averages images (``mode="posteriq-code"``,
    PosterIQ's script: ASCII letters and digits, lower-cased, instances as substrings).

    Args:
        mode: "paper" or "posteriq-code".
        on_unreadable: a missing answer (None) scores 0 ("zero", default) or is left out ("drop").
        refusal_filter: code mode only: leave out posters scoring below 0.05, as the script does.
    """

    version_packages: tuple[str, ...] = PACKAGES

    def __init__(
        self,
        *,
        mode: Mode = "paper",
        on_unreadable: OnUnreadable = "zero",
        refusal_filter: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.options = OCRAccuracyOptions(mode, on_unreadable, refusal_filter)

    def _stats(self, preds: Sequence[str | None], target: Sequence[Any]) -> dict[str, Any]:
        """``preds``: transcriptions (None = no answer); ``target``: a text or a list of text instances per image."""
        return ocr_accuracy_stats(preds, target, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return ocr_accuracy_from_stats(stats, self.options)
