"""Pairwise judge preferences: WinRate and MarketPreferenceRate (MPTc-Bench §5.2, App. A.2).

**WinRate.** The judge, role-playing a cinema-goer of the target market, sees the system's
poster (MTc, ``preds``) and the human target-market poster (GT, ``target``) as "Poster A" and
"Poster B" and says which it prefers (JSON ``{"preferred": "A" | "B"}``). Which poster is A
is drawn per item from SHA-256(seed, item id), the same in every run and process; the item id
is ``item_ids[i]`` or, by default, a hash of the two images. The value is the rate (in %) at
which MTc is preferred, over items with a valid answer.

``both_orders=True`` asks twice, once in each order (FastChat's MT-bench control for position
bias); when the two answers disagree the item is a tie and counts 0.5. Either way
``extras["first_position_rate"]`` is the share of valid answers that chose poster A (0.5 for
a judge without position bias), and ``wins`` / ``losses`` / ``ties`` count the items.

**MarketPreferenceRate** (judge validation). The same machinery with another prompt: the judge
role-plays a viewer in ``target_market`` and compares the poster made for that market
(``preds``) with a poster of the same film made for another market (``target``); markets are
not named, the order is seeded. The value is the rate (in %) of choosing ``preds`` (MPTc-Bench
reports 96.8% over 1,178 pairs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from transcreval.core.common import check_bool
from transcreval.core.options import option
from transcreval.core.result import MetricResult
from transcreval.engines.judge.catalog import MPTC_MARKET, MPTC_PAIRWISE
from transcreval.engines.judge.items import content_id, item_id_list, item_rng, render_each
from transcreval.engines.judge.parse import read_choice
from transcreval.engines.judge.pipeline import JudgeOptions, JudgeSpec, check_seed, field_rows, read_pairs
from transcreval.engines.judge.tally import check_valid_count, judge_mean
from transcreval.engines.judge.types import Judge
from transcreval.engines.judge.verdicts import ask, json_reader

#: the text fields the pairwise metrics fill
PAIRWISE_FIELDS = ("target_market", "source_market", "genre")
_SIDE = {"wins": 0, "ties": 0, "first_picks": 0, "judgments": 0}
#: what each pairwise metric asks
SPECS = {
    name: JudgeSpec(name, t, PAIRWISE_FIELDS, mismatch="{name}: {n} posters in preds but {m} in target", side=_SIDE)
    for name, t in (("WinRate", MPTC_PAIRWISE), ("MarketPreferenceRate", MPTC_MARKET))
}

__all__ = [
    "PAIRWISE_FIELDS",
    "SPECS",
    "MarketPreferenceRateOptions",
    "WinRateOptions",
    "market_preference_rate",
    "market_preference_rate_stats",
    "pairwise_from_stats",
    "pairwise_orders",
    "pairwise_stats",
    "read_preference",
    "win_rate",
    "win_rate_stats",
]


@dataclass(frozen=True, kw_only=True)
class WinRateOptions(JudgeOptions):
    """WinRate's options: the judge's (:class:`JudgeOptions`), the ``seed`` of the per-item A/B
    order and ``both_orders`` (ask in both orders; disagreement is a tie)."""

    default_spec: ClassVar[JudgeSpec | None] = SPECS["WinRate"]
    seed: int = 0
    both_orders: bool = option(False, signature="both")

    def check_own(self) -> None:
        check_seed(self.seed)
        check_bool("both_orders", self.both_orders)


@dataclass(frozen=True, kw_only=True)
class MarketPreferenceRateOptions(WinRateOptions):
    """MarketPreferenceRate's options: as :class:`WinRateOptions`, with the market prompt."""

    default_spec: ClassVar[JudgeSpec | None] = SPECS["MarketPreferenceRate"]


read_preference = json_reader(lambda obj: read_choice(obj, ("preferred", "preference", "winner", "answer"), "AB"))


def pairwise_orders(n: int, ids: Sequence[str], seed: int, both_orders: bool) -> list[list[bool]]:
    """Per item, the orders asked: True = ``preds`` shown as A. Seeded per item id."""
    out = []
    for i in range(n):
        first = item_rng(seed, ids[i], "pairwise").random() < 0.5
        out.append([first, not first] if both_orders else [first])
    return out


def _item_value(asked: list[tuple[bool, str]]) -> tuple[float, dict[str, int]]:
    """One item's value from its (``preds`` shown first, letter chosen) answers: 1, 0 or 0.5 (a tie)."""
    picks = [pred_first == (letter == "A") for pred_first, letter in asked]
    value = 1.0 if all(picks) else 0.0 if not any(picks) else 0.5
    side = {"wins": int(value == 1.0), "ties": int(value == 0.5)}
    return value, {**side, "first_picks": sum(letter == "A" for _, letter in asked), "judgments": len(asked)}


def pairwise_stats(
    preds: Any,
    target: Any,
    *,
    target_market: str | Sequence[str] | None = None,
    source_market: str | Sequence[str] | None = None,
    genre: str | Sequence[str] | None = None,
    item_ids: Sequence[str] | None = None,
    options: WinRateOptions,
) -> dict[str, Any]:
    """One batch of pairwise judgments; item value 1 (``preds`` preferred), 0, or 0.5 (a tie).
    ``options``: a :class:`WinRateOptions` or :class:`MarketPreferenceRateOptions` (the prompt)."""
    spec, judge, what = options.spec(), options.judge, options.metric
    assert spec is not None
    tpl = options.prompt()
    a_parts, b_parts = read_pairs(spec, preds, target, options.input_range)
    n = len(a_parts)
    ids = item_id_list(item_ids, n) or [content_id(p, t) for p, t in zip(a_parts, b_parts)]
    fields = field_rows(spec, {"target_market": target_market, "source_market": source_market, "genre": genre}, n)
    orders = pairwise_orders(n, ids, options.seed, options.both_orders)
    rows, owner = [], []
    for i in range(n):
        for pred_first in orders[i]:
            a, b = (a_parts[i], b_parts[i]) if pred_first else (b_parts[i], a_parts[i])
            rows.append(({"a": a, "b": b}, fields[i]))
            owner.append((i, pred_first))
    verdicts = ask(judge, render_each(tpl, rows, {k: k for k in PAIRWISE_FIELDS}, what), read_preference)
    per_item: list[list[tuple[bool, str]]] = [[] for _ in range(n)]
    failed: dict[int, Any] = {}
    for (i, pred_first), v in zip(owner, verdicts):
        if v.ok:
            per_item[i].append((pred_first, v.value))
        else:
            failed.setdefault(i, v)
    tally = spec.tally()
    for i in range(n):
        if i in failed:
            tally.fail(failed[i].status, failed[i].detail)
        else:
            value, side = _item_value(per_item[i])
            tally.add(value, **side)
    return tally.finish(what, options.on_failure)


def pairwise_from_stats(stats: dict[str, Any], options: WinRateOptions) -> MetricResult:
    """The preference rate in % (ties count half) with wins/losses/ties and the first-position rate."""
    signature = options.result_signature()
    n = check_valid_count(stats, signature.name)
    wins, ties, judgments = int(stats["wins"]), int(stats["ties"]), int(stats["judgments"])
    return judge_mean(
        stats,
        signature,
        100.0,
        wins=wins,
        losses=n - wins - ties,
        ties=ties,
        first_position_rate=int(stats["first_picks"]) / judgments,
    )


def win_rate_stats(preds: Any, target: Any, *, options: WinRateOptions | None = None, **kwargs: Any) -> dict[str, Any]:
    """WinRate statistics of one batch: ``preds`` the system posters (MTc), ``target`` the human
    target-market posters (GT). Inputs ``target_market``, ``source_market``, ``genre``,
    ``item_ids``; options as :class:`WinRateOptions` (``options=`` or one by one)."""
    inputs = {k: kwargs.pop(k) for k in (*PAIRWISE_FIELDS, "item_ids") if k in kwargs}
    return pairwise_stats(preds, target, **inputs, options=WinRateOptions.of(options, kwargs, "win_rate_stats"))


def win_rate(preds: Any, target: Any, *, judge: Judge, **options: Any) -> MetricResult:
    """Rate (%, higher is better) at which the judge prefers ``preds`` (MTc) over ``target``
    (GT); returns what ``WinRate.compute()`` returns. Inputs and options as :func:`win_rate_stats`."""
    inputs = {k: options.pop(k) for k in (*PAIRWISE_FIELDS, "item_ids") if k in options}
    opts = WinRateOptions.take({"judge": judge, **options}, "win_rate")
    return pairwise_from_stats(pairwise_stats(preds, target, **inputs, options=opts), opts)


def market_preference_rate_stats(
    preds: Any, target: Any, *, options: MarketPreferenceRateOptions | None = None, **kwargs: Any
) -> dict[str, Any]:
    """MarketPreferenceRate statistics: ``preds`` the posters made for ``target_market``,
    ``target`` posters of the same films made for other markets."""
    inputs = {k: kwargs.pop(k) for k in (*PAIRWISE_FIELDS, "item_ids") if k in kwargs}
    opts = MarketPreferenceRateOptions.of(options, kwargs, "market_preference_rate_stats")
    return pairwise_stats(preds, target, **inputs, options=opts)


def market_preference_rate(preds: Any, target: Any, *, judge: Judge, **options: Any) -> MetricResult:
    """Rate (%) at which the judge, as a viewer in ``target_market``, prefers that market's
    poster; returns what ``MarketPreferenceRate.compute()`` returns."""
    inputs = {k: options.pop(k) for k in (*PAIRWISE_FIELDS, "item_ids") if k in options}
    opts = MarketPreferenceRateOptions.take({"judge": judge, **options}, "market_preference_rate")
    return pairwise_from_stats(pairwise_stats(preds, target, **inputs, options=opts), opts)
