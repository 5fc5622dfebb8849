"""TitleExtraction: titles read by a judge, compared with chrF (MPTc-Bench §5.1, Table 4)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import torch

from transcreval.core.result import MetricResult
from transcreval.core.states import Sum
from transcreval.functional.judge.title_extraction import (
    TitleExtractionOptions,
    title_extraction_from_stats,
    title_extraction_stats,
)
from transcreval.judge.judge_metric import JudgeMetric


class TitleExtraction(JudgeMetric):
    """Mean sentence chrF (0-100) between the titles a judge reads off the system's posters
    (``preds``) and off the human target-market posters (``target``): MPTc-Bench's Title column.

    ``update(preds, target)``: each entry a poster image, or a title as text (used as is; the
    planner's title in ``preds`` gives MPTc's Plan column). chrF as ``TitleChrF`` (sacrebleu,
    n=6, beta=2); ``extras["corpus"]`` the corpus chrF. Items whose title could not be read
    are counted in ``extras["failures"]``. Options: :class:`TitleExtractionOptions`.
    """

    options_class = TitleExtractionOptions
    options: TitleExtractionOptions
    input_roles: ClassVar[Mapping[str, str]] = {"preds": "image_or_text", "target": "image_or_text"}

    def __init__(
        self,
        *,
        judge: Any,
        char_order: int = 6,
        word_order: int = 0,
        beta: float = 2.0,
        lowercase: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            judge=judge, char_order=char_order, word_order=word_order, beta=beta, lowercase=lowercase, **kwargs
        )
        self.add_state("ngram_stats", Sum(torch.int64, (3 * (char_order + word_order),)))

    def _stats(self, preds: Sequence[Any], target: Sequence[Any]) -> dict[str, Any]:
        """``preds``: system posters (or titles); ``target``: reference posters (or titles)."""
        return title_extraction_stats(preds, target, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return title_extraction_from_stats(stats, self.options)
