"""The base of every metric whose value is a mean of per-item values.

:class:`MeanMetric` declares the states of :class:`~transcreval.core.common.MeanStats` statistics
(``total``, ``count``, ``values``, and where the class asks for them per-item ``status`` codes
and named side counters) and turns them into a result with
:func:`~transcreval.core.common.mean_result`. :class:`AggregateMetric` is the variant with item
statuses and an ``unparsable`` count (the PosterIQ family and the OCR/layout means).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import torch

from transcreval.core.common import mean_result
from transcreval.core.metric import Metric
from transcreval.core.result import MetricResult
from transcreval.core.states import Cat, Sum

__all__ = ["AggregateMetric", "MeanMetric", "mean_result"]


class MeanMetric(Metric):
    """Mean of per-item values; ``per_item`` lines up with the inputs.

    States: ``total`` (float64 sum of the values that count), ``count`` (items that count),
    one int64 counter per name in ``side_counters`` (e.g. ``("unparsable",)``, reported as
    ``extras["n_unparsable"]``), one float64 sum per name in ``side_totals``, one int64 vector
    per entry of ``side_vectors``, ``values``
    (one float64 per item, NaN where it adds nothing) and, with ``per_item_status``, the
    ``status_state`` (int64 codes of :data:`~transcreval.core.common.ITEM_STATUSES`, reported as
    ``extras["item_status"]``; the judge metrics name it ``item_status`` and use their own table).

    Subclasses implement ``_stats(preds, target, ...)`` by returning the functional twin's
    statistics (:meth:`~transcreval.core.common.MeanStats.as_stats` or
    :meth:`~transcreval.core.common.MeanStats.of_values`), and add their own extras with
    :meth:`_extras`.
    """

    side_counters: ClassVar[tuple[str, ...]] = ()
    #: side totals that are float64 sums (a covered fraction beside the mean's own total)
    side_totals: ClassVar[tuple[str, ...]] = ()
    #: side counters that are int64 vectors, by name and length (a judge metric's failures per status)
    side_vectors: ClassVar[Mapping[str, int]] = {}
    per_item_status: ClassVar[bool] = False
    #: the name of the per-item status state ("item_status" in the judge metrics)
    status_state: ClassVar[str] = "status"
    #: what the error of a mean over no item suggests
    empty_hint: ClassVar[str] = "call update(...) with at least one item first"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_state("total", Sum(torch.float64))
        self.add_state("count", Sum(torch.int64))
        for name in self.side_counters:
            self.add_state(name, Sum(torch.int64))
        for name in self.side_totals:
            self.add_state(name, Sum(torch.float64))
        for name, length in self.side_vectors.items():
            self.add_state(name, Sum(torch.int64, (length,)))
        self.add_state("values", Cat(torch.float64))
        if self.per_item_status:
            self.add_state(self.status_state, Cat(torch.int64))

    def _extras(self, stats: dict[str, Any]) -> dict[str, Any]:
        """The metric's own ``extras`` (none by default)."""
        return {}

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return mean_result(stats, self.signature, self.name, self._extras(stats), self.empty_hint)


class AggregateMetric(MeanMetric):
    """Mean of per-item values; ``extras["n_unparsable"]`` counts the unreadable items and
    ``extras["item_status"]`` lines up with ``per_item`` (one entry per input item).

    Subclasses implement ``_stats(preds, target, ...)`` by returning the functional twin's
    ``..._stats(...)`` dict (a :meth:`~transcreval.core.common.MeanStats.as_stats`).
    """

    higher_is_better: bool | None = True
    value_range: ClassVar[tuple[float, float] | None] = (0.0, 1.0)
    side_counters: ClassVar[tuple[str, ...]] = ("unparsable",)
    per_item_status: ClassVar[bool] = True
    empty_hint: ClassVar[str] = "pass items with readable answers"
