"""A cache's mode as the user may spell it, shared by the judge cache and the feature cache.

``"read-write"`` (also ``"read_write"``, ``"rw"``), ``"read-only"`` (``"read_only"``, ``"ro"``)
and, where a cache can be switched off, ``"off"``; case and surrounding spaces do not matter.
"""

from __future__ import annotations

from transcreval.errors import InputError

__all__ = ["SPELLINGS", "cache_mode"]

#: every accepted spelling -> the mode
SPELLINGS = {
    "read-write": "read-write",
    "read_write": "read-write",
    "rw": "read-write",
    "read-only": "read-only",
    "read_only": "read-only",
    "ro": "read-only",
    "off": "off",
}


def cache_mode(mode: object, allowed: tuple[str, ...], what: str = "mode") -> str:
    """The mode ``mode`` spells, one of ``allowed``; InputError naming ``what`` and the modes otherwise."""
    found = SPELLINGS.get(mode.strip().lower()) if isinstance(mode, str) else None
    if found is None or found not in allowed:
        names = [repr(m) for m in allowed]
        listed = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
        raise InputError(f"{what} must be {listed}, got {mode!r}")
    return found
