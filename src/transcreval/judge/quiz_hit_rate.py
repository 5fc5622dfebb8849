"""QuizHitRate: genre and release-decade quizzes on the system's posters (MPTc-Bench §5.1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from transcreval.core.result import MetricResult
from transcreval.functional.judge.quiz_hit_rate import (
    QuizHitRateOptions,
    quiz_hit_rate_from_stats,
    quiz_hit_rate_stats,
)
from transcreval.judge.judge_metric import JudgeMetric


class QuizHitRate(JudgeMetric):
    """Hit rate (%) of a judge answering a multiple-choice quiz about each system poster.

    ``update(preds, target, options=None, item_ids=None)``: ``preds`` the system posters,
    ``target`` the correct answers; ``options[i]`` the choices of item ``i`` (containing the
    answer), or ``labels=`` at construction to draw ``n_options - 1`` distractors per item.
    Choices are shuffled per item from SHA-256(``seed``, item id) and the judge's letter is
    mapped back. ``kind``: "genre" or "decade" (or ``question=`` and ``hint=``).
    Value in [0, 100], higher is better; ``extras["chance"]`` the rate of random guessing.
    The metric's own options (``metric.options``): :class:`QuizHitRateOptions`.
    """

    options_class = QuizHitRateOptions
    options: QuizHitRateOptions
    side_totals = ("chance",)
    input_roles: ClassVar[Mapping[str, str]] = dict(preds="image", target="text", options="text", item_ids="ids")

    def __init__(
        self,
        *,
        judge: Any,
        kind: str = "genre",
        labels: Sequence[str] | None = None,
        n_options: int = 4,
        question: str | None = None,
        hint: str | None = None,
        seed: int = 0,
        **kwargs: Any,
    ) -> None:
        own: dict[str, Any] = {"kind": kind, "labels": labels, "n_options": n_options, "question": question}
        super().__init__(judge=judge, **own, hint=hint, seed=seed, **kwargs)

    def _stats(
        self,
        preds: Any,
        target: Sequence[str],
        options: Sequence[Sequence[str]] | None = None,
        item_ids: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """``preds``: system posters; ``target``: the correct answers; ``options``: choices per item."""
        return quiz_hit_rate_stats(preds, target, options=options, item_ids=item_ids, quiz=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return quiz_hit_rate_from_stats(stats, self.options)
