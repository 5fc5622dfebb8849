"""Khanuja et al.'s Table 3 for any metric: :func:`meta_evaluate`.

A metric researcher's per-item scores (:mod:`~transcreval.protocols.khanuja.score_rows`) are joined
with the authors' human ratings (:func:`~transcreval.protocols.khanuja.ratings.read_human_ratings`)
and correlated by :func:`~transcreval.protocols.khanuja.tables.table3_tables`, the same path
:func:`~transcreval.protocols.khanuja.pipeline.evaluate` takes with its own metrics.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.khanuja.inputs import COLUMNS, RatingSheet, parse_image_key
from transcreval.protocols.khanuja.ratings import read_human_ratings
from transcreval.protocols.khanuja.score_rows import read_scores
from transcreval.protocols.khanuja.tables import Pair, human_record, item_meta, table3_tables
from transcreval.protocols.records import ItemRecord, ProtocolResult

__all__ = ["meta_evaluate"]

_VIS_NOTE = (
    "vis-sim: the humans rate visual change (5 = high change); a similarity metric must enter negated "
    "(its value as given is correlated)"
)


def _sheet(ratings: Mapping[str, Any], country: str, column: str, where: str) -> RatingSheet:
    by_col = ratings.get(country)
    if by_col is None:
        raise InputError(f"{where}: no human ratings for country {country!r} (rated: {', '.join(sorted(ratings))})")
    sheet = by_col.get(column) if isinstance(by_col, Mapping) else None
    if not isinstance(sheet, RatingSheet):
        raise InputError(f"ratings[{country!r}] has no {column} RatingSheet (read_human_ratings builds them)")
    return sheet


def meta_evaluate(
    scores: Any,
    ratings: Mapping[str, Mapping[str, RatingSheet]] | str | os.PathLike[str],
    *,
    average: str = "countries",
    bootstrap: int = 0,
    seed: int = 0,
    allow_blank: bool = True,
    unrated: str = "error",
) -> ProtocolResult:
    """Khanuja et al.'s Table 3 for any metric's per-item scores against the human ratings.

    Args:
        scores: rows ``{country, image, system, row, column, value}`` (a list of mappings, a
            ``.csv`` or ``.jsonl`` path, or a pandas DataFrame): ``row`` labels the metric,
            ``column`` is ``cult-rel``, ``sem-eq`` or ``vis-sim``; an empty value is no value.
            Orient each metric as the humans rate: vis-sim ratings grow with visual *change*, so
            a similarity enters negated.
        ratings: ``{country: {column: RatingSheet}}`` (:func:`read_human_ratings`), or the folder
            it reads (the authors' ``human_evaluation/part-1``; only the scored countries are read).
        average: "countries" (per country, then the mean over countries: the paper) or
            "segments" (one mean over all images).
        bootstrap, seed: a percentile interval per cell (``Cell.ci``) from resampled images.
        allow_blank: where ``ratings`` is a folder: a blank rating is missing (default) or an error.
        unrated: a scored image the humans did not rate is an error ("error") or left out
            ("skip", counted in the notes). A system the humans did not rate on a rated image,
            and a country with no ratings, are always errors.

    Returns:
        A :class:`ProtocolResult` with tables ``table3`` (rows x columns), ``table3_<country>`` and
        ``table3_by_category``: per image, Kendall tau-b between the metric and the human
        ratings of its systems, skipping an image when a value is missing, when the metric gives
        every system the same value, or when the humans do; the mean per country, then over
        countries. Each cell has ``n`` (images used), ``n_missing`` (images skipped) and, with
        ``bootstrap``, ``ci``. Records: each score as metric ``<row>[<column>]`` and the human
        ratings as ``human_<question>``, one per item x system.
    """
    if average not in ("countries", "segments"):
        raise InputError(f"average must be 'countries' or 'segments', got {average!r}")
    if unrated not in ("error", "skip"):
        raise InputError(f"unrated must be 'error' or 'skip', got {unrated!r}")
    for name, v in (("bootstrap", bootstrap), ("seed", seed)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise InputError(f"{name} must be a non-negative integer, got {v!r}")
    rows = read_scores(scores)
    countries = sorted({r.country for r in rows})
    if isinstance(ratings, (str, os.PathLike)):
        ratings = read_human_ratings(ratings, countries, allow_blank=allow_blank)
    elif not isinstance(ratings, Mapping):
        raise InputError("ratings: the mapping read_human_ratings returns, or the folder it reads")

    cells: dict[tuple[str, str], list[Pair]] = {}
    records: list[ItemRecord] = []
    humans: dict[tuple[str, str, str], float] = {}
    left_out: list[str] = []
    for r in rows:
        sheet = _sheet(ratings, r.country, r.column, r.where)
        if r.image not in sheet.ratings:
            if unrated == "skip":
                left_out.append(f"{r.country}/{r.image}")
                continue
            raise InputError(
                f"{r.where}: {sheet.path} has no rating for image {r.image!r}; score rated images only, "
                "or pass unrated='skip' (--unrated skip) to leave unrated ones out"
            )
        rated = sheet.ratings[r.image]
        if r.system not in rated:
            raise InputError(
                f"{r.where}: system {r.system!r} is not rated on {r.country}/{r.image} (rated: {', '.join(rated)}); "
                "name the systems as the ratings do"
            )
        human = rated[r.system]
        category = parse_image_key(r.image).category
        cells.setdefault((r.row, r.column), []).append(Pair(r.country, r.image, category, r.value, human))
        item_id, meta = f"{r.country}/{r.image}", item_meta(r.country, r.image, category)
        ok = r.value == r.value
        records.append(
            ItemRecord(item_id, r.system, f"{r.row}[{r.column}]", r.value, "ok" if ok else "missing", item_id, meta)
        )
        humans.setdefault((item_id, r.system, r.column), human)
    if not cells:
        raise InputError(f"scores: none of the {len(rows)} score rows is on an image the humans rated")
    for (item_id, system, column), h in humans.items():
        country, image = item_id.split("/", 1)
        meta = item_meta(country, image, parse_image_key(image).category)
        records.append(human_record(item_id, system, column, h, meta))
    row_labels = tuple(dict.fromkeys(r for r, _ in cells))
    notes = [_VIS_NOTE]
    if left_out:
        n_img = len(set(left_out))
        notes.append(
            f"{len(left_out)} score rows on {n_img} images the humans did not rate were left out (unrated='skip')"
        )
    o = {"average": average, "bootstrap": bootstrap, "seed": seed}
    tables, sig = table3_tables(cells, row_labels, o, notes)
    options = {
        **o,
        "allow_blank": allow_blank,
        "unrated": unrated,
        "rows": list(row_labels),
        "columns": [c for c in COLUMNS if any(k[1] == c for k in cells)],
        "score_rows": len(rows),
        "unrated_rows_left_out": len(left_out),
    }
    return ProtocolResult("khanuja", tuple(records), tables, {"segment_kendall_tau": sig} if sig else {}, options)
