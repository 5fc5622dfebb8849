"""MPTc-Bench Tables 3, 4 and 5 and Fig. 6 in the paper's layout, from per-item records.

* Table 3 (aesthetics and adaptation): rows = editors, then ``"GT"`` (the human posters' own
  scores, the paper's "GT ref." in each task header, repeated under every planner); columns =
  ``"<Task> / <planner> / Aes."``, ``"Adap."``, ``"Win%"``, Deep first; Aes. and Adap. 1-5 with
  2 decimals, Win% in % with 1.
* Table 4 (basic information): rows = ``(Task, editor)``, Deep first, each task closed by a
  ``(Task, "GT")`` row (the quizzes on the GT posters; Title and Plan compare with GT itself, so
  they are empty there); columns = ``"<planner> / Genre"``, ``"Year"``, ``"Title"``, ``"Plan"``;
  % (chrF x 1, hit rates x 100) with 1 decimal.
* Fig. 6 (plan-to-render loss): rows = ``(Task, editor)``; columns = ``"<planner> / Plan"``,
  ``"Visual"``, ``"Loss %"`` over the items with both chrF values.
* Table 5 (objective similarity): rows = editors; columns = ``"<Task> / <planner> / CLIP"``,
  ``"FID_GT"``, ``"FID_SRC"``; 1 decimal.

Every cell is a mean over the task's items (a system's missing outputs and failed answers
are counted in ``n_missing``), except FID, which is one number per set.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from transcreval.errors import UndefinedValueError
from transcreval.protocols.mptc.inputs import SPLITS, MPTcSet, as_set, system_name
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table, cell_mean

__all__ = ["RecordIndex", "fig6", "judge_tables", "merge_results", "similarity_table", "table3", "table4", "table5"]


class RecordIndex:
    """Per-item values by (system, metric) -> {item id: value}, NaN where the record is not "ok"."""

    def __init__(self, records: Iterable[ItemRecord]) -> None:
        self.values: dict[tuple[str, str], dict[str, float]] = {}
        for r in records:
            self.values.setdefault((r.system, r.metric), {})[r.item_id] = r.value

    def cell(self, system: str, metric: str, item_ids: Sequence[str], scale: float = 1.0) -> Cell | None:
        """The mean over ``item_ids`` (None when the system has no record of ``metric`` at all)."""
        got = self.values.get((system, metric))
        if got is None:
            return None
        return cell_mean((got.get(i, math.nan) for i in item_ids), scale)

    def get(self, system: str, metric: str, item_id: str) -> float:
        return self.values.get((system, metric), {}).get(item_id, math.nan)


def _ids(data: MPTcSet, split: str) -> list[str]:
    return [i.item_id for i in data.split_items(split)]


def _put(cells: dict[tuple[Any, str], Cell], row: Any, column: str, cell: Cell | None) -> None:
    if cell is not None:
        cells[(row, column)] = cell


_T3 = (("Aes.", "aesthetic", 1.0), ("Adap.", "adaptation", 1.0), ("Win%", "win", 100.0))
_T4 = (
    ("Genre", "genre_hit", 100.0),
    ("Year", "year_hit", 100.0),
    ("Title", "title_chrf", 1.0),
    ("Plan", "plan_chrf", 1.0),
)


def table3(data: MPTcSet, idx: RecordIndex) -> Table:
    splits = data.present_splits()
    cols = [f"{SPLITS[s]} / {p} / {h}" for s in splits for p in data.planners for h, _, _ in _T3]
    cells: dict[tuple[Any, str], Cell] = {}
    for s in splits:
        ids = _ids(data, s)
        for p in data.planners:
            for h, metric, scale in _T3:
                col = f"{SPLITS[s]} / {p} / {h}"
                for e in data.editors:
                    if data.run_outputs(s, p, e) is not None:
                        _put(cells, e, col, idx.cell(system_name(p, e), metric, ids, scale))
                if metric != "win":
                    _put(cells, "GT", col, idx.cell("GT", metric, ids, scale))
    decimals = {c: 1 if c.endswith("Win%") else 2 for c in cols}
    notes = (
        "Aes. and Adap.: judge scores 1-5; Win%: rate at which the judge prefers MTc to GT (ties count half).",
        "GT: the human target-market posters scored the same way (the paper's 'GT ref.'), repeated under each planner.",
    )
    return Table("MPTc-Bench Table 3", tuple(cols), (*data.editors, "GT"), cells, decimals, "1-5 / %", notes)


def table4(data: MPTcSet, idx: RecordIndex) -> Table:
    cols = [f"{p} / {h}" for p in data.planners for h, _, _ in _T4]
    rows: list[Any] = []
    cells: dict[tuple[Any, str], Cell] = {}
    for s in data.present_splits():
        ids = _ids(data, s)
        for e in (*data.editors, "GT"):
            row = (SPLITS[s], e)
            for p in data.planners:
                if e != "GT" and data.run_outputs(s, p, e) is None:
                    continue
                for h, metric, scale in _T4:
                    if e == "GT" and metric in ("title_chrf", "plan_chrf"):
                        continue
                    _put(
                        cells, row, f"{p} / {h}", idx.cell("GT" if e == "GT" else system_name(p, e), metric, ids, scale)
                    )
            rows.append(row)
    notes = (
        "Genre/Year: quiz hit rates (%); Title: chrF of the titles read from MTc and GT; Plan: chrF of the planned "
        "title against the title read from GT (0-100).",
        "GT rows: the quizzes asked on the human target-market posters.",
    )
    return Table("MPTc-Bench Table 4", tuple(cols), tuple(rows), cells, 1, "%", notes)


def fig6(data: MPTcSet, idx: RecordIndex) -> Table:
    from transcreval.errors import InputError
    from transcreval.protocols.mptc.scoring.study import plan_to_render_loss

    cols = [f"{p} / {h}" for p in data.planners for h in ("Plan", "Visual", "Loss %")]
    rows: list[Any] = []
    cells: dict[tuple[Any, str], Cell] = {}
    for s in data.present_splits():
        for e in data.editors:
            row = (SPLITS[s], e)
            for p in data.planners:
                if data.run_outputs(s, p, e) is None:
                    continue
                sysname = system_name(p, e)
                both = [
                    i
                    for i in _ids(data, s)
                    if not math.isnan(idx.get(sysname, "title_chrf", i))
                    and not math.isnan(idx.get(sysname, "plan_chrf", i))
                ]
                plan, visual = idx.cell(sysname, "plan_chrf", both), idx.cell(sysname, "title_chrf", both)
                if plan is None or visual is None:
                    continue
                _put(cells, row, f"{p} / Plan", plan)
                _put(cells, row, f"{p} / Visual", visual)
                try:
                    loss = plan_to_render_loss(visual.value, plan.value) if plan.n else math.nan
                except InputError:  # a plan chrF of 0: nothing to lose
                    loss = math.nan
                cells[(row, f"{p} / Loss %")] = Cell(loss, plan.n if not math.isnan(loss) else 0)
            rows.append(row)
    notes = ("Loss % = (1 - Visual / Plan) x 100 over the items with both a rendered and a planned title chrF.",)
    return Table("MPTc-Bench Fig. 6", tuple(cols), tuple(rows), cells, 1, "chrF 0-100 / %", notes)


def judge_tables(data: MPTcSet, *, judge: Any, **options: Any) -> ProtocolResult:
    """Tables 3 and 4 and Fig. 6 from the judge's answers about every poster.

    ``options`` go to :func:`~transcreval.protocols.mptc.scoring.judged.judge_records`: ``judge_call``
    (``"joint"``, the default: one call returns both scores, as App. A.2's direct-scoring prompt;
    ``"separate"``: one call per score), ``templates``, ``seed``, ``both_orders``, ``n_options``,
    ``genre_labels``, ``decade_labels``, ``batch_size``.
    """
    from transcreval.protocols.mptc.scoring.judged import judge_records, judge_templates

    data = as_set(data, "judge_tables")
    records = judge_records(data, judge=judge, **options)
    idx = RecordIndex(records)
    tables = {"table3": table3(data, idx), "table4": table4(data, idx), "fig6": fig6(data, idx)}
    desc = dict(judge.describe()) if hasattr(judge, "describe") else {}
    call = options.get("judge_call", "joint")
    used = ("title", "quiz", "pairwise", *(("scores",) if call == "joint" else ("aesthetic", "adaptation")))
    tpls = judge_templates(options.get("templates"))
    opts = {"judge": desc, "judge_call": call, "templates": {k: tpls[k].ref for k in used}, **dict(data.options)}
    for k in ("seed", "both_orders", "n_options"):
        if k in options:
            opts[k] = options[k]
    return ProtocolResult("mptc", tuple(records), tables, {}, opts)


def similarity_table(data: MPTcSet, *, batch_size: int = 32, **similarity_options: Any) -> ProtocolResult:
    """Table 5 (CLIP, FID_GT, FID_SRC per task, planner and editor) and per-item ``clip`` records.

    Each (task, system) set goes through :func:`~transcreval.protocols.mptc.similarity_metrics`
    (built with ``similarity_options``: ``clip_model``, ``clip_pretrained``, ``fid_weights``,
    ``fid_preprocess``, ...), over the items with an output, ``batch_size`` items per update. A
    set with fewer than 2 outputs has no FID (the cell is empty and a note says so).
    """
    from transcreval.errors import InputError
    from transcreval.protocols.mptc.scoring.study import similarity_metrics

    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")

    data = as_set(data, "similarity_table")
    cells: dict[tuple[Any, str], Cell] = {}
    records: list[ItemRecord] = []
    notes: list[str] = [TABLE5_NOTE]
    signatures: dict[str, str] = {}
    for s, p, e in data.runs():
        outs = data.run_outputs(s, p, e) or {}
        items = data.split_items(s)
        present = [i for i in items if outs.get(i.item_id) is not None and outs[i.item_id].output is not None]
        have = {i.item_id for i in present}
        head = f"{SPLITS[s]} / {p}"
        meta = {"split": s, "planner": p, "editor": e}
        clip: dict[str, float] = {}
        if present:
            coll = similarity_metrics(**similarity_options)
            for k in range(0, len(present), batch_size):  # bounded memory: the states accumulate
                part = present[k : k + batch_size]
                coll.update(
                    [outs[i.item_id].output for i in part], [i.gt for i in part], source=[i.source for i in part]
                )
            for name, metric in coll.items():
                try:
                    res = metric.compute()
                except UndefinedValueError as exc:
                    notes.append(f"{e} / {head} / {name}: undefined ({exc})")
                    continue
                signatures[name] = str(res.signature)
                if name == "CLIP":
                    clip = dict(zip((i.item_id for i in present), (float(v) for v in res.per_item)))
                    cells[(e, f"{head} / CLIP")] = Cell(res.value, len(present), len(items) - len(present))
                else:
                    cells[(e, f"{head} / {name}")] = Cell(res.value, len(present), len(items) - len(present))
        for i in items:
            v = clip.get(i.item_id, math.nan)
            status = "ok" if not math.isnan(v) else ("missing_output" if i.item_id not in have else "undefined")
            records.append(ItemRecord(i.item_id, system_name(p, e), "clip", v, status, i.item_id, {**i.meta, **meta}))
    return ProtocolResult(
        "mptc", tuple(records), {"table5": table5(data, cells, notes)}, signatures, dict(data.options)
    )


TABLE5_NOTE = "CLIP: 100 x mean cosine of GT and MTc; FID_GT / FID_SRC: set-level distances (lower is closer)."


def table5(data: MPTcSet, cells: Mapping[tuple[Any, str], Cell], notes: Sequence[str] = (TABLE5_NOTE,)) -> Table:
    """Table 5's layout around its cells: rows = editors, columns ``"<Task> / <planner> / CLIP"``,
    ``"FID_GT"``, ``"FID_SRC"`` (used by :func:`similarity_table` and the runner adapter)."""
    cols = [
        f"{SPLITS[s]} / {p} / {h}"
        for s in data.present_splits()
        for p in data.planners
        for h in ("CLIP", "FID_GT", "FID_SRC")
    ]
    return Table(
        "MPTc-Bench Table 5", tuple(cols), tuple(data.editors), dict(cells), 1, "CLIP x100 / FID", tuple(notes)
    )


def merge_results(results: Sequence[ProtocolResult]) -> ProtocolResult:
    """One result from several: records joined (a later record of the same item, system and
    metric replaces an earlier one), tables, figures, signatures and options merged."""
    records: dict[tuple[str, str, str], ItemRecord] = {}
    tables: dict[str, Table] = {}
    figures: dict[str, Table] = {}
    sigs: dict[str, str] = {}
    opts: dict[str, Any] = {}
    for r in results:
        for rec in r.records:
            records[(rec.item_id, rec.system, rec.metric)] = rec
        tables.update(r.tables)
        figures.update(r.figures)
        sigs.update(r.signatures)
        opts.update(r.options)
    return ProtocolResult("mptc", tuple(records.values()), tables, sigs, opts, figures=figures)
