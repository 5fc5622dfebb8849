"""PointScore (PosterIQ Eq. 10)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import torch

from transcreval.common import Mode
from transcreval.functional.choice.point_score import (
    CodeYes,
    check_point_options,
    point_score_from_stats,
    point_score_stats,
)
from transcreval.metric import Metric
from transcreval.result import MetricResult
from transcreval.states import Sum


class PointScore(Metric):
    """Fraction of posters whose every key point the judge found covered (PosterIQ Eq. 10), in
    [0, 1], higher is better.

    ``extras["per_point"]`` is the mean covered fraction (what ``mode="posteriq-code"``
    reports as the value); ``extras["n_unparsable"]`` counts posters with an unreadable verdict.
    """

    higher_is_better: ClassVar[bool] = True
    value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)

    def __init__(self, *, mode: Mode = "paper", code_yes: CodeYes = "substring", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        check_point_options(mode, code_yes)
        self.mode, self.code_yes = mode, code_yes
        self.add_state("all_covered", Sum(torch.float64))
        self.add_state("covered_fraction", Sum(torch.float64))
        self.add_state("count", Sum(torch.int64))
        self.add_state("unparsable", Sum(torch.int64))

    def _stats(self, preds: Sequence[Sequence[Any]]) -> dict[str, Any]:
        """``preds[i]``: the verdicts (bools or yes/no answers) on poster ``i``'s key points."""
        return point_score_stats(preds, mode=self.mode, code_yes=self.code_yes)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return point_score_from_stats(stats, self.signature, self.mode)

    def _signature_options(self) -> dict[str, Any]:
        return {"mode": self.mode} if self.mode == "paper" else {"mode": self.mode, "yes": self.code_yes}
