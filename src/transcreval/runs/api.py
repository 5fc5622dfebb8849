"""``transcreval.evaluate(protocol, manifest, systems, out=...) -> Run``: the runner from Python.

The same function backs ``transcreval evaluate``; see ``docs/cli.md`` for the run directory and
the resume rules. A :class:`Run` reads a run directory: ``.results`` (the protocol result),
``.items`` (a pandas DataFrame, one row per item x system x metric), ``.tables``,
``.compare(baseline=...)`` and ``.report()``; ``Run(path)`` opens an existing one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from transcreval.runs.adapters import adapter_ref, load_adapter, parse_systems, remove_run, select_units
from transcreval.runs.orchestrate import DryRun, run_evaluate
from transcreval.runs.run import Run
from transcreval.runs.spec import ProtocolAdapter

__all__ = ["Run", "adapter_ref", "evaluate", "load_adapter", "parse_systems", "remove_run", "select_units"]


def evaluate(
    protocol: str | ProtocolAdapter,
    manifest: str | os.PathLike[str] | None,
    systems: Mapping[str, str | os.PathLike[str]] | Sequence[str],
    out: str | os.PathLike[str],
    *,
    metrics: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    judge: Any = None,
    root: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    device: str | None = None,
    batch_size: int = 16,
    progress: str = "none",
    dry_run: bool = False,
    max_judge_calls: int | None = None,
    max_tokens: int | None = None,
    fresh: bool = False,
    stream: TextIO | None = None,
    command: Sequence[str] | None = None,
) -> Run | DryRun:
    """Score ``systems`` on ``manifest`` with ``protocol`` into the run directory ``out``.

    Args:
        protocol: a catalog name (``transcreval ls protocols``), ``"module:ATTR"`` or an adapter.
        manifest: the manifest JSONL (``docs/cli.md``); None for a protocol whose result files
            carry the ground truth (PosterIQ's ``{model}_bench.json``).
        systems: ``{name: outputs}`` (a JSONL file, a directory or a pattern with ``{id}``) or
            ``["NAME=PATH", ...]``.
        out: the run directory (created; an existing run of the same protocol version resumes).
        metrics: the units to run (default: every default unit that can run here).
        options: protocol options (``transcreval ls metrics -p P`` lists them).
        judge: a judge object, or a config (a dict, JSON text or a ``.json`` file) for
            :class:`~transcreval.judge.OpenAICompatibleJudge`; its answers are cached in ``out/cache``.
        root: resolve relative paths against this folder instead of each file's folder.
        limit: score only the first ``limit`` manifest items.
        device, batch_size: where models run; items per scoring batch.
        progress: ``"auto"``, ``"bar"``, ``"log"`` or ``"none"`` (stderr).
        dry_run: count judge calls (and cached ones) and estimate tokens; write nothing.
        max_judge_calls, max_tokens: stop cleanly before a judge batch would pass them.
        fresh: delete an existing run directory first (only one that holds a run.json).
        command: the command line run.json records for this pass (the CLI gives its own;
            default: this process's ``sys.argv``).

    Returns:
        The :class:`Run`, or with ``dry_run`` a :class:`~transcreval.runs.orchestrate.DryRun`.
    """
    return run_evaluate(
        protocol=load_adapter(protocol),
        manifest=manifest,
        systems=parse_systems(systems),
        out=Path(out),
        metrics=metrics,
        options=options,
        judge=judge,
        root=root,
        limit=limit,
        device=device,
        batch_size=batch_size,
        progress=progress,
        dry_run=dry_run,
        max_judge_calls=max_judge_calls,
        max_tokens=max_tokens,
        fresh=fresh,
        stream=stream if stream is not None else sys.stderr,
        command=command,
    )
