"""MPTc-Bench's market-preference judgments (§5.2, Fig. 4), one record per pair.

Every pair is asked through :class:`~transcreval.MarketPreferenceRate`'s own statistics
(:func:`~transcreval.functional.judge.win_rate.market_preference_rate_stats`): its prompt
(``mptc.market``, 512 tokens as the paper's Table 6 sets the validation calls), its A/B order
drawn from SHA-256(seed, pair id), its answer reader. So the judge cache is shared with
``MarketPreferenceRate(judge=..., seed=...)`` updated with ``preds`` = the target-market
posters, ``target`` = the distractors and ``item_ids`` = the pair ids, and the records equal
its ``per_item`` values.

A record's value is 1 when the judge chose the target market's poster, 0 when it chose the
distractor, 0.5 when the two orders of ``both_orders=True`` disagree; a failed answer is a NaN
record whose status says why (``unparsable``, ``refused``, ``api_error``, ...), never a score.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.mptc.market_pairs import MarketPair
from transcreval.protocols.records import ItemRecord

__all__ = ["MARKET_METRIC", "SIDE_TOTALS", "SYSTEM", "check_distinct_posters", "market_options", "market_records"]

#: the records' metric name (what :func:`~transcreval.protocols.mptc.fig4_market_preference` reads)
MARKET_METRIC = "market_preference"
#: the side totals MarketPreferenceRate keeps, summed over the batches
SIDE_TOTALS = ("wins", "ties", "first_picks", "judgments")
#: the records' system: the judged posters are the human ones (the paper's GT)
SYSTEM = "GT"


def market_options(*, judge: Any, seed: int = 0, both_orders: bool = False, template: Any = None) -> Any:
    """The checked :class:`~transcreval.functional.judge.win_rate.MarketPreferenceRateOptions`
    the validation runs with (failures are skipped and counted, never raised)."""
    from transcreval.functional.judge.win_rate import MarketPreferenceRateOptions

    given = {"judge": judge, "seed": seed, "both_orders": both_orders, "template": template, "on_failure": "skip"}
    return MarketPreferenceRateOptions.take(given, "market_validation")


def _parts(pair: MarketPair, input_range: Any) -> tuple[Any, Any]:
    """The pair's two posters as judge image parts; an InputError naming the row when one does
    not decode or both hold the same pixels."""
    from transcreval.engines.judge.images import to_image_part

    got = []
    for key in ("gt_target", "gt_other"):
        try:
            got.append(to_image_part(getattr(pair, key), input_range=input_range, what=key))
        except InputError as e:
            raise InputError(f"{pair.where}: {e}") from None
    a, b = got
    if a.sha256 == b.sha256:
        raise InputError(
            f"{pair.where}: 'gt_target' and 'gt_other' are the same poster (identical pixels); "
            "the distractor must be another market's poster"
        )
    return a, b


def check_distinct_posters(pairs: Sequence[MarketPair], input_range: Any = None) -> None:
    """Decode every pair's posters once and refuse, naming the row, one that does not decode or a
    pair whose two posters are the same image: before any judge call, so no answer is wasted."""
    for p in pairs:
        _parts(p, input_range)


def market_records(
    pairs: Sequence[MarketPair], *, options: Any, batch_size: int = 32
) -> tuple[list[ItemRecord], dict[str, int]]:
    """One :data:`MARKET_METRIC` record per pair (see the module docstring) and the side totals
    of :data:`SIDE_TOTALS` over the valid pairs. ``options``: :func:`market_options`.

    Posters are decoded ``batch_size`` pairs at a time (call :func:`check_distinct_posters`
    first to refuse a bad row before the judge is asked). Record meta: ``target_market``,
    ``other_market``, ``shown_first`` (``"target"`` or ``"other"``: which poster was Poster A;
    ``"both"`` with ``both_orders``), ``movie`` where given, and the pair's ``meta``."""
    from transcreval.engines.judge.tally import item_statuses
    from transcreval.functional.judge.win_rate import market_preference_rate_stats, pairwise_orders

    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
    ids = [p.pair_id for p in pairs]
    orders = pairwise_orders(len(pairs), ids, options.seed, options.both_orders)
    records: list[ItemRecord] = []
    totals = dict.fromkeys(SIDE_TOTALS, 0)
    for start in range(0, len(pairs), batch_size):
        batch = pairs[start : start + batch_size]
        parts = [_parts(p, options.input_range) for p in batch]
        stats = market_preference_rate_stats(
            [a for a, _ in parts],
            [b for _, b in parts],
            target_market=[p.target_market for p in batch],
            item_ids=[p.pair_id for p in batch],
            options=options,
        )
        for name in SIDE_TOTALS:
            totals[name] += int(stats[name])
        values = [float(v) for v in stats["values"].tolist()]
        for k, (p, value, status) in enumerate(zip(batch, values, item_statuses(stats["item_status"]))):
            order = orders[start + k]
            shown = "both" if len(order) > 1 else "target" if order[0] else "other"
            meta = {
                **dict(p.meta),
                "target_market": p.target_market,
                "other_market": p.other_market,
                "shown_first": shown,
                **({"movie": p.movie} if p.movie is not None else {}),
            }
            v = value if status == "ok" else math.nan
            records.append(ItemRecord(p.pair_id, SYSTEM, MARKET_METRIC, v, status, p.movie or p.pair_id, meta))
    return records, totals
