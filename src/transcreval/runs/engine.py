"""The scoring loop: every selected unit over every system's items, resumable and budgeted.

For each unit and system the engine lists the items (this rank's shard under torchrun), keys
each one (:func:`work_key`: the unit's signature, the item's and the output's content digests),
skips those whose stored line has that key, writes a failure line at once for an output that
cannot be scored (missing, missing file, undecodable, lacking what the unit needs), and scores
the rest ``batch_size`` at a time, appending each batch's lines (fsynced) before the next
starts. A stored line whose records hold a transient judge failure (``api_error``,
``timeout``, or a status derived from one such as ``gt_title_api_error``; or whose payload's
``status`` is one) is redone. A batch the judge budget cannot pay for
(:class:`~transcreval.runs.judging.BudgetExceeded`) is tried again item by item, so what the
budget allows is scored; the first item it cannot pay for ends the loop cleanly: that item did
not write, the judge answers it got are cached, and a rerun goes on from there. Whatever leaves a
batch early (the budget, Ctrl-C, an error) leaves a usage line with the calls it made first: they
were paid, and the rerun answers them from the cache without counting them again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from transcreval.errors import ImageDecodeError, InputError
from transcreval.runs.judging import BudgetExceeded, MeteredJudge
from transcreval.runs.manifest import content_digest
from transcreval.runs.progress import Progress
from transcreval.runs.ranks import Ranks
from transcreval.runs.served import served_per_item
from transcreval.runs.spec import Item, Outcome, Output, Prepared, Unit, UnitContext, Work, failed_records
from transcreval.runs.store import RunDir

__all__ = ["TRANSIENT", "EngineReport", "is_transient", "reference_output", "run_units", "signature_digest", "work_key"]

#: record statuses redone on the next run (the answer may come back next time)
TRANSIENT = ("api_error", "timeout")


def is_transient(status: Any) -> bool:
    """A transient judge failure, or a status derived from one (MPTc's ``gt_title_api_error``:
    the title could not be scored because the GT poster's title call failed): redone on resume."""
    return isinstance(status, str) and (status in TRANSIENT or status.endswith(tuple(f"_{t}" for t in TRANSIENT)))


@dataclass
class EngineReport:
    """What a pass did: per (unit, system) counts, judge usage per unit, why it stopped early."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, dict[str, int]] = field(default_factory=dict)
    signatures: dict[str, str] = field(default_factory=dict)
    stopped: str | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    #: why the judge cannot be used (a judge unit got no usable answer in this run), or None
    judge_unusable: str | None = None


def signature_digest(signature: Any) -> str:
    """sha256 of a unit signature's canonical JSON (a printed signature is its own JSON string)."""
    canonical = getattr(signature, "canonical_json", None)
    text = canonical() if callable(canonical) else json.dumps(str(signature), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def work_key(protocol: str, version: str, unit: str, digest: str, work: Work) -> str:
    """sha256 of what defines a unit's result for one item: the protocol and its version, the
    unit, the system, the unit's signature (its :func:`signature_digest`), the item's and the
    output's content (images by sha256)."""
    payload = [
        protocol,
        str(version),
        unit,
        work.system,
        digest,
        work.item.digest,
        work.output.digest,
        work.output.status,
    ]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()


def reference_output(item: Item, system: str) -> Output:
    """The item's own reference (image and text) as the output of a reference system ("GT")."""
    if item.reference_image is None and item.reference_text is None:
        return Output(
            system,
            item.id,
            digest=content_digest({"ref": None}),
            status="missing_output",
            detail="the item has no reference",
            where=item.where,
        )
    return Output(
        system,
        item.id,
        item.reference_image,
        item.reference_text,
        {},
        content_digest({"ref": item.digest}),
        "ok",
        "",
        item.where,
    )


class _Decodes:
    """Whether each image file decodes (through transcreval.io), each file tried once."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def error(self, path: str | None) -> str:
        if path is None:
            return ""
        if path not in self.seen:
            from transcreval.io import open_image

            try:
                open_image(path).close()
                self.seen[path] = ""
            except ImageDecodeError as e:
                self.seen[path] = str(e)
        return self.seen[path]


def _failure(unit: Unit, work: Work, decodes: _Decodes) -> tuple[str, str] | None:
    """(status, detail) when the work cannot be scored by the unit, else None."""
    o, it = work.output, work.item
    if not o.ok:
        return o.status, o.detail
    if "image" in unit.needs:
        if o.image is None:
            return "missing_output", f"{work.system} gave no image for item {it.id!r}"
        bad = decodes.error(o.image)
        if bad:
            return "undecodable_output", bad
    if "text" in unit.needs and not o.text:
        return "no_text", f"{work.system} gave no text for item {it.id!r}"
    for role in ("source_image", "reference_image"):
        if role in unit.needs:
            path = getattr(it, role)
            if path is None:
                raise InputError(f"{it.where}: {role!r} is required by the {unit.name!r} unit")
            bad = decodes.error(path)
            if bad:
                return "undecodable_input", f"{role}: {bad}"
    return None


def _line(key: str, work: Work, out: Outcome) -> dict[str, Any]:
    for r in out.records:
        if r.item_id != work.item.id:
            raise InputError(f"a unit returned a record of item {r.item_id!r} for item {work.item.id!r}")
    return {
        "item": work.item.id,
        "key": key,
        "records": [r.to_dict() for r in out.records],
        "payload": dict(out.payload),
    }


def _done(line: Mapping[str, Any] | None, key: str) -> bool:
    """The stored line has this key and no transient failure in its records or its payload's
    ``status`` (a unit whose payload holds a judge's verdicts says there when one failed)."""
    if line is None or line.get("key") != key:
        return False
    if is_transient((line.get("payload") or {}).get("status")):
        return False
    return not any(is_transient(r.get("status")) for r in line.get("records", ()))


def _systems(unit: Unit, outputs: Mapping[str, Mapping[str, Output]]) -> list[str]:
    return [*outputs, *([unit.reference_system] if unit.reference_system else [])]


def run_units(
    *,
    protocol: str,
    version: str,
    units: Sequence[Unit],
    items: Sequence[Item],
    outputs: Mapping[str, Mapping[str, Output]],
    ctx: UnitContext,
    store: RunDir,
    ranks: Ranks,
    progress: Progress,
    dry_run: bool = False,
    on_signature: Callable[[str, Any], None] | None = None,
) -> EngineReport:
    """Score every unit over every system (see the module docstring)."""
    report = EngineReport()
    judge = ctx.judge if isinstance(ctx.judge, MeteredJudge) else None
    decodes = _Decodes()
    for unit in units:
        sig = unit.signature(ctx) if unit.signature is not None else None
        prepared: Prepared | None = None
        if sig is None and (not dry_run or unit.uses_judge):  # a dry run builds no model
            prepared = unit.prepare(ctx)
            sig = prepared.signature
        digest = signature_digest(sig) if sig is not None else ""
        if sig is not None:
            report.signatures[unit.name] = str(sig)
            if on_signature is not None:
                on_signature(unit.name, sig)
        plans = []
        for system in _systems(unit, outputs):
            if system == unit.reference_system:
                works = [Work(it, reference_output(it, system), system) for it in items]
            else:
                works = [Work(it, outputs[system][it.id], system) for it in items]
            works = ranks.shard(works)
            stored = store.latest(system, unit.name)
            todo: list[tuple[Work, str]] = []
            n_done = 0
            for w in works:
                k = work_key(protocol, version, unit.name, digest, w) if sig is not None else ""
                if sig is not None and _done(stored.get(w.item.id), k):
                    n_done += 1
                else:
                    todo.append((w, k))
            plans.append((system, works, todo, n_done))
        total = sum(len(t) for _, _, t, _ in plans)
        if dry_run and not unit.uses_judge:
            for system, works, todo, n_done in plans:
                report.rows.append(
                    {
                        "unit": unit.name,
                        "system": system,
                        "items": len(works),
                        "done": n_done,
                        "to_compute": len(todo) if sig is not None else None,
                    }
                )
            continue
        progress.start(total, f"{unit.name}")
        for system, works, todo, n_done in plans:
            row: dict[str, Any] = {
                "unit": unit.name,
                "system": system,
                "items": len(works),
                "done": n_done,
                "computed": 0,
                "failed": 0,
            }
            report.rows.append(row)
            ready: list[tuple[Work, str]] = []
            fails: list[dict[str, Any]] = []
            for w, k in todo:
                bad = _failure(unit, w, decodes)
                if bad is None:
                    ready.append((w, k))
                else:
                    w2 = Work(w.item, Output(**{**w.output.__dict__, "status": bad[0], "detail": bad[1]}), w.system)
                    fails.append(_line(k, w2, failed_records(w2, unit.metrics, bad[0])))
            row["failed"] = len(fails)
            if not dry_run:
                store.append(system, unit.name, fails)
            progress.advance(len(fails))
            batches = [ready[i : i + ctx.batch_size] for i in range(0, len(ready), max(1, ctx.batch_size))]
            while batches:
                batch = batches.pop(0)
                if prepared is None:
                    prepared = unit.prepare(ctx)
                if judge is not None:
                    judge.unit = unit.name
                try:
                    outs = list(prepared.score([w for w, _ in batch]))
                except BaseException as e:  # Ctrl-C, an error, the budget: the batch's calls were paid all the same
                    if judge is not None:
                        _keep_spent(
                            report, store, judge, unit.name, system, dry_run, quiet=not isinstance(e, BudgetExceeded)
                        )
                    if not isinstance(e, BudgetExceeded):
                        raise
                    if len(batch) > 1:  # what the budget still allows, item by item: a rerun goes on
                        batches[:0] = [[x] for x in batch]
                        continue
                    report.stopped = str(e)
                    progress.close()
                    return report
                if len(outs) != len(batch):
                    raise InputError(f"unit {unit.name!r} returned {len(outs)} outcomes for {len(batch)} items")
                lines = [_line(k, w, o) for (w, k), o in zip(batch, outs)]
                if judge is not None and unit.uses_judge:  # which metric got no answer at all (exit 4)
                    judge.note_records(unit.name, [r for o in outs for r in o.records])
                if judge is not None:  # answers from another model than the one asked: which item and metric got them
                    for line, served in zip(
                        lines, served_per_item(judge.served, prepared.score, [w for w, _ in batch])
                    ):
                        line.update(served)
                used = judge.take(unit.name) if judge is not None else {}
                _add_usage(report, unit.name, used)
                if not dry_run:
                    if any(used.values()):
                        lines.append(_usage_line(judge, unit.name, used))
                    store.append(system, unit.name, lines)
                row["computed"] += len(batch)
                progress.advance(len(batch))
        progress.close()
    return report


def _keep_spent(
    report: EngineReport, store: RunDir, judge: MeteredJudge, unit: str, system: str, dry_run: bool, *, quiet: bool
) -> None:
    """Count and store what a batch that did not finish spent: its calls were paid and their
    answers cached, though none of its items wrote a line. ``quiet``: the batch ends the run with
    an error of its own (Ctrl-C, a bug, a full disk), which a failure to store this must not hide."""
    spent = judge.take(unit)
    judge.served.take_batch()
    _add_usage(report, unit, spent)
    if not any(spent.values()) or dry_run:
        return
    try:
        store.append(system, unit, [_usage_line(judge, unit, spent)])
    except Exception:
        if not quiet:
            raise


def _usage_line(judge: MeteredJudge | None, unit: str, used: Mapping[str, int]) -> dict[str, Any]:
    """A batch's usage line, with the served model names of its calls (runs.served)."""
    served = judge.served.take_calls(unit) if judge is not None else {}
    return {"usage": dict(used), **({"served": served} if served else {})}


def _add_usage(report: EngineReport, unit: str, used: Mapping[str, int]) -> None:
    if not used:
        return
    tot = report.usage.setdefault(unit, {})
    for k, v in used.items():
        tot[k] = tot.get(k, 0) + int(v)
