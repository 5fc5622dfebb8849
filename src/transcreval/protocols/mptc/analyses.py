"""MPTc-Bench's analyses: error types (App. B.3), temporal contamination (App. B.4, Table 9) and
the cross-cluster directions (§7.4, Fig. 7).

* :func:`error_type_table`: per system and task, the share of human annotations that flag each
  of the five error types (``garbled_text``, ``wrong_script``, ``layout_collapse``,
  ``non_evidenced_elements``, ``identity_drift``), pooled over annotations as App. B.3 reports
  them (Surface ``wrong_script`` 13.3% = 4 of 30 annotations).
* :func:`temporal_table`: per run (system and task), Spearman's rho of release year against
  the per-sample title chrF, and of year against per-year FID_GT over the years with at least
  ``min_per_year`` outputs; a last row holds the median of each column across runs.
* :func:`cross_cluster_tables`: each item's GLOBE direction; per system, task (and both tasks
  pooled) and direction, the mean (aesthetic, adaptation) location, the win rate and the count
  and win rate at each integer score coordinate (Fig. 7's bubbles).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from transcreval.errors import InputError, UndefinedValueError
from transcreval.protocols.mptc.globe import DIRECTIONS, globe_cluster, transfer_direction
from transcreval.protocols.mptc.inputs import ERROR_TYPES, SPLITS, MPTcItem, MPTcOutput, MPTcSet, as_set, system_name
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table, cell_mean

__all__ = ["cross_cluster_tables", "error_type_table", "temporal_table"]

#: what Fig. 7's two counts are: each column's own n
_COUNTS_NOTE = (
    "n: items with both scores (the means and the bubbles); Win n: items with a win verdict (the win rate's own n)."
)


def error_type_table(data: MPTcSet) -> ProtocolResult:
    """App. B.3 from the outputs' ``error_labels`` (one list of error types per annotation).

    Rows ``(system, Task)`` (Surface first, as Table 8); columns ``Pairs`` (outputs with labels),
    ``Anno.`` (annotations) and one column per error type: the % of annotations that flag it.
    Records: ``error_<type>`` per labelled output, the share of its annotations flagging it
    (``meta["annotations"]`` their number).
    """
    data = as_set(data, "error_type_table")
    records: list[ItemRecord] = []
    rows: list[Any] = []
    cells: dict[tuple[Any, str], Cell] = {}
    for s, p, e in data.runs(("surface", "deep")):
        outs = [o for o in (data.run_outputs(s, p, e) or {}).values() if o.error_labels is not None]
        annotations = [a for o in outs for a in o.error_labels or ()]
        if not annotations:
            continue
        row = (system_name(p, e), SPLITS[s])
        rows.append(row)
        cells[(row, "Pairs")] = Cell(float(len(outs)), len(outs))
        cells[(row, "Anno.")] = Cell(float(len(annotations)), len(annotations))
        for t in ERROR_TYPES:
            flagged = sum(t in a for a in annotations)
            cells[(row, t)] = Cell(100.0 * flagged / len(annotations), len(annotations))
        for o in outs:
            k = len(o.error_labels or ())
            meta = {**data.item(o.item_id).meta, "split": s, "planner": p, "editor": e, "annotations": k}
            for t in ERROR_TYPES:
                v, status = (sum(t in a for a in o.error_labels or ()) / k, "ok") if k else (math.nan, "no_annotations")
                records.append(ItemRecord(o.item_id, o.system, f"error_{t}", v, status, o.item_id, meta))
    if not rows:
        raise InputError("no output record has 'error_labels' with at least one annotation (App. B.3 needs labels)")
    cols = ("Pairs", "Anno.", *ERROR_TYPES)
    dec = {"Pairs": 0, "Anno.": 0, **dict.fromkeys(ERROR_TYPES, 1)}
    note = ("Error-type rates: % of annotations flagging the type (an annotation may flag several).",)
    table = Table("MPTc-Bench App. B.3 error types", cols, tuple(rows), cells, dec, "%", note)
    return ProtocolResult("mptc", tuple(records), {"error_types": table}, {}, dict(data.options))


def _rho(x: Sequence[float], y: Sequence[float]) -> tuple[float, str]:
    from transcreval.functional.stats.spearman import spearman_rho

    try:
        return float(spearman_rho(list(x), list(y)).value), ""
    except UndefinedValueError as exc:
        return math.nan, str(exc)


def temporal_table(
    data: MPTcSet,
    judged: ProtocolResult,
    *,
    min_per_year: int = 5,
    systems: Sequence[tuple[str, str]] | None = None,
    fid_options: Mapping[str, Any] | None = None,
    fid_values: Callable[[Sequence[tuple[MPTcItem, MPTcOutput]]], float] | None = None,
) -> ProtocolResult:
    """Table 9 (App. B.4). ``judged``: the result of :func:`~transcreval.protocols.mptc.judge_tables`
    (its ``title_chrf`` records); ``systems``: the ``(planner, editor)`` pairs to report (default
    all; the paper reports three editors with GPT-4.1 plans); ``fid_options`` go to
    :func:`transcreval.functional.fid` (``weights``, ``preprocess``, ``device``, ...).

    Columns: ``n`` (samples with a year and a title chrF), ``years used`` (years with at least
    ``min_per_year`` outputs), the two rhos. Also returns ``table9_fid_by_year`` (each run's
    per-year FID_GT). ``fid_values(pairs) -> float``, when given, computes a year's FID_GT from its
    ``(item, output)`` pairs instead (the runner passes FID from stored features).
    """
    from transcreval.functional.image.fid import fid

    data = as_set(data, "temporal_table")
    if isinstance(min_per_year, bool) or not isinstance(min_per_year, int) or min_per_year < 2:
        raise InputError(f"min_per_year must be an integer >= 2 (FID needs 2 images), got {min_per_year!r}")
    chrf = {(r.system, r.item_id): r.value for r in judged.records if r.metric == "title_chrf"}
    if not chrf:
        raise InputError("temporal_table needs the title_chrf records of judge_tables(...) in `judged`")
    wanted = set(systems) if systems is not None else None
    cols = ("n", "years used", "ρ(year, title-chrF)", "ρ(year, FID_GT by-year)")
    rows: list[Any] = []
    cells: dict[tuple[Any, str], Cell] = {}
    by_year: dict[tuple[Any, str], Cell] = {}
    year_rows: list[Any] = []
    notes: list[str] = []
    rhos: dict[str, list[float]] = {cols[2]: [], cols[3]: []}
    for p in data.planners:
        for e in data.editors:
            if wanted is not None and (p, e) not in wanted:
                continue
            for s in ("surface", "deep"):
                outs = data.run_outputs(s, p, e)
                if outs is None:
                    continue
                name, row = system_name(p, e), (system_name(p, e), SPLITS[s])
                dated = [(data.item(k), o) for k, o in outs.items() if o.output is not None and data.item(k).year]
                pairs = [(float(i.year or 0), chrf.get((name, i.item_id), math.nan)) for i, _ in dated]
                pairs = [(y, c) for y, c in pairs if not math.isnan(c)]
                r1, why1 = _rho([y for y, _ in pairs], [c for _, c in pairs])
                groups: dict[int, list[Any]] = {}
                for i, o in dated:
                    groups.setdefault(int(i.year or 0), []).append((i, o))
                years = sorted(y for y, g in groups.items() if len(g) >= min_per_year)
                fids = []
                for y in years:
                    g = groups[y]
                    if fid_values is not None:
                        val = fid_values(g)
                    else:
                        val = fid([o.output for _, o in g], [i.gt for i, _ in g], **dict(fid_options or {})).value
                    fids.append(val)
                    by_year[((*row, y), "n")] = Cell(float(len(g)), len(g))
                    by_year[((*row, y), "FID_GT")] = Cell(val, len(g))
                    year_rows.append((*row, y))
                r2, why2 = _rho([float(y) for y in years], fids)
                rows.append(row)
                cells[(row, cols[0])] = Cell(float(len(pairs)), len(pairs))
                cells[(row, cols[1])] = Cell(float(len(years)), len(years))
                cells[(row, cols[2])] = Cell(r1, len(pairs) if why1 == "" else 0)
                cells[(row, cols[3])] = Cell(r2, len(years) if why2 == "" else 0)
                for col, r, why in ((cols[2], r1, why1), (cols[3], r2, why2)):
                    if why:
                        notes.append(f"{row[0]} / {row[1]} {col}: undefined ({why})")
                    else:
                        rhos[col].append(r)
    if not rows:
        raise InputError("temporal_table: no run to report (check systems= and that the outputs exist)")
    rows.append("Median across runs")
    for col, vals in rhos.items():
        cells[("Median across runs", col)] = Cell(statistics.median(vals), len(vals)) if vals else Cell(math.nan, 0)
    dec = {"n": 0, "years used": 0, cols[2]: 3, cols[3]: 3}
    notes.insert(0, f"Spearman rho; per-year FID_GT over years with >= {min_per_year} outputs; lower FID is closer.")
    t9 = Table("MPTc-Bench Table 9", cols, tuple(rows), cells, dec, "rho", tuple(notes))
    t9y = Table("MPTc-Bench Table 9 per-year FID_GT", ("n", "FID_GT"), tuple(year_rows), by_year, {"n": 0, "FID_GT": 1})
    opts = {**dict(data.options), "min_per_year": min_per_year}
    return ProtocolResult("mptc", (), {"table9": t9, "table9_fid_by_year": t9y}, {}, opts)


def cross_cluster_tables(
    data: MPTcSet, judged: ProtocolResult, *, clusters: Mapping[str, str] | None = None
) -> ProtocolResult:
    """§7.4 / Fig. 7 from the ``aesthetic``, ``adaptation`` and ``win`` records of
    :func:`~transcreval.protocols.mptc.judge_tables`; ``clusters`` adds or overrides market ->
    GLOBE cluster entries (see :mod:`~transcreval.protocols.mptc.globe`).

    ``fig7_summary``: rows ``(system, Task, direction)`` with Task in Deep, Surface and
    Deep+Surface; columns ``n`` (items with both scores), ``Aes. mean``, ``Adap. mean`` (the black
    ring), ``Win rate`` (0-1, ties half) and ``Win n`` (the items with a win verdict: the win
    rate's own n, which differs from ``n`` when an item has a verdict but not both scores, or the
    reverse). ``fig7_points``: rows ``(system, Task, direction, "(aes, adap)")``; columns ``n``
    (bubble size), ``Win rate`` (colour) and ``Win n``. Records: the judged records with
    ``source_cluster``, ``target_cluster`` and ``direction`` added to their meta.
    """
    data = as_set(data, "cross_cluster_tables")
    direction: dict[str, tuple[str, str, str]] = {}
    for it in data.items:
        a, b = globe_cluster(it.source_market, clusters), globe_cluster(it.target_market, clusters)
        direction[it.item_id] = (a, b, transfer_direction(a, b))
    keep = ("aesthetic", "adaptation", "win")
    vals: dict[tuple[str, str], dict[str, float]] = {}
    records = []
    for r in judged.records:
        if r.metric in keep and r.system != "GT" and r.item_id in direction:
            a, b, d = direction[r.item_id]
            records.append(
                ItemRecord(
                    r.item_id,
                    r.system,
                    r.metric,
                    r.value,
                    r.status,
                    r.group,
                    {**r.meta, "source_cluster": a, "target_cluster": b, "direction": d},
                )
            )
            vals.setdefault((r.system, r.item_id), {})[r.metric] = r.value
    if not vals:
        raise InputError("cross_cluster_tables needs the aesthetic/adaptation/win records of judge_tables(...)")
    s_rows: list[Any] = []
    p_rows: list[Any] = []
    s_cells: dict[tuple[Any, str], Cell] = {}
    p_cells: dict[tuple[Any, str], Cell] = {}
    for p in data.planners:
        for e in data.editors:
            name = system_name(p, e)
            ran = [s for s in ("deep", "surface") if data.run_outputs(s, p, e) is not None]
            tasks = [(SPLITS[s], [s]) for s in ran] + ([("Deep+Surface", ran)] if len(ran) > 1 else [])
            for label, splits in tasks:
                for d in DIRECTIONS:
                    ids = [i.item_id for s in splits for i in data.split_items(s) if direction[i.item_id][2] == d]
                    got = [vals.get((name, i), {}) for i in ids]
                    row = (name, label, d)
                    s_rows.append(row)
                    both = [
                        g for g in got if not math.isnan(g.get("aesthetic", math.nan) + g.get("adaptation", math.nan))
                    ]
                    s_cells[(row, "n")] = Cell(float(len(both)), len(both), len(ids) - len(both))
                    s_cells[(row, "Aes. mean")] = cell_mean(g["aesthetic"] for g in both)
                    s_cells[(row, "Adap. mean")] = cell_mean(g["adaptation"] for g in both)
                    s_cells[(row, "Win rate")] = win = cell_mean(g.get("win", math.nan) for g in got)
                    s_cells[(row, "Win n")] = Cell(float(win.n), win.n, win.n_missing)
                    points: dict[tuple[int, int], list[float]] = {}
                    for g in both:
                        points.setdefault((int(g["aesthetic"]), int(g["adaptation"])), []).append(
                            g.get("win", math.nan)
                        )
                    for (aes, adap), wins in sorted(points.items()):
                        prow = (*row, f"({aes}, {adap})")
                        p_rows.append(prow)
                        p_cells[(prow, "n")] = Cell(float(len(wins)), len(wins))
                        p_cells[(prow, "Win rate")] = pwin = cell_mean(wins)
                        p_cells[(prow, "Win n")] = Cell(float(pwin.n), pwin.n, pwin.n_missing)
    other = sum(v[2] == "Other" for v in direction.values())
    notes = (
        "Western = Anglo, Latin/Germanic/Nordic/Eastern Europe; Asian = Confucian Asia, Southern Asia (§7.4).",
        f"{other} item(s) in no Fig. 7 direction (other cluster pairs) are left out.",
    )
    summary = Table(
        "MPTc-Bench Fig. 7 (summary)",
        ("n", "Aes. mean", "Adap. mean", "Win rate", "Win n"),
        tuple(s_rows),
        s_cells,
        {"n": 0, "Aes. mean": 2, "Adap. mean": 2, "Win rate": 3, "Win n": 0},
        "scores 1-5, win rate 0-1",
        (*notes, _COUNTS_NOTE),
    )
    points_t = Table(
        "MPTc-Bench Fig. 7 (score coordinates)",
        ("n", "Win rate", "Win n"),
        tuple(p_rows),
        p_cells,
        {"n": 0, "Win rate": 3, "Win n": 0},
        "win rate 0-1",
        (notes[0], _COUNTS_NOTE),
    )
    opts = {**dict(data.options), "directions": {k: v[2] for k, v in direction.items()}}
    return ProtocolResult("mptc", tuple(records), {"fig7_summary": summary, "fig7_points": points_t}, {}, opts)
