"""Khanuja et al. Table 3 from per-item values and human ratings (no model, no judge call).

:func:`table3_tables` is the one path from per-item values to Table 3: given, per (row, column),
each system's metric value and human rating on each image (:class:`Pair`), it computes the
segment-level Kendall tau cells per country, averaged, and per category (the paper's footnote 5).
:func:`table3_result` is the second half of both entries, the Python
:func:`~transcreval.protocols.khanuja.pipeline.evaluate` and the runner adapter
(:mod:`transcreval.protocols.khanuja.runner`, on stored scores): the records, Table 3 through
:func:`table3_tables`, and Table 1. Both name their metric rows with :func:`object_row`,
:func:`embedding_row` and :func:`vlm_row`.
:func:`~transcreval.protocols.khanuja.meta.meta_evaluate` feeds any metric's scores to
:func:`table3_tables`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from transcreval.errors import UndefinedValueError
from transcreval.protocols.khanuja.inputs import (
    COLUMNS,
    RATING_COLUMNS,
    KhanujaItem,
    country_prompt_names,
    parse_image_key,
)
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table

__all__ = [
    "ASPECT_COLUMNS",
    "EMBEDDING_COLUMNS",
    "KINDS",
    "SKIP_NOTE",
    "VISUAL_SIGNS",
    "Pair",
    "TableRow",
    "embedding_row",
    "human_record",
    "item_meta",
    "object_row",
    "table3_result",
    "table3_tables",
    "vlm_row",
]

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
#: how every Table 3 cell counts its images
SKIP_NOTE = (
    "segment-level Kendall tau-b per image across systems; images with a missing metric value, one metric "
    "value for all systems or one human rating for all systems are skipped, and a blank human rating leaves "
    "that system out of its image (n = images used, missing = images skipped)"
)

#: a metric row of Table 3: ``((kind label, row label), kind, {column: record metric})``
TableRow = tuple[tuple[str, str], str, dict[str, str]]


def object_row(label: str) -> TableRow:
    """The object-based row: CSI-Overlap's one value per item against every column."""
    return (KINDS["object"], label), "object", dict.fromkeys(COLUMNS, "csi_overlap")


def embedding_row(label: str) -> TableRow:
    """The embedding-based row: :data:`EMBEDDING_COLUMNS`."""
    return (KINDS["embedding"], label), "embedding", dict(EMBEDDING_COLUMNS)


def vlm_row(label: str) -> TableRow:
    """The VLM-based row of the judge labelled ``label``: its aspect per column (:data:`ASPECT_COLUMNS`)."""
    return (KINDS["vlm"], label), "vlm", {c: f"vlm_{a}[{label}]" for c, a in ASPECT_COLUMNS.items()}


@dataclass(frozen=True)
class Pair:
    """One system's metric value and human rating on one image: what a Table 3 cell correlates.

    ``metric`` is NaN where the metric has no value (an unreadable answer, a missing score): the
    image is skipped. ``human`` is NaN for a blank rating: that system leaves the image.
    """

    country: str
    image: str
    category: str
    metric: float
    human: float


def item_meta(country: str, image: str, category: str) -> dict[str, str]:
    """The records' ``meta`` of an image: country, image key, its source, category and object."""
    key = parse_image_key(image)
    return {"country": country, "image": image, "source": key.source, "category": category, "object": key.object}


def human_record(item_id: str, system: str, column: str, rating: float, meta: Mapping[str, Any]) -> ItemRecord:
    """The record of one human rating (metric ``human_<question>``; status ``"missing"`` if blank)."""
    status = "ok" if rating == rating else "missing"
    return ItemRecord(item_id, system, f"human_{RATING_COLUMNS[column]}", rating, status, item_id, meta)


def _tau(pairs: Sequence[Pair], o: Mapping[str, Any], by_country: bool) -> tuple[Cell, str]:
    from transcreval.functional.stats.kendall import segment_kendall_tau

    segments = {(p.country, p.image) for p in pairs}
    rated = [p for p in pairs if not math.isnan(p.human)]
    if not rated:
        return Cell(math.nan, 0, len(segments)), ""
    try:
        res = segment_kendall_tau(
            [p.metric for p in rated],
            [p.human for p in rated],
            [f"{p.country}/{p.image}" for p in rated],
            [p.country for p in rated] if by_country else None,
            bootstrap=o["bootstrap"],
            seed=o["seed"],
        )
    except UndefinedValueError:
        return Cell(math.nan, 0, len(segments)), ""
    ci = res.extras.get("ci")
    used = int(res.extras["used"])
    return Cell(res.value, used, len(segments) - used, tuple(ci) if ci else None), str(res.signature)


def table3_tables(
    cells: Mapping[tuple[Any, str], Sequence[Pair]],
    rows: Sequence[Any],
    o: Mapping[str, Any],
    notes: Sequence[str] = (),
    countries: Sequence[str] | None = None,
) -> tuple[dict[str, Table], str]:
    """Table 3 averaged (``table3``), per country (``table3_<country>``) and per category
    (``table3_by_category``, rows ``(*row, category)``), and the Kendall tau's signature ("" if
    no tau was computed).

    Per image (segment), Kendall tau-b between the metric values and the human ratings of its
    systems (the skips of :data:`SKIP_NOTE`, by
    :func:`~transcreval.functional.segment_kendall_tau`); per country the mean over its images;
    the average is the mean of the country means (``o["average"] == "countries"``) or of all
    images (``"segments"``); a category's cell is the same average over its images only.

    Args:
        cells: per (row label, column), one :class:`Pair` per system and image.
        rows: the row labels in the table's order.
        o: ``average``, ``bootstrap`` and ``seed`` (a percentile interval per cell from resampled
            images, ``Cell.ci``).
        notes: the caller's notes, after :data:`SKIP_NOTE`.
        countries: the countries that get a table (default: those of the pairs).
    """
    pooled = o["average"] == "countries"
    names = sorted(countries if countries is not None else {p.country for ps in cells.values() for p in ps})
    cats = sorted({p.category for ps in cells.values() for p in ps})
    got: dict[str, dict[tuple[Any, str], Cell]] = {c: {} for c in [*names, "all"]}
    by_cat: dict[tuple[Any, str], Cell] = {}
    sig = ""
    for (row, col), pairs in cells.items():
        for c in names:
            got[c][(row, col)] = _tau([p for p in pairs if p.country == c], o, False)[0]
        got["all"][(row, col)], s = _tau(pairs, o, pooled)
        sig = s or sig
        for cat in cats:
            sub = [p for p in pairs if p.category == cat]
            if sub:
                by_cat[(_with(row, cat), col)] = _tau(sub, o, pooled)[0]
    avg = "mean over countries of the per-country means" if pooled else "mean over all images"
    all_notes = (SKIP_NOTE, *notes)
    labels = tuple(rows)

    def table(name: str, rows_: tuple[Any, ...], cells_: Mapping[tuple[Any, str], Cell]) -> Table:
        return Table(name, COLUMNS, rows_, cells_, 2, "Kendall tau-b", all_notes)

    tables = {
        "table3": table(f"Khanuja et al. Table 3 ({avg})", labels, got["all"]),
        **{f"table3_{c}": table(f"Khanuja et al. Table 3 ({c})", labels, got[c]) for c in names},
        "table3_by_category": table(
            f"Khanuja et al. Table 3 by category (footnote 5; {avg})",
            tuple(_with(r, cat) for r in labels for cat in cats),
            by_cat,
        ),
    }
    return tables, sig


def _with(row: Any, category: str) -> tuple[Any, ...]:
    return (*row, category) if isinstance(row, tuple) else (row, category)


def table3_result(
    items: Sequence[KhanujaItem],
    cats: Sequence[str],
    human: Mapping[str, Sequence[float]],
    scores: Mapping[str, tuple[Sequence[float], Sequence[str]]],
    signatures: dict[str, str],
    table_rows: Sequence[TableRow],
    o: Mapping[str, Any],
    signs: Mapping[str, int],
) -> ProtocolResult:
    """Records, Table 3 (averaged, per country and by category, by :func:`table3_tables`) and Table 1.

    Args:
        items, cats: the items and their categories (:func:`~transcreval.protocols.khanuja.inputs.check_items`).
        human: per column (``COLUMNS``), the human rating of each item (NaN: blank).
        scores: per metric, the values and statuses of each item (in ``items`` order).
        signatures: per metric, its signature (the Kendall tau's is added).
        table_rows: the metric rows in the table's order (:func:`object_row`, :func:`embedding_row`,
            :func:`vlm_row`).
        o: the options of :func:`~transcreval.protocols.khanuja.pipeline.evaluate`; ``signs``: the
            visual-change signs (:func:`~transcreval.protocols.khanuja.options.check_options`).
    """
    countries = sorted({it.country for it in items})
    vlm_cultural = o["vlm_cultural"]
    names = country_prompt_names(countries, o.get("country_names"))
    records = []
    for i, it in enumerate(items):
        meta = item_meta(it.country, it.image, cats[i])
        for m, (vals, st) in scores.items():
            records.append(ItemRecord(it.item_id, it.system, m, vals[i], st[i], it.item_id, meta))
        records += [human_record(it.item_id, it.system, col, human[col][i], meta) for col in COLUMNS]

    def metric_values(kind: str, col: str, m: str) -> list[float]:
        vals = scores[m][0]
        if kind == "vlm" and col == "cult-rel" and vlm_cultural == "delta":
            vals = [a - b for a, b in zip(vals, scores[m.replace("vlm_cultural", "vlm_cultural_source")][0])]
        sign = signs[kind] if col == "vis-sim" else 1
        return [sign * v for v in vals]

    cells = {
        (row, col): [
            Pair(it.country, it.image, cats[i], v, h)
            for i, (it, v, h) in enumerate(zip(items, metric_values(kind, col, m), human[col]))
        ]
        for row, kind, cols in table_rows
        for col, m in cols.items()
    }
    labels = tuple(r for r, _, _ in table_rows)
    notes = (
        "vis-sim: human visual-change ratings (5 = high change) against each metric oriented as change "
        f"(signs {dict(signs)}: S_v-s negated by default)",
        f"cult-rel of VLM rows: the {'output minus source' if vlm_cultural == 'delta' else 'output'} cultural score",
    )
    tables, sig = table3_tables(cells, labels, o, notes, countries)
    if sig:
        signatures["segment_kendall_tau"] = sig
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
