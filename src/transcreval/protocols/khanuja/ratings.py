"""Khanuja et al.'s released human ratings, read as released (``human_evaluation/part-1``).

One folder per target country holds two row-aligned CSV files:

* ``human_eval.csv``: one row per image; ``visual_change2..4``, ``sem_eq2..4``, ``culture1..4``
  (and ``spatial``, ``natural``, ``offensive``, ``split_number``, not read): the ratings of the
  image's slots, slot 1 being the source image and slots 2-4 the systems' outputs in a shuffled
  order;
* ``labels.csv``: the same rows; ``src_image_path`` names the source image
  (``.../part1/united-states/mammal_american-black-bear.jpg``, whose key is
  ``united-states_mammal_american-black-bear``) and ``model_1..3`` the systems in slots 2, 3, 4.

:func:`read_human_ratings` de-shuffles each row by ``labels.csv`` into one :class:`RatingSheet`
per Table 3 column. It refuses the authors' ``model-specific`` copies (``culture.csv``,
``sem_eq.csv``, ``visual_change.csv`` with a header ``Key,<system>,...``): they copy slots 2-4 by
position under the system names, without the de-shuffling, so most ratings sit under the wrong
system. Every problem is an InputError naming the file and line.
"""

from __future__ import annotations

import csv
import math
import os
import re
from collections.abc import Mapping, Sequence

from transcreval.errors import InputError
from transcreval.protocols.khanuja.inputs import COLUMNS, RATING_COLUMNS, KhanujaItem, RatingSheet, parse_image_key
from transcreval.utils.csv_rows import read_csv_rows

__all__ = [
    "HUMAN_FILE",
    "LABELS_FILE",
    "MODEL_SPECIFIC_FILES",
    "image_key_from_path",
    "item_ratings",
    "read_country_ratings",
    "read_human_ratings",
]

HUMAN_FILE = "human_eval.csv"
LABELS_FILE = "labels.csv"
#: the per-system copies of ``human_evaluation/model-specific/part-1``, refused
MODEL_SPECIFIC_FILES = ("culture.csv", "sem_eq.csv", "visual_change.csv")
_LAYOUT = "<root>/<country>/human_eval.csv with labels.csv (human_evaluation/part-1 of the authors' repository)"


def image_key_from_path(path: str) -> str:
    """The image key of a ``src_image_path``: its folder and file stem,
    ``.../part1/united-states/mammal_american-black-bear.jpg`` -> ``united-states_mammal_american-black-bear``."""
    parts = [p for p in re.split(r"[\\/]", path.strip()) if p] if isinstance(path, str) else []
    if len(parts) < 2:
        raise InputError(f"src_image_path {path!r} is not .../<source country>/<category>_<object>.<ext>")
    name = parts[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    key = f"{parts[-2]}_{stem}"
    parse_image_key(key)
    return key


def _rating(cell: str, at: str, allow_blank: bool) -> float:
    text = cell.strip()
    if not text:
        if allow_blank:
            return math.nan
        raise InputError(
            f"{at}: a blank cell; fill it in, or keep allow_blank=True (the default) to read it as missing"
        )
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not 1.0 <= v <= 5.0:  # NaN fails too
        raise InputError(f"{at}: {text!r} is not a rating from 1 to 5")
    return v


def _model_specific(folder: str) -> list[str]:
    """The model-specific copies in ``folder``: files of :data:`MODEL_SPECIFIC_FILES` whose header starts ``Key``."""
    found = []
    for name in MODEL_SPECIFIC_FILES:
        try:
            with open(os.path.join(folder, name), encoding="utf-8-sig", newline="") as f:
                first = next(csv.reader(f), [])
        except (OSError, UnicodeDecodeError, csv.Error):
            continue
        if first and first[0].strip() == "Key":
            found.append(name)
    return found


def _refuse_model_specific(folder: str) -> None:
    found = _model_specific(folder)
    if found:
        raise InputError(
            f"{folder} holds the authors' model-specific copies ({', '.join(found)}, header Key,<system>,...): "
            "they are positional copies of rating slots 2-4 put under the system names, not de-shuffled by "
            "labels.csv, so most ratings sit under the wrong system and Table 3 from them is noise. "
            f"Read the released ratings instead: {_LAYOUT}"
        )


def read_country_ratings(folder: str | os.PathLike[str], *, allow_blank: bool = True) -> dict[str, RatingSheet]:
    """``{column: RatingSheet}`` of one country folder (``human_eval.csv`` + ``labels.csv``),
    de-shuffled by ``labels.csv``. ``allow_blank``: a blank cell is a missing rating (NaN; the
    released files have some); False makes it an error."""
    d = os.fspath(folder)
    human_p, labels_p = os.path.join(d, HUMAN_FILE), os.path.join(d, LABELS_FILE)
    if not os.path.isfile(human_p):
        _refuse_model_specific(d)
        raise InputError(f"human ratings: {d} has no {HUMAN_FILE} (layout: {_LAYOUT})")
    if not os.path.isfile(labels_p):
        raise InputError(
            f"human ratings: {d} has {HUMAN_FILE} but no {LABELS_FILE}, which says which system is in each "
            "rating slot; without it the ratings cannot be given to systems"
        )
    ln0, lhead, lbody = read_csv_rows(labels_p, "labels file", "a header line and one row per image")
    hn0, hhead, hbody = read_csv_rows(human_p, "human-rating file", "a header line and one row per image")
    n = 0
    while f"model_{n + 1}" in lhead:
        n += 1
    if "src_image_path" not in lhead or n < 2:
        raise InputError(
            f"{labels_p}, line {ln0}: the header needs src_image_path and model_1, model_2, ... "
            f"(the system in rating slots 2, 3, ...); it has {', '.join(lhead)}"
        )
    slots = {col: [f"{RATING_COLUMNS[col]}{k + 1}" for k in range(1, n + 1)] for col in COLUMNS}
    missing = [c for names in slots.values() for c in names if c not in hhead]
    if missing:
        raise InputError(
            f"{human_p}, line {hn0}: no column {', '.join(missing)}; {LABELS_FILE} names {n} systems, so the "
            f"header needs {', '.join(c for names in slots.values() for c in names)} (slot 1 is the source image)"
        )
    if len(lbody) != len(hbody):
        raise InputError(
            f"{human_p} has {len(hbody)} rows but {labels_p} has {len(lbody)}: the two files are row-aligned "
            f"(row i of {LABELS_FILE} names the systems rated in row i of {HUMAN_FILE}); use the pair released together"
        )
    if not hbody:
        raise InputError(f"{human_p}: a header but no rows")
    sheets: dict[str, dict[str, dict[str, float]]] = {col: {} for col in COLUMNS}
    first: dict[str, int] = {}
    for (ln, lrow), (hn, hrow) in zip(lbody, hbody):
        lab, hum = dict(zip(lhead, lrow)), dict(zip(hhead, hrow))
        try:
            key = image_key_from_path(lab["src_image_path"])
        except InputError as e:
            raise InputError(f"{labels_p}, line {ln}: {e}") from None
        if key in first:
            raise InputError(f"{labels_p}, line {ln}: image {key!r} again (first on line {first[key]})")
        first[key] = ln
        systems = [lab[f"model_{k}"].strip() for k in range(1, n + 1)]
        for k, s in enumerate(systems, 1):
            if not s:
                raise InputError(f"{labels_p}, line {ln} (image {key!r}): model_{k} is blank")
            if s in systems[: k - 1]:
                raise InputError(f"{labels_p}, line {ln} (image {key!r}): system {s!r} is in two rating slots")
        for col, names in slots.items():
            sheets[col][key] = {
                s: _rating(hum[c], f"{human_p}, line {hn} (image {key!r}), column {c!r} ({s})", allow_blank)
                for s, c in zip(systems, names)
            }
    rated = tuple(sorted({s for row in sheets["cult-rel"].values() for s in row}))
    return {col: RatingSheet(human_p, rated, sheets[col]) for col in COLUMNS}


def read_human_ratings(
    root: str | os.PathLike[str], countries: Sequence[str] | None = None, *, allow_blank: bool = True
) -> dict[str, dict[str, RatingSheet]]:
    """``{country: {column: RatingSheet}}`` from ``<root>/<country>/{human_eval.csv,labels.csv}``
    (the authors' ``human_evaluation/part-1``), each row de-shuffled by ``labels.csv``.

    Args:
        root: the folder holding the country folders.
        countries: the country folders to read (default: every sub-folder).
        allow_blank: True (default): a blank cell is a missing rating (NaN), and that system
            drops out of the image's segment; False: an error naming the cell.

    The ``model-specific`` copies (``<country>/{culture,sem_eq,visual_change}.csv``) are refused
    with the reason (see the module docstring).
    """
    base = os.fspath(root)
    if not os.path.isdir(base):
        raise InputError(f"human ratings: {base} is not a folder (layout: {_LAYOUT})")
    if os.path.isfile(os.path.join(base, HUMAN_FILE)):
        parent = os.path.dirname(os.path.abspath(base))
        raise InputError(f"human ratings: {base} is one country's folder; pass the folder holding them ({parent})")
    _refuse_model_specific(base)
    if countries is None:
        names = sorted(d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d)))
        if not any(
            os.path.isfile(os.path.join(base, d, HUMAN_FILE)) or _model_specific(os.path.join(base, d)) for d in names
        ):
            found = f" (its folders: {', '.join(names[:10])})" if names else ""
            raise InputError(f"human ratings: no country folder in {base}{found}; layout: {_LAYOUT}")
    else:
        names = list(countries)
    out: dict[str, dict[str, RatingSheet]] = {}
    for c in names:
        if not isinstance(c, str) or not c:
            raise InputError(f"human ratings: countries holds {c!r}, not a country folder's name")
        d = os.path.join(base, c)
        if not os.path.isdir(d):
            raise InputError(f"human ratings for {c!r}: {d} does not exist (layout: {_LAYOUT})")
        out[c] = read_country_ratings(d, allow_blank=allow_blank)
    return out


def item_ratings(
    items: Sequence[KhanujaItem],
    ratings: Mapping[str, Mapping[str, RatingSheet]] | str | os.PathLike[str],
    *,
    allow_blank: bool = True,
) -> dict[str, list[float]]:
    """Per Table 3 column, the human rating of each item (NaN: a blank cell), in item order.

    ``ratings`` is ``{country: {column: RatingSheet}}`` or the folder :func:`read_human_ratings`
    reads (only the items' countries; ``allow_blank`` as there). An InputError names what is
    missing: a country or column without a :class:`RatingSheet`, an image or a system the
    sheet does not rate. Both entries of the protocol look the ratings up here before scoring.
    """
    countries = sorted({it.country for it in items})
    if isinstance(ratings, (str, os.PathLike)):
        ratings = read_human_ratings(ratings, countries, allow_blank=allow_blank)
    for c in countries:
        for col in COLUMNS:
            if not isinstance(ratings.get(c, {}).get(col), RatingSheet):
                raise InputError(f"ratings has no {col} RatingSheet for country {c!r} (read_human_ratings builds them)")
    return {col: [ratings[it.country][col].rating(it.image, it.system) for it in items] for col in COLUMNS}
