"""Inputs of the Khanuja et al. protocol: items, image keys and the authors' human-rating files.

The authors' human ratings (``human_evaluation/model-specific/part-1`` of their EMNLP 2024
repository) are one folder per target country with one CSV file per question:
``culture.csv`` (cultural relevance), ``sem_eq.csv`` (semantic equivalence) and
``visual_change.csv`` (visual change; Table 3's vis-sim column). Each file has a header
``Key,<system 1>,<system 2>,...`` and one row per image, keyed ``source_category_object``
(``japan_food_miso-soup``), with a 1-5 rating per system. :func:`read_human_ratings` reads the
tree, :func:`read_rating_sheet` one file; every problem is an InputError naming the file, line,
image and column.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from transcreval.errors import InputError

__all__ = [
    "COLUMNS",
    "RATING_FILES",
    "ImageKey",
    "KhanujaItem",
    "RatingSheet",
    "check_items",
    "parse_image_key",
    "read_human_ratings",
    "read_rating_sheet",
]
#: Table 3's columns, in the paper's order
#: Table 3's columns, in the paper's order
COLUMNS = ("cult-rel", "sem-eq", "vis-sim")
#: the human-rating file (name without ``.csv``) behind each column, in the authors' layout
RATING_FILES = {"cult-rel": "culture", "sem-eq": "sem_eq", "vis-sim": "visual_change"}


@dataclass(frozen=True)
class ImageKey:
    """An image key ``source_category_object`` split in its parts (the object may hold ``_``)."""

    source: str
    category: str
    object: str


def parse_image_key(key: str) -> ImageKey:
    """``"japan_food_miso-soup"`` -> ``ImageKey("japan", "food", "miso-soup")``."""
    parts = key.split("_", 2) if isinstance(key, str) else []
    if len(parts) != 3 or not all(p.strip() for p in parts):
        raise InputError(f"image key {key!r} is not source_category_object (e.g. 'japan_food_miso-soup')")
    return ImageKey(*(p.strip() for p in parts))


@dataclass(frozen=True)
class RatingSheet:
    """One human-rating file: ``ratings[image key][system]``, a rating in [1, 5] (NaN: a blank
    cell, read with ``allow_blank=True``); ``path`` names the file in messages."""

    path: str
    systems: tuple[str, ...]
    ratings: Mapping[str, Mapping[str, float]]

    def rating(self, image: str, system: str) -> float:
        """The rating of ``system`` for ``image``; an InputError naming the file if there is none."""
        row = self.ratings.get(image)
        if row is None:
            raise InputError(f"{self.path}: no row for image {image!r}; every scored image needs a human rating")
        if system not in row:
            raise InputError(f"{self.path}: no column for system {system!r} (columns: {', '.join(self.systems)})")
        return row[system]


def _rating(cell: str, at: str, allow_blank: bool) -> float:
    text = cell.strip()
    if not text:
        if allow_blank:
            return math.nan
        raise InputError(
            f"{at}: a blank cell; fill it in, or pass allow_blank=True to leave that system out of the image"
        )
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not 1.0 <= v <= 5.0:  # NaN fails too
        raise InputError(f"{at}: {text!r} is not a rating from 1 to 5")
    return v


def read_rating_sheet(path: str | os.PathLike[str], *, allow_blank: bool = False) -> RatingSheet:
    """Read one file of the authors' layout: a header ``Key,<system>,...``, then one row per image
    (``source_category_object``) with a 1-5 rating per system. UTF-8 (a BOM is fine). Every
    problem is an InputError naming the file, line, image and system column."""
    where = os.fspath(path)
    lines: list[tuple[int, list[str]]] = []
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            reader = csv.reader(f)
            for row in reader:
                if any(c.strip() for c in row):
                    lines.append((reader.line_num, row))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"cannot read the human-rating file {where}: {e}") from None
    if not lines:
        raise InputError(f"{where}: empty; expected a header 'Key,<system 1>,<system 2>,...' and one row per image")
    (hn, header), body = lines[0], lines[1:]
    systems = tuple(c.strip() for c in header[1:])
    if not systems:
        raise InputError(f"{where}, line {hn}: the header names no system; expected 'Key,<system 1>,<system 2>,...'")
    for j, s in enumerate(systems):
        if not s:
            raise InputError(f"{where}, line {hn}: header column {j + 2} has no system name")
        if s in systems[:j]:
            raise InputError(f"{where}, line {hn}: system column {s!r} appears twice")
    ratings: dict[str, dict[str, float]] = {}
    first: dict[str, int] = {}
    for n, row in body:
        key = row[0].strip()
        if len(row) != len(header):
            raise InputError(f"{where}, line {n} (image {key!r}): {len(row)} cells, but the header has {len(header)}")
        try:
            parse_image_key(key)
        except InputError as e:
            raise InputError(f"{where}, line {n}: {e}") from None
        if key in first:
            raise InputError(f"{where}, line {n}: image {key!r} again (first on line {first[key]})")
        first[key] = n
        ratings[key] = {
            s: _rating(c, f"{where}, line {n} (image {key!r}), column {s!r}", allow_blank)
            for s, c in zip(systems, row[1:])
        }
    if not ratings:
        raise InputError(f"{where}: a header but no rows")
    return RatingSheet(where, systems, ratings)


def read_human_ratings(
    root: str | os.PathLike[str], countries: Sequence[str] | None = None, *, allow_blank: bool = False
) -> dict[str, dict[str, RatingSheet]]:
    """``{country: {column: RatingSheet}}`` from ``<root>/<country>/<file>.csv``, the files of
    :data:`RATING_FILES` (the authors' ``human_evaluation/model-specific/part-1`` tree).
    ``countries``: the sub-folders to read (default: every sub-folder)."""
    base = os.fspath(root)
    if not os.path.isdir(base):
        raise InputError(f"human ratings: {base} is not a folder (layout: <root>/<country>/culture.csv, ...)")
    names = sorted(d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d)))
    names = list(countries) if countries is not None else names
    if not names:
        raise InputError(f"human ratings: {base} has no country folders")
    out: dict[str, dict[str, RatingSheet]] = {}
    for c in names:
        out[c] = {}
        for col, stem in RATING_FILES.items():
            p = os.path.join(base, c, f"{stem}.csv")
            if not os.path.isfile(p):
                raise InputError(f"human ratings for {c!r} ({col}): {p} does not exist")
            out[c][col] = read_rating_sheet(p, allow_blank=allow_blank)
    return out


@dataclass(frozen=True)
class KhanujaItem:
    """One system's output for one image and target country.

    Attributes:
        country: the target country as the rating folders name it (``"india"``).
        image: the image key ``source_category_object``, the rating files' row key.
        system: the system's name, a rating files' column (``"cap-edit"``).
        output: the system's output image; ``source``: the source image (any form transcreval reads).
        category: the semantic category the prompts name (default: the key's category part).
    """

    country: str
    image: str
    system: str
    output: Any
    source: Any
    category: str | None = None

    @property
    def item_id(self) -> str:
        """``"<country>/<image key>"``: one segment of Table 3 (all systems share it)."""
        return f"{self.country}/{self.image}"


def check_items(items: Sequence[KhanujaItem]) -> list[str]:
    """Validate the items (type, image key, no system twice on one image); their categories."""
    if not items:
        raise InputError("khanuja_table3: no items")
    seen: dict[tuple[str, str, str], int] = {}
    cats = []
    for i, it in enumerate(items):
        if not isinstance(it, KhanujaItem):
            raise InputError(f"item {i} is a {type(it).__name__}, not a KhanujaItem")
        try:
            key = parse_image_key(it.image)
        except InputError as e:
            raise InputError(f"item {i}: {e}") from None
        k = (it.country, it.image, it.system)
        if k in seen:
            raise InputError(f"items {seen[k]} and {i} are both {it.system!r} on {it.item_id!r}")
        seen[k] = i
        cats.append(it.category if it.category is not None else key.category)
    return cats
