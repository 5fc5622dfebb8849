"""Where the PosterIQ protocol's records come from: files, folders, several systems' files.

:func:`load_records` takes any of these and returns the protocol's records
(:mod:`~transcreval.protocols.posteriq.inputs`), each with its ``system``:

* a records file: ``.jsonl`` (one record per line) or ``.json`` (a list of records);
* PosterIQ's own result file, ``{model}_bench.json`` (:mod:`~transcreval.protocols.posteriq.bench`),
  recognised by its items; the system is named after the file unless ``system`` is given;
* a folder: every ``*_bench.json`` in it (any case), one system each (sorted by file name);
* several of these (a list of paths), or ``{system name: path}``;
* the records themselves (an iterable of mappings; PosterIQ's items are read too).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.posteriq.bench import BENCH_SUFFIX, bench_records, is_bench_item, system_of

__all__ = ["Located", "Source", "bench_files", "load_records", "load_sources"]

Source = str | os.PathLike[str] | Mapping[str, Any] | Iterable[Any]


def bench_files(folder: Path) -> list[Path]:
    """The PosterIQ result files (``*_bench.json``, any case) of a folder, sorted by name."""
    suffix = f"{BENCH_SUFFIX}.json"
    found = sorted(p for p in folder.iterdir() if p.is_file() and p.name.lower().endswith(suffix))
    if not found:
        raise InputError(
            f"{folder}: no PosterIQ result file (*{suffix}) in this folder; pass a file, or name each system's file"
        )
    return found


Located = list[tuple[str, Any]]  # (where it comes from, record)


def _read_file(path: Path) -> Located:
    if not path.is_file():
        raise InputError(f"no such records file: {path}")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read {path}: {e}") from None
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(f"{path}: not valid JSON ({e})") from None
        if not isinstance(data, list):
            raise InputError(f"{path}: a .json records file holds a list of objects (or use .jsonl)")
        return [(f"{path}, item {n}", r) for n, r in enumerate(data, start=1)]
    rows = []
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                rows.append((f"{path}, line {n}", json.loads(line)))
            except json.JSONDecodeError as e:
                raise InputError(f"{path}, line {n}: not valid JSON ({e.msg})") from None
    return rows


def _rows(rows: Located, system: str | None, source: str, default_system: str | None) -> Located:
    """Records of one source: PosterIQ's items converted (named ``system``, else
    ``default_system``, the file's name), records as they are (``system`` filled in where given)."""
    bench = [is_bench_item(r) for _, r in rows]
    if any(bench) and not all(bench):
        first = bench.index(not bench[0]) + 1
        raise InputError(
            f"{source}: mixes PosterIQ's items (prompt/path, no item_id) and this protocol's records (item {first} "
            "differs from item 1); keep one kind per file"
        )
    if rows and bench[0]:
        name = system or default_system
        if not name:
            raise InputError(f"{source}: PosterIQ's items carry no system name: pass system='...'")
        return bench_records([r for _, r in rows], name, source)
    if system is None:
        return rows
    return [(w, {"system": system, **r} if isinstance(r, Mapping) and "system" not in r else r) for w, r in rows]


def _path_rows(path: Path, system: str | None) -> Located:
    if path.is_dir():
        if system is not None:
            raise InputError(f"{path}: a folder holds one system per file; name them with {{system: path}} instead")
        return [r for f in bench_files(path) for r in _rows(_read_file(f), None, str(f), system_of(f))]
    return _rows(_read_file(path), system, str(path), system_of(path))


def load_sources(source: Source, system: str | None = None) -> Located:
    """The records of ``source`` (see the module docstring), each with where it comes from
    (``"X_bench.json, item 12"``, ``"answers.jsonl, line 3"``, ``"row 3"``); ``system`` names
    the system of a single file or of records without one."""
    if isinstance(source, (str, os.PathLike)):
        return _path_rows(Path(source), system)
    if isinstance(source, Mapping):
        if not source or not all(isinstance(v, (str, os.PathLike)) for v in source.values()):
            raise InputError(
                "a mapping is {system name: result file}; pass a list of records (one mapping per item) otherwise"
            )
        if system is not None:
            raise InputError("system= names one file's system; the mapping already names each system")
        return [r for name, p in source.items() for r in _path_rows(Path(p), str(name))]
    rows = list(source)
    if rows and all(isinstance(r, (str, os.PathLike)) for r in rows):
        if system is not None and len(rows) > 1:
            raise InputError("system= names one file's system; with several files pass {system name: path}")
        return [r for p in rows for r in _path_rows(Path(p), system)]
    return _rows([(f"row {n}", r) for n, r in enumerate(rows, start=1)], system, "records", None)


def load_records(source: Source, system: str | None = None) -> list[Any]:
    """The records of ``source``: :func:`load_sources` without the labels."""
    return [r for _, r in load_sources(source, system)]
