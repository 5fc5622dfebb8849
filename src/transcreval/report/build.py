"""Build a report from protocol results and comparisons (the blocks both formats render)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.records import ProtocolResult, Table
from transcreval.report.document import (
    Block,
    FigureBlock,
    Heading,
    Paragraph,
    Report,
    TableBlock,
    TextCell,
    arrow,
    fmt,
    fmt_ci,
    fmt_p,
)
from transcreval.report.gallery import gallery_blocks, gallery_choice
from transcreval.report.leaderboard import headline_metrics, leaderboard
from transcreval.report.provenance import provenance_blocks, status_table
from transcreval.report.thumbs import ItemImages, figure_png
from transcreval.significance.compare import CellSummary, Comparisons, summarize
from transcreval.significance.paired import DEFAULT_SEED

__all__ = ["FOLD_ROWS", "build_report", "slug"]


def slug(text: str) -> str:
    """A file-name-safe key: lowercase letters, digits and dashes."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "figure"


def _as_list(results: ProtocolResult | Sequence[ProtocolResult]) -> list[ProtocolResult]:
    out = [results] if isinstance(results, ProtocolResult) else list(results)
    if not out or not all(isinstance(r, ProtocolResult) for r in out):
        raise InputError("a report needs one ProtocolResult or a list of them")
    return out


def _comparisons_for(comparisons: Any, protocol: str) -> Comparisons | None:
    if comparisons is None:
        return None
    items = [comparisons] if isinstance(comparisons, Comparisons) else list(comparisons)
    if not all(isinstance(c, Comparisons) for c in items):
        raise InputError("comparisons must be a Comparisons object (from compare_systems) or a list of them")
    found = [c for c in items if c.protocol == protocol]
    return found[0] if found else None


def _summary_table(
    result: ProtocolResult,
    cells: list[CellSummary],
    comp: Comparisons | None,
    higher: Mapping[str, bool],
    decimals: int,
) -> TableBlock:
    header = ("metric", "system", "value ± 95% CI", "delta vs baseline [CI]", "p", "n", "n_missing")
    rows = []
    for c in cells:
        delta, p, tone, tip = TextCell(""), TextCell(""), "", ""
        if comp is not None and c.system == comp.baseline:
            delta = TextCell("(baseline)")
        elif comp is not None:
            try:
                r = comp.get(c.system, c.metric)
            except KeyError:
                r = None
            if r is not None and math.isfinite(r.delta):
                mark, tone = arrow(r.delta, r.significant, higher.get(c.metric))
                ci = "" if r.ci is None else f" [{fmt(r.ci[0], decimals)}, {fmt(r.ci[1], decimals)}]"
                tip = f"paired over n={r.n} items ({r.n_missing} pairs missing), {r.n_groups} source items"
                delta = TextCell(f"{r.delta:+.{decimals}f}{ci} {mark}", tone, tip)
                p = TextCell(fmt_p(r.p_value))
                if r.too_few_clusters:  # never significant: say why beside the p-value
                    p = TextCell(f"{fmt_p(r.p_value)} (too few source items)", "missing", r.note)
            elif r is not None:
                delta = TextCell("-", "", r.note)
        exact = "" if c.ci is None else f"interval [{fmt(c.ci[0], decimals)}, {fmt(c.ci[1], decimals)}]"
        rows.append(
            (
                TextCell(c.metric),
                TextCell(c.system),
                TextCell(fmt_ci(c.value, c.ci, decimals), "", exact),
                delta,
                p,
                TextCell(str(c.n)),
                TextCell(str(c.n_missing), "missing" if c.n_missing else ""),
            )
        )
    return TableBlock(f"{result.protocol}: every system and metric", header, tuple(rows))


def _group_table(result: ProtocolResult, cells: list[CellSummary], by: str, decimals: int) -> TableBlock:
    header = ("metric", "system", by, "value ± 95% CI", "n", "n_missing")
    rows = tuple(
        (
            TextCell(c.metric),
            TextCell(c.system),
            TextCell(str(c.group)),
            TextCell(fmt_ci(c.value, c.ci, decimals)),
            TextCell(str(c.n)),
            TextCell(str(c.n_missing), "missing" if c.n_missing else ""),
        )
        for c in sorted(cells, key=lambda c: (c.metric, c.system, str(c.group)))
    )
    return TableBlock(f"{result.protocol}: per {by}", header, rows)


def _paper_table(table: Table) -> TableBlock:
    rows = []
    for r in table.rows:
        cells = [TextCell(" / ".join(map(str, r)) if isinstance(r, tuple) else str(r))]
        for c in table.columns:
            cell = table.cells.get((r, c))
            if cell is None:
                cells.append(TextCell("-"))
                continue
            d = table.decimals if isinstance(table.decimals, int) else table.decimals.get(c, 1)
            text = fmt_ci(cell.value, cell.ci, d) if cell.has_value else "-"
            count = f"n={cell.n}" + (f", {cell.n_missing} missing" if cell.n_missing else "")
            cells.append(TextCell(f"{text} ({count})", "missing" if cell.n_missing else ""))
        rows.append(tuple(cells))
    caption = table.name + (f" ({table.units})" if table.units else "")
    return TableBlock(caption, ("", *table.columns), tuple(rows), table.notes)


def _notes_table(result: ProtocolResult) -> TableBlock:
    """The result's own notes (ground-truth defects by item, items left unanswered), one per row."""
    rows = tuple((TextCell(str(i)), TextCell(note)) for i, note in enumerate(result.notes, 1))
    return TableBlock(f"{result.protocol}: notes", ("", "note"), rows)


#: tables longer than this many rows are folded (they open on a click)
FOLD_ROWS = 20


def _fold(table: TableBlock) -> TableBlock:
    return replace(table, folded=True) if len(table.rows) > FOLD_ROWS else table


def _auto_figures(result: ProtocolResult, comp: Comparisons | None, max_metrics: int) -> list[FigureBlock]:
    from transcreval.report.plots import new_figure, plot_distributions, plot_forest

    out = []
    metrics = list(dict.fromkeys(r.metric for r in result.records))[:max_metrics]
    if comp is not None:
        drawable = [m for m in metrics if any(r.metric == m and r.ci is not None for r in comp.rows)]
        if drawable:
            n_sys = max(1, len(comp.systems))
            fig = new_figure((6.5, (0.45 * n_sys + 1.1) * len(drawable)))
            for ax, m in zip(fig.subplots(len(drawable), 1, squeeze=False)[:, 0], drawable):
                plot_forest(comp, ax, metrics=[m])
            key = slug(f"{result.protocol}-forest")
            out.append(FigureBlock(key, f"{result.protocol}: deltas against {comp.baseline}", figure_png(fig)))
    for m in metrics:
        if any(r.metric == m and r.ok for r in result.records):
            fig, _ = plot_distributions(result, m)
            key = slug(f"{result.protocol}-dist-{m}")
            out.append(FigureBlock(key, f"{result.protocol}: distribution of {m}", figure_png(fig)))
    return out


def build_report(
    results: ProtocolResult | Sequence[ProtocolResult],
    comparisons: Comparisons | Sequence[Comparisons] | None = None,
    *,
    images: ItemImages | None = None,
    figures: Sequence[tuple[str, Any]] = (),
    by: str | None = None,
    higher_is_better: Mapping[str, bool] | None = None,
    gallery_metrics: Sequence[str] | None = None,
    gallery_k: int = 3,
    plots: bool = True,
    max_plot_metrics: int = 6,
    decimals: int = 2,
    n_resamples: int = 1000,
    seed: int = DEFAULT_SEED,
    title: str = "transcreval report",
    provenance: Mapping[str, Any] | None = None,
    headline: Sequence[str] | None = None,
) -> Report:
    """The report's blocks: the leaderboard, summaries with intervals and deltas, item statuses, the
    paper tables and the numbers behind the paper figures (long ones folded), the result's notes,
    figures, galleries, and how the numbers were made.

    Args:
        results: one protocol result or several.
        comparisons: from :func:`~transcreval.significance.compare_systems` (matched by protocol).
        images: item pictures for the galleries (text-only cards without).
        figures: extra ``(title, figure)`` pairs, a figure being a matplotlib Figure, a
            ``(fig, ax)`` from the ``plot_*`` helpers (the protocol-specific ones), or a callable
            drawing one: a callable that raises :class:`~transcreval.errors.InputError` (a figure
            with no value to draw) is left out and the report says why.
        by: a ``meta`` key to break every cell down by (``"split"``, ``"scenario"``, ...).
        higher_is_better: per metric, its direction (arrows are then marked better/worse).
        gallery_metrics: metrics with galleries (default: each result's most spread metric, the
            one with the most distinct values: a continuous one where there is one); ``[]``: none.
            A named metric that no result has is an error.
        plots: draw the forest and distribution figures (needs matplotlib, the ``report`` extra).
        decimals, n_resamples, seed: rounding, and the bootstrap behind every cell's interval.
        provenance: a run's provenance (results.json's ``provenance``, with its ``counts``): the
            report then says how the run was made (command, dates, digests, versions, judge).
        headline: the metrics of the leaderboard that opens the report (default: the first
            :data:`~transcreval.report.leaderboard.MAX_HEADLINE` metrics of each result).
    """
    higher = dict(higher_is_better or {})
    thumbs: dict[tuple[str, str], Any] = {}  # a picture shown in several galleries is shrunk once
    blocks: list[Block] = [Heading(title, 1)]
    plan = []
    for result in _as_list(results):
        comp = _comparisons_for(comparisons, result.protocol)
        order = {m: k for k, m in enumerate(dict.fromkeys(r.metric for r in result.records))}
        cells = sorted(summarize(result, n_resamples=n_resamples, seed=seed), key=lambda c: order[c.metric])
        plan.append((result, comp, cells))
    chosen = gallery_choice([p[0] for p in plan], gallery_metrics)
    blocks.append(Heading("Leaderboard", 2))
    for result, comp, cells in plan:
        blocks.append(leaderboard(result, cells, comp, headline_metrics(result, headline), higher, decimals))
    for (result, comp, cells), gallery_of in zip(plan, chosen):
        blocks.append(Heading(f"Protocol: {result.protocol}", 2))
        if comp is not None:
            blocks.append(
                Paragraph(
                    f"Baseline {comp.baseline}; paired {comp.test} test ({comp.n_resamples} resamples, seed "
                    f"{comp.seed}), {comp.confidence:.0%} intervals clustered by source item; ↑ / ↓: "
                    f"significantly higher / lower than the baseline (p < {comp.alpha}), · not significant."
                )
            )
        blocks.append(_summary_table(result, cells, comp, higher, decimals))
        blocks.append(_fold(status_table(result, provenance)))
        if by is not None:
            blocks.append(
                _fold(_group_table(result, summarize(result, by=by, n_resamples=n_resamples, seed=seed), by, decimals))
            )
        for table in result.tables.values():
            blocks.append(_fold(_paper_table(table)))
        for table in result.figures.values():  # the numbers behind each paper figure, drawn or not
            blocks.append(_fold(_paper_table(table)))
        if result.notes:
            blocks.append(_fold(_notes_table(result)))
        if plots:
            blocks.extend(_auto_figures(result, comp, max_plot_metrics))
        baseline = comp.baseline if comp is not None else None
        for m in gallery_of:
            for s in dict.fromkeys(r.system for r in result.records):
                if s != baseline:
                    blocks.extend(
                        gallery_blocks(
                            result,
                            m,
                            s,
                            baseline=baseline,
                            images=images,
                            k=gallery_k,
                            higher_is_better=higher.get(m, True),
                            decimals=decimals,
                            cache=thumbs,
                        )
                    )
    if figures:
        blocks.append(Heading("Figures", 2))
    not_drawn = []
    for i, (name, fig) in enumerate(figures):
        if callable(fig):  # a protocol's (title, draw): a figure without a value to draw is named, never fatal
            try:
                fig = fig()
            except InputError as e:
                not_drawn.append(Paragraph(f"{name}: not drawn ({e}); its numbers, where it has any, are above."))
                continue
        blocks.append(FigureBlock(slug(f"figure-{i + 1}-{name}"), name, figure_png(fig)))
    blocks.extend(not_drawn)
    blocks.extend(provenance_blocks(_as_list(results), provenance))
    return Report(title, tuple(blocks))
