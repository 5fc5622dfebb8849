"""The steps of ``evaluate``: read and lock the inputs, pick the units, score, merge, aggregate."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from transcreval.errors import InputError
from transcreval.runs.adapters import adapter_ref, check_device, check_units, remove_run, select_units
from transcreval.runs.lock import run_lock
from transcreval.runs.names import check_system_names
from transcreval.runs.run import Run
from transcreval.runs.spec import Output, ProtocolAdapter, UnitContext

__all__ = ["DryRun", "manifest_record", "own_inputs", "read_inputs", "run_evaluate", "system_outputs"]


@dataclass(frozen=True)
class DryRun:
    """What ``evaluate(..., dry_run=True)`` found, having written nothing.

    Attributes:
        rows: per unit x system: ``items``, ``done`` (stored with a matching key), ``to_compute``
            (None for a model unit whose signature needs its model to be built); totals over the
            ranks under torchrun, as ``judge``.
        judge: per judge unit: ``calls`` (distinct requests not in the cache), ``cached``,
            ``est_prompt_tokens`` (:func:`~transcreval.runs.judging.estimate_tokens`).
        skipped: default units that cannot run here, with the reason.
    """

    rows: list[dict[str, Any]]
    judge: dict[str, dict[str, int]]
    skipped: dict[str, str]
    signatures: dict[str, str]
    primary: bool = True  # False on the ranks > 0 of a torchrun run (the totals are the same; rank 0 prints)

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "judge": self.judge, "skipped": self.skipped, "signatures": self.signatures}


def own_inputs(
    adapter: ProtocolAdapter, systems: Mapping[str, str], *, root: Any = None, limit: int | None = None
) -> tuple[list[Any], dict[str, dict[str, Output]], list[str]]:
    """Items and outputs from the systems' own files (no manifest): the protocol's
    :meth:`~transcreval.runs.spec.ProtocolAdapter.own_inputs`, the first ``limit`` items."""
    got = adapter.own_inputs(systems, root=None if root is None else str(root))
    if got is None:
        raise InputError(
            f"protocol {adapter.name!r} needs a manifest (-m manifest.jsonl): its outputs hold no ground truth"
        )
    from transcreval.runs.manifest import check_limit

    check_limit(limit)
    items, outputs, notes = got
    items = items[:limit] if limit is not None else items
    keep = {it.id for it in items}
    return items, {s: {i: o for i, o in got_s.items() if i in keep} for s, got_s in outputs.items()}, notes


def _nothing_to_do(units: Sequence[Any], name: str, outputs: Mapping[str, Mapping[str, Output]]) -> bool:
    """Whether unit ``name`` needs an image that no usable output has (PosterIQ generation's
    score files carry replies, not images): it would score nothing even if it could run, so
    "skipped: needs a judge" is no news."""
    unit = next(u for u in units if u.name == name)
    usable = [o for got in outputs.values() for o in got.values() if o.ok]
    return "image" in unit.needs and bool(usable) and not any(o.image for o in usable)


def system_outputs(
    adapter: ProtocolAdapter, name: str, spec: str, items: Sequence[Any], *, root: Any = None
) -> tuple[dict[str, Output], list[str], bool]:
    """One system's outputs for a manifest's items, the reader's notes, and whether they came from
    the protocol's own result file (the protocol reads ``spec`` itself:
    :meth:`~transcreval.protocols.adapter.ProtocolAdapter.own_outputs`); else
    :func:`~transcreval.runs.manifest.read_outputs` reads them."""
    from transcreval.runs.manifest import read_outputs

    got = adapter.own_outputs(name, os.fspath(spec), items, root=None if root is None else str(root))
    if got is not None:
        return got[0], got[1], True
    return (*read_outputs(name, spec, items, root=root), False)


def manifest_record(manifest: Any, systems: Mapping[str, str], *, root: Any = None) -> dict[str, Any]:
    """run.json's ``manifest``: its path, ``--root`` and sha256; without a manifest, where the
    ground truth came from (``"from": "the systems' own files"``) and each of those files' path
    and sha256 (``files``: ``{system: {"path", "sha256"}}``), the run's only inputs."""
    from transcreval.runs.manifest import sha256_file

    if manifest is not None:
        return {
            "path": str(Path(manifest).resolve()),
            "root": None if root is None else str(root),
            "sha256": sha256_file(manifest),
        }
    files = {}
    for name, spec in systems.items():
        path = Path(spec) if root is None or os.path.isabs(spec) else Path(root) / spec
        files[name] = {"path": str(path.resolve()), "sha256": sha256_file(path) if path.is_file() else None}
    return {
        "path": None,
        "root": None if root is None else str(root),
        "sha256": None,
        "from": "the systems' own files",
        "files": files,
    }


def read_inputs(
    adapter: ProtocolAdapter,
    manifest: Any,
    systems: Mapping[str, str],
    *,
    root: Any = None,
    limit: int | None = None,
) -> tuple[list[Any], dict[str, dict[str, Output]], list[str]]:
    """Items, every system's outputs matched by id, and notes (ignored ids, lossy formats);
    without a manifest, from the systems' own files (:func:`own_inputs`)."""
    from transcreval.runs.manifest import asked_suffixes, lossy_outputs, read_manifest

    notes: list[str] = []
    if manifest is None:
        items, outputs, notes = own_inputs(adapter, systems, root=root, limit=limit)
    else:
        items = read_manifest(manifest, root=root, required=adapter.item_fields, limit=limit)
        outputs = {}
        for name, spec in systems.items():
            outputs[name], more, _ = system_outputs(adapter, name, spec, items, root=root)
            notes += more
    for it in items:
        adapter.check_item(it)
    asked = asked_suffixes(adapter, items)
    for name, got in outputs.items():
        for o in got.values():
            if o.ok:
                adapter.check_output(o)
        lossy = lossy_outputs(got, asked)
        if lossy:
            notes.append(
                f"{name}: {len(lossy)} output(s) in a lossy format (JPEG/WebP, first: {lossy[:3]}); re-encoding "
                "changes pixel metrics: keep outputs as PNG where you can"
            )
        missing = sum(1 for o in got.values() if not o.ok)
        if missing:
            notes.append(f"{name}: {missing} of {len(items)} item(s) have no usable output (counted as failures)")
    return items, outputs, notes


def run_evaluate(
    *,
    protocol: ProtocolAdapter,
    manifest: Any,
    systems: Mapping[str, str],
    out: Path,
    metrics: Sequence[str] | None,
    options: Mapping[str, Any] | None,
    judge: Any,
    root: Any,
    limit: int | None,
    device: str | None,
    batch_size: int,
    progress: str,
    dry_run: bool,
    max_judge_calls: int | None,
    max_tokens: int | None,
    fresh: bool,
    stream: TextIO,
    command: Sequence[str] | None = None,
) -> Run | DryRun:
    """``evaluate`` (:func:`~transcreval.runs.api.evaluate` says what the arguments mean): check
    the arguments, take the run directory, read the inputs, pick the units, start the pass
    (run.json, manifest.lock.jsonl), score (:func:`~transcreval.runs.engine.run_units`), then
    finish it: merge the ranks' lines and aggregate them into results.json."""
    from transcreval.runs.aggregate import aggregate
    from transcreval.runs.engine import run_units
    from transcreval.runs.judging import planned_usage, read_judge_config
    from transcreval.runs.progress import Progress
    from transcreval.runs.provenance import finish_pass, start_pass
    from transcreval.runs.ranks import current
    from transcreval.runs.store import RunDir

    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InputError(f"--batch-size must be a positive integer, got {batch_size!r}")
    bar = Progress(progress, stream)
    opts = protocol.check_options(options)
    check_system_names(systems, protocol.reserved_systems(opts))
    check_device(device)
    cfg = None if judge is None or callable(getattr(judge, "complete", None)) else read_judge_config(judge)
    ranks = current(device)
    writes = ranks.main and not dry_run  # the one process that writes run.json and the lock
    with contextlib.ExitStack() as held:
        here = _take_directory(out, ranks, held, bar, cfg, fresh=fresh, dry_run=dry_run)
        store, prev = RunDir.open(here, protocol.name, protocol.version, ranks.rank, ranks.world)
        # every rank reads the directory before rank 0 writes into it: a slow rank must not find
        # rank 0's half-written run (a lock file, no run.json yet) and refuse it as a foreign folder
        ranks.barrier()
        items, outputs, notes = read_inputs(protocol, manifest, systems, root=root, limit=limit)
        if ranks.main:
            for n in notes:
                bar.note(f"note: {n}")
        # which units run, and their own checks of the items and options, before anything is written
        planned = UnitContext(judge, device, batch_size, store.cache_dir, opts, tuple(items))
        all_units = protocol.units(opts)
        units, skipped = select_units(all_units, metrics, planned)
        skipped = {k: v for k, v in skipped.items() if not _nothing_to_do(all_units, k, outputs)}
        check_units(units, planned)
        metered = _metered_judge(cfg, judge, store, ranks, max_judge_calls, max_tokens, dry_run)
        has_judge = metered.inner is not None
        ctx = UnitContext(metered if has_judge else None, device, batch_size, store.cache_dir, opts, tuple(items))
        try:
            if ranks.main:
                for name, why in skipped.items():
                    bar.note(f"note: metric {name!r} skipped: {why}")
            info = _run_info(
                protocol, opts, manifest, systems, root, limit, metered if has_judge else None, store, prev
            )
            this_pass = start_pass(info, prev, command)
            if writes:
                _start(store, prev, info, items, outputs, protocol, opts, bar)
                metered.budget.reset()
            ranks.barrier()
            report = run_units(
                protocol=protocol.name,
                version=protocol.version,
                units=units,
                items=items,
                outputs=outputs,
                ctx=ctx,
                store=store,
                ranks=ranks,
                progress=bar,
                dry_run=dry_run,
                on_signature=_unit_recorder(info, units, store if writes else None),
            )
            if ranks.world > 1:
                _gather_ranks(report, metered, ranks)
            if dry_run:
                report.usage = planned_usage(metered.planned)
            elif has_judge:
                report.judge_unusable = metered.unusable()
        finally:
            if cfg is not None:  # a judge built here from a config is closed here
                metered.close()
        if dry_run:
            ranks.finish()
            return DryRun(report.rows, report.usage, skipped, report.signatures, ranks.main)
        ranks.barrier()
        if ranks.main:
            finish_pass(this_pass, report.stopped)
            store.finish(info)
            aggregate(RunDir(out), protocol)
        ranks.barrier()
        ranks.finish()
        return Run(out, stopped=report.stopped, report=report, adapter=protocol, primary=ranks.main)


def _take_directory(
    out: Path,
    ranks: Any,
    held: contextlib.ExitStack,
    bar: Any,
    cfg: dict[str, Any] | None,
    *,
    fresh: bool,
    dry_run: bool,
) -> Path:
    """Hold ``out``'s lock (rank 0, not for a dry run; ``held`` releases it) and empty it for
    ``--fresh``; every rank stops with rank 0's error. Returns the folder the pass reads: ``out``,
    or for ``--dry-run --fresh`` what ``--fresh`` would leave (:func:`_as_if_emptied`)."""
    failure: InputError | None = None
    if ranks.main and not dry_run:
        try:
            held.enter_context(run_lock(out, "evaluate", note=bar.note))
            if fresh:
                remove_run(out)
        except InputError as e:
            failure = e
    told = ranks.agree(None if failure is None else str(failure))
    if failure is not None:
        raise failure
    if told is not None:  # rank 0 could not take the directory
        raise InputError(told)
    ranks.barrier()
    # a dry run with --fresh counts against what --fresh leaves: an empty directory (no stored
    # line, no judge cache in it), so it reads a folder that does not exist
    return _as_if_emptied(out, held, cfg) if dry_run and fresh else out


def _metered_judge(
    cfg: dict[str, Any] | None,
    judge: Any,
    store: Any,
    ranks: Any,
    max_calls: int | None,
    max_tokens: int | None,
    dry_run: bool,
) -> Any:
    """The run's :class:`~transcreval.runs.judging.MeteredJudge` around the judge given (or built
    from its config, caching in the run's ``cache/``; its ``inner`` is None without a judge),
    with one budget for every rank under torchrun."""
    from transcreval.runs.budget import BUDGET_FILE
    from transcreval.runs.judging import MeteredJudge, build_judge

    raw = build_judge(cfg, store.cache_dir, dry_run=dry_run) if cfg is not None else judge
    shared = store.cache_dir / BUDGET_FILE if ranks.world > 1 else None  # one budget for every rank
    return MeteredJudge(raw, max_calls=max_calls, max_tokens=max_tokens, dry_run=dry_run, shared=shared)


def _run_info(
    protocol: ProtocolAdapter,
    opts: Mapping[str, Any],
    manifest: Any,
    systems: Mapping[str, str],
    root: Any,
    limit: int | None,
    judge: Any,
    store: Any,
    prev: Mapping[str, Any],
) -> dict[str, Any]:
    """run.json of this pass, before its units' signatures (which keep the stored ones)."""
    from transcreval.runs.provenance import package_versions
    from transcreval.runs.store import RUN_FORMAT

    return {
        "protocol": protocol.name,
        "protocol_version": protocol.version,
        "adapter": adapter_ref(protocol),
        "versions": package_versions(),
        "manifest": manifest_record(manifest, systems, root=root),
        "systems": {k: str(v) for k, v in systems.items()},
        "options": opts,
        "judge": judge.describe() if judge is not None else None,
        "limit": limit,
        "seeds": {"significance": 12345},
        "generation": store.generation,
        "units": dict(prev.get("units", {})) if prev.get("format") == RUN_FORMAT else {},
    }


def _start(
    store: Any,
    prev: Mapping[str, Any],
    info: dict[str, Any],
    items: Sequence[Any],
    outputs: Mapping[str, Mapping[str, Output]],
    protocol: ProtocolAdapter,
    opts: Any,
    bar: Any,
) -> None:
    """Start writing the pass: an older-format run's lines set aside (:func:`_bring_up_to_date`),
    then manifest.lock.jsonl and run.json."""
    from transcreval.runs.manifest import lock_line

    aside = store.set_old_lines_aside() if prev else None
    if aside is not None:
        bar.note(
            f"note: {store.root} was written by an older transcreval (run format {prev.get('format')}); its "
            f"stored lines are keyed differently and were moved to {aside.name}/: every item is scored "
            "again (judge answers come from the cache: no call is paid twice)"
        )
        _bring_up_to_date(store, aside, prev, info, protocol, opts)
    store.begin(info, (lock_line(it, outputs) for it in items))


def _unit_recorder(info: dict[str, Any], units: Sequence[Any], store: Any) -> Callable[[str, Any], None]:
    """``run_units``'s ``on_signature``: each unit's signature, its digest (what its lines are
    keyed by) and what ``aggregate`` needs of it into run.json's ``units``, written at once by the
    process that writes (``store``; None: kept in ``info`` only)."""
    from transcreval.runs.keys import signature_digest

    by_name = {u.name: u for u in units}

    def remember(name: str, signature: Any) -> None:
        u = by_name[name]
        info["units"][name] = {
            "signature": str(signature),
            "signature_digest": signature_digest(signature),
            "metrics": list(u.metrics),
            "reference_system": u.reference_system,
            "uses_judge": u.uses_judge,
        }
        if store is not None:
            store.write_run(info)

    return remember


def _bring_up_to_date(
    store: Any, aside: Path, prev: Mapping[str, Any], info: dict[str, Any], protocol: ProtocolAdapter, opts: Any
) -> None:
    """What an older-format run's lines set aside at ``aside`` must keep (runs.upgrade): the
    judge usage they record, and a creation date where its run.json recorded none."""
    from transcreval.runs.upgrade import carry_usage, oldest_write

    references = [
        *protocol.reserved_systems(opts),
        *(u.get("reference_system") for u in prev.get("units", {}).values()),
    ]
    systems = [*info["systems"], *(r for r in references if r)]
    carry_usage(store, aside, systems, [u.name for u in protocol.units(opts)])
    if not prev.get("created"):
        info["created"] = oldest_write(store.root) or info["created"]


def _as_if_emptied(out: Path, held: contextlib.ExitStack, cfg: dict[str, Any] | None) -> Path:
    """For ``--dry-run --fresh``: a run directory that does not exist (in a temporary folder held
    by ``held``), after checking that ``--fresh`` may empty ``out``; a judge ``"cache"`` file
    inside ``out`` is dropped from ``cfg`` (``--fresh`` deletes it), one elsewhere is kept."""
    import tempfile

    remove_run(out, dry_run=True)
    if cfg is not None and cfg.get("cache"):
        cache = Path(str(cfg["cache"])).expanduser().resolve()
        if cache.is_relative_to(out.resolve()):
            del cfg["cache"]
    return Path(held.enter_context(tempfile.TemporaryDirectory(prefix="transcreval-fresh-"))) / "run"


def _gather_ranks(report: Any, metered: Any, ranks: Any) -> None:
    """Every rank's counts into ``report`` and ``metered`` on every rank: the judge usage, why
    the run stopped, the per-unit rows, the judge's failures and answers, the statuses of the
    records scored per metric, a dry run's requests."""
    mine = {
        "usage": report.usage,
        "stopped": report.stopped,
        "rows": report.rows,
        "failures": metered.failures,
        "details": metered.details,
        "answered": metered.answered,
        "scored": metered.scored,
        "planned": metered.planned,
    }
    every = ranks.gather(mine)
    report.stopped = next((g["stopped"] for g in every if g["stopped"]), None)
    report.usage = _summed([g["usage"] for g in every])
    metered.failures = _summed([g["failures"] for g in every])
    metered.answered = _summed([{"": g["answered"]} for g in every]).get("", {})
    metered.scored = {}
    for g in every:
        for unit, per in g["scored"].items():
            metered.scored[unit] = _summed([metered.scored.get(unit, {}), per])
    metered.details = {}
    for g in every:
        for unit, by in g["details"].items():
            for status, detail in by.items():
                metered.details.setdefault(unit, {}).setdefault(status, detail)
    metered.planned = {}
    for g in every:
        for unit, keys in g["planned"].items():
            metered.planned.setdefault(unit, {}).update(keys)
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for g in every:
        for r in g["rows"]:
            key = (r["unit"], r["system"])
            if key not in rows:
                rows[key] = dict(r)
                continue
            have = rows[key]
            for k, v in r.items():
                if k not in ("unit", "system"):
                    have[k] = None if v is None or have.get(k) is None else have[k] + v
    report.rows = list(rows.values())


def _summed(per_rank: list[dict[str, dict[str, int]]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for d in per_rank:
        for unit, counts in d.items():
            tot = out.setdefault(unit, {})
            for k, v in counts.items():
                tot[k] = tot.get(k, 0) + v
    return out
