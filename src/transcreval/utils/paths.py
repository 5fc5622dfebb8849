"""Near misses on the file system: a file asked for by its exact name that lies there under
another extension (``12.png`` where ``12.jpg`` was asked for), to hint at in a "missing" note."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["other_extension"]


def other_extension(path: str | os.PathLike[str]) -> str | None:
    """The name of a file next to ``path`` with its stem and another extension (the first by
    name), or None: ``path`` itself exists, or no such file, or its folder does not."""
    p = Path(path)
    if p.exists() or not p.parent.is_dir():
        return None
    for q in sorted(p.parent.iterdir()):
        if q.stem == p.stem and q.suffix and q.name != p.name and q.is_file():
            return q.name
    return None
