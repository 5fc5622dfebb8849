"""A base for metrics that average per-item values and count unreadable answers."""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from transcreval.common import mean_from_stats, status_names
from transcreval.metric import Metric
from transcreval.result import MetricResult, Signature
from transcreval.states import Cat, Sum


def mean_result(stats: dict[str, Any], signature: Signature, what: str) -> MetricResult:
    """The mean of :meth:`~transcreval.common.Aggregate.as_stats` statistics as a result:
    ``per_item`` holds one value per input item (NaN where the item adds nothing to the mean),
    ``extras["item_status"]`` its status ("ok", "unparsable", ...) and ``extras["n_unparsable"]``
    the unreadable items (scored 0 or left out, as ``on_unreadable`` says)."""
    values = stats["values"]
    per_item = values if isinstance(values, torch.Tensor) else torch.as_tensor(values, dtype=torch.float64)
    return MetricResult(
        value=mean_from_stats(stats, what),
        n=int(stats["count"]),
        signature=signature,
        per_item=per_item,
        extras={"n_unparsable": int(stats["unparsable"]), "item_status": status_names(stats["status"])},
    )


class AggregateMetric(Metric):
    """Mean of per-item values; ``extras["n_unparsable"]`` counts the unreadable items and
    ``extras["item_status"]`` lines up with ``per_item`` (one entry per input item).

    Subclasses implement ``_stats(preds, target, ...)`` by returning the functional twin's
    ``..._stats(...)`` dict (an :meth:`~transcreval.common.Aggregate.as_stats`).
    """

    higher_is_better: bool | None = True
    value_range: ClassVar[tuple[float, float] | None] = (0.0, 1.0)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("total", Sum(torch.float64))
        self.add_state("count", Sum(torch.int64))
        self.add_state("unparsable", Sum(torch.int64))
        self.add_state("values", Cat(torch.float64))
        self.add_state("status", Cat(torch.int64))

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return mean_result(stats, self.signature, self.name)
