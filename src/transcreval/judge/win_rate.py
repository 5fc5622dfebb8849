"""WinRate and MarketPreferenceRate: pairwise judge preferences (MPTc-Bench §5.2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import torch

from transcreval.common import check_bool
from transcreval.engines.judge.catalog import MPTC_MARKET, MPTC_PAIRWISE
from transcreval.engines.judge.roles import Texts
from transcreval.errors import InputError
from transcreval.functional.judge.win_rate import (
    PAIRWISE_FIELDS,
    market_preference_rate_stats,
    pairwise_from_stats,
    win_rate_stats,
)
from transcreval.judge.judge_metric import JudgeMetric
from transcreval.result import MetricResult
from transcreval.states import Sum


class WinRate(JudgeMetric):
    """Rate (%) at which the judge prefers the system poster (``preds``) to the human
    target-market poster (``target``), ties counting half.

    ``update(preds, target, target_market=..., source_market=..., genre=..., item_ids=None)``.
    The A/B order of each item is drawn from SHA-256(``seed``, item id); ``both_orders=True``
    asks in both orders and scores disagreement as a tie. ``extras``: ``wins``, ``losses``,
    ``ties``, ``first_position_rate`` (share of answers picking poster A), ``n_valid``,
    ``n_failed``, ``failures``. Value in [0, 100], higher is better.
    """

    default_template = MPTC_PAIRWISE
    input_roles: ClassVar[Mapping[str, str]] = {
        "preds": "image",
        "target": "image",
        **dict.fromkeys(PAIRWISE_FIELDS, "text"),
        "item_ids": "ids",
    }
    template_fields = PAIRWISE_FIELDS

    def __init__(self, *, judge: Any, seed: int = 0, both_orders: bool = False, **kwargs: Any) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise InputError(f"seed must be an integer, got {seed!r}")
        check_bool("both_orders", both_orders)
        super().__init__(judge=judge, **kwargs)
        self.seed, self.both_orders = seed, both_orders
        for name in ("wins", "ties", "first_picks", "judgments"):
            self.add_state(name, Sum(torch.int64))

    def _pairwise(self, preds: Any, target: Any, **fields: Any) -> dict[str, Any]:
        return win_rate_stats(preds, target, **fields)

    def _stats(
        self,
        preds: Any,
        target: Any,
        target_market: Texts = None,
        source_market: Texts = None,
        genre: Texts = None,
        item_ids: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """``preds``: system posters (MTc); ``target``: human target-market posters (GT)."""
        fields: dict[str, Any] = {"target_market": target_market, "source_market": source_market, "genre": genre}
        order = {"item_ids": item_ids, "seed": self.seed, "both_orders": self.both_orders}
        return self._pairwise(preds, target, **fields, **order, **self._engine())

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return pairwise_from_stats(stats, self.signature)

    def _metric_options(self) -> dict[str, Any]:
        return {"seed": self.seed, "both": self.both_orders}


class MarketPreferenceRate(WinRate):
    """Judge validation (MPTc-Bench §5.2, Fig. 4): rate (%) at which the judge, role-playing a
    viewer in ``target_market``, prefers the poster made for that market (``preds``) to a poster
    of the same film made for another market (``target``); order seeded per item, markets
    not named. Same options and extras as :class:`WinRate`."""

    default_template = MPTC_MARKET

    def _pairwise(self, preds: Any, target: Any, **fields: Any) -> dict[str, Any]:
        return market_preference_rate_stats(preds, target, **fields)
