"""Inputs of the Khanuja et al. protocol: items, image keys and human-rating sheets.

An image is keyed ``source_category_object`` (``japan_food_miso-soup``), the key the authors'
files use. A :class:`RatingSheet` holds one question's 1-5 ratings per image and system;
:func:`~transcreval.protocols.khanuja.ratings.read_human_ratings` builds them from the authors'
released files (``human_evaluation/part-1``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from transcreval.errors import InputError

__all__ = [
    "COLUMNS",
    "RATING_COLUMNS",
    "ImageKey",
    "KhanujaItem",
    "RatingSheet",
    "check_items",
    "country_prompt_names",
    "parse_image_key",
]

#: Table 3's columns, in the paper's order
COLUMNS = ("cult-rel", "sem-eq", "vis-sim")
#: the question behind each column: its column prefix in the authors' ``human_eval.csv``
#: (``visual_change2`` is slot 2's visual-change rating) and the ``human_<name>`` records' name
RATING_COLUMNS = {"cult-rel": "culture", "sem-eq": "sem_eq", "vis-sim": "visual_change"}


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
    """One question's human ratings: ``ratings[image key][system]``, a rating in [1, 5] (NaN: a
    blank cell); ``systems`` every system rated; ``path`` names the file in messages."""

    path: str
    systems: tuple[str, ...]
    ratings: Mapping[str, Mapping[str, float]]

    def rating(self, image: str, system: str) -> float:
        """The rating of ``system`` for ``image``; an InputError naming the file if there is none."""
        row = self.ratings.get(image)
        if row is None:
            raise InputError(f"{self.path}: no row for image {image!r}; every scored image needs a human rating")
        if system not in row:
            raise InputError(
                f"{self.path}: image {image!r} has no rating for system {system!r} (it rates {', '.join(row)})"
            )
        return row[system]


@dataclass(frozen=True)
class KhanujaItem:
    """One system's output for one image and target country.

    Attributes:
        country: the target country as the rating folders name it (``"india"``).
        image: the image key ``source_category_object``, as the ratings key it.
        system: the system's name as the ratings name it (``labels.csv``: ``"cap-edit"``).
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


def country_prompt_names(countries: Iterable[str], given: Mapping[str, str] | None = None) -> dict[str, str]:
    """The name the prompts use for each country: ``given``'s, else ``country.capitalize()`` (as the
    authors' scripts did: ``"united-states"`` -> ``"United-states"``)."""
    return {c: (given or {}).get(c, c.capitalize()) for c in countries}
