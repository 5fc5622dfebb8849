"""A base for metrics that average per-item values and count unreadable answers."""

from __future__ import annotations

from typing import Any, ClassVar

import torch

from transcreval.errors import EmptyInputError
from transcreval.functional.posteriq import Aggregate
from transcreval.metric import Metric
from transcreval.result import MetricResult
from transcreval.states import Cat, Sum


class AggregateMetric(Metric):
    """Mean of per-item values; ``extras["n_unparsable"]`` counts the items left out.

    Subclasses implement ``_aggregate(*batch) -> Aggregate`` with the functional twin's code.
    """

    higher_is_better: ClassVar[bool | None] = True
    value_range: ClassVar[tuple[float, float] | None] = (0.0, 1.0)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("total", Sum(torch.float64))
        self.add_state("count", Sum(torch.int64))
        self.add_state("unparsable", Sum(torch.int64))
        self.add_state("values", Cat(torch.float64))

    def _aggregate(self, *args: Any, **kwargs: Any) -> Aggregate:
        raise NotImplementedError

    def _stats(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        agg = self._aggregate(*args, **kwargs)
        return {
            "total": agg.total,
            "count": agg.count,
            "unparsable": agg.unparsable,
            "values": torch.tensor(agg.per_item, dtype=torch.float64),
        }

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        n, bad = int(stats["count"]), int(stats["unparsable"])
        if n == 0:
            raise EmptyInputError(
                f"{self.name}: no valid items ({bad} unparsable); call update() with readable answers"
            )
        return MetricResult(
            value=float(stats["total"]) / n,
            n=n,
            signature=self.signature,
            per_item=stats["values"],
            extras={"n_unparsable": bad},
        )
