"""WinRate and MarketPreferenceRate: pairwise judge preferences (MPTc-Bench §5.2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from transcreval.core.result import MetricResult
from transcreval.engines.judge.roles import Texts
from transcreval.functional.judge.win_rate import (
    PAIRWISE_FIELDS,
    MarketPreferenceRateOptions,
    WinRateOptions,
    pairwise_from_stats,
    pairwise_stats,
)
from transcreval.judge.judge_metric import JudgeMetric


class WinRate(JudgeMetric):
    """Rate (%) at which the judge prefers the system poster (``preds``) to the human
    target-market poster (``target``), ties counting half.

    ``update(preds, target, target_market=..., source_market=..., genre=..., item_ids=None)``.
    The A/B order of each item is drawn from SHA-256(``seed``, item id); ``both_orders=True``
    asks in both orders and scores disagreement as a tie. ``extras``: ``wins``, ``losses``,
    ``ties``, ``first_position_rate`` (share of answers picking poster A), ``n_valid``,
    ``n_failed``, ``failures``. Value in [0, 100], higher is better.
    """

    options_class: ClassVar[type[WinRateOptions]] = WinRateOptions
    options: WinRateOptions
    side_counters = ("wins", "ties", "first_picks", "judgments")
    input_roles: ClassVar[Mapping[str, str]] = {
        "preds": "image",
        "target": "image",
        **dict.fromkeys(PAIRWISE_FIELDS, "text"),
        "item_ids": "ids",
    }

    def __init__(self, *, judge: Any, seed: int = 0, both_orders: bool = False, **kwargs: Any) -> None:
        super().__init__(judge=judge, seed=seed, both_orders=both_orders, **kwargs)

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
        return pairwise_stats(preds, target, **fields, item_ids=item_ids, options=self.options)

    def _from_stats(self, stats: dict[str, Any]) -> MetricResult:
        return pairwise_from_stats(stats, self.options)


class MarketPreferenceRate(WinRate):
    """Judge validation (MPTc-Bench §5.2, Fig. 4): rate (%) at which the judge, role-playing a
    viewer in ``target_market``, prefers the poster made for that market (``preds``) to a poster
    of the same film made for another market (``target``); order seeded per item, markets
    not named. Same options and extras as :class:`WinRate` (:class:`MarketPreferenceRateOptions`)."""

    options_class = MarketPreferenceRateOptions
