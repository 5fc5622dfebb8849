"""What every paper protocol returns: per-item records and tables in the paper's layout.

A protocol (``transcreval.protocols.<paper>``) scores a system's raw outputs and returns a
:class:`ProtocolResult`: one :class:`ItemRecord` per item x system x metric (joinable by
``item_id``; ``value`` is NaN with a ``status`` other than ``"ok"`` where the metric is undefined
or failed for that item, never left out), and the paper's tables as :class:`Table` objects whose
cells (:class:`Cell`) carry the value with its ``n`` and the number of items missing from it.

The runner, the report and the significance tests build on these three types only, so a new
protocol needs nothing else to appear in ``transcreval evaluate`` and its report.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Cell", "ItemRecord", "ProtocolResult", "Table", "Tables", "cell_mean"]


@dataclass(frozen=True)
class ItemRecord:
    """One metric's value for one item of one system.

    Attributes:
        item_id: the item's id in the manifest (the join key).
        system: the system's name (``"GT"`` for a reference row where the paper has one).
        metric: the metric's name as the tables use it (``"title_chrf"``, ``"S_bg"``, ...).
        value: the per-item value; NaN where it is undefined or failed (see ``status``).
        status: ``"ok"``, or why there is no value (``"unparsable"``, ``"api_error"``,
            ``"missing_output"``, ``"undefined"``, ...).
        group: what the item is clustered by for significance (the source item); defaults to
            ``item_id``.
        meta: the item's table keys and any other facts (``{"split": "surface", "market": "jp"}``).
    """

    item_id: str
    system: str
    metric: str
    value: float
    status: str = "ok"
    group: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status == "ok" and not math.isfinite(self.value):
            raise ValueError(f"record {self.item_id}/{self.system}/{self.metric}: status 'ok' needs a finite value")
        if self.status != "ok" and not math.isnan(self.value):
            where = f"record {self.item_id}/{self.system}/{self.metric}"
            raise ValueError(f"{where}: status {self.status!r} needs value NaN")

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        return {
            "item_id": self.item_id,
            "system": self.system,
            "metric": self.metric,
            "value": None if math.isnan(self.value) else self.value,
            "status": self.status,
            "group": self.group if self.group is not None else self.item_id,
            "meta": dict(self.meta),
        }


@dataclass(frozen=True)
class Cell:
    """One table cell: the value, how many items it summarises, how many were missing.

    ``value`` is NaN when no item had a value (``n == 0``); ``ci`` is an optional (low, high)
    interval in the cell's units. A count (``Cell(float(k), k)``) is a value even when it is 0:
    a cell prints ``-`` only when it has no value (NaN), so a zero count prints ``0``, as the
    papers print their counts.
    """

    value: float
    n: int
    n_missing: int = 0
    ci: tuple[float, float] | None = None

    @property
    def has_value(self) -> bool:
        """Whether the cell holds a number to print (False: NaN, printed ``-``)."""
        return not math.isnan(self.value)

    def format(self, decimals: int) -> str:
        if not self.has_value:
            return "-"
        return f"{self.value:.{decimals}f}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": None if math.isnan(self.value) else self.value,
            "n": self.n,
            "n_missing": self.n_missing,
            "ci": list(self.ci) if self.ci is not None else None,
        }


def cell_mean(values: Iterable[float], scale: float = 1.0) -> Cell:
    """The mean of the finite values times ``scale``, with NaNs counted as missing."""
    vals = list(values)
    finite = [v for v in vals if not math.isnan(v)]
    if not finite:
        return Cell(math.nan, 0, len(vals))
    return Cell(scale * math.fsum(finite) / len(finite), len(finite), len(vals) - len(finite))


@dataclass(frozen=True)
class Table:
    """A paper table: named rows x columns of cells, with the paper's units and rounding.

    Attributes:
        name: the paper's label (``"MPTc-Bench Table 3 (Surface)"``).
        columns: column names in the paper's order.
        rows: row labels in the paper's order (a row label may be a tuple, e.g. (planner, editor)).
        cells: ``{(row, column): Cell}``; a missing key prints as ``-``.
        decimals: digits after the point, as the paper prints them (per column where it varies).
        units: ``"%"``, ``"0-100"``, ... for the caption.
        notes: anything the reader needs (choices made, rows that cannot be reproduced).
    """

    name: str
    columns: tuple[str, ...]
    rows: tuple[Any, ...]
    cells: Mapping[tuple[Any, str], Cell]
    decimals: int | Mapping[str, int] = 1
    units: str = ""
    notes: tuple[str, ...] = ()

    def cell(self, row: Any, column: str) -> Cell:
        """The cell at (row, column); a ``KeyError`` naming the table if there is none."""
        try:
            return self.cells[(row, column)]
        except KeyError:
            raise KeyError(f"{self.name}: no cell at row {row!r}, column {column!r}") from None

    def _decimals(self, column: str) -> int:
        return self.decimals if isinstance(self.decimals, int) else self.decimals.get(column, 1)

    @staticmethod
    def _label(row: Any) -> str:
        return " / ".join(map(str, row)) if isinstance(row, tuple) else str(row)

    def to_markdown(self) -> str:
        """The table as GitHub Markdown, rounded as the paper rounds."""
        head = ["", *self.columns]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in self.rows:
            got = [self.cells.get((r, c)) for c in self.columns]
            cells = [x.format(self._decimals(c)) if x is not None else "-" for x, c in zip(got, self.columns)]
            lines.append("| " + " | ".join([self._label(r), *cells]) + " |")
        caption = f"**{self.name}**" + (f" ({self.units})" if self.units else "")
        notes = ["", *(f"- {n}" for n in self.notes)] if self.notes else []
        return "\n".join([caption, "", *lines, *notes])

    def _grid(self) -> list[list[str]]:
        rows = []
        for r in self.rows:
            got = [self.cells.get((r, c)) for c in self.columns]
            rows.append(
                [
                    self._label(r),
                    *(x.format(self._decimals(c)) if x is not None else "-" for x, c in zip(got, self.columns)),
                ]
            )
        return rows

    @property
    def caption(self) -> str:
        return self.name + (f" ({self.units})" if self.units else "")

    def to_text(self) -> str:
        """The table as aligned plain text (what ``print(table)`` shows), rounded as the paper rounds."""
        from transcreval.utils.text_table import format_table

        notes = ["", *(f"- {n}" for n in self.notes)] if self.notes else []
        return "\n".join([self.caption, format_table(self._grid(), ["", *self.columns]), *notes])

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        """An HTML table (Jupyter shows it in place of the repr)."""
        e = html.escape
        head = "".join(f"<th>{e(str(c))}</th>" for c in ("", *self.columns))
        body = "".join("<tr>" + "".join(f"<td>{e(x)}</td>" for x in row) + "</tr>" for row in self._grid())
        notes = "".join(f"<li>{e(n)}</li>" for n in self.notes)
        return (
            f"<table><caption>{e(self.caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
            + (f"<ul>{notes}</ul>" if notes else "")
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "columns": list(self.columns),
            "rows": [list(r) if isinstance(r, tuple) else r for r in self.rows],
            "cells": [
                {"row": list(r) if isinstance(r, tuple) else r, "column": c, **cell.to_dict()}
                for (r, c), cell in self.cells.items()
            ],
            "decimals": self.decimals if isinstance(self.decimals, int) else dict(self.decimals),
            "units": self.units,
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Table:
        """A table back from :meth:`to_dict` (list row labels become tuples again)."""

        def label(x: Any) -> Any:
            return tuple(label(v) for v in x) if isinstance(x, list) else x

        cells = {}
        for c in d["cells"]:
            v, ci = c.get("value"), c.get("ci")
            cell = Cell(
                math.nan if v is None else float(v),
                int(c["n"]),
                int(c.get("n_missing", 0)),
                (float(ci[0]), float(ci[1])) if ci is not None else None,
            )
            cells[(label(c["row"]), c["column"])] = cell
        dec = d["decimals"]
        return cls(
            d["name"],
            tuple(d["columns"]),
            tuple(label(r) for r in d["rows"]),
            cells,
            dec if isinstance(dec, int) else dict(dec),
            d.get("units", ""),
            tuple(d.get("notes", ())),
        )


class Tables(dict[str, Table]):
    """A protocol's tables by key, printed as readable text (``print(run.tables)``) and shown as
    HTML tables in a notebook."""

    def __str__(self) -> str:
        return "\n\n".join(t.to_text() for t in self.values())

    def _repr_html_(self) -> str:
        return "".join(t._repr_html_() for t in self.values())


@dataclass(frozen=True)
class ProtocolResult:
    """A protocol's output: per-item records, the paper's tables, and what produced them.

    Attributes:
        protocol: the protocol's catalog name (``"mptc"``).
        records: one record per item x system x metric.
        tables: the paper's tables by a short key (``{"table3_surface": Table(...)}``).
        signatures: the signature string of each metric that produced records, by metric name.
        options: the protocol options that were used (every choice the paper leaves open).
        notes: what the reader of the whole result needs to know (defects found in the ground
            truth, each by item; items left unanswered), beside each table's own notes.
        figures: the numbers behind the paper's figures by a short key
            (``{"fig3_phash_hist": Table(...)}``): one small table per figure, which the report
            draws; items a figure could not place are counted in its notes.
    """

    protocol: str
    records: tuple[ItemRecord, ...]
    tables: Mapping[str, Table]
    signatures: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    figures: Mapping[str, Table] = field(default_factory=dict)

    def select(
        self, *, system: str | None = None, metric: str | None = None, status: str | None = None
    ) -> list[ItemRecord]:
        """The records matching every given field."""
        return [
            r
            for r in self.records
            if (system is None or r.system == system)
            and (metric is None or r.metric == metric)
            and (status is None or r.status == status)
        ]

    def values(self, system: str, metric: str, item_ids: Sequence[str] | None = None) -> list[float]:
        """Per-item values of one system and metric, in ``item_ids`` order (NaN where missing)."""
        by_id = {r.item_id: r.value for r in self.select(system=system, metric=metric)}
        ids = item_ids if item_ids is not None else list(by_id)
        return [by_id.get(i, math.nan) for i in ids]

    def to_dict(self) -> dict[str, Any]:
        return {
            "protocol": self.protocol,
            "records": [r.to_dict() for r in self.records],
            "tables": {k: t.to_dict() for k, t in self.tables.items()},
            "signatures": dict(self.signatures),
            "options": dict(self.options),
            "notes": list(self.notes),
            "figures": {k: t.to_dict() for k, t in self.figures.items()},
        }
