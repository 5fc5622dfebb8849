"""IMTBench Table 2 and Fig. 6 (right panel) from per-item records (the Python
:func:`~transcreval.protocols.imtbench.evaluate` and the runner adapter both build them here)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

from transcreval.core.common import check_choice
from transcreval.errors import InputError
from transcreval.functional.judge.imtbench_components import COMPONENTS
from transcreval.protocols.imtbench.inputs import SCENARIO_LABELS, SCENARIOS
from transcreval.protocols.records import Cell, ItemRecord, Table, cell_mean

__all__ = ["COLUMNS", "S_AVG_READINGS", "fig6_by_source", "table2"]

COLUMNS = (*COMPONENTS, "S")
ALL = "All"
S_AVG = "S_avg"
ITEM_WEIGHTED = "item-weighted"
#: how the S cell of the S_avg row is made: the mean of the scenario rows' S (as every other
#: column of the row), or the mean of the row's own four component cells (Eq. 6 on the row)
S_AVG_READINGS = ("scenarios", "components")
_S_AVG_NOTES = {
    "scenarios": "S_avg's S: the mean of the scenario rows' S, each over the items with all four components "
    "(s_avg='scenarios'); with a component missing it differs from the mean of the row's component cells",
    "components": "S_avg's S: the mean of this row's four component cells (s_avg='components'; n: items with a "
    "component value); the mean of the scenario rows' S is s_avg='scenarios'",
}


def _group_cell(records: Sequence[ItemRecord], column: str) -> Cell:
    return cell_mean([r.value for r in records if r.metric == column], scale=100.0)


def table2(
    records: Sequence[ItemRecord], system: str, *, s_avg: Literal["scenarios", "components"] = "scenarios"
) -> Table:
    """IMTBench Table 2 for one system, in percent, from its per-item records.

    Rows: per scenario (in the paper's order: Doc., Web, Scene, PPT; those present) the row
    ``(label, "all")`` and one row per target language ``(label, language)``; then
    ``("All", language)`` per language over every scenario; then ``("All", "S_avg")``, the
    paper's "All" row: each column the plain mean of the scenario rows (this reproduces the
    paper's 57.8 and 56.4), and ``("All", "item-weighted")``, the mean over all items. Columns
    S_text, S_bg, S_align, S_vis, S. Each cell is the mean over the items that have the value,
    with ``n`` those items and ``n_missing`` the group's items without it (a missing
    component is never averaged as 0); S exists where all four components do.

    ``s_avg`` chooses the S cell of the S_avg row when components are missing (with every
    component present both are the same number): ``"scenarios"`` (default) the mean of the
    scenario rows' S, as each other column of the row; ``"components"`` the mean of the row's
    four component cells (Eq. 6 applied to the row). The paper does not say which; its tables
    have no missing components.
    """
    check_choice("s_avg", s_avg, S_AVG_READINGS)
    mine = [r for r in records if r.system == system]
    if not mine:
        raise InputError(f"no records of system {system!r}")
    scen_of = {r.item_id: r.meta.get("scenario") for r in mine}
    lang_of = {r.item_id: r.meta.get("language") for r in mine}
    present = [s for s in SCENARIOS if s in set(scen_of.values())]
    langs = sorted({str(v) for v in lang_of.values()})
    cells: dict[tuple[Any, str], Cell] = {}
    rows: list[Any] = []

    def add(row: Any, group: list[ItemRecord]) -> None:
        rows.append(row)
        for col in COLUMNS:
            cells[(row, col)] = _group_cell(group, col)

    for s in present:
        label = SCENARIO_LABELS[s]
        add((label, "all"), [r for r in mine if scen_of[r.item_id] == s])
        for lang in langs:
            group = [r for r in mine if scen_of[r.item_id] == s and lang_of[r.item_id] == lang]
            if group:
                add((label, lang), group)
    for lang in langs:
        add((ALL, lang), [r for r in mine if lang_of[r.item_id] == lang])
    avg = (ALL, S_AVG)
    rows.append(avg)
    for col in COLUMNS:
        per_scenario = [cells[((SCENARIO_LABELS[s], "all"), col)] for s in present]
        defined = [c for c in per_scenario if c.n > 0]
        value = math.fsum(c.value for c in defined) / len(defined) if defined else math.nan
        cells[(avg, col)] = Cell(value, sum(c.n for c in per_scenario), sum(c.n_missing for c in per_scenario))
    if s_avg == "components":
        parts = [cells[(avg, c)] for c in COMPONENTS]
        in_rows = [r for r in mine if scen_of[r.item_id] in present]
        with_value = {r.item_id for r in in_rows if r.metric in COMPONENTS and r.ok}
        every = {r.item_id for r in in_rows}
        value = math.fsum(c.value for c in parts) / len(parts) if all(c.has_value for c in parts) else math.nan
        n = len(with_value) if not math.isnan(value) else 0
        cells[(avg, "S")] = Cell(value, n, len(every) - n)
    add((ALL, ITEM_WEIGHTED), mine)
    notes = [
        "S_avg: each column the plain mean of the scenario rows (the paper's All row); item-weighted: the mean "
        "over all items",
        "a cell averages the items that have the value (n); n_missing counts the group's items without it, never "
        "averaged as 0; S = (S_text + S_bg + S_align + S_vis) / 4 where all four exist (Eq. 6)",
        _S_AVG_NOTES[s_avg],
    ]
    for c in COMPONENTS:
        reasons: dict[str, int] = {}
        for r in mine:
            if r.metric == c and r.status != "ok":
                reasons[r.status] = reasons.get(r.status, 0) + 1
        if reasons:
            notes.append(f"{c} missing: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    return Table(
        name=f"IMTBench Table 2 ({system})",
        columns=COLUMNS,
        rows=tuple(rows),
        cells=cells,
        decimals=1,
        units="%",
        notes=tuple(notes),
    )


def fig6_by_source(records: Sequence[ItemRecord]) -> Table | None:
    """IMTBench Fig. 6, right panel: each system's results per source language with the target
    language fixed, in percent.

    Rows ``(system, target language, source language)`` (systems in record order, languages
    sorted); columns S_text, S_bg, S_align, S_vis, S, each cell the mean over the group's items
    that have the value (``n_missing`` the others). Items whose ``meta["source_language"]`` is
    absent are counted in the notes; None when no item has one.
    """
    groups: dict[tuple[str, str, str], list[ItemRecord]] = {}
    lacking: dict[str, set[str]] = {}
    for r in records:
        src = r.meta.get("source_language")
        if src is None:
            lacking.setdefault(r.system, set()).add(r.item_id)
            continue
        groups.setdefault((r.system, str(r.meta.get("language")), str(src)), []).append(r)
    if not groups:
        return None
    systems = list(dict.fromkeys(k[0] for k in groups))
    rows = tuple(sorted(groups, key=lambda k: (systems.index(k[0]), k[1], k[2])))
    cells = {(row, col): _group_cell(groups[row], col) for row in rows for col in COLUMNS}
    notes = ["Rows: system / target language / source language; each cell the mean over the items with the value."]
    for system, ids in lacking.items():
        notes.append(f"{system}: {len(ids)} item(s) without a source_language are not placed.")
    return Table("IMTBench Fig. 6 (by source language)", COLUMNS, rows, cells, 1, "%", tuple(notes))
