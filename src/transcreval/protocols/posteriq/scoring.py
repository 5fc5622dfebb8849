"""Scoring PosterIQ's understanding tasks item by item: per-item records and the table cells.

Each task function takes one system's items of one task and returns a :class:`TaskOutput`: one
:class:`~transcreval.protocols.records.ItemRecord` per item and metric, the cells of the paper's
tables (keyed as :data:`~transcreval.protocols.posteriq.summary.POSTERIQ_GROUPS`) and notes.
Every number comes from the metrics' functional layer (``*_stats`` functions, called item by
item so an error names the row), so a cell equals the registered metric on the same answers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from transcreval.core.common import Definition, MeanStats, Mode, OnUnreadable
from transcreval.errors import InputError, UndefinedValueError
from transcreval.functional.choice.k_option import k_option_normalise
from transcreval.functional.layout.box_reading import Coords
from transcreval.functional.text.ocr_accuracy import OCRAccuracyOptions, ocr_accuracy_stats
from transcreval.functional.text.word_recall import (
    FontSizeStabilityOptions,
    font_size_stability_from_stats,
    font_size_stability_stats,
    word_recall_stats,
)
from transcreval.protocols.posteriq.inputs import TaskItem
from transcreval.protocols.records import Cell, ItemRecord

__all__ = [
    "CODE_TASK_K",
    "TASK_K",
    "Outcome",
    "ProtocolOptions",
    "TaskOutput",
    "choice_output",
    "item_where",
    "mean_cell",
    "merged_stats",
    "ocr_output",
    "records_of",
]

#: options per chance-normalised task (PosterIQ Supp. B, Eq. 3), as the paper gives them
TASK_K: dict[str, int] = {
    "font_matching": 9,
    "font_attributes": 2,
    "font_effect_1": 4,
    "font_effect_2_color": 16,
    "font_effect_2_effect": 48,
    "alignment": 3,
    "rotation": 3,
    "layout_comparison": 2,
    "style_understanding": 17,
}
#: as PosterIQ's code uses them: font effect 1 is normalised with k = 9 (its prompt offers A-D)
CODE_TASK_K: dict[str, int] = {**TASK_K, "font_effect_1": 9}


@dataclass(frozen=True)
class ProtocolOptions:
    """The choices a PosterIQ evaluation makes (see :func:`transcreval.protocols.posteriq.evaluate`)."""

    mode: Mode = "paper"
    on_unreadable: OnUnreadable = "zero"
    refusal_filter: bool = False
    coords: Coords = "normalized"
    target_coords: Coords = "normalized"
    mean_iou_top_n: int | None = None
    ddof: int = 1
    definition: Definition = "supp-b"

    @property
    def code(self) -> bool:
        return self.mode == "posteriq-code"

    @property
    def k(self) -> dict[str, int]:
        return CODE_TASK_K if self.code else TASK_K

    def as_dict(self) -> dict[str, Any]:
        """Every option by name, and the ``k`` of each chance-normalised task."""
        return {f.name: getattr(self, f.name) for f in fields(self)} | {"k": dict(self.k)}


@dataclass
class TaskOutput:
    """One system's results on one task."""

    records: list[ItemRecord] = field(default_factory=list)
    cells: dict[str, Cell] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    unreadable: int = 0


def item_where(it: TaskItem) -> str:
    return f"{it.where or f'row {it.row}'} (system {it.system!r}, task {it.task}, item {it.item_id!r})"


def merged_stats(items: Sequence[TaskItem], stats_of: Callable[[TaskItem], dict[str, Any]]) -> dict[str, Any]:
    """``stats_of(item)`` (a metric's ``*_stats`` on that one item) for every item, merged;
    an error names the item's row."""
    out: dict[str, Any] = {"total": 0.0, "count": 0, "unparsable": 0, "values": [], "status": []}
    for it in items:
        try:
            st = stats_of(it)
        except InputError as e:
            raise InputError(f"{item_where(it)}: {e}") from None
        out["total"] += float(st["total"])
        out["count"] += int(st["count"])
        out["unparsable"] += int(st["unparsable"])
        out["values"] += [float(v) for v in st["values"]]
        out["status"] += [int(c) for c in st["status"]]
    return out


def records_of(
    items: Sequence[TaskItem], metric: str, values: Sequence[float], status: Sequence[Any], **meta: Any
) -> list[ItemRecord]:
    """Records from per-item values and statuses (int codes or names); an unreadable answer
    scored 0 is an ``"ok"`` record with ``meta["unreadable"] = True``."""
    from transcreval.core.common import ITEM_STATUSES

    out = []
    for it, v, st in zip(items, values, status):
        name = ITEM_STATUSES[st] if isinstance(st, int) else str(st)
        m = {"task": it.task, **it.meta, **{k: (f(it) if callable(f) else f) for k, f in meta.items()}}
        if name == "ok" or (name == "unparsable" and math.isfinite(v)):
            if name == "unparsable":
                m["unreadable"] = True
            out.append(ItemRecord(it.item_id, it.system, metric, float(v), "ok", it.item_id, m))
        else:
            out.append(ItemRecord(it.item_id, it.system, metric, math.nan, name, it.item_id, m))
    return out


def _cell(value: float, values: Sequence[float]) -> Cell:
    n = sum(math.isfinite(v) for v in values)
    return Cell(value if n else math.nan, n, len(values) - n)


def mean_cell(stats: dict[str, Any]) -> Cell:
    count = int(stats["count"])
    return _cell(float(stats["total"]) / count if count else math.nan, stats["values"])


def ocr_output(items: Sequence[TaskItem], opts: ProtocolOptions) -> TaskOutput:
    """Logo/poster OCR (instance accuracy), simple/hard OCR and font-size OCR (word recall)."""
    task = items[0].task
    out = TaskOutput()
    if task in ("logo_ocr", "poster_ocr"):
        key = f"{task}_ac"
        st = merged_stats(
            items,
            lambda it: ocr_accuracy_stats(
                [it.answer],
                [it.target],
                options=OCRAccuracyOptions(opts.mode, opts.on_unreadable, opts.refusal_filter and task == "poster_ocr"),
            ),
        )
        out.records = records_of(items, key, st["values"], st["status"])
        out.cells[key] = mean_cell(st)
        if task == "poster_ocr" and not opts.code:
            out.notes.append("Poster OCR AC pools text instances (Eq. 1); n counts posters")
    else:
        key = {"simple_ocr": "simple_ocr_wr", "hard_ocr": "hard_ocr_wr", "font_size_ocr": "font_size_ocr_wr"}[task]
        wr_opts = FontSizeStabilityOptions(mode=opts.mode, on_unreadable=opts.on_unreadable, ddof=opts.ddof)
        st = merged_stats(
            items,
            lambda it: word_recall_stats([it.answer], [it.target], options=wr_opts),
        )
        size = {"font_size": lambda it: it.extra["font_size"]} if task == "font_size_ocr" else {}
        out.records = records_of(items, key, st["values"], st["status"], **size)
        out.cells[key] = mean_cell(st)
        if task == "font_size_ocr":
            fs = font_size_stability_stats(
                [i.answer for i in items],
                [i.target for i in items],
                [i.extra["font_size"] for i in items],
                options=wr_opts,
            )
            try:
                res = font_size_stability_from_stats(fs, wr_opts)
            except UndefinedValueError as e:
                out.cells["font_size_ocr_wr"] = Cell(math.nan, 0, len(items))
                out.cells["font_size_ocr_std"] = Cell(math.nan, 0, len(items))
                out.notes.append(f"{items[0].system}: font-size OCR undefined: {e}")
            else:
                n = out.cells[key].n
                out.cells["font_size_ocr_wr"] = Cell(float(res.extras["mean_wr"]), n, len(items) - n)
                out.cells["font_size_ocr_std"] = Cell(float(res.value), n, len(items) - n)
    out.unreadable = int(st["unparsable"])
    return out


Outcome = float | Sequence[float] | str | None  # a score, pooled scores, "refused"/"undefined", None: unreadable


def choice_output(
    items: Sequence[TaskItem],
    opts: ProtocolOptions,
    metric: str,
    score: Callable[[TaskItem], Outcome],
    k: int | None,
    by_subset: bool = False,
) -> tuple[list[ItemRecord], Cell, int]:
    """Items scored one by one (1/0 or a share; None when the answer is unreadable) and the
    cell: the mean, chance-normalised with ``k`` (Eq. 3; clamped in paper mode) when given. With
    ``by_subset`` (code mode, font matching) the subsets' accuracies are averaged first."""
    agg = MeanStats()
    subsets: dict[str, MeanStats] = {}
    for it in items:
        got = score(it) if it.answer is not None else None
        sub = subsets.setdefault(str(it.extra.get("subset", "")), MeanStats())
        for a in (agg, sub):
            if got is None:
                a.unreadable(opts.on_unreadable)
            elif isinstance(got, str):
                a.skip(got)
            elif isinstance(got, (int, float)):
                a.add(float(got))
            else:
                a.add_pooled(list(got))
    records = records_of(items, metric, agg.per_item, agg.status)
    parts = [s for s in subsets.values() if s.count] if by_subset else [agg] if agg.count else []
    if not parts:
        return records, _cell(math.nan, agg.per_item), agg.unparsable
    accuracy = sum(p.total / p.count for p in parts) / len(parts)
    value = accuracy if k is None else k_option_normalise(accuracy, k, clamp=not opts.code)
    return records, _cell(value, agg.per_item), agg.unparsable
