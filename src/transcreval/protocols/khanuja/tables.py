"""Khanuja et al. Tables 3 and 1 from per-item scores and human ratings (no model, no judge call).

:func:`table3_result` is the second half of :func:`~transcreval.protocols.khanuja.khanuja_table3`:
given each item's metric values (with statuses) and human ratings, it builds the records, the
segment-level Kendall tau cells per country and averaged, and Table 1. The runner adapter
(:mod:`transcreval.protocols.khanuja.runner`) calls it on stored scores.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from transcreval.errors import UndefinedValueError
from transcreval.protocols.khanuja.inputs import COLUMNS, RATING_FILES, KhanujaItem, parse_image_key
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table

__all__ = ["ASPECT_COLUMNS", "EMBEDDING_COLUMNS", "KINDS", "VISUAL_SIGNS", "table3_result"]

#: the sign of each row's metric against the human visual-change ratings (5 = high change)
VISUAL_SIGNS = {"object": 1, "embedding": -1, "vlm": 1}
#: row kinds as Table 3 labels them
KINDS = {"object": "Object-based", "embedding": "Embedding-based", "vlm": "VLM-based"}
#: the embedding row's metric per column
EMBEDDING_COLUMNS = {
    "cult-rel": "cultural_relevance_delta",
    "sem-eq": "semantic_equivalence",
    "vis-sim": "visual_similarity",
}
#: the VLM rows' aspect per column
ASPECT_COLUMNS = {"cult-rel": "cultural", "sem-eq": "intent", "vis-sim": "creativity"}


def _tau(rows: list[tuple[float, float, str, str]], o: Mapping[str, Any], by_country: bool) -> tuple[Cell, str]:
    from transcreval.functional.stats.kendall import segment_kendall_tau

    segs = {r[2] for r in rows}
    try:
        res = segment_kendall_tau(
            [r[0] for r in rows],
            [r[1] for r in rows],
            [r[2] for r in rows],
            [r[3] for r in rows] if by_country else None,
            bootstrap=o["bootstrap"],
            seed=o["seed"],
        )
    except UndefinedValueError:
        return Cell(math.nan, 0, len(segs)), ""
    ci = res.extras.get("ci")
    used, skipped = int(res.extras["used"]), sum(res.extras["skipped"].values())
    return Cell(res.value, used, skipped, tuple(ci) if ci else None), str(res.signature)


def table3_result(
    items: Sequence[KhanujaItem],
    cats: Sequence[str],
    human: Mapping[str, Sequence[float]],
    scores: Mapping[str, tuple[Sequence[float], Sequence[str]]],
    signatures: dict[str, str],
    table_rows: Sequence[tuple[tuple[str, str], str, Mapping[str, str]]],
    o: Mapping[str, Any],
    signs: Mapping[str, int],
) -> ProtocolResult:
    """Records, Table 3 (per country and averaged) and Table 1.

    Args:
        items, cats: the items and their categories (:func:`~transcreval.protocols.khanuja.inputs.check_items`).
        human: per column (``COLUMNS``), the human rating of each item (NaN: blank).
        scores: per metric, the values and statuses of each item (in ``items`` order).
        signatures: per metric, its signature (the Kendall tau's is added).
        table_rows: ``((kind label, row label), kind, {column: metric})`` in the table's order.
        o: the options of :func:`~transcreval.protocols.khanuja.khanuja_table3`; ``signs``: the
            visual-change signs (:func:`~transcreval.protocols.khanuja.check_options`).
    """
    countries = sorted({it.country for it in items})
    vlm_cultural, average = o["vlm_cultural"], o["average"]
    names = {c: (o.get("country_names") or {}).get(c, c.capitalize()) for c in countries}
    records = []
    for i, it in enumerate(items):
        key = parse_image_key(it.image)
        meta = {
            "country": it.country,
            "image": it.image,
            "source": key.source,
            "category": cats[i],
            "object": key.object,
        }
        for m, (vals, st) in scores.items():
            records.append(ItemRecord(it.item_id, it.system, m, vals[i], st[i], it.item_id, meta))
        for col in COLUMNS:
            h = human[col][i]
            records.append(
                ItemRecord(
                    it.item_id,
                    it.system,
                    f"human_{RATING_FILES[col]}",
                    h,
                    "ok" if h == h else "missing",
                    it.item_id,
                    meta,
                )
            )

    def metric_values(kind: str, col: str, m: str) -> list[float]:
        vals = scores[m][0]
        if kind == "vlm" and col == "cult-rel" and vlm_cultural == "delta":
            vals = [a - b for a, b in zip(vals, scores[m.replace("vlm_cultural", "vlm_cultural_source")][0])]
        sign = signs[kind] if col == "vis-sim" else 1
        return [sign * v for v in vals]

    cells: dict[str, dict[tuple[Any, str], Cell]] = {c: {} for c in [*countries, "all"]}
    for row, kind, cols in table_rows:
        for col, m in cols.items():
            vals = metric_values(kind, col, m)
            rows = [(v, h, it.item_id, it.country) for v, h, it in zip(vals, human[col], items) if h == h]
            for c in countries:
                cells[c][(row, col)] = _tau([r for r in rows if r[3] == c], o, False)[0]
            cells["all"][(row, col)], sig = _tau(rows, o, average == "countries")
            signatures.update({"segment_kendall_tau": sig} if sig else {})
    labels = tuple(r for r, _, _ in table_rows)
    notes = (
        "segment-level Kendall tau-b per image across systems; images with a missing metric value, one metric "
        "value for all systems or one human rating for all systems are skipped (n = images used, missing = skipped)",
        "vis-sim: human visual-change ratings (5 = high change) against each metric oriented as change "
        f"(signs {dict(signs)}: S_v-s negated by default)",
        f"cult-rel of VLM rows: the {'output minus source' if vlm_cultural == 'delta' else 'output'} cultural score",
    )
    avg = "mean over countries of the per-country means" if average == "countries" else "mean over all images"
    tables = {
        "table3": Table(f"Khanuja et al. Table 3 ({avg})", COLUMNS, labels, cells["all"], 2, "Kendall tau-b", notes),
        **{
            f"table3_{c}": Table(f"Khanuja et al. Table 3 ({c})", COLUMNS, labels, cells[c], 2, "Kendall tau-b", notes)
            for c in countries
        },
    }
    counts = {c: len({it.image for it in items if it.country == c}) for c in countries}
    t1 = {(c, "Images"): Cell(float(n), n) for c, n in counts.items()}
    t1[("Total", "Images")] = Cell(float(sum(counts.values())), sum(counts.values()))
    tables["table1"] = Table(
        "Khanuja et al. Table 1 (images per target country)", ("Images",), (*countries, "Total"), t1, 0
    )
    options = {
        k: v
        for k, v in o.items()
        if k not in ("items", "ratings", "vlm_judges", "object_judge", "embedding", "vlm_templates", "csi_templates")
    }
    options.update(visual_signs=signs, country_names=names, rows=[list(r) for r in labels])
    return ProtocolResult("khanuja", tuple(records), tables, signatures, options)
