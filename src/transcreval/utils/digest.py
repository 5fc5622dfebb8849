"""Content digests: the sha256 of a file and of a JSON value.

They key what is stored about an item or an output (a run's work keys, a protocol's payloads), so
protocols and the run layer share one definition.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

__all__ = ["content_digest", "sha256_file"]

_HASHES: dict[tuple[str, int, int], str] = {}


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The file's sha256 (memoised per path, size and modification time in this process)."""
    st = os.stat(path)
    key = (os.fspath(path), st.st_size, st.st_mtime_ns)
    if key not in _HASHES:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _HASHES[key] = h.hexdigest()
    return _HASHES[key]


def content_digest(obj: Any) -> str:
    """sha256 of a JSON value (keys sorted): the digest of an item's or output's content."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()
