"""Near misses on the file system: a file asked for by its exact name that lies there under
another extension (``12.png`` where ``12.jpg`` was asked for), to hint at in a "missing" note."""

from __future__ import annotations

import functools
import os
from pathlib import Path

__all__ = ["other_extension"]


def other_extension(path: str | os.PathLike[str]) -> str | None:
    """The name of a file next to ``path`` with its stem and another extension (the first by
    name), or None: ``path`` itself exists, or no such file, or its folder does not."""
    p = Path(path)
    if p.exists() or not p.parent.is_dir():
        return None
    for name in _names_by_stem(str(p.parent), p.parent.stat().st_mtime_ns).get(p.stem, ()):
        if Path(name).suffix and name != p.name and (p.parent / name).is_file():
            return name
    return None


@functools.lru_cache(maxsize=16)
def _names_by_stem(folder: str, mtime_ns: int) -> dict[str, tuple[str, ...]]:
    """A folder's entry names by stem, sorted: listed once per folder while it is unchanged (its
    mtime is part of the key), not once per missing file."""
    by_stem: dict[str, list[str]] = {}
    for name in sorted(os.listdir(folder)):
        by_stem.setdefault(Path(name).stem, []).append(name)
    return {stem: tuple(names) for stem, names in by_stem.items()}
