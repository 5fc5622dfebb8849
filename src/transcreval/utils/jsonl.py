"""JSON Lines files (manifests, outputs): read one way, with errors that name the file and line."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from transcreval.errors import InputError

__all__ = ["read_jsonl_lines"]


def read_jsonl_lines(
    path: str | os.PathLike[str], what: str, *, where: Callable[[int], str] | None = None
) -> list[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of a JSON Lines file (UTF-8; a
    byte-order mark is skipped).

    A file that cannot be read is an InputError naming ``what`` and the path; a line that is
    not JSON, one naming the line as ``where(n)`` (default ``<file name>:<n>``).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except OSError as e:
        raise InputError(f"cannot read the {what} {p}: {e}") from None
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append((n, json.loads(line)))
        except json.JSONDecodeError as e:
            label = where(n) if where is not None else f"{p.name}:{n}"
            raise InputError(f"{label}: not a JSON object ({e.msg} at column {e.colno})") from None
    return rows
