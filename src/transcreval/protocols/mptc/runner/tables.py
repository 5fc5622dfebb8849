"""MPTc-Bench's tables from a run's stored records and payloads (no model, no judge call).

The same table builders as :func:`~transcreval.protocols.mptc.evaluate` (Tables 3-4 and Fig. 6
from the judge records, Fig. 7, Table 9, App. B.3, Tables 5 and 10 around their cells), with
FID computed from the Inception features each item stored (:mod:`transcreval.protocols.stored_features`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from transcreval.errors import UndefinedValueError
from transcreval.protocols.adapter import RunData
from transcreval.protocols.mptc.analyses import cross_cluster_tables, error_type_table, temporal_table
from transcreval.protocols.mptc.figures import set_figures
from transcreval.protocols.mptc.inputs import SPLITS, MPTcSet, system_name
from transcreval.protocols.mptc.ocr_tables import ocr_label, table10_from_ious
from transcreval.protocols.mptc.scoring.judged import JUDGE_METRICS
from transcreval.protocols.mptc.tables import TABLE5_NOTE, RecordIndex, fig6, table3, table4, table5
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table

__all__ = ["build_tables", "win_matrix"]


def win_matrix(data: MPTcSet, idx: RecordIndex) -> Table:
    """Win% over GT as rows ``(planner, editor)`` x columns = tasks (the report's matrix figure)."""
    cols = tuple(SPLITS[s] for s in data.present_splits())
    rows: list[Any] = []
    cells: dict[tuple[Any, str], Cell] = {}
    for p in data.planners:
        for e in data.editors:
            row = (p, e)
            for s in data.present_splits():
                if data.run_outputs(s, p, e) is None:
                    continue
                ids = [i.item_id for i in data.split_items(s)]
                got = idx.cell(system_name(p, e), "win", ids, 100.0)
                if got is not None:
                    cells[(row, SPLITS[s])] = got
            if any(k[0] == row for k in cells):
                rows.append(row)
    return Table("MPTc-Bench Win% over GT", cols, tuple(rows), cells, 1, "%")


def _rows(data: RunData, runner: str, unit: str, ids: Sequence[str], key: str) -> list[Any]:
    from transcreval.protocols.stored_features import unpack

    out = []
    for i in ids:
        p = data.payload(runner, unit, i)
        if p and key in p:
            out.append(unpack(p[key]))
    return out


def _fid(data: RunData, runner: str, ids: Sequence[str], real: str) -> float:
    from transcreval.protocols.stored_features import frechet_from_rows

    have = [i for i in ids if (p := data.payload(runner, "fid", i)) and "fake" in p]
    return frechet_from_rows(_rows(data, runner, "fid", have, "fake"), _rows(data, runner, "fid", have, real))


def _table5(mset: MPTcSet, idx: RecordIndex, data: RunData, names: Mapping[str, str]) -> Table:
    cells: dict[tuple[Any, str], Cell] = {}
    notes = [TABLE5_NOTE]
    for s, p, e in mset.runs():
        outs = mset.run_outputs(s, p, e) or {}
        items = mset.split_items(s)
        present = [i.item_id for i in items if outs.get(i.item_id) is not None and outs[i.item_id].output is not None]
        name = system_name(p, e)
        head = f"{SPLITS[s]} / {p}"
        if "clip" in data.signatures:
            c = idx.cell(name, "clip", present)
            if c is not None and present:
                cells[(e, f"{head} / CLIP")] = Cell(c.value, c.n, len(items) - c.n)
        if "fid" in data.signatures and present:
            for col, real in (("FID_GT", "gt"), ("FID_SRC", "src")):
                try:
                    v = _fid(data, names[name], present, real)
                    n = len([i for i in present if data.payload(names[name], "fid", i)])
                    cells[(e, f"{head} / {col}")] = Cell(v, n, len(items) - n)
                except UndefinedValueError as exc:
                    notes.append(f"{e} / {head} / {col}: undefined ({exc})")
    return table5(mset, cells, notes)


def _ocr_name(data: RunData) -> str:
    """The OCR as :func:`~transcreval.protocols.mptc.ocr_tables` names it, from the identity the
    ocr unit's signature recorded (the option's backend name for a signature without one)."""
    _, _, payload = data.signatures.get("ocr", "").partition("|")
    try:
        info = json.loads(payload).get("ocr")
    except (ValueError, AttributeError):
        info = None
    return ocr_label(info) if isinstance(info, dict) else str(data.options["ocr_backend"])


def _table10(mset: MPTcSet, idx: RecordIndex, data: RunData) -> Table:
    import torch

    options = data.options
    splits = list(options["ocr_splits"])
    runs = []
    for s, p, e in mset.runs(tuple(splits)):
        outs = mset.run_outputs(s, p, e) or {}
        name = system_name(p, e)
        ids = [i.item_id for i in mset.split_items(s) if outs.get(i.item_id) is not None and outs[i.item_id].output]
        ids = [i for i in ids if idx.values.get((name, "ocr_iou_src_mtc"), {}).get(i) is not None]
        if not ids:
            continue
        a, b = ([idx.get(name, m, i) for i in ids] for m in ("ocr_iou_src_mtc", "ocr_iou_src_gt"))
        label = name if len(splits) == 1 else f"{name} ({s})"
        runs.append((label, torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64)))
    return table10_from_ious(runs, splits, _ocr_name(data), str(options["ocr_resample"]))


def build_tables(
    mset: MPTcSet, records: Sequence[ItemRecord], data: RunData, names: Mapping[str, str]
) -> ProtocolResult:
    """Every table the stored units allow (records use MPTc system names; ``names`` maps them to
    the run's system names)."""
    o = data.options
    sigs = dict(data.signatures)
    tables: dict[str, Table] = {}
    out = {(r.item_id, r.system, r.metric): r for r in records}
    idx = RecordIndex(records)
    if "judge" in sigs:
        tables.update(table3=table3(mset, idx), table4=table4(mset, idx), fig6=fig6(mset, idx))
        tables["win_matrix"] = win_matrix(mset, idx)
        judged = ProtocolResult("mptc", tuple(r for r in records if r.metric in JUDGE_METRICS), {}, {}, {})
        if o["cross_cluster"] and any(r.system != "GT" for r in judged.records):
            cc = cross_cluster_tables(mset, judged, clusters=o["clusters"])
            tables.update(cc.tables)
            out.update({(r.item_id, r.system, r.metric): r for r in cc.records})
        if o["temporal"] and "fid" in sigs:

            def fid_values(pairs: Sequence[tuple[Any, Any]]) -> float:
                runner = names[pairs[0][1].system]
                return _fid(data, runner, [i.item_id for i, _ in pairs], "gt")

            t9 = temporal_table(mset, judged, min_per_year=o["min_per_year"], fid_values=fid_values)
            tables.update(t9.tables)
    if "clip" in sigs or "fid" in sigs:
        tables["table5"] = _table5(mset, idx, data, names)
    if "ocr" in sigs:
        tables["table10"] = _table10(mset, idx, data)
    if any(x.error_labels for x in mset.outputs):
        et = error_type_table(mset)
        tables.update(et.tables)
        out.update({(r.item_id, r.system, r.metric): r for r in et.records})
    opts = {**dict(o), **dict(mset.options)}
    return ProtocolResult("mptc", tuple(out.values()), tables, sigs, opts, figures=set_figures(mset, o["clusters"]))
