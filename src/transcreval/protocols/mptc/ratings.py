"""MPTc-Bench's human ratings (App. B.3): the ratings file that :func:`~transcreval.protocols.mptc.human_table` reads.

One row per annotation (one annotator rating one system's poster MTc for one item), as a CSV
file with a header line, a JSON Lines file, or a list of mappings, with exactly these fields:

* ``item_id``: the MPTc item (the ``item_id`` of the items file and of the judge records);
* ``split``: ``surface`` or ``deep`` (any case);
* ``system``: the rated system, named as the judge records name it (``"<editor> + <planner>"``,
  e.g. ``"Gemini 3 + GPT-4.1"``);
* ``annotator``: who rated it (any id);
* ``aesthetic``, ``adaptation``: the annotator's scores on the scale (1-5 by default; an integer
  of the scale), under the judge's criteria; blank (or null) for not given;
* ``choice``: the annotator's pairwise preference between MTc and the human target-market
  poster GT: ``mtc``, ``gt`` or ``tie`` (any case); blank (or null) for not given.

In JSON Lines and mappings a rating field may also be left out (= not given). Refused, naming
the file and line (or ``ratings[i]``): a missing or unknown field, an empty id, a split other
than surface/deep, a score off the scale, an unknown choice, the same item, system and
annotator twice, and an item and system rated in two splits.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from transcreval.errors import InputError
from transcreval.utils.row_files import field_problems, read_row_file

__all__ = ["CHOICES", "RATING_FIELDS", "HumanRating", "read_ratings"]

#: the fields of a rating row, in the documented column order
RATING_FIELDS = ("item_id", "split", "system", "annotator", "aesthetic", "adaptation", "choice")
_REQUIRED = RATING_FIELDS[:4]
#: a pairwise choice -> the win it counts (MTc preferred = 1, GT preferred = 0, a tie half)
CHOICES = {"mtc": 1.0, "gt": 0.0, "tie": 0.5}


@dataclass(frozen=True)
class HumanRating:
    """One checked annotation. ``aesthetic``/``adaptation`` NaN and ``choice`` None where not
    given; ``where`` names the row in messages (``"ratings.csv, line 3"``)."""

    where: str
    item_id: str
    split: str
    system: str
    annotator: str
    aesthetic: float
    adaptation: float
    choice: str | None

    @property
    def win(self) -> float:
        """The win the choice counts (NaN where no choice was given)."""
        return math.nan if self.choice is None else CHOICES[self.choice]


def _blank(v: Any) -> bool:
    return v is None or (isinstance(v, str) and not v.strip()) or (isinstance(v, float) and math.isnan(v))


def _text(v: Any, name: str, where: str) -> str:
    if isinstance(v, bool) or not isinstance(v, (str, int)) or not str(v).strip():
        raise InputError(f"{where}: {name!r} must be a non-empty string, got {v!r}")
    return str(v).strip()


def _score(v: Any, name: str, where: str, scale: Sequence[float]) -> float:
    if _blank(v):
        return math.nan
    try:
        x = float(v.strip() if isinstance(v, str) else v) if not isinstance(v, bool) else math.nan
    except (TypeError, ValueError):
        x = math.nan
    if x not in scale:
        shown = [int(s) if float(s).is_integer() else s for s in scale]  # [1, 2, 3, 4, 5], not [1.0, ...]
        raise InputError(f"{where}: {name!r} must be a score of the scale {shown} (blank for not given), got {v!r}")
    return x


def _check(raw: Any, where: str, scale: Sequence[float]) -> HumanRating:
    if not isinstance(raw, Mapping):
        raise InputError(f"{where}: a rating row is a mapping with the fields {', '.join(RATING_FIELDS)}")
    wrong = field_problems(raw, RATING_FIELDS, _REQUIRED)  # a CSV header names every field (read_row_file)
    if wrong:
        raise InputError(f"{where}: {wrong}; a rating row has the fields {', '.join(RATING_FIELDS)}")
    item, split, system, annotator = (_text(raw[k], k, where) for k in _REQUIRED)
    if split.lower() not in ("surface", "deep"):
        raise InputError(f"{where}: 'split' must be 'surface' or 'deep', got {split!r}")
    choice = raw.get("choice")
    if not _blank(choice):
        if not isinstance(choice, str) or choice.strip().lower() not in CHOICES:
            raise InputError(f"{where}: 'choice' must be 'mtc', 'gt' or 'tie' (blank for not given), got {choice!r}")
        choice = choice.strip().lower()
    else:
        choice = None
    return HumanRating(
        where,
        item,
        split.lower(),
        system,
        annotator,
        _score(raw.get("aesthetic"), "aesthetic", where, scale),
        _score(raw.get("adaptation"), "adaptation", where, scale),
        choice,
    )


def _rows(ratings: Any, scale: Sequence[float]) -> list[HumanRating]:
    if isinstance(ratings, (str, os.PathLike)):
        return [_check(row, where, scale) for where, row in read_row_file(ratings, "ratings", RATING_FIELDS)]
    if isinstance(ratings, (Mapping, bytes)) or not isinstance(ratings, Iterable):
        raise InputError(f"ratings: give a .csv or .jsonl path or a list of mappings, not a {type(ratings).__name__}")
    return [_check(r, f"ratings[{i}]", scale) for i, r in enumerate(ratings)]


def read_ratings(ratings: Any, *, scale: Sequence[float] = (1, 2, 3, 4, 5)) -> list[HumanRating]:
    """The checked rating rows of a ``.csv`` / ``.jsonl`` path or a list of mappings (the module
    docstring lists the fields and what is refused). ``scale``: the allowed scores."""
    rows = _rows(ratings, [float(v) for v in scale])
    if not rows:
        raise InputError("ratings: no rating rows")
    first: dict[tuple[str, str, str], str] = {}
    split_of: dict[tuple[str, str], HumanRating] = {}
    for r in rows:
        key = (r.item_id, r.system, r.annotator)
        if key in first:
            raise InputError(
                f"{r.where}: annotator {r.annotator!r} rated item {r.item_id!r} of {r.system!r} again "
                f"(first at {first[key]}); one row per annotation"
            )
        first[key] = r.where
        seen = split_of.setdefault((r.item_id, r.system), r)
        if seen.split != r.split:
            raise InputError(
                f"{r.where}: item {r.item_id!r} of {r.system!r} is {r.split!r} here but {seen.split!r} at {seen.where}"
            )
    return rows
