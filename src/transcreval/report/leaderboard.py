"""The report's first table: every system x the protocol's headline metrics.

Each cell is the system's value with the half-width of its 95% bootstrap interval (the exact
interval, the delta against the baseline with its interval, the p-value and the counts in the
cell's tooltip) and, against a baseline, the significance mark of the summary: ``↑`` / ``↓``
significantly higher / lower, ``·`` not significant (also on too few source items). The
baseline's row is labelled ``(baseline)``; a metric's direction colours its marks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from transcreval.protocols.records import ProtocolResult
from transcreval.report.blocks import TableBlock, TextCell
from transcreval.report.document import arrow, fmt, fmt_ci, fmt_p
from transcreval.significance.compare import CellSummary, Comparisons

__all__ = ["MAX_HEADLINE", "headline_metrics", "leaderboard"]

#: metrics in the leaderboard when the protocol names none (the first ones, in record order)
MAX_HEADLINE = 8


def headline_metrics(result: ProtocolResult, headline: Sequence[str] | None) -> list[str]:
    """The protocol's headline metrics that have records (default: the first :data:`MAX_HEADLINE`)."""
    metrics = list(dict.fromkeys(r.metric for r in result.records))
    if headline is None:
        return metrics[:MAX_HEADLINE]
    return [m for m in headline if m in metrics]


def _cell(
    c: CellSummary | None, comp: Comparisons | None, higher: bool | None, decimals: int, is_baseline: bool
) -> TextCell:
    if c is None:
        return TextCell("-")
    text = fmt_ci(c.value, c.ci, decimals)
    tip = [f"n={c.n}, {c.n_missing} missing"]
    if c.ci is not None:
        tip.insert(0, f"interval [{fmt(c.ci[0], decimals)}, {fmt(c.ci[1], decimals)}]")
    if comp is None or is_baseline:
        return TextCell(text, "", "; ".join(tip))
    try:
        r = comp.get(c.system, c.metric)
    except KeyError:
        return TextCell(text, "", "; ".join(tip))
    if not math.isfinite(r.delta):
        return TextCell(text, "", "; ".join([*tip, r.note]))
    mark, tone = arrow(r.delta, r.significant, higher)
    ci = "" if r.ci is None else f" [{fmt(r.ci[0], decimals)}, {fmt(r.ci[1], decimals)}]"
    tip.append(f"delta {r.delta:+.{decimals}f}{ci} vs {comp.baseline}, p {fmt_p(r.p_value)}")
    if r.too_few_clusters:
        tip.append(r.note)
    return TextCell(f"{text} {mark}", tone, "; ".join(tip))


def leaderboard(
    result: ProtocolResult,
    cells: Sequence[CellSummary],
    comp: Comparisons | None,
    metrics: Sequence[str],
    higher: Mapping[str, bool],
    decimals: int,
) -> TableBlock:
    """Systems x ``metrics`` (see the module docstring)."""
    by = {(c.system, c.metric): c for c in cells if c.group is None}
    systems = list(dict.fromkeys(r.system for r in result.records))
    if comp is not None and comp.baseline in systems:  # the baseline first, the others in record order
        systems.remove(comp.baseline)
        systems.insert(0, comp.baseline)
    rows = []
    for s in systems:
        base = comp is not None and s == comp.baseline
        label = TextCell(f"{s} (baseline)" if base else s)
        rows.append((label, *(_cell(by.get((s, m)), comp, higher.get(m), decimals, base) for m in metrics)))
    caption = f"Leaderboard: {result.protocol} (value ± 95% CI half-width"
    if comp is not None:
        caption += f"; ↑ / ↓ significantly above / below {comp.baseline} (p < {comp.alpha:g}), · not"
    return TableBlock(caption + ")", ("system", *metrics), tuple(rows))
