"""The installed versions of the packages whose behaviour changes our numbers.

Signatures (:class:`~transcreval.result.Signature`), feature-cache keys and OCR run identities
record them. One lookup per distribution and process: ``importlib.metadata.version`` scans
``sys.path`` on every call (about 1.5 ms), which made it the largest fixed cost of a small
metric's ``compute``.
"""

from __future__ import annotations

import functools
import importlib.metadata

__all__ = ["package_version"]


@functools.cache
def package_version(name: str) -> str:
    """The installed version of distribution ``name`` (``"none"`` when it is not installed),
    looked up once per process."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "none"
