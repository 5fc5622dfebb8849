"""QuizHitRate: genre and release-decade quizzes on the system's posters (MPTc-Bench §5.1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import torch

from transcreval.engines.judge.catalog import MPTC_QUIZ, QUIZ_QUESTIONS
from transcreval.errors import InputError
from transcreval.functional.judge.quiz_hit_rate import quiz_hit_rate_from_stats, quiz_hit_rate_stats
from transcreval.judge.judge_metric import JudgeMetric
from transcreval.result import MetricResult
from transcreval.state_checks import list_digest
from transcreval.states import Sum


class QuizHitRate(JudgeMetric):
    """Hit rate (%) of a judge answering a multiple-choice quiz about each system poster.

    ``update(preds, target, options=None, item_ids=None)``: ``preds`` the system posters,
    ``target`` the correct answers; ``options[i]`` the choices of item ``i`` (containing the
    answer), or ``labels=`` at construction to draw ``n_options - 1`` distractors per item.
    Choices are shuffled per item from SHA-256(``seed``, item id) and the judge's letter is
    mapped back. ``kind``: "genre" or "decade" (or ``question=`` and ``hint=``).
    Value in [0, 100], higher is better; ``extras["chance"]`` the rate of random guessing.
    """

    default_template = MPTC_QUIZ
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
        if kind not in QUIZ_QUESTIONS and question is None:
            raise InputError(f"kind must be one of {sorted(QUIZ_QUESTIONS)}, or pass question= and hint=")
        if not isinstance(n_options, int) or isinstance(n_options, bool) or not 2 <= n_options <= 26:
            raise InputError(f"n_options must be an integer from 2 to 26, got {n_options!r}")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise InputError(f"seed must be an integer, got {seed!r}")
        super().__init__(judge=judge, **kwargs)
        self.kind, self.question, self.hint = kind, question, hint
        self.labels = list(labels) if labels is not None else None
        self.n_options, self.seed = n_options, seed
        self.add_state("chance", Sum(torch.float64))

    def _stats(
        self,
        preds: Any,
        target: Sequence[str],
        options: Sequence[Sequence[str]] | None = None,
        item_ids: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """``preds``: system posters; ``target``: the correct answers; ``options``: choices per item."""
        return quiz_hit_rate_stats(
            preds,
            target,
            kind=self.kind,
            options=options,
            labels=self.labels,
            n_options=self.n_options,
            question=self.question,
            hint=self.hint,
            item_ids=item_ids,
            seed=self.seed,
            **self._engine(),
        )

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return quiz_hit_rate_from_stats(stats, self.signature)

    def _metric_options(self) -> dict[str, Any]:
        opts: dict[str, Any] = {"kind": self.kind, "k": self.n_options, "seed": self.seed}
        if self.labels is not None:  # the pool the distractors are drawn from
            opts["labels"] = list_digest(sorted({str(x) for x in self.labels}))
        if self.question is not None or self.hint is not None:  # a wording of our own
            opts["q"] = list_digest([self.question or "", self.hint or ""])
        return opts
