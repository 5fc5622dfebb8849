"""Any metric's per-item scores for Khanuja et al.'s Table 3 (:func:`~transcreval.protocols.khanuja.meta_evaluate`).

A score row is ``{country, image, system, row, column, value}``: the metric labelled ``row``
gave ``value`` to ``system``'s output for the image keyed ``image`` (``source_category_object``)
transcreated for ``country``, to be correlated with the human ratings of ``column``
(``cult-rel``, ``sem-eq`` or ``vis-sim``). ``value`` may be missing (empty, None, NaN): the metric
has no value there, and the image is skipped in that cell, as an unreadable judge answer is.

:func:`read_scores` takes a list of mappings, a CSV or JSON Lines file, or a pandas DataFrame
(pandas is never imported here); every problem is an InputError naming the row.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.khanuja.inputs import COLUMNS
from transcreval.utils.row_files import field_problems, read_row_file

__all__ = ["SCORE_FIELDS", "ScoreRow", "read_scores"]

#: the fields of a score row, all required
SCORE_FIELDS = ("country", "image", "system", "row", "column", "value")


@dataclass(frozen=True)
class ScoreRow:
    """One checked score row; ``value`` NaN where the metric has none; ``where`` names the row
    in messages (``"scores.csv, line 3"``)."""

    where: str
    country: str
    image: str
    system: str
    row: str
    column: str
    value: float


def _text(v: Any, field: str, where: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise InputError(f"{where}: {field!r} must be a non-empty string, got {v!r}")
    return v.strip()


def _value(v: Any, where: str) -> float:
    if v is None or (isinstance(v, str) and not v.strip()):
        return math.nan
    if isinstance(v, bool):
        raise InputError(f"{where}: 'value' must be a number, got {v!r}")
    try:
        x = float(v.strip() if isinstance(v, str) else v)
    except (TypeError, ValueError):
        raise InputError(f"{where}: 'value' must be a number (empty for no value), got {v!r}") from None
    if math.isinf(x):
        raise InputError(f"{where}: 'value' is infinite; leave it empty where the metric has no value")
    return x


def _fields(names: Iterable[Any], where: str) -> None:
    wrong = field_problems(names, SCORE_FIELDS)
    if wrong:
        raise InputError(f"{where}: {wrong}; a score row has exactly the fields {', '.join(SCORE_FIELDS)}")


def _check(raw: Any, where: str) -> ScoreRow:
    if not isinstance(raw, Mapping):
        kind = type(raw).__name__
        raise InputError(f"{where}: a score row is a mapping with the fields {', '.join(SCORE_FIELDS)}, not a {kind}")
    _fields(raw, where)
    country, image, system, row, column = (_text(raw[f], f, where) for f in SCORE_FIELDS[:5])
    if column not in COLUMNS:
        raise InputError(f"{where}: column {column!r} is not one of {', '.join(COLUMNS)}")
    return ScoreRow(where, country, image, system, row, column, _value(raw["value"], where))


def _raw_rows(scores: Any) -> list[ScoreRow]:
    if isinstance(scores, (str, os.PathLike)):
        rows = read_row_file(scores, "scores", SCORE_FIELDS, alternatives="a list of mappings, or a DataFrame")
        return [_check(row, where) for where, row in rows]
    if type(scores).__name__ == "DataFrame" and hasattr(scores, "to_dict"):
        _fields([str(c) for c in scores.columns], "the scores DataFrame's columns")
        return [_check(r, f"DataFrame row {i}") for i, r in enumerate(scores.to_dict("records"))]
    if isinstance(scores, (Mapping, bytes)) or not isinstance(scores, Iterable):
        raise InputError(
            f"scores: give a list of mappings, a .csv or .jsonl path, or a DataFrame, not a {type(scores).__name__}"
        )
    return [_check(r, f"scores[{i}]") for i, r in enumerate(scores)]


def read_scores(scores: Any) -> list[ScoreRow]:
    """The checked score rows of a list of mappings, a ``.csv`` / ``.jsonl`` path or a DataFrame.

    Refused, naming the row: a missing or unknown field, an empty country, image, system or row
    label, a column other than
    ``cult-rel`` / ``sem-eq`` / ``vis-sim``, a value that is not a number (empty is no value),
    an infinite value, and the same (country, image, system, row, column) twice.
    """
    rows = _raw_rows(scores)
    if not rows:
        raise InputError("scores: no score rows")
    first: dict[tuple[str, ...], str] = {}
    for r in rows:
        key = (r.country, r.image, r.system, r.row, r.column)
        if key in first:
            raise InputError(
                f"{r.where}: a second score for system {r.system!r} on {r.country}/{r.image}, row {r.row!r}, "
                f"column {r.column!r} (first at {first[key]})"
            )
        first[key] = r.where
    return rows
