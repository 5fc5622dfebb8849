"""Files of rows given by path (human ratings, score tables): a ``.csv`` file with a header line
or a ``.jsonl`` file of objects, read one way, with errors that name the file and line."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from transcreval.errors import InputError
from transcreval.utils.csv_rows import read_csv_rows
from transcreval.utils.jsonl import read_jsonl_lines

__all__ = ["field_problems", "read_row_file"]


def field_problems(names: Iterable[Any], fields: Sequence[str], required: Sequence[str] | None = None) -> str:
    """What is wrong with a row's (or header's) field names: ``"no a, b; unknown field(s) 'x'"``,
    or ``""`` when they fit (every ``required`` field, default all of ``fields``, and nothing else)."""
    got = list(names)
    missing = [f for f in (fields if required is None else required) if f not in got]
    unknown = [f for f in got if f not in fields]
    return "; ".join(
        x
        for x in (
            f"no {', '.join(missing)}" if missing else "",
            f"unknown field(s) {', '.join(map(repr, unknown))}" if unknown else "",
        )
        if x
    )


def read_row_file(
    path: str | os.PathLike[str],
    noun: str,
    fields: Sequence[str],
    *,
    required: Sequence[str] | None = None,
    columns: str | None = None,
    alternatives: str = "a list of mappings",
) -> list[tuple[str, Any]]:
    """``[(where, row)]`` of a ``.csv`` or ``.jsonl`` file of ``noun`` ("ratings").

    ``where`` names the row in messages (``"r.csv, line 3"``); a CSV row is a dict of its header's
    names to the cell texts, a JSON Lines row the line's value as it is (the caller checks it).
    InputErrors: no such file, another suffix (the message offers ``alternatives`` too), a CSV
    header with a name not in ``fields`` or without one of ``required`` (default: all of
    ``fields``; the message says which, then ``columns``, default "the columns are <fields>"), and
    what :func:`~transcreval.utils.csv_rows.read_csv_rows` and
    :func:`~transcreval.utils.jsonl.read_jsonl_lines` refuse.
    """
    where = os.fspath(path)
    what = f"{noun} file"
    if not os.path.isfile(where):
        raise InputError(f"no such {what}: {where}")
    suffix = os.path.splitext(where)[1].lower()
    if suffix == ".csv":
        hn, names, body = read_csv_rows(where, what, f"a header {','.join(fields)} and one row per line")
        wrong = field_problems(names, fields, required)
        if wrong:
            help_text = columns or f"the columns are {','.join(fields)}"
            raise InputError(f"{where}, line {hn} (the header): {wrong}; {help_text}")
        return [(f"{where}, line {n}", dict(zip(names, cells))) for n, cells in body]
    if suffix == ".jsonl":
        return [(f"{where}, line {n}", obj) for n, obj in read_jsonl_lines(where, what)]
    raise InputError(f"{where}: give the {noun} as a .csv or .jsonl file (or {alternatives})")
