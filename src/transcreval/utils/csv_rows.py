"""CSV files with a header line (human ratings, score tables): read one way, with errors that
name the file and line."""

from __future__ import annotations

import csv
import os

from transcreval.errors import InputError

__all__ = ["read_csv_rows"]


def read_csv_rows(
    path: str | os.PathLike[str], what: str, expected: str
) -> tuple[int, list[str], list[tuple[int, list[str]]]]:
    """``(header line, header names, [(line, cells)])`` of a CSV file (UTF-8; a byte-order mark is
    skipped; blank lines are no rows; names stripped of spaces).

    InputErrors name the file (and line): a file that cannot be read (``what`` says which file it
    is), an empty one (``expected`` says what it should hold), a header name given twice, a row
    whose cell count differs from the header's.
    """
    where = os.fspath(path)
    try:
        with open(where, encoding="utf-8-sig", newline="") as f:
            reader = csv.reader(f)
            rows = [(reader.line_num, row) for row in reader if row]
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"cannot read the {what} {where}: {e}") from None
    if not rows:
        raise InputError(f"{where}: empty; expected {expected}")
    (hn, header), body = rows[0], rows[1:]
    names = [c.strip() for c in header]
    for j, c in enumerate(names):
        if c in names[:j]:
            raise InputError(f"{where}, line {hn}: column {c!r} appears twice in the header")
    for n, cells in body:
        if len(cells) != len(names):
            raise InputError(f"{where}, line {n}: {len(cells)} cells, but the header has {len(names)}")
    return hn, names, body
