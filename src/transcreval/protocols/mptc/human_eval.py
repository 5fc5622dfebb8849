"""MPTc-Bench's human evaluation (App. B.3): Table 8 and the agreement figures of its text.

:func:`human_table` reads the ratings (:mod:`~transcreval.protocols.mptc.ratings`) and, per
system and split (Surface first, as Table 8):

* ``table8``: ``Pairs`` (items rated), ``Anno.`` (annotations), ``Aesthetic`` and ``Adaptation``
  (mean human score over the annotations, 2 decimals) and ``Win rate`` (share of annotations
  preferring MTc to GT, a tie counting half, in % with 1 decimal). The published numbers fit
  pooling over annotations: Surface 4.33 x 30 = 130 and 60.0% = 18 of 30 annotations;
* ``table8_agreement``: ``QWK Aesthetic`` / ``QWK Adaptation``, the inter-annotator quadratic
  weighted kappa as a mean over annotator pairs (each pair's kappa over the items both rated,
  on the whole scale), and, given a run's judge records, ``ρ Aesthetic`` / ``ρ Adaptation``:
  Spearman's rho between each item's mean human score and the LLM judge's score.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from typing import Any

from transcreval.errors import InputError, UndefinedValueError
from transcreval.protocols.mptc.inputs import SPLITS
from transcreval.protocols.mptc.ratings import HumanRating, read_ratings
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table, cell_mean

__all__ = ["AGREEMENT_COLUMNS", "SCORES", "TABLE8_COLUMNS", "human_table"]

#: the columns of Table 8, as the paper prints them
TABLE8_COLUMNS = ("Pairs", "Anno.", "Aesthetic", "Adaptation", "Win rate")
#: the columns of the agreement table (App. B.3's text)
AGREEMENT_COLUMNS = ("QWK Aesthetic", "QWK Adaptation", "ρ Aesthetic", "ρ Adaptation")
#: the scores rated by humans and by the judge (the judge records' metric names)
SCORES = ("aesthetic", "adaptation")


def _judge_scores(judge: Any, rated: Sequence[HumanRating]) -> dict[tuple[str, str, str], ItemRecord]:
    """``{(system, item id, score): record}`` of the judge's aesthetic/adaptation records."""
    records = judge.records if isinstance(judge, ProtocolResult) else judge
    if not isinstance(records, Iterable) or isinstance(records, (str, bytes)):
        raise InputError(f"judge must be a ProtocolResult or a list of ItemRecords, not a {type(judge).__name__}")
    out: dict[tuple[str, str, str], ItemRecord] = {}
    for r in records:
        if not isinstance(r, ItemRecord):
            raise InputError(f"judge holds a {type(r).__name__}; pass mptc.judge_tables' result or its records")
        if r.metric in SCORES:
            out[(r.system, r.item_id, r.metric)] = r
    if not out:
        raise InputError(
            "judge holds no 'aesthetic' or 'adaptation' records; pass the result of mptc.judge_tables (or of "
            "`transcreval evaluate -p mptc`) or its records"
        )
    systems = sorted({s for s, _, _ in out})
    for r in rated:
        if not any(s == r.system for s in systems):
            raise InputError(
                f"{r.where}: system {r.system!r} has no judge records; the judge records name {systems[:8]} "
                "(name systems in the ratings as the judge records do)"
            )
        for score in SCORES:
            rec = out.get((r.system, r.item_id, score))
            split = rec.meta.get("split") if rec is not None else None
            if isinstance(split, str) and split.lower() != r.split:
                raise InputError(
                    f"{r.where}: item {r.item_id!r} is {r.split!r} in the ratings but {split!r} in the judge records"
                )
    return out


def _qwk_mean(rows: Sequence[HumanRating], score: str, scale: Sequence[float], label: str) -> tuple[Cell, list[str]]:
    """The mean over annotator pairs of their QWK on the items both scored, and notes on the
    pairs left out."""
    from transcreval.functional.stats.kappa import quadratic_weighted_kappa

    by: dict[str, dict[str, float]] = {}
    for r in rows:
        v = getattr(r, score)
        if not math.isnan(v):
            by.setdefault(r.annotator, {})[r.item_id] = v
    kappas, notes = [], []
    pairs = list(itertools.combinations(sorted(by), 2))
    for a, b in pairs:
        common = sorted(set(by[a]) & set(by[b]))
        why = ""
        if len(common) < 2:
            why = f"{len(common)} item(s) scored by both"
        else:
            try:
                kappas.append(
                    quadratic_weighted_kappa([by[a][i] for i in common], [by[b][i] for i in common], labels=scale).value
                )
            except UndefinedValueError:
                why = "both give one and the same score throughout"
        if why:
            notes.append(f"{label}: {score} QWK of annotators {a!r} and {b!r} left out ({why})")
    if not pairs:
        notes.append(f"{label}: no {score} QWK (fewer than 2 annotators scored {score})")
    if not kappas:
        return Cell(math.nan, 0, len(pairs)), notes
    return Cell(math.fsum(kappas) / len(kappas), len(kappas), len(pairs) - len(kappas)), notes


def _rho(
    items: dict[str, dict[str, float]],
    judged: dict[tuple[str, str, str], ItemRecord],
    system: str,
    score: str,
    label: str,
) -> tuple[Cell, list[str]]:
    """Spearman's rho between each item's mean human score and the judge's score."""
    from transcreval.functional.stats.spearman import spearman_rho

    human, model, lacking = [], [], []
    for item_id, scores in items.items():
        vals = [v for v in scores.values() if not math.isnan(v)]
        rec = judged.get((system, item_id, score))
        if not vals:
            continue
        if rec is None or not rec.ok:
            lacking.append(f"{item_id} ({'no record' if rec is None else rec.status})")
            continue
        human.append(math.fsum(vals) / len(vals))
        model.append(rec.value)
    notes = []
    if lacking:
        notes.append(
            f"{label}: ρ {score} leaves out {len(lacking)} item(s) without a judge score: {', '.join(lacking[:5])}"
        )
    try:
        return Cell(float(spearman_rho(human, model).value), len(human), len(lacking)), notes
    except UndefinedValueError as e:
        return Cell(math.nan, 0, len(human) + len(lacking)), [*notes, f"{label}: ρ {score} undefined ({e})"]


def human_table(
    ratings: Any,
    *,
    judge: Any = None,
    scale: Sequence[float] = (1, 2, 3, 4, 5),
) -> ProtocolResult:
    """MPTc-Bench Table 8 and its agreement figures from human ratings (App. B.3).

    Args:
        ratings: a ``.csv`` or ``.jsonl`` ratings file, or a list of mappings, one row per
            annotation with the fields ``item_id, split, system, annotator, aesthetic,
            adaptation, choice`` (:mod:`~transcreval.protocols.mptc.ratings`; docs/protocols/mptc.md).
        judge: a run's judge records (the :class:`ProtocolResult` of :func:`~transcreval.protocols.mptc.judge_tables`
            or of ``transcreval evaluate -p mptc``, or its records): adds Spearman's rho between
            human and judge scores. Each rated system must have judge records under the same
            name; a rated item without an ``ok`` judge score is left out of rho and named in a note.
        scale: the scores a rating may take (the judge's 1-5 by default); QWK weighs on it.

    Returns:
        A :class:`ProtocolResult` with tables ``table8`` and ``table8_agreement`` (rows
        ``(system, Split)``, Surface first) and per rated item and system the records
        ``human_aesthetic``, ``human_adaptation`` (mean over its annotators) and ``human_win``
        (mean of their choices, 0-1); ``meta["annotations"]`` counts the rows behind each.
        Blank ratings are left out of their column, each counted in the table's notes.
    """
    rows = read_ratings(ratings, scale=scale)
    judged = _judge_scores(judge, rows) if judge is not None else None
    systems = list(dict.fromkeys(r.system for r in rows))
    t8: dict[tuple[Any, str], Cell] = {}
    agree: dict[tuple[Any, str], Cell] = {}
    keys: list[Any] = []
    notes8: list[str] = []
    notes_agree: list[str] = []
    records: list[ItemRecord] = []
    for split in ("surface", "deep"):
        for system in systems:
            mine = [r for r in rows if r.system == system and r.split == split]
            if not mine:
                continue
            row = (system, SPLITS[split])
            label = " / ".join(row)
            keys.append(row)
            items: dict[str, list[HumanRating]] = {}
            for r in mine:
                items.setdefault(r.item_id, []).append(r)
            t8[(row, "Pairs")] = Cell(float(len(items)), len(items))
            t8[(row, "Anno.")] = Cell(float(len(mine)), len(mine))
            for column, attr, scale_by in (
                ("Aesthetic", "aesthetic", 1.0),
                ("Adaptation", "adaptation", 1.0),
                ("Win rate", "win", 100.0),
            ):
                t8[(row, column)] = cell_mean((getattr(r, attr) for r in mine), scale_by)
                blank = [r.where for r in mine if math.isnan(getattr(r, attr))]
                if blank:
                    what = {"win": "a choice", "aesthetic": "an aesthetic score", "adaptation": "an adaptation score"}
                    first = ", ".join(blank[:3])
                    notes8.append(f"{label}: {len(blank)} annotation(s) without {what[attr]}, left out: {first}")
            for score in SCORES:
                cell, more = _qwk_mean(mine, score, scale, label)
                agree[(row, f"QWK {score.capitalize()}")] = cell
                notes_agree += more
            per_item = {i: {r.annotator: r for r in rs} for i, rs in items.items()}
            if judged is not None:
                for score in SCORES:
                    scores = {i: {a: getattr(r, score) for a, r in rs.items()} for i, rs in per_item.items()}
                    cell, more = _rho(scores, judged, system, score, label)
                    agree[(row, f"ρ {score.capitalize()}")] = cell
                    notes_agree += more
            for item_id, rs in per_item.items():
                meta = {"split": split, "annotations": len(rs)}
                for metric, attr in (
                    ("human_aesthetic", "aesthetic"),
                    ("human_adaptation", "adaptation"),
                    ("human_win", "win"),
                ):
                    vals = [getattr(r, attr) for r in rs.values() if not math.isnan(getattr(r, attr))]
                    value, status = (math.fsum(vals) / len(vals), "ok") if vals else (math.nan, "not_rated")
                    records.append(ItemRecord(item_id, system, metric, value, status, item_id, meta))
    table8 = Table(
        "MPTc-Bench Table 8 (human evaluation)",
        TABLE8_COLUMNS,
        tuple(keys),
        t8,
        {"Pairs": 0, "Anno.": 0, "Aesthetic": 2, "Adaptation": 2, "Win rate": 1},
        "1-5 / %",
        (
            "Pairs: items rated; Anno.: human annotations; Aesthetic/Adaptation: mean human score over the "
            "annotations; Win rate: % of annotations preferring MTc to GT (a tie counts half).",
            *notes8,
        ),
    )
    agreement_notes = [
        "QWK: inter-annotator quadratic weighted kappa on the scale "
        f"{list(scale)}, the mean over annotator pairs (each over the items both scored); n = annotator pairs.",
        "ρ: Spearman's rho between each item's mean human score and the LLM judge's score; n = items."
        if judged is not None
        else "ρ: pass judge= (the run's judge records) for the human-LLM Spearman rho.",
        *notes_agree,
    ]
    table_agree = Table(
        "MPTc-Bench App. B.3 human agreement",
        AGREEMENT_COLUMNS,
        tuple(keys),
        agree,
        2,
        "QWK / ρ",
        tuple(agreement_notes),
    )
    options = {"scale": [float(v) for v in scale], "judge": judged is not None}
    return ProtocolResult("mptc", tuple(records), {"table8": table8, "table8_agreement": table_agree}, {}, options)
