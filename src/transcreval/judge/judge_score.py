"""JudgeScore: 1-5 judge scores of aesthetics and target-market adaptation (MPTc-Bench §5.2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from transcreval.functional.judge.judge_score import (
    ASPECTS,
    FIELDS,
    Aspect,
    check_aspect,
    judge_score_from_stats,
    judge_score_stats,
)
from transcreval.judge.judge_metric import JudgeMetric
from transcreval.result import MetricResult


class JudgeScore(JudgeMetric):
    """Mean 1-5 judge score of the system's posters for ``aspect`` "aesthetic" or "adaptation".

    ``update(preds, target, target_market=..., source_market=..., genre=...)``: ``preds`` the
    system posters (MTc), ``target`` the source posters (SRC); the market and genre fields are
    one string for all items or a list with one per item. One judge call per item (see
    :mod:`transcreval.functional.judge.judge_score` for the rubric and the answer format).
    Value in [1, 5], higher is better; ``extras``: ``n_valid``, ``n_failed``, ``failures``.
    """

    value_range: ClassVar[tuple[float, float]] = (1.0, 5.0)
    input_roles: ClassVar[Mapping[str, str]] = {
        "preds": "image",
        "target": "image",
        "target_market": "text",
        "source_market": "text",
        "genre": "text",
    }

    def __init__(self, *, judge: Any, aspect: Aspect = "aesthetic", **kwargs: Any) -> None:
        self.aspect = check_aspect(aspect)
        self.default_template = ASPECTS[self.aspect]  # type: ignore[misc]
        self.template_fields = FIELDS  # type: ignore[misc]
        super().__init__(judge=judge, **kwargs)

    def _stats(
        self,
        preds: Any,
        target: Any,
        target_market: str | Sequence[str] | None = None,
        source_market: str | Sequence[str] | None = None,
        genre: str | Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """``preds``: system posters; ``target``: source posters; market and genre per item."""
        return judge_score_stats(
            preds,
            target,
            judge=self.judge,
            aspect=self.aspect,
            target_market=target_market,
            source_market=source_market,
            genre=genre,
            template=self.template,
            on_failure=self.on_failure,
            input_range=self.input_range,
        )

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return judge_score_from_stats(stats, self.signature)

    def _signature_options(self) -> dict[str, Any]:
        return {"aspect": self.aspect, **self._judge_options()}
