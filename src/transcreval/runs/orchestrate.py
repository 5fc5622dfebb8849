"""The steps of ``evaluate``: read and lock the inputs, pick the units, score, merge, aggregate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from transcreval.errors import InputError
from transcreval.runs.adapters import adapter_ref, remove_run, select_units
from transcreval.runs.run import Run
from transcreval.runs.spec import Output, ProtocolAdapter, UnitContext

__all__ = ["DryRun", "read_inputs", "run_evaluate"]


@dataclass(frozen=True)
class DryRun:
    """What ``evaluate(..., dry_run=True)`` found, having written nothing.

    Attributes:
        rows: per unit x system: ``items``, ``done`` (stored with a matching key), ``to_compute``
            (None for a model unit whose signature needs its model to be built).
        judge: per judge unit: ``calls`` (distinct requests not in the cache), ``cached``,
            ``est_prompt_tokens`` (:func:`~transcreval.runs.judging.estimate_tokens`).
        skipped: default units that cannot run here, with the reason.
    """

    rows: list[dict[str, Any]]
    judge: dict[str, dict[str, int]]
    skipped: dict[str, str]
    signatures: dict[str, str]

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "judge": self.judge, "skipped": self.skipped, "signatures": self.signatures}


def read_inputs(
    adapter: ProtocolAdapter,
    manifest: Any,
    systems: Mapping[str, str],
    *,
    root: Any = None,
    limit: int | None = None,
) -> tuple[list[Any], dict[str, dict[str, Output]], list[str]]:
    """Items, every system's outputs matched by id, and notes (ignored ids, lossy formats)."""
    from transcreval.runs.manifest import lossy_outputs, read_manifest, read_outputs

    items = read_manifest(manifest, root=root, required=adapter.item_fields, limit=limit)
    for it in items:
        adapter.check_item(it)
    outputs: dict[str, dict[str, Output]] = {}
    notes: list[str] = []
    for name, spec in systems.items():
        got, more = read_outputs(name, spec, items, root=root)
        for o in got.values():
            if o.ok:
                adapter.check_output(o)
        outputs[name] = got
        notes += more
        lossy = lossy_outputs(got)
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
    from transcreval.runs.aggregate import aggregate
    from transcreval.runs.engine import run_units
    from transcreval.runs.judging import MeteredJudge, build_judge, read_judge_config
    from transcreval.runs.manifest import sha256_file
    from transcreval.runs.progress import Progress
    from transcreval.runs.provenance import finish_pass, package_versions, start_pass
    from transcreval.runs.ranks import current
    from transcreval.runs.store import RunDir

    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InputError(f"--batch-size must be a positive integer, got {batch_size!r}")
    bar = Progress(progress, stream)
    opts = protocol.check_options(options)
    ranks = current(device)
    if fresh and ranks.main and not dry_run:
        remove_run(out)
    ranks.barrier()
    store = RunDir(out, ranks.rank, ranks.world)
    prev = store.check_resumable(protocol.name, protocol.version) or {}
    # every rank reads the directory before rank 0 writes into it: a slow rank must not find
    # rank 0's half-written run (a lock file, no run.json yet) and refuse it as a foreign folder
    ranks.barrier()
    items, outputs, notes = read_inputs(protocol, manifest, systems, root=root, limit=limit)
    if ranks.main:
        for n in notes:
            bar.note(f"note: {n}")
    cfg = None if judge is None or callable(getattr(judge, "complete", None)) else read_judge_config(judge)
    raw_judge = build_judge(cfg, store.cache_dir, dry_run=dry_run) if cfg is not None else judge
    metered = MeteredJudge(raw_judge, max_calls=max_judge_calls, max_tokens=max_tokens, dry_run=dry_run)
    ctx = UnitContext(
        metered if raw_judge is not None else None, device, batch_size, store.cache_dir, opts, tuple(items)
    )
    try:
        units, skipped = select_units(protocol.units(opts), metrics, ctx)
        if ranks.main:
            for name, why in skipped.items():
                bar.note(f"note: metric {name!r} skipped: {why}")
        info: dict[str, Any] = {
            "protocol": protocol.name,
            "protocol_version": protocol.version,
            "adapter": adapter_ref(protocol),
            "versions": package_versions(),
            "manifest": {
                "path": str(Path(manifest).resolve()),
                "root": None if root is None else str(root),
                "sha256": sha256_file(manifest),
            },
            "systems": {k: str(v) for k, v in systems.items()},
            "options": opts,
            "judge": metered.describe() if raw_judge is not None else None,
            "limit": limit,
            "seeds": {"significance": 12345},
            "units": dict(prev.get("units", {})),
        }
        this_pass = start_pass(info, prev, command)
        if not dry_run and ranks.main:
            store.root.mkdir(parents=True, exist_ok=True)
            store.cache_dir.mkdir(exist_ok=True)
            from transcreval.runs.manifest import lock_line

            store.write_lock(lock_line(it, outputs) for it in items)
            store.write_run(info)
        ranks.barrier()
        by_name = {u.name: u for u in units}

        def remember(name: str, signature: str) -> None:
            u = by_name[name]
            info["units"][name] = {
                "signature": signature,
                "metrics": list(u.metrics),
                "reference_system": u.reference_system,
                "uses_judge": u.uses_judge,
            }
            if ranks.main and not dry_run:
                store.write_run(info)

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
            on_signature=remember,
        )
    finally:
        if cfg is not None:  # a judge built here from a config is closed here
            metered.close()
    if dry_run:
        ranks.finish()
        return DryRun(report.rows, report.usage, skipped, report.signatures)
    ranks.barrier()
    if ranks.main:
        finish_pass(this_pass, report.stopped)
        store.write_run(info)
        store.merge_ranks()
        aggregate(RunDir(out), protocol)
    ranks.barrier()
    ranks.finish()
    return Run(out, stopped=report.stopped, report=report, adapter=protocol, primary=ranks.main)
