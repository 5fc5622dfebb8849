"""System and unit names in the run directory: one folder per name, never shared.

A system's lines live in ``items/<folder>/``. :func:`folder_name` encodes a name injectively:
letters, digits, ``_``, ``.``, ``+``, ``-`` and inner spaces stay as they are (``gemini``,
``Gemini 3 + GPT-4.1``), every other character, ``%`` itself, a leading ``.`` and a leading or
trailing space become ``%XX`` per UTF-8 byte (``a/b`` -> ``a%2Fb``, while ``a_b`` stays
``a_b``). So two names never share a folder, and a name never leaves ``items/``.

:func:`check_system_names` refuses what the encoding alone cannot make safe: names that differ
only in case or Unicode form (``A`` and ``a`` share a folder on case-insensitive file systems),
a name the protocol reserves for its reference row (MPTc's ``GT``: the user's outputs would be
replaced by the reference), and a name whose folder is too long for a file system.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from transcreval.errors import InputError

__all__ = ["MAX_FOLDER_BYTES", "check_system_names", "folder_name", "name_key"]

#: the longest folder name most file systems accept (bytes)
MAX_FOLDER_BYTES = 200
_KEEP = frozenset("_.+- ")


def _kept(ch: str) -> bool:
    return ch in _KEEP or (ch.isalnum() and unicodedata.category(ch)[0] in "LN")


def folder_name(name: str) -> str:
    """The folder (or file stem) of a system or unit name: injective, see the module docstring."""
    if not isinstance(name, str) or not name:
        raise InputError(f"a system or metric name must be a non-empty string, got {name!r}")
    last = len(name) - 1
    out = []
    for i, ch in enumerate(name):
        edge = (i == 0 and ch in ". ") or (i == last and ch == " ")
        out.append(ch if _kept(ch) and not edge else "".join(f"%{b:02X}" for b in ch.encode("utf-8")))
    folder = "".join(out)
    if len(folder.encode("utf-8")) > MAX_FOLDER_BYTES:
        raise InputError(
            f"the name {name[:40]!r}... is too long for a folder of the run directory "
            f"({len(folder.encode('utf-8'))} bytes encoded, at most {MAX_FOLDER_BYTES}): use a shorter name"
        )
    return folder


def name_key(name: str) -> str:
    """What two names must not share: their case-folded NFC form (case-insensitive file systems,
    and macOS's normalisation, would give them one folder)."""
    return unicodedata.normalize("NFC", name).casefold()


def check_system_names(names: Iterable[str], reserved: Iterable[str] = ()) -> None:
    """InputError unless every name has a folder of its own: not reserved by the protocol, not
    equal to another up to case or Unicode form, and short enough (see the module docstring)."""
    reserved = [r for r in reserved if r]
    by_key = {name_key(r): r for r in reserved}
    seen: dict[str, str] = {}
    for name in names:
        folder_name(name)
        k = name_key(name)
        if k in by_key:
            r = by_key[k]
            same = "is" if r == name else f"differs only in case from {r!r}, which is"
            raise InputError(
                f"system name {name!r} {same} the protocol's reference row (the item's own reference is "
                "scored under that name): rename the system"
            )
        if k in seen:
            raise InputError(
                f"system names {seen[k]!r} and {name!r} differ only in case or Unicode form: they would share "
                "a folder on case-insensitive file systems; rename one"
            )
        seen[k] = name
