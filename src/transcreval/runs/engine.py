"""The scoring loop: every selected unit over every system's items, resumable and budgeted.

The walk from a manifest row to its per-item record, one pass of ``evaluate``:

1. ``orchestrate.run_evaluate`` reads the rows (``manifest.read_manifest``: an :class:`Item`
   per row, an :class:`Output` per system), opens the directory (``RunDir.open``) and starts
   the pass (``RunDir.begin``: manifest.lock.jsonl, run.json);
2. here, per unit and system (:func:`run_units`): ask the store once which works are still to
   do (``RunDir.pending``: it reads the unit's lines once and keys each work with
   ``keys.to_do``), then score them batch by batch, each batch's lines written by one call
   (``RunDir.append``, fsynced) before the next starts;
3. ``RunDir.finish`` merges the ranks' lines; ``aggregate`` reads the run in one call
   (``RunDir.read_stored``: manifest.lock.jsonl, every unit file once, the line whose key is
   current per item, whose records are the item's records) and writes results.json
   (``RunDir.write_results``).

In step 2, for each unit and system the engine lists the items (this rank's shard under
torchrun), keys each one (:func:`work_key`: the unit's signature, the item's and the output's
content digests), skips those whose stored line has that key, writes a failure line at once for
an output that cannot be scored (missing, missing file, undecodable, lacking what the unit
needs), and scores the rest ``batch_size`` at a time. A stored line whose records hold a
transient judge failure (``api_error``, ``timeout``, or a status derived from one such as
``gt_title_api_error``; or whose payload's ``status`` is one) is redone. A batch the judge budget
cannot pay for (:class:`~transcreval.runs.judging.BudgetExceeded`) is tried again item by item,
so what the budget allows is scored; the first item it cannot pay for ends the loop cleanly:
that item did not write, the judge answers it got are cached, and a rerun goes on from there.
Whatever leaves a batch early (the budget, Ctrl-C, an error) leaves a usage line with the calls
it made first: they were paid, and the rerun answers them from the cache without counting them
again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from transcreval.errors import ImageDecodeError, InputError
from transcreval.runs.judging import BudgetExceeded, MeteredJudge
from transcreval.runs.keys import (
    TRANSIENT,
    Keying,
    is_transient,
    reference_output,
    signature_digest,
    system_works,
    work_key,
)
from transcreval.runs.progress import Progress
from transcreval.runs.ranks import Ranks
from transcreval.runs.served import served_per_item
from transcreval.runs.spec import Item, Outcome, Output, Prepared, Unit, UnitContext, Work, failed_records
from transcreval.runs.store import RunDir

__all__ = ["TRANSIENT", "EngineReport", "is_transient", "reference_output", "run_units", "signature_digest", "work_key"]


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


def _systems(unit: Unit, outputs: Mapping[str, Mapping[str, Output]]) -> list[str]:
    return [*outputs, *([unit.reference_system] if unit.reference_system else [])]


@dataclass
class _Plan:
    """One system's works of a unit (this rank's shard), with the key of each work still to do."""

    system: str
    works: list[Work]
    todo: list[tuple[Work, str]]
    done: int


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
    scoring = _Pass(protocol, version, ctx, store, ranks, progress, dry_run, on_signature)
    for unit in units:
        if not scoring.unit(unit, items, outputs):
            break
    return scoring.report


class _Pass:
    """One ``run_units`` call: what every unit shares (the store, the judge, the report)."""

    def __init__(
        self,
        protocol: str,
        version: str,
        ctx: UnitContext,
        store: RunDir,
        ranks: Ranks,
        progress: Progress,
        dry_run: bool,
        on_signature: Callable[[str, Any], None] | None,
    ) -> None:
        self.protocol, self.version, self.ctx, self.store, self.ranks = protocol, version, ctx, store, ranks
        self.progress, self.dry_run, self.on_signature = progress, dry_run, on_signature
        self.report = EngineReport()
        self.judge = ctx.judge if isinstance(ctx.judge, MeteredJudge) else None
        self.decodes = _Decodes()

    def unit(self, unit: Unit, items: Sequence[Item], outputs: Mapping[str, Mapping[str, Output]]) -> bool:
        """Plan and score one unit over every system; False when the judge budget stopped the run."""
        sig, prepared = self._sign(unit)
        keying = None if sig is None else Keying(self.protocol, self.version, unit.name, signature_digest(sig))
        plans = [self._plan(unit, system, items, outputs, keying) for system in _systems(unit, outputs)]
        if self.dry_run and not unit.uses_judge:
            for plan in plans:
                todo = len(plan.todo) if sig is not None else None
                self.report.rows.append(
                    {
                        "unit": unit.name,
                        "system": plan.system,
                        "items": len(plan.works),
                        "done": plan.done,
                        "to_compute": todo,
                    }
                )
            return True
        self.progress.start(sum(len(plan.todo) for plan in plans), f"{unit.name}")
        for plan in plans:
            prepared = self._score(unit, plan, prepared)
            if self.report.stopped is not None:
                self.progress.close()
                return False
        self.progress.close()
        return True

    def _sign(self, unit: Unit) -> tuple[Any, Prepared | None]:
        """The unit's signature (built with the unit where it has no cheap one; a dry run builds
        no model) and the prepared unit if it was built; the signature is reported."""
        sig = unit.signature(self.ctx) if unit.signature is not None else None
        prepared: Prepared | None = None
        if sig is None and (not self.dry_run or unit.uses_judge):
            prepared = unit.prepare(self.ctx)
            sig = prepared.signature
        if sig is not None:
            self.report.signatures[unit.name] = str(sig)
            if self.on_signature is not None:
                self.on_signature(unit.name, sig)
        return sig, prepared

    def _plan(
        self,
        unit: Unit,
        system: str,
        items: Sequence[Item],
        outputs: Mapping[str, Mapping[str, Output]],
        keying: Keying | None,
    ) -> _Plan:
        """This rank's works of ``system``, with those still to do and their keys, from one
        question to the store (:meth:`RunDir.pending`; without a ``keying``, no signature yet,
        nothing can be known done: every work is to do)."""
        works = self.ranks.shard(system_works(items, outputs, system, unit.reference_system))
        todo = self.store.pending(system, unit.name, works, keying)
        return _Plan(system, works, todo, len(works) - len(todo))

    def _score(self, unit: Unit, plan: _Plan, prepared: Prepared | None) -> Prepared | None:
        """Write the failure lines of the works that cannot be scored, then score the rest
        ``batch_size`` at a time, each batch's lines written before the next starts; a batch the
        budget cannot pay for is tried again item by item, and the first item it cannot pay for
        sets ``report.stopped``. Returns the prepared unit (built here on the first batch)."""
        row: dict[str, Any] = {
            "unit": unit.name,
            "system": plan.system,
            "items": len(plan.works),
            "done": plan.done,
            "computed": 0,
            "failed": 0,
        }
        self.report.rows.append(row)
        ready: list[tuple[Work, str]] = []
        fails: list[dict[str, Any]] = []
        for w, k in plan.todo:
            bad = _failure(unit, w, self.decodes)
            if bad is None:
                ready.append((w, k))
            else:
                w2 = Work(w.item, Output(**{**w.output.__dict__, "status": bad[0], "detail": bad[1]}), w.system)
                fails.append(_line(k, w2, failed_records(w2, unit.metrics, bad[0])))
        row["failed"] = len(fails)
        if fails and not self.dry_run:
            self.store.append(plan.system, unit.name, fails)
        self.progress.advance(len(fails))
        size = max(1, self.ctx.batch_size)
        batches = [ready[i : i + self.ctx.batch_size] for i in range(0, len(ready), size)]
        while batches:
            batch = batches.pop(0)
            if prepared is None:
                prepared = unit.prepare(self.ctx)
            try:
                self._batch(unit, plan.system, prepared, batch)
            except BudgetExceeded as e:
                if len(batch) > 1:  # what the budget still allows, item by item: a rerun goes on
                    batches[:0] = [[x] for x in batch]
                    continue
                self.report.stopped = str(e)
                return prepared
            row["computed"] += len(batch)
            self.progress.advance(len(batch))
        return prepared

    def _batch(self, unit: Unit, system: str, prepared: Prepared, batch: list[tuple[Work, str]]) -> None:
        """Score one batch and write its lines (with the judge usage it spent and, where another
        model answered, which); whatever leaves it early first stores the calls it paid for."""
        judge = self.judge
        if judge is not None:
            judge.unit = unit.name
        try:
            outs = list(prepared.score([w for w, _ in batch]))
        except BaseException as e:  # Ctrl-C, an error, the budget: the batch's calls were paid all the same
            if judge is not None:
                _keep_spent(
                    self.report,
                    self.store,
                    judge,
                    unit.name,
                    system,
                    self.dry_run,
                    quiet=not isinstance(e, BudgetExceeded),
                )
            raise
        if len(outs) != len(batch):
            raise InputError(f"unit {unit.name!r} returned {len(outs)} outcomes for {len(batch)} items")
        lines = [_line(k, w, o) for (w, k), o in zip(batch, outs)]
        if judge is not None and unit.uses_judge:  # which metric got no answer at all (exit 4)
            judge.note_records(unit.name, [r for o in outs for r in o.records])
        if judge is not None:  # answers from another model than the one asked: which item and metric got them
            for line, served in zip(lines, served_per_item(judge.served, prepared.score, [w for w, _ in batch])):
                line.update(served)
        used = judge.take(unit.name) if judge is not None else {}
        _add_usage(self.report, unit.name, used)
        if not self.dry_run:
            if any(used.values()):
                lines.append(_usage_line(judge, unit.name, used))
            self.store.append(system, unit.name, lines)


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
