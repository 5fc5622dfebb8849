"""JudgeScore: 1-5 judge scores of aesthetics and target-market adaptation (MPTc-Bench §5.2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from transcreval.core.options import option_property
from transcreval.core.result import MetricResult
from transcreval.engines.judge.roles import Texts
from transcreval.functional.judge.judge_score import (
    FIELDS,
    Aspect,
    JudgeScoreOptions,
    judge_score_from_stats,
    judge_score_stats,
)
from transcreval.judge.judge_metric import JudgeMetric


class JudgeScore(JudgeMetric):
    """Mean 1-5 judge score of the system's posters for ``aspect`` "aesthetic" or "adaptation".

    ``update(preds, target, target_market=..., source_market=..., genre=...)``: ``preds`` the
    system posters (MTc), ``target`` the source posters (SRC); the market and genre fields are
    one string for all items or a list with one per item. One judge call per item (see
    :mod:`transcreval.functional.judge.judge_score` for the rubric and the answer format).
    Value in [1, 5], higher is better; ``extras``: ``n_valid``, ``n_failed``, ``failures``.
    """

    options_class = JudgeScoreOptions
    options: JudgeScoreOptions
    input_roles: ClassVar[Mapping[str, str]] = {"preds": "image", "target": "image", **dict.fromkeys(FIELDS, "text")}

    def __init__(self, *, judge: Any, aspect: Aspect = "aesthetic", **kwargs: Any) -> None:
        super().__init__(judge=judge, aspect=aspect, **kwargs)

    aspect = option_property("aspect", "The aspect scored.")

    def _stats(
        self, preds: Any, target: Any, target_market: Texts = None, source_market: Texts = None, genre: Texts = None
    ) -> dict[str, Any]:
        """``preds``: system posters; ``target``: source posters; market and genre per item."""
        fields: dict[str, Any] = {"target_market": target_market, "source_market": source_market, "genre": genre}
        return judge_score_stats(preds, target, **fields, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return judge_score_from_stats(stats, self.options)
