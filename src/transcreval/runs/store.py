"""The run directory: stable file names, appended per-item lines, atomic JSON files.

::

    DIR/run.json               what produced the run: versions, protocol, options, unit signatures, seeds
    DIR/manifest.lock.jsonl    one line per item: resolved paths + sha256 of every image, each system's output
    DIR/items/<system>/<unit>.jsonl   one line per item x unit (appended, flushed and fsynced)
    DIR/cache/                 judge.sqlite (judge answers), features.sqlite (image features)
    DIR/results.json           the protocol result: records, paper tables, signatures, judge usage
    DIR/comparisons.json       every system against the baseline (transcreval compare)
    DIR/report.md, report.html, figures/   (transcreval report)
    DIR/run.lock               while a process writes here (transcreval.runs.lock)

``<system>`` is the system's name encoded injectively (:func:`~transcreval.runs.names.folder_name`:
``a/b`` -> ``a%2Fb``), so two systems never share a folder.

A unit line is ``{"item": id, "key": ..., "records": [...], "payload": {...}}`` (with
``"served": {model: answers}`` and ``"other_model_metrics": {model: [metrics]}`` where another
model than the one asked answered: :mod:`transcreval.runs.served`); a line ``{"usage": {...}}``
after a batch holds the judge calls and tokens it spent (and ``"served"``: the model names that
answered them). Every line has
a sequence number ``"seq": [generation, rank, n]`` (``generation`` counts the ``evaluate`` runs of
the directory, run.json's ``generation``; ``n`` the lines of one process): the newest line of an
item wins by it, whichever file holds it, and a line found twice counts once. A line cut short
by a crash is cut off before the next append. Under ``torchrun`` each rank appends to
``<unit>.rank<r>.jsonl``; rank 0 merges them at the end, idempotently (and a later run reads
unmerged rank files too).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

from transcreval.errors import InputError
from transcreval.protocols.records import ItemRecord
from transcreval.runs.keys import Keying, current, system_works, to_do
from transcreval.runs.lock import LOCK_NAME
from transcreval.runs.manifest import items_from_lock
from transcreval.runs.names import folder_name
from transcreval.runs.spec import Item, Output, Work
from transcreval.utils.digest import sha256_file
from transcreval.utils.files import replacing

__all__ = ["RUN_FORMAT", "RunDir", "StoredRun", "UnitLines", "read_lines", "record_from_dict", "write_json"]

#: the run directory's format: 2 names folders injectively and keys lines by system (format 1
#: directories are brought up to date by ``evaluate``: their lines are set aside and redone)
RUN_FORMAT = 2
OLD_FORMATS = (1,)
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
    """Write ``obj`` as JSON (NaN -> null) whole, then rename into place (a write that fails, a
    full disk, leaves the old file and no temporary one)."""
    text = json.dumps(_clean(obj), indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    with replacing(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
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


@dataclass(frozen=True)
class UnitLines:
    """Every stored line of one (system, unit), oldest first, read once (:meth:`RunDir.unit_lines`)."""

    lines: tuple[dict[str, Any], ...]

    def latest(self) -> dict[str, dict[str, Any]]:
        """The newest line per item id (by sequence number)."""
        return {line["item"]: line for line in self.lines if "item" in line}

    def usage(self) -> dict[str, float]:
        """The judge usage lines, summed."""
        total: dict[str, float] = {}
        for line in self.lines:
            for k, v in (line.get("usage") or {}).items():
                total[k] = total.get(k, 0) + (v or 0)
        return total


@dataclass(frozen=True)
class StoredRun:
    """A run directory read in one call (:meth:`RunDir.read_stored`), for ``aggregate``.

    Attributes:
        items, outputs: what ``manifest.lock.jsonl`` holds (:func:`~transcreval.runs.manifest.items_from_lock`).
        lines: ``{(unit, system): its stored lines}`` of every unit run.json lists (reference
            systems included).
        current: ``{(unit, system, item id): line}``: the newest stored line of each work whose
            key is current (:func:`~transcreval.runs.keys.current`); a work without one is absent.
        records: the records of each current line, by the same key (:func:`record_from_dict`).
        lock_sha256: the sha256 of ``manifest.lock.jsonl`` as read.
    """

    items: list[Item]
    outputs: dict[str, dict[str, Output]]
    lines: dict[tuple[str, str], UnitLines]
    current: dict[tuple[str, str, str], dict[str, Any]]
    records: dict[tuple[str, str, str], list[ItemRecord]]
    lock_sha256: str


class RunDir:
    """A run directory (see the module docstring); ``rank`` / ``world`` for torchrun."""

    def __init__(self, root: str | os.PathLike[str], rank: int = 0, world: int = 1, generation: int = 0) -> None:
        self.root = Path(root)
        self.rank, self.world = rank, world
        self.generation = generation
        self._n = 0  # lines appended by this process (the last part of their sequence numbers)

    @classmethod
    def open(
        cls, root: str | os.PathLike[str], protocol: str, version: str, rank: int = 0, world: int = 1
    ) -> tuple[RunDir, dict[str, Any]]:
        """``root`` for a new ``evaluate`` pass of ``protocol`` at ``version``: the store that
        writes the pass's lines (the next generation) and the stored run.json (``{}`` for a new
        directory; :meth:`check_resumable` says why another cannot be resumed)."""
        prev = cls(root).check_resumable(protocol, version) or {}
        # each evaluate is one generation of lines: the newest generation's line of an item wins
        generation = int(prev.get("generation", 0)) + 1
        return cls(root, rank, world, generation=generation), prev

    # ------------------------------------------------------------------ names
    run_json = _InRun("run.json")
    lock = _InRun("manifest.lock.jsonl")
    items_dir = _InRun("items")
    cache_dir = _InRun("cache")
    results = _InRun("results.json")
    comparisons = _InRun("comparisons.json")

    def unit_path(self, system: str, unit: str, rank: int | None = None) -> Path:
        return _unit_file(self.items_dir / folder_name(system), folder_name(unit), rank)

    def _system_dir(self, system: str) -> Path:
        """The folder of ``system``'s lines (InputError when a file holds its place)."""
        d = self.items_dir / folder_name(system)
        if d.exists() and not d.is_dir():
            raise InputError(
                f"{d} should be the folder of system {system!r}'s lines but is a file: move it aside, then rerun "
                "`transcreval evaluate` (its items are scored again)"
            )
        return d

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
            if self.root.exists() and self._entries() and not self._only_judge_cache():
                raise InputError(
                    f"{self.root} exists, is not empty and holds no run.json: choose another --out "
                    "(transcreval never writes into a folder it did not make)"
                )
            return None
        info = self.read_run()
        fresh = f"start fresh with another --out, or delete {self.root} (or pass --fresh)"
        if info.get("format") not in (RUN_FORMAT, *OLD_FORMATS):
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

    def check_current(self, info: Mapping[str, Any]) -> None:
        """InputError unless run.json is of this transcreval's format (rescore cannot re-key older lines)."""
        if info.get("format") != RUN_FORMAT:
            raise InputError(
                f"{self.root} was written by an older transcreval (run format {info.get('format')!r}); its "
                "results.json still holds its results, but its stored lines are keyed differently: run the same "
                "`transcreval evaluate` command to bring it up to date (judge answers come from its cache)"
            )

    def set_old_lines_aside(self) -> Path | None:
        """Move ``items/`` of an older-format run to ``items.format<N>/`` (its lines are keyed
        differently and will be redone; judge answers stay in ``cache/``); returns where, or None."""
        info = self.read_run()
        if info.get("format") == RUN_FORMAT or not self.items_dir.exists():
            return None
        target = self.root / f"items.format{info.get('format')}"
        n = 1
        while target.exists():
            n += 1
            target = self.root / f"items.format{info.get('format')}.{n}"
        os.replace(self.items_dir, target)
        return target

    def _entries(self) -> list[Path]:
        """What the folder holds besides the lock of the process that runs here."""
        return [e for e in self.root.iterdir() if e.name != LOCK_NAME]

    def _only_judge_cache(self) -> bool:
        """The folder holds only what ``evaluate`` opens before run.json (``cache/judge.sqlite*``):
        a run that stopped before it began (a metric that cannot run here) may start again."""
        entries = self._entries()
        if [e.name for e in entries] != ["cache"] or not entries[0].is_dir():
            return False
        return all(f.is_file() and f.name.startswith("judge.sqlite") for f in entries[0].iterdir())

    def write_results(self, results: Mapping[str, Any]) -> Path:
        """Write ``results.json`` (:func:`write_json`)."""
        return write_json(self.results, results)

    def write_run(self, info: Mapping[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        write_json(self.run_json, {"format": RUN_FORMAT, **dict(info)})

    def begin(self, info: Mapping[str, Any], lock_lines: Iterable[Mapping[str, Any]]) -> None:
        """Start a pass: the folder and its ``cache/``, ``manifest.lock.jsonl`` and run.json."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.cache_dir.mkdir(exist_ok=True)
        self.write_lock(lock_lines)
        self.write_run(info)

    def finish(self, info: Mapping[str, Any]) -> None:
        """End a pass (one process, after the others finished): run.json, the ranks' lines merged."""
        self.write_run(info)
        self.merge_ranks()

    # ------------------------------------------------------------------ manifest lock
    def write_lock(self, lines: Iterable[Mapping[str, Any]]) -> None:
        with replacing(self.lock) as tmp, open(tmp, "w", encoding="utf-8") as f:
            for line in lines:
                f.write(json.dumps(_clean(line), ensure_ascii=False, allow_nan=False) + "\n")

    def read_lock(self) -> list[dict[str, Any]]:
        try:
            text = self.lock.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError(f"{self.root}: no manifest.lock.jsonl (the run never started)") from None
        except UnicodeDecodeError:
            text = ""
        out = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                row = None
            if not isinstance(row, dict) or not isinstance(row.get("outputs"), dict) or "id" not in row:
                raise InputError(
                    f"{self.lock}, line {n}: damaged (not a line evaluate writes); rerun the same `transcreval "
                    "evaluate` command to write it again (nothing is scored twice)"
                )
            out.append(row)
        if not out:
            raise InputError(f"{self.lock} is empty or damaged; rerun the same `transcreval evaluate` command")
        return out

    # ------------------------------------------------------------------ unit lines
    def append(self, system: str, unit: str, lines: Sequence[Mapping[str, Any]]) -> None:
        """Append lines to this rank's file of (system, unit), each with its sequence number
        ``[generation, rank, n]``, then flush and fsync."""
        if not lines:
            return
        stem = folder_name(unit)
        path = _unit_file(self._system_dir(system), stem, self.rank if self.world > 1 else None)
        path.parent.mkdir(parents=True, exist_ok=True)
        _cut_torn_tail(path)
        out = []
        for x in lines:
            self._n += 1
            line = _clean({**x, "seq": [self.generation, self.rank, self._n]})
            out.append(json.dumps(line, ensure_ascii=False, allow_nan=False))
        data = "".join(line + "\n" for line in out)
        with open(path, "a", encoding="utf-8") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())

    def _unit_files(self, system: str, unit: str) -> list[Path]:
        d, stem = self._system_dir(system), folder_name(unit)
        paths = [_unit_file(d, stem)]
        if d.is_dir():
            paths += sorted(p for p in d.iterdir() if (m := _RANK_FILE.match(p.name)) and m["unit"] == stem)
        return paths

    def read_unit(self, system: str, unit: str) -> list[dict[str, Any]]:
        """Every stored line of (system, unit), the merged file's and any rank file's, oldest
        first by sequence number; a line found twice (a merge cut short) counts once."""
        by_seq: dict[tuple[int, ...], dict[str, Any]] = {}
        unsequenced = 0
        for p in self._unit_files(system, unit):
            for line in read_lines(p):
                seq = line.get("seq")
                if seq is None:  # a line written before sequence numbers: older than any, in file order
                    unsequenced += 1
                    key: tuple[int, ...] = (-1, 0, unsequenced)
                else:
                    key = tuple(seq)
                by_seq.setdefault(key, line)
        return [by_seq[k] for k in sorted(by_seq)]

    def unit_lines(self, system: str, unit: str) -> UnitLines:
        """Every stored line of (system, unit) (:meth:`read_unit`), read once for all questions."""
        return UnitLines(tuple(self.read_unit(system, unit)))

    def pending(self, system: str, unit: str, works: Sequence[Work], keying: Keying | None) -> list[tuple[Work, str]]:
        """The works of (system, unit) still to do, each with its key (:func:`~transcreval.runs.keys.to_do`:
        no stored line is done with that key); every work without a ``keying``. The stored lines
        are read once."""
        return to_do(keying, works, self.unit_lines(system, unit).latest())

    def read_stored(self, info: Mapping[str, Any]) -> StoredRun:
        """The whole run, for ``aggregate``: the items and outputs of ``manifest.lock.jsonl``, every
        unit's stored lines (each file read once) and, per work, the line whose key is current
        under run.json (``info``: its units' signature digests). InputError for a run of an
        older format (:meth:`check_current`)."""
        lock = self.read_lock()
        lock_sha = sha256_file(self.lock)
        items, outputs = items_from_lock(lock)
        self.check_current(info)
        lines: dict[tuple[str, str], UnitLines] = {}
        now: dict[tuple[str, str, str], dict[str, Any]] = {}
        for name, u in dict(info.get("units", {})).items():
            keying = Keying(info["protocol"], str(info["protocol_version"]), name, u["signature_digest"])
            ref = u.get("reference_system")
            for system in (*info.get("systems", {}), *([ref] if ref else [])):
                stored = lines[(name, system)] = self.unit_lines(system, name)
                works = system_works(items, outputs, system, ref)
                for item_id, line in current(keying, works, stored.latest()).items():
                    now[(name, system, item_id)] = line
        records = {k: [record_from_dict(r) for r in line.get("records", ())] for k, line in now.items()}
        return StoredRun(items, outputs, lines, now, records, lock_sha)

    def latest(self, system: str, unit: str) -> dict[str, dict[str, Any]]:
        """The newest stored line per item id (by sequence number)."""
        return self.unit_lines(system, unit).latest()

    def usage(self, system: str, unit: str) -> dict[str, float]:
        """The judge usage lines of (system, unit), summed."""
        return self.unit_lines(system, unit).usage()

    def merge_ranks(self) -> int:
        """Append every line of the ``<unit>.rank<r>.jsonl`` files that ``<unit>.jsonl`` does not
        hold yet (by sequence number), then remove them; returns the number of files merged.
        Idempotent: a merge cut short between the append and the removal is finished by the next
        one without a line twice. Call on one process after the others finished."""
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
                target = _unit_file(d, unit)
                _cut_torn_tail(target)
                held = {tuple(x["seq"]) for x in read_lines(target) if x.get("seq") is not None}
                with open(target, "a", encoding="utf-8") as out:
                    for _, p in sorted(files):
                        for line in read_lines(p):
                            if line.get("seq") is not None and tuple(line["seq"]) in held:
                                continue
                            out.write(json.dumps(line, ensure_ascii=False, allow_nan=False) + "\n")
                    out.flush()
                    os.fsync(out.fileno())
                for _, p in files:
                    p.unlink()
                    merged += 1
        return merged


def _unit_file(folder: Path, stem: str, rank: int | None = None) -> Path:
    """The file of a unit (its folder name ``stem``) in a system's ``folder``: the merged one, or a rank's."""
    return folder / (f"{stem}.jsonl" if rank is None else f"{stem}.rank{rank}.jsonl")


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The lines of one file of a run directory (a torn last line left out; InputError on damage)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    out = []
    lines = data.split(b"\n")
    for n, raw in enumerate(lines):
        if not raw.strip():
            continue
        damaged = (
            f"{path}, line {n + 1}: {{}}; the run directory is damaged (delete that line: its item is scored again)"
        )
        try:
            line = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise InputError(damaged.format("not UTF-8 text")) from None
        except json.JSONDecodeError:
            if n == len(lines) - 1:  # the torn last line of a killed run: not done, redone
                break
            raise InputError(damaged.format("not JSON")) from None
        why = _shape_error(line)
        if why:
            raise InputError(damaged.format(why))
        out.append(line)
    return out


def _shape_error(line: Any) -> str:
    """Why a parsed line is not one that ``append`` writes ('' when it is)."""
    if not isinstance(line, dict):
        return f"a JSON {type(line).__name__}, not an object"
    seq = line.get("seq")
    if seq is not None and not (
        isinstance(seq, list) and len(seq) == 3 and all(isinstance(x, int) and not isinstance(x, bool) for x in seq)
    ):
        return "its 'seq' is not [generation, rank, n]"
    if "usage" in line:
        ok = isinstance(line["usage"], dict) and all(isinstance(v, (int, float)) for v in line["usage"].values())
        return "" if ok else "its 'usage' is not a mapping of counts"
    if not isinstance(line.get("item"), str) or not isinstance(line.get("key"), str):
        return "no 'item' and 'key' strings"
    records = line.get("records")
    if not isinstance(records, list) or not all(
        isinstance(r, dict) and all(isinstance(r.get(k), str) for k in ("item_id", "system", "metric")) for r in records
    ):
        return "its 'records' is not a list of records (item_id, system, metric, value, status)"
    if not isinstance(line.get("payload", {}), dict):
        return "its 'payload' is not an object"
    return ""


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
