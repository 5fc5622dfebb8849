"""A run directory of an older run format, brought up to date by ``evaluate`` (docs/cli.md).

Its lines are keyed differently, so :meth:`~transcreval.runs.store.RunDir.set_old_lines_aside`
moves them to ``items.format<N>/`` and every item is scored again, the judge answering from the
run's cache. What the old lines record must not be lost with them:

* :func:`carry_usage`: the judge calls and tokens the old run paid for (its usage lines, with
  the served model names) are appended, each line once, to the lines of the system whose folder
  held them, marked ``"from": "items.format<N>"``; so ``judge_usage``, summed over runs, still
  counts them. A folder of a system this run no longer has keeps its lines, uncounted, as that
  system's lines would be.
* :func:`oldest_write`: a format-1 ``run.json`` recorded no creation date; the oldest
  modification time of the run's files is the latest it can have been created.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from transcreval.runs.lock import LOCK_NAME
from transcreval.runs.names import folder_name
from transcreval.runs.store import RunDir, read_lines

__all__ = ["carry_usage", "format1_folder", "oldest_write"]

_UNIT_FILE = re.compile(r"^(?P<unit>.+?)(?:\.rank\d+)?\.jsonl$")


def format1_folder(name: str) -> str:
    """The folder run format 1 gave a system or unit name (lossy: ``a/b`` and ``a_b`` shared ``a_b``)."""
    return re.sub(r"[^\w.+\- ]", "_", name).strip()


def _by_folder(names: Iterable[str]) -> dict[str, str]:
    """Each name by the folder (or file stem) either run format gave it; the first name wins."""
    out: dict[str, str] = {}
    for name in names:
        out.setdefault(format1_folder(name), name)
        out.setdefault(folder_name(name), name)
    return out


def carry_usage(store: RunDir, aside: Path, systems: Iterable[str], units: Iterable[str]) -> int:
    """Append every usage line under ``aside`` (each once, by its sequence number where it has
    one) to ``store``'s lines of the system and unit whose files held it (see the module
    docstring); returns the number of lines carried."""
    owners, unit_names = _by_folder(systems), _by_folder(units)
    carried = 0
    for folder in sorted(p for p in aside.iterdir() if p.is_dir()):
        system = owners.get(folder.name)
        if system is None:
            continue
        per_unit: dict[str, dict[object, dict[str, object]]] = {}
        for path in sorted(folder.iterdir()):
            m = _UNIT_FILE.match(path.name)
            unit = unit_names.get(m["unit"]) if m is not None and path.is_file() else None
            if unit is None:
                continue
            seen = per_unit.setdefault(unit, {})
            for n, line in enumerate(read_lines(path)):
                if "usage" in line:
                    seq = line.get("seq")
                    seen.setdefault(tuple(seq) if seq is not None else (path.name, n), line)
        for unit, lines in per_unit.items():
            moved = [{**{k: v for k, v in x.items() if k != "seq"}, "from": aside.name} for x in lines.values()]
            store.append(system, unit, moved)
            carried += len(moved)
    return carried


def oldest_write(root: Path) -> str | None:
    """The oldest modification time of the files under ``root`` (UTC, ISO 8601), or None."""
    times = [p.stat().st_mtime for p in root.rglob("*") if p.is_file() and p.name != LOCK_NAME]
    if not times:
        return None
    return datetime.fromtimestamp(min(times), timezone.utc).isoformat(timespec="seconds")
