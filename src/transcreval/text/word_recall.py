"""WordRecall (PosterIQ Eq. 2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transcreval.aggregate_metric import AggregateMetric
from transcreval.functional.posteriq import Aggregate, Mode, _check_mode, _word_recall_agg


class WordRecall(AggregateMetric):
    """Word-level OCR recall over ``unit``-character units, mean over items, in [0, 1].

    ``update(gt, pred)``: ground-truth texts and model outputs (None = no answer, counted in
    ``n_unparsable``). See :func:`transcreval.functional.word_recall` for both modes.
    """

    def __init__(self, *, unit: int = 5, mode: Mode = "paper", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_mode(mode)
        self.unit, self.mode = unit, mode

    def _aggregate(self, gt: Sequence[str], pred: Sequence[str | None]) -> Aggregate:
        return _word_recall_agg(gt, pred, self.unit, self.mode)

    def _signature_options(self) -> dict[str, Any]:
        return {"unit": self.unit, "mode": self.mode}
