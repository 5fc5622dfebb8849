"""The installed versions of the packages whose behaviour changes our numbers.

Signatures (:class:`~transcreval.core.result.Signature`), feature-cache keys and OCR run identities
record them. One lookup per distribution and process: ``importlib.metadata.version`` scans
``sys.path`` on every call (about 1.5 ms), which made it the largest fixed cost of a small
metric's ``compute``.
"""

from __future__ import annotations

import importlib.metadata

__all__ = ["package_version"]

_FOUND: dict[str, str] = {}


def package_version(name: str) -> str:
    """The installed version of distribution ``name`` (``"none"`` when it is not installed).
    A version found is kept for the process; a missing package is looked up again (it may be
    installed later in the session)."""
    found = _FOUND.get(name)
    if found is not None:
        return found
    try:
        found = _FOUND[name] = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "none"
    return found
