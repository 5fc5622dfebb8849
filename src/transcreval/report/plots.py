"""Plot helpers for protocol results: ``plot_*(result, ..., ax=None) -> (fig, ax)``.

Each draws on ``ax`` when given (and returns its figure), else on a new
:class:`matplotlib.figure.Figure` (no pyplot, no global state, no window). They need the
``report`` extra (matplotlib); importing this module does not import matplotlib.

Names, metrics, group values and table titles are data: every text drawn from them goes through
:func:`plain_text`, so matplotlib shows it as written (``a$\\b$c`` is not mathtext, and a name
starting with ``_`` keeps its legend entry).

The protocol-specific figures take the table key or the record keys as parameters, so they
work on any :class:`~transcreval.protocols.records.ProtocolResult` that has such a table:

* :func:`plot_heatmap`: a metric's mean per ``meta[rows]`` x ``meta[columns]`` (IMTBench's
  scenario x language);
* :func:`plot_win_rate_matrix`: a table as a matrix (MPTc's Win% per planner x editor);
* :func:`plot_kendall_by_country`: a table of correlations with intervals (Khanuja's Kendall
  tau per country).

The paper figures are drawn from ``result.figures[key]`` (the numbers behind each figure):

* :func:`plot_count_histogram`: counts per value, one stacked series per column (MPTc Fig. 3 with
  its band thresholds dashed, Fig. 9 by direction);
* :func:`plot_count_matrix`: counts as an annotated matrix (MPTc Fig. 8);
* :func:`plot_rate_bars`: a rate per row with its ``n`` and the overall line (MPTc Fig. 4);
* :func:`plot_box_summary`: box plots from stored quartiles (MPTc Fig. 11);
* :func:`plot_by_source`: a column per source language with the target fixed, one series per
  system (IMTBench Fig. 6, right panel).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from transcreval.errors import InputError, MissingDependencyError
from transcreval.protocols.records import ProtocolResult, Table
from transcreval.significance.compare import Comparisons

__all__ = [
    "new_figure",
    "plain_text",
    "plot_box_summary",
    "plot_by_source",
    "plot_count_histogram",
    "plot_count_matrix",
    "plot_distributions",
    "plot_forest",
    "plot_heatmap",
    "plot_kendall_by_country",
    "plot_rate_bars",
    "plot_win_rate_matrix",
]


def new_figure(figsize: tuple[float, float]) -> Any:
    """A new matplotlib Figure (constrained layout, no pyplot); MissingDependencyError without matplotlib."""
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise MissingDependencyError("transcreval's plots", "matplotlib", "report") from e
    return Figure(figsize=figsize, layout="constrained")


def _axes(ax: Any, figsize: tuple[float, float]) -> tuple[Any, Any]:
    if ax is not None:
        return ax.figure, ax
    fig = new_figure(figsize)
    return fig, fig.add_subplot()


def _table(result: ProtocolResult, key: str) -> Table:
    if key not in result.tables:
        raise InputError(f"{result.protocol}: no table {key!r}; the tables are {sorted(result.tables)}")
    return result.tables[key]


def _figure(result: ProtocolResult, key: str) -> Table:
    if key not in result.figures:
        raise InputError(f"{result.protocol}: no figure {key!r}; the figures are {sorted(result.figures)}")
    return result.figures[key]


def _value(t: Table, row: Any, column: str) -> float:
    """A cell's value, NaN where the cell is absent or empty."""
    c = t.cells.get((row, column))
    return c.value if c is not None and c.n > 0 else math.nan


def _count(t: Table, row: Any, column: str) -> float:
    """A count cell's value (a count of 0 is a value), NaN where the cell is absent."""
    c = t.cells.get((row, column))
    return c.value if c is not None else math.nan


def plain_text(x: Any) -> str:
    """``x`` as text matplotlib draws as written: each ``$`` escaped (two of them would start
    mathtext, and a stray ``\\`` inside then raises); matplotlib shows ``\\$`` as ``$``."""
    return str(x).replace("$", r"\$")


def _label(x: Any) -> str:
    return plain_text(" / ".join(map(str, x)) if isinstance(x, tuple) else x)


def _legend(ax: Any, entries: Sequence[tuple[Any, str]]) -> None:
    """A legend of ``(handle, label)``, given explicitly: matplotlib leaves out a label starting
    with ``_`` when it collects them itself."""
    handles = [h for h, _ in entries]
    ax.legend(handles, [label for _, label in entries], fontsize=8)


def _norm(value_range: tuple[float, float] | None, center: float | None) -> Any:
    """A colour scale fixed to ``value_range`` (diverging at ``center`` when given); None: the data's range."""
    if value_range is None:
        if center is not None:
            raise InputError("center needs value_range=(low, high): a diverging scale is fixed at both ends")
        return None
    from matplotlib.colors import Normalize, TwoSlopeNorm

    lo, hi = (float(v) for v in value_range)
    if not lo < hi:
        raise InputError(f"value_range must be (low, high) with low < high, got {value_range!r}")
    if center is None:
        return Normalize(vmin=lo, vmax=hi, clip=True)
    if not lo < center < hi:
        raise InputError(f"center must lie inside value_range {value_range!r}, got {center!r}")
    return TwoSlopeNorm(vcenter=float(center), vmin=lo, vmax=hi)


def _annotated_matrix(
    ax: Any, fig: Any, m: np.ndarray, rows: list, cols: list, text: list, cmap: str, norm: Any = None
) -> None:
    masked = np.ma.masked_invalid(m)
    image = ax.imshow(masked, cmap=cmap, aspect="auto", norm=norm)
    fig.colorbar(image, ax=ax, shrink=0.8)
    ax.set_xticks(range(len(cols)), [_label(c) for c in cols], rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), [_label(r) for r in rows])
    for i in range(len(rows)):
        for j in range(len(cols)):
            dark = False
            if math.isfinite(m[i, j]):  # white text on dark cells (relative luminance of the cell colour)
                r, g, b, _ = image.cmap(image.norm(m[i, j]))
                dark = 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.45
            ax.text(j, i, text[i][j], ha="center", va="center", fontsize=8, color="white" if dark else "black")


def plot_forest(comparisons: Comparisons, ax: Any = None, *, metrics: Sequence[str] | None = None) -> tuple[Any, Any]:
    """Deltas against the baseline with their intervals, one line per system x metric.

    Significant deltas (``p < alpha``) are drawn dark, the others grey. Deltas of metrics in
    different units share one axis: give ``metrics`` to plot one metric (or one unit) at a time.
    """
    rows = [
        r
        for r in comparisons.rows
        if (metrics is None or r.metric in metrics) and math.isfinite(r.delta) and r.ci is not None
    ]
    if not rows:
        raise InputError("plot_forest: no comparison with a delta and an interval to draw")
    fig, ax = _axes(ax, (6.0, 0.45 * len(rows) + 1.2))
    for y, r in enumerate(reversed(rows)):
        lo, hi = r.ci  # type: ignore[misc]
        color = "#1f4e9c" if r.significant else "#9a9a9a"
        ax.errorbar([r.delta], [y], xerr=[[r.delta - lo], [hi - r.delta]], fmt="o", color=color, capsize=3)
    ax.axvline(0.0, color="black", linewidth=0.8)
    labels = [f"{r.system}" if metrics is not None and len(metrics) == 1 else f"{r.metric} · {r.system}" for r in rows]
    ax.set_yticks(range(len(rows)), [plain_text(x) for x in reversed(labels)])
    ax.set_xlabel(plain_text(f"delta vs {comparisons.baseline} ({comparisons.confidence:.0%} CI)"))
    if metrics is not None and len(metrics) == 1:
        ax.set_title(plain_text(metrics[0]))
    return fig, ax


def plot_distributions(
    result: ProtocolResult, metric: str, ax: Any = None, *, systems: Sequence[str] | None = None
) -> tuple[Any, Any]:
    """The empirical distribution (ECDF) of a metric's per-item values, one curve per system;
    the legend gives each system's ``n`` and ``n_missing``."""
    names = list(systems) if systems is not None else list(dict.fromkeys(r.system for r in result.records))
    fig, ax = _axes(ax, (6.0, 3.6))
    drawn = []
    for s in names:
        recs = result.select(system=s, metric=metric)
        vals = np.sort([r.value for r in recs if r.ok])
        missing = len(recs) - len(vals)
        if vals.size == 0:
            continue
        (line,) = ax.step(vals, np.arange(1, vals.size + 1) / vals.size, where="post")
        drawn.append((line, plain_text(f"{s} (n={vals.size}, {missing} missing)")))
    if not drawn:
        raise InputError(f"plot_distributions: metric {metric!r} has no value for systems {names}")
    ax.set_xlabel(plain_text(metric))
    ax.set_ylabel("fraction of items ≤ x")
    _legend(ax, drawn)
    return fig, ax


def plot_heatmap(
    result: ProtocolResult,
    metric: str,
    ax: Any = None,
    *,
    system: str,
    rows: str = "scenario",
    columns: str = "language",
    decimals: int = 1,
    cmap: str = "viridis",
    value_range: tuple[float, float] | None = None,
    center: float | None = None,
) -> tuple[Any, Any]:
    """A metric's mean over the items of each ``meta[rows]`` x ``meta[columns]`` cell for one
    system (IMTBench's scenario x language); each cell shows the mean and its ``n``.

    ``value_range=(low, high)`` fixes the colour scale to the metric's own range (so two systems'
    heatmaps compare by colour), diverging at ``center`` when given (pass a diverging ``cmap``
    such as ``"RdBu"`` then); without it the scale spans the data."""
    recs = result.select(system=system, metric=metric)
    if not recs:
        raise InputError(f"plot_heatmap: no records for system {system!r}, metric {metric!r}")
    for r in recs:
        if rows not in r.meta or columns not in r.meta:
            raise InputError(f"plot_heatmap: record {r.item_id} has no meta[{rows!r}] / meta[{columns!r}]")
    row_keys = list(dict.fromkeys(r.meta[rows] for r in recs))
    col_keys = list(dict.fromkeys(r.meta[columns] for r in recs))
    m = np.full((len(row_keys), len(col_keys)), np.nan)
    text = [["-" for _ in col_keys] for _ in row_keys]
    for i, rk in enumerate(row_keys):
        for j, ck in enumerate(col_keys):
            cell = [r for r in recs if r.meta[rows] == rk and r.meta[columns] == ck]
            ok = [r.value for r in cell if r.ok]
            if ok:
                m[i, j] = float(np.mean(ok))
                text[i][j] = f"{m[i, j]:.{decimals}f}\nn={len(ok)}" + (f"/{len(cell)}" if len(ok) < len(cell) else "")
    norm = _norm(value_range, center)
    fig, ax = _axes(ax, (1.1 * len(col_keys) + 2.5, 0.6 * len(row_keys) + 1.6))
    _annotated_matrix(ax, fig, m, row_keys, col_keys, text, cmap, norm)
    ax.set_xlabel(plain_text(columns))
    ax.set_ylabel(plain_text(rows))
    ax.set_title(plain_text(f"{metric}: {system}"))
    return fig, ax


def plot_win_rate_matrix(
    result: ProtocolResult,
    table: str,
    ax: Any = None,
    *,
    column: str | None = None,
    decimals: int = 1,
    cmap: str = "RdBu",
    value_range: tuple[float, float] | None = None,
    center: float | None = None,
) -> tuple[Any, Any]:
    """A table drawn as a matrix (MPTc's win rates).

    With ``column`` (``"Win%"``), rows labelled by pairs ``(planner, editor)`` become a planner x
    editor matrix of that column; without it, the table's rows x columns are drawn as they are
    (a system x system win-rate table).

    The colour scale is fixed and diverges at a draw: 0-100 around 50 for a table in percent (its
    ``units`` say "%", or a value is above 1), else 0-1 around 0.5 (-1 to 1 around 0 where a value
    is negative); red below, white at the centre, blue above. ``value_range`` / ``center`` set
    another scale.
    """
    t = _table(result, table)
    if column is not None:
        if column not in t.columns:
            raise InputError(f"plot_win_rate_matrix: table {t.name!r} has no column {column!r}; it has {t.columns}")
        pairs = [r for r in t.rows if isinstance(r, tuple) and len(r) == 2]
        if not pairs:
            raise InputError(f"plot_win_rate_matrix: table {t.name!r} has no (row, column) pair labels to pivot")
        row_keys = list(dict.fromkeys(p[0] for p in pairs))
        col_keys = list(dict.fromkeys(p[1] for p in pairs))
        get = {(p[0], p[1]): t.cells.get((p, column)) for p in pairs}
    else:
        row_keys, col_keys = list(t.rows), list(t.columns)
        get = {(r, c): t.cells.get((r, c)) for r in row_keys for c in col_keys}
    m = np.full((len(row_keys), len(col_keys)), np.nan)
    text = [["-" for _ in col_keys] for _ in row_keys]
    for i, rk in enumerate(row_keys):
        for j, ck in enumerate(col_keys):
            cell = get.get((rk, ck))
            if cell is not None and cell.n > 0 and math.isfinite(cell.value):
                m[i, j] = cell.value
                text[i][j] = f"{cell.value:.{decimals}f}"
    if not np.isfinite(m).any():
        raise InputError(f"plot_win_rate_matrix: table {t.name!r} has no value to draw")
    if value_range is None:
        finite = m[np.isfinite(m)]
        if "%" in t.units or float(np.abs(finite).max()) > 1:
            value_range, center = (0.0, 100.0), 50.0
        elif float(finite.min()) < 0:
            value_range, center = (-1.0, 1.0), 0.0
        else:
            value_range, center = (0.0, 1.0), 0.5
    fig, ax = _axes(ax, (1.1 * len(col_keys) + 2.5, 0.6 * len(row_keys) + 1.6))
    _annotated_matrix(ax, fig, m, row_keys, col_keys, text, cmap, _norm(value_range, center))
    ax.set_title(plain_text(t.name + (f": {column}" if column else "") + (f" ({t.units})" if t.units else "")))
    return fig, ax


def plot_kendall_by_country(
    result: ProtocolResult,
    table: str,
    ax: Any = None,
    *,
    countries: str = "columns",
    series: Sequence[Any] | None = None,
) -> tuple[Any, Any]:
    """Correlations per country with their intervals (Khanuja's segment-level Kendall tau).

    ``countries="columns"``: the table's columns are countries and each row (a metric) is one
    series; ``"rows"`` the other way round. Cells with ``ci`` get error bars.
    """
    t = _table(result, table)
    if countries not in ("columns", "rows"):
        raise InputError(f"countries must be 'columns' or 'rows', got {countries!r}")
    xs = list(t.columns) if countries == "columns" else list(t.rows)
    lines = list(series) if series is not None else (list(t.rows) if countries == "columns" else list(t.columns))
    fig, ax = _axes(ax, (max(5.0, 0.9 * len(xs) + 2.0), 3.6))
    width = 0.6 / max(1, len(lines))
    drawn: dict[str, Any] = {}  # legend label -> a handle of its series
    for k, s in enumerate(lines):
        for j, x in enumerate(xs):
            cell = t.cells.get((s, x) if countries == "columns" else (x, s))
            if cell is None or cell.n == 0 or not math.isfinite(cell.value):
                continue
            pos = j - 0.3 + width * (k + 0.5)
            err = None if cell.ci is None else [[cell.value - cell.ci[0]], [cell.ci[1] - cell.value]]
            handle = ax.errorbar([pos], [cell.value], yerr=err, fmt="o", color=f"C{k % 10}", capsize=3)
            drawn.setdefault(_label(s), handle)
    if not drawn:
        raise InputError(f"plot_kendall_by_country: table {t.name!r} has no value to draw")
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(xs)), [_label(x) for x in xs], rotation=30, ha="right")
    ax.set_ylabel(plain_text(t.units or "Kendall tau"))
    ax.set_title(plain_text(t.name))
    _legend(ax, [(h, label) for label, h in drawn.items()])
    return fig, ax


def plot_count_histogram(result: ProtocolResult, figure: str, ax: Any = None) -> tuple[Any, Any]:
    """Counts per row value (numeric rows, e.g. pHash distances) as bars, one stacked series
    per column. Where each row has a cell in one column only (MPTc Fig. 3: a distance's band),
    the boundaries between columns are drawn as dashed lines: the figure's thresholds."""
    t = _figure(result, figure)
    xs = np.array([float(r) for r in t.rows])
    fig, ax = _axes(ax, (7.0, 3.6))
    bottom = np.zeros(len(xs))
    drawn = []
    for k, col in enumerate(t.columns):
        h = np.array([0.0 if math.isnan(v := _count(t, r, col)) else v for r in t.rows])
        bars = ax.bar(xs, h, bottom=bottom, width=0.9, color=f"C{k % 10}")
        drawn.append((bars, plain_text(f"{col} (n={int(h.sum())})")))
        bottom += h
    if not bottom.any():
        raise InputError(f"plot_count_histogram: figure {t.name!r} has no count to draw")
    owner = [[c for c in t.columns if (r, c) in t.cells] for r in t.rows]
    if all(len(o) == 1 for o in owner):
        for i in range(1, len(owner)):
            if owner[i] != owner[i - 1]:
                ax.axvline((xs[i - 1] + xs[i]) / 2, color="black", linestyle="--", linewidth=0.9)
    ax.set_ylabel(plain_text(t.units or "count"))
    ax.set_title(plain_text(t.name))
    _legend(ax, drawn)
    return fig, ax


def plot_count_matrix(result: ProtocolResult, figure: str, ax: Any = None, *, cmap: str = "Blues") -> tuple[Any, Any]:
    """A table of counts as a matrix, darker for more (MPTc Fig. 8: source x target cluster)."""
    t = _figure(result, figure)
    rows, cols = list(t.rows), list(t.columns)
    m = np.array([[_count(t, r, c) for c in cols] for r in rows], dtype=float)
    if not np.isfinite(m).any():
        raise InputError(f"plot_count_matrix: figure {t.name!r} has no value to draw")
    text = [["-" if math.isnan(v) else f"{v:.0f}" for v in row] for row in m]
    fig, ax = _axes(ax, (1.1 * len(cols) + 2.5, 0.6 * len(rows) + 1.6))
    _annotated_matrix(ax, fig, m, rows, cols, text, cmap)
    ax.set_title(plain_text(t.name))
    return fig, ax


def plot_rate_bars(
    result: ProtocolResult, figure: str, ax: Any = None, *, rate: str = "Rate", n: str = "n", overall: str = "Overall"
) -> tuple[Any, Any]:
    """A rate per row as horizontal bars with each bar's ``n`` at its end, and the ``overall``
    row as a dashed line (MPTc Fig. 4: the judge's target-market preference per market)."""
    t = _figure(result, figure)
    rows = [r for r in t.rows if r != overall and math.isfinite(_value(t, r, rate))]
    if not rows:
        raise InputError(f"plot_rate_bars: figure {t.name!r} has no rate to draw")
    vals = [_value(t, r, rate) for r in rows]
    fig, ax = _axes(ax, (6.0, 0.3 * len(rows) + 1.4))
    ys = np.arange(len(rows))[::-1]
    ax.barh(ys, vals, color="C0")
    for y, r, v in zip(ys, rows, vals):
        count = _value(t, r, n)
        if math.isfinite(count):
            ax.text(v, y, f" {count:.0f}", va="center", fontsize=7)
    ax.set_yticks(ys, [_label(r) for r in rows])
    total = _value(t, overall, rate)
    if math.isfinite(total):
        ax.axvline(total, color="C0", linestyle="--", linewidth=1.0)
    ax.set_xlabel(plain_text(f"{rate} ({t.units})" if t.units else rate))
    ax.set_title(plain_text(t.name))
    return fig, ax


def plot_box_summary(result: ProtocolResult, figure: str, ax: Any = None) -> tuple[Any, Any]:
    """Box plots drawn from stored numbers (columns ``min``, ``q1``, ``median``, ``q3``, ``max``
    and ``mean``), one box per row with ``n`` > 0 (MPTc Fig. 11: LPIPS and DINOv2 per band)."""
    t = _figure(result, figure)
    stats = []
    for r in t.rows:
        got = {c: _value(t, r, c) for c in ("min", "q1", "median", "q3", "max", "mean")}
        if all(math.isfinite(v) for v in got.values()):
            stats.append(
                {
                    "label": _label(r),
                    "whislo": got["min"],
                    "q1": got["q1"],
                    "med": got["median"],
                    "q3": got["q3"],
                    "whishi": got["max"],
                    "mean": got["mean"],
                    "fliers": [],
                }
            )
    if not stats:
        raise InputError(f"plot_box_summary: figure {t.name!r} has no row with box numbers")
    fig, ax = _axes(ax, (max(5.0, 0.9 * len(stats) + 2.0), 3.6))
    ax.bxp(stats, showmeans=True)
    ax.tick_params(axis="x", labelrotation=30)
    ax.set_ylabel("distance")
    ax.set_title(plain_text(t.name))
    return fig, ax


def plot_by_source(
    result: ProtocolResult, figure: str, ax: Any = None, *, target: str, column: str = "S"
) -> tuple[Any, Any]:
    """One column of a table with rows ``(system, target, source)``, for one target language:
    the source languages along x, one series per system (IMTBench Fig. 6, right panel)."""
    t = _figure(result, figure)
    if column not in t.columns:
        raise InputError(f"plot_by_source: figure {t.name!r} has no column {column!r}; it has {t.columns}")
    rows = [r for r in t.rows if isinstance(r, tuple) and len(r) == 3 and r[1] == target]
    sources = sorted({r[2] for r in rows})
    systems = list(dict.fromkeys(r[0] for r in rows))
    fig, ax = _axes(ax, (max(5.0, 0.8 * len(sources) + 2.5), 3.6))
    drawn = []
    for k, s in enumerate(systems):
        ys = [_value(t, (s, target, src), column) for src in sources]
        if any(math.isfinite(y) for y in ys):
            (line,) = ax.plot(range(len(sources)), ys, marker="o", color=f"C{k % 10}")
            drawn.append((line, plain_text(s)))
    if not drawn:
        raise InputError(f"plot_by_source: figure {t.name!r} has no {column} value for target {target!r}")
    ax.set_xticks(range(len(sources)), [plain_text(x) for x in sources])
    ax.set_xlabel("source language")
    ax.set_ylabel(plain_text(f"{column} ({t.units})" if t.units else column))
    ax.set_title(plain_text(f"{t.name}: target {target}"))
    _legend(ax, drawn)
    return fig, ax
