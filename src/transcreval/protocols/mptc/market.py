"""MPTc-Bench's judge validation (§5.2, Fig. 4): :func:`market_validation` from a pairs file.

The judge role-plays a viewer in the target market and chooses between two human posters of
the same film, the one made for that market (GT_tgt) and one made for another market
(GT_other); markets are not named and the A/B order is drawn per pair. The paper reports the
target-market preference rate per market (Fig. 4) and overall (96.8% of 1,178 pairs). The
pairs file is :mod:`~transcreval.protocols.mptc.market_pairs`; the judgments are
:mod:`~transcreval.protocols.mptc.scoring.market` (``MarketPreferenceRate``'s own prompt, order
and reader); the figure is :func:`~transcreval.protocols.mptc.figures.fig4_market_preference`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from transcreval.protocols.mptc.scoring.market import MARKET_METRIC
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table, cell_mean

__all__ = ["MARKET_COLUMNS", "market_table", "market_validation"]

#: the summary table's columns
MARKET_COLUMNS = ("Rate", "n", "Wins", "Losses", "Ties", "Failed", "Poster A")


def _count(k: int) -> Cell:
    return Cell(float(k), k)


def market_table(
    records: Sequence[ItemRecord], row: str = "judge", first_picks: tuple[int, int] | None = None
) -> Table:
    """One row (``row``, the judge) summarising the :data:`~transcreval.protocols.mptc.scoring.market.MARKET_METRIC`
    records: ``Rate`` (% choosing the target market's poster, ties half, over valid answers;
    failed ones in its ``n_missing``), ``n`` (valid answers), ``Wins`` / ``Losses`` / ``Ties``
    (pairs), ``Failed`` (pairs without a valid answer) and ``Poster A`` (% of valid answers that
    chose the poster shown first: 50 for a judge without position bias). ``first_picks`` =
    (answers choosing A, answers) where known (the side totals); by default it is read from
    single-order records (``meta["shown_first"]`` and the value)."""
    mine = [r for r in records if r.metric == MARKET_METRIC]
    ok = [r for r in mine if r.status == "ok"]
    failed = [r for r in mine if r.status != "ok"]
    rate = cell_mean([r.value for r in mine], 100.0)
    wins, ties = sum(r.value == 1.0 for r in ok), sum(r.value == 0.5 for r in ok)
    if first_picks is None:
        single = [r for r in ok if r.meta.get("shown_first") in ("target", "other")]
        picks = sum((r.value == 1.0) == (r.meta["shown_first"] == "target") for r in single)
        first_picks = (picks, len(single))
    a, asked = first_picks
    cells = {
        (row, "Rate"): rate,
        (row, "n"): Cell(float(rate.n), rate.n, rate.n_missing),
        (row, "Wins"): _count(wins),
        (row, "Losses"): _count(len(ok) - wins - ties),
        (row, "Ties"): _count(ties),
        (row, "Failed"): _count(len(failed)),
        (row, "Poster A"): Cell(100.0 * a / asked if asked else math.nan, asked),
    }
    notes = ["Rate: % of valid answers choosing the target market's poster (ties half); n: valid answers."]
    if failed:
        by: dict[str, int] = {}
        for r in failed:
            by[r.status] = by.get(r.status, 0) + 1
        detail = ", ".join(f"{s}: {k}" for s, k in sorted(by.items()))
        notes.append(f"{len(failed)} pair(s) without a valid answer ({detail}) are counted, never scored.")
    dec = {c: 1 if c in ("Rate", "Poster A") else 0 for c in MARKET_COLUMNS}
    return Table("MPTc-Bench §5.2 judge validation (market preference)", MARKET_COLUMNS, (row,), cells, dec, "%",
                 tuple(notes))  # fmt: skip


def _judge_row(judge: Any) -> str:
    """The table's row label for ``judge``: the model it names (``"gpt-4.1"``, a FunctionJudge's
    ``model=``), never the backend prefix of signatures (``"function:..."``)."""
    from transcreval.engines.judge.pipeline import judge_label

    model = dict(judge.describe()).get("model") if hasattr(judge, "describe") else None
    return str(model) if model else judge_label(judge)


def market_validation(
    pairs: Any,
    *,
    judge: Any,
    seed: int = 0,
    both_orders: bool = False,
    template: Any = None,
    batch_size: int = 32,
    root: Any = None,
) -> ProtocolResult:
    """MPTc-Bench's market-preference validation of a judge (§5.2): Fig. 4 and a summary table.

    Args:
        pairs: a ``.csv`` / ``.jsonl`` pairs file or a list of mappings (fields in
            :mod:`~transcreval.protocols.mptc.market_pairs`: ``pair_id``, ``gt_target``,
            ``gt_other``, ``target_market``, optional ``other_market``, ``source``, ``movie``).
        judge: the judge (``OpenAICompatibleJudge``, ``FunctionJudge``, ...); its decoding
            defaults apply except ``max_tokens``, which the ``mptc.market`` prompt sets to 512
            (the paper's Table 6 setting for validation calls).
        seed: the seed of the per-pair A/B order (SHA-256 of seed and pair id).
        both_orders: ask each pair in both orders; disagreement counts as a tie (0.5).
        template: another prompt for ``MarketPreferenceRate`` (a built-in id, a file, a template).
        batch_size: pairs decoded and sent to the judge at a time.
        root: the folder relative image paths are read from (default: the pairs file's).

    Returns:
        A :class:`ProtocolResult` whose records are the per-pair judgments (metric
        ``"market_preference"``, system ``"GT"``; value 1 / 0 / 0.5, NaN with the failure's
        status), with ``figures["fig4_market_preference"]`` (rate and n per target market and
        overall) and ``tables["market_validation"]`` (:func:`market_table`; its row is the
        judge's model as it names itself).

    Every pair's posters are decoded and checked (a missing or undecodable image, the same poster
    twice) before the judge is asked; an error names the row.
    """
    from transcreval.engines.judge.pipeline import judge_label
    from transcreval.protocols.mptc.figures import fig4_market_preference
    from transcreval.protocols.mptc.market_pairs import read_market_pairs
    from transcreval.protocols.mptc.scoring.market import check_distinct_posters, market_options, market_records

    options = market_options(judge=judge, seed=seed, both_orders=both_orders, template=template)
    rows = read_market_pairs(pairs, root=root)
    check_distinct_posters(rows, options.input_range)
    records, totals = market_records(rows, options=options, batch_size=batch_size)
    label = judge_label(judge)
    table = market_table(records, _judge_row(judge), (totals["first_picks"], totals["judgments"]))
    settings = {
        "judge": dict(judge.describe()) if hasattr(judge, "describe") else {"judge": label},
        "template": options.prompt().ref,
        "seed": seed,
        "both_orders": both_orders,
        "pairs": len(rows),
    }
    return ProtocolResult(
        "mptc",
        tuple(records),
        {"market_validation": table},
        {MARKET_METRIC: str(options.result_signature())},
        settings,
        figures={"fig4_market_preference": fig4_market_preference(records)},
    )
