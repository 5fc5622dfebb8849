"""Content digests: the sha256 of a file and of a JSON value.

They key what is stored about an item or an output (a run's work keys, a protocol's payloads) and
check model files (the weights resolver), so every layer shares one definition.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

__all__ = ["content_digest", "sha256_file"]

_HASH_LOCK = threading.Lock()
_HASHES: dict[tuple[str, int, int, int], str] = {}


def sha256_file(path: str | os.PathLike[str]) -> str:
    """The file's sha256 (hex), computed once per process per (path, inode, size, mtime)."""
    p = Path(path)
    st = p.stat()
    key = (str(p.resolve()), st.st_ino, st.st_size, st.st_mtime_ns)
    with _HASH_LOCK:
        hit = _HASHES.get(key)
    if hit is not None:
        return hit
    digest = hashlib.sha256()
    with open(p, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    value = digest.hexdigest()
    with _HASH_LOCK:
        _HASHES[key] = value
    return value


def content_digest(obj: Any) -> str:
    """sha256 of a JSON value (keys sorted): the digest of an item's or output's content."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()
