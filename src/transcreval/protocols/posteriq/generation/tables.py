"""PosterIQ's Table 6 (generation) in the paper's layout: rows the systems, columns Dense, Font,
Style, Composition, Intention and Average (the mean of the five task scores, as the paper's rows
add up), 3 decimals on the 0-1 scale."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from transcreval.protocols.posteriq.generation.inputs import COLUMN_OF, GEN_TASKS
from transcreval.protocols.records import Cell, Table

__all__ = ["TABLE6_COLUMNS", "build_table6"]

#: Table 6's columns, left to right
TABLE6_COLUMNS: tuple[str, ...] = (*(COLUMN_OF[t] for t in GEN_TASKS), "Average")


def build_table6(systems: Sequence[str], cells: Mapping[str, Mapping[str, Cell]], notes: Sequence[str]) -> Table:
    """Table 6 from each system's task cells (``{system: {task: Cell}}``); a system without a
    score for some task gets its Average over the others, said in a note."""
    out: dict[tuple[str, str], Cell] = {}
    extra: list[str] = []
    for s in systems:
        have = {t: c for t, c in cells.get(s, {}).items() if c.n > 0 and not math.isnan(c.value)}
        for t, c in cells.get(s, {}).items():
            out[(s, COLUMN_OF[t])] = c
        if not have:
            continue
        if len(have) < len(GEN_TASKS):
            lacking = ", ".join(COLUMN_OF[t] for t in GEN_TASKS if t not in have)
            extra.append(f"{s}: no score for {lacking}; its Average is the mean of the other {len(have)}")
        out[(s, "Average")] = Cell(math.fsum(c.value for c in have.values()) / len(have), len(have))
    return Table(
        "PosterIQ Table 6 (generation)",
        TABLE6_COLUMNS,
        tuple(systems),
        out,
        3,
        "0-1",
        ("Average: the mean of the five task scores", *extra, *notes),
    )
