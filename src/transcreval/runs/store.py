"""The run directory: stable file names, appended per-item lines, atomic JSON files.

::

    DIR/run.json               what produced the run: versions, protocol, options, unit signatures, seeds
    DIR/manifest.lock.jsonl    one line per item: resolved paths + sha256 of every image, each system's output
    DIR/items/<system>/<unit>.jsonl   one line per item x unit (appended, flushed and fsynced)
    DIR/cache/                 judge.sqlite (judge answers), features.sqlite (image features)
    DIR/results.json           the protocol result: records, paper tables, signatures, judge usage
    DIR/comparisons.json       every system against the baseline (transcreval compare)
    DIR/report.md, report.html, figures/   (transcreval report)

A unit line is ``{"item": id, "key": ..., "records": [...], "payload": {...}}`` (with
``"served": {model: answers}`` where another model than the one asked answered:
:mod:`transcreval.runs.served`); a line ``{"usage": {...}}`` after a batch holds the judge
calls and tokens it spent (and ``"served"``: the model names that answered them). The last line
for an item wins. A line cut short by a crash is cut off before the next append. Under
``torchrun`` each rank appends to ``<unit>.rank<r>.jsonl``; rank 0 merges them at the end (and
a later run reads unmerged rank files too).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, overload

from transcreval.errors import InputError
from transcreval.protocols.records import ItemRecord

__all__ = ["RUN_FORMAT", "RunDir", "record_from_dict", "write_json"]

RUN_FORMAT = 1
_RANK_FILE = re.compile(r"^(?P<unit>.+)\.rank(?P<rank>\d+)\.jsonl$")


def _clean(obj: Any) -> Any:
    """NaN and infinities as null (strict JSON)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


def write_json(path: Path, obj: Any) -> Path:
    """Write ``obj`` as JSON (NaN -> null) whole, then rename into place."""
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(_clean(obj), indent=1, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def record_from_dict(d: Mapping[str, Any]) -> ItemRecord:
    """An :class:`ItemRecord` back from ``ItemRecord.to_dict()`` (null value -> NaN)."""
    v = d.get("value")
    return ItemRecord(
        str(d["item_id"]),
        str(d["system"]),
        str(d["metric"]),
        math.nan if v is None else float(v),
        str(d.get("status", "ok")),
        d.get("group"),
        dict(d.get("meta") or {}),
    )


def _safe(name: str) -> str:
    """A system or unit name as a directory/file name (``/`` and other odd characters replaced)."""
    out = re.sub(r"[^\w.+\- ]", "_", name).strip()
    if not out or out in (".", ".."):
        raise InputError(f"{name!r} cannot name a folder of the run directory")
    return out


class _InRun:
    """A file or folder of the run directory by its fixed name: ``run.lock`` is
    ``run.root / "manifest.lock.jsonl"`` (read-only)."""

    def __init__(self, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, run: None, owner: type[Any]) -> _InRun: ...
    @overload
    def __get__(self, run: RunDir, owner: type[Any] | None = None) -> Path: ...
    def __get__(self, run: RunDir | None, owner: type[Any] | None = None) -> Path | _InRun:
        return self if run is None else run.root / self.name

    def __set__(self, run: RunDir, value: Any) -> None:
        raise AttributeError(f"the run directory's {self.name} is fixed by its name")


class RunDir:
    """A run directory (see the module docstring); ``rank`` / ``world`` for torchrun."""

    def __init__(self, root: str | os.PathLike[str], rank: int = 0, world: int = 1) -> None:
        self.root = Path(root)
        self.rank, self.world = rank, world

    # ------------------------------------------------------------------ names
    run_json = _InRun("run.json")
    lock = _InRun("manifest.lock.jsonl")
    items_dir = _InRun("items")
    cache_dir = _InRun("cache")
    results = _InRun("results.json")
    comparisons = _InRun("comparisons.json")

    def unit_path(self, system: str, unit: str, rank: int | None = None) -> Path:
        d = self.items_dir / _safe(system)
        return d / (f"{_safe(unit)}.jsonl" if rank is None else f"{_safe(unit)}.rank{rank}.jsonl")

    # ------------------------------------------------------------------ run.json
    def exists(self) -> bool:
        return self.run_json.is_file()

    def read_run(self) -> dict[str, Any]:
        try:
            return dict(json.loads(self.run_json.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise InputError(
                f"{self.root} is not a run directory (no run.json): run `transcreval evaluate` first"
            ) from None
        except (OSError, json.JSONDecodeError) as e:
            raise InputError(f"{self.run_json}: cannot be read ({e})") from None

    def check_resumable(self, protocol: str, version: str) -> dict[str, Any] | None:
        """The stored run.json if the run can be resumed by ``protocol`` at ``version``; None for
        a new directory; an InputError saying how to start fresh otherwise."""
        if not self.exists():
            if self.root.exists() and any(self.root.iterdir()) and not self._only_judge_cache():
                raise InputError(
                    f"{self.root} exists, is not empty and holds no run.json: choose another --out "
                    "(transcreval never writes into a folder it did not make)"
                )
            return None
        info = self.read_run()
        fresh = f"start fresh with another --out, or delete {self.root} (or pass --fresh)"
        if info.get("format") != RUN_FORMAT:
            raise InputError(
                f"{self.root}: run format {info.get('format')!r}, this transcreval writes {RUN_FORMAT}; {fresh}"
            )
        if info.get("protocol") != protocol:
            raise InputError(f"{self.root} holds a run of protocol {info.get('protocol')!r}, not {protocol!r}; {fresh}")
        if str(info.get("protocol_version")) != str(version):
            raise InputError(
                f"{self.root} was made by protocol {protocol} version {info.get('protocol_version')!r}; this is "
                f"version {version!r}, whose stored records may mean something else, so it will not resume: {fresh}"
            )
        return info

    def _only_judge_cache(self) -> bool:
        """The folder holds only what ``evaluate`` opens before run.json (``cache/judge.sqlite*``):
        a run that stopped before it began (a metric that cannot run here) may start again."""
        entries = list(self.root.iterdir())
        if [e.name for e in entries] != ["cache"] or not entries[0].is_dir():
            return False
        return all(f.is_file() and f.name.startswith("judge.sqlite") for f in entries[0].iterdir())

    def write_run(self, info: Mapping[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        write_json(self.run_json, {"format": RUN_FORMAT, **dict(info)})

    # ------------------------------------------------------------------ manifest lock
    def write_lock(self, lines: Iterable[Mapping[str, Any]]) -> None:
        tmp = self.lock.with_name(self.lock.name + f".tmp{os.getpid()}")
        with open(tmp, "w", encoding="utf-8") as f:
            for line in lines:
                f.write(json.dumps(_clean(line), ensure_ascii=False, allow_nan=False) + "\n")
        os.replace(tmp, self.lock)

    def read_lock(self) -> list[dict[str, Any]]:
        try:
            text = self.lock.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError(f"{self.root}: no manifest.lock.jsonl (the run never started)") from None
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    # ------------------------------------------------------------------ unit lines
    def append(self, system: str, unit: str, lines: Sequence[Mapping[str, Any]]) -> None:
        """Append lines to this rank's file of (system, unit), then flush and fsync."""
        if not lines:
            return
        path = self.unit_path(system, unit, self.rank if self.world > 1 else None)
        path.parent.mkdir(parents=True, exist_ok=True)
        _cut_torn_tail(path)
        data = "".join(json.dumps(_clean(x), ensure_ascii=False, allow_nan=False) + "\n" for x in lines)
        with open(path, "a", encoding="utf-8") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())

    def read_unit(self, system: str, unit: str) -> list[dict[str, Any]]:
        """Every stored line of (system, unit): the merged file, then any rank files."""
        d = self.items_dir / _safe(system)
        paths = [self.unit_path(system, unit)]
        if d.is_dir():
            paths += sorted(p for p in d.iterdir() if (m := _RANK_FILE.match(p.name)) and m["unit"] == _safe(unit))
        out: list[dict[str, Any]] = []
        for p in paths:
            out += _read_lines(p)
        return out

    def latest(self, system: str, unit: str) -> dict[str, dict[str, Any]]:
        """The last stored line per item id."""
        return {line["item"]: line for line in self.read_unit(system, unit) if "item" in line}

    def usage(self, system: str, unit: str) -> dict[str, float]:
        """The judge usage lines of (system, unit), summed."""
        total: dict[str, float] = {}
        for line in self.read_unit(system, unit):
            for k, v in (line.get("usage") or {}).items():
                total[k] = total.get(k, 0) + (v or 0)
        return total

    def stored_units(self) -> dict[str, list[str]]:
        """``{system folder: [unit, ...]}`` of every unit file on disk."""
        out: dict[str, list[str]] = {}
        if not self.items_dir.is_dir():
            return out
        for d in sorted(p for p in self.items_dir.iterdir() if p.is_dir()):
            names = set()
            for p in d.iterdir():
                m = _RANK_FILE.match(p.name)
                if m:
                    names.add(m["unit"])
                elif p.suffix == ".jsonl":
                    names.add(p.stem)
            out[d.name] = sorted(names)
        return out

    def merge_ranks(self) -> int:
        """Append every ``<unit>.rank<r>.jsonl`` to ``<unit>.jsonl`` (rank order) and remove it;
        returns the number of files merged. Call on one process after the others finished."""
        merged = 0
        if not self.items_dir.is_dir():
            return 0
        for d in sorted(p for p in self.items_dir.iterdir() if p.is_dir()):
            ranked: dict[str, list[tuple[int, Path]]] = {}
            for p in d.iterdir():
                m = _RANK_FILE.match(p.name)
                if m:
                    ranked.setdefault(m["unit"], []).append((int(m["rank"]), p))
            for unit, files in ranked.items():
                target = d / f"{unit}.jsonl"
                _cut_torn_tail(target)
                with open(target, "a", encoding="utf-8") as out:
                    for _, p in sorted(files):
                        for line in _read_lines(p):
                            out.write(json.dumps(line, ensure_ascii=False, allow_nan=False) + "\n")
                    out.flush()
                    os.fsync(out.fileno())
                for _, p in files:
                    p.unlink()
                    merged += 1
        return merged


def _read_lines(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    out = []
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            if n == len(lines) - 1:  # the torn last line of a killed run: not done, redone
                break
            raise InputError(
                f"{path}, line {n + 1}: not JSON; the run directory is damaged (delete that line)"
            ) from None
    return out


def _cut_torn_tail(path: Path) -> None:
    """Cut a last line that a crash left without its newline (its item is simply redone)."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    if size == 0:
        return
    with open(path, "rb+") as f:
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        f.seek(0)
        data = f.read()
        f.truncate(data.rfind(b"\n") + 1)
