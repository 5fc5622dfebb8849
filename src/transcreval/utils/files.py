"""Files written whole: the text goes to a temporary file next to the target, which replaces
the target only once complete; a write that fails (a full disk) leaves the old file as it was
and removes the temporary one, so no ``*.tmp*`` file is left behind."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["replacing"]


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path next to ``path``: write it in the block; it replaces ``path`` when the
    block ends, and is removed if the block fails."""
    target = Path(path)
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
