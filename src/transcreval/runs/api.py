"""``transcreval.evaluate(protocol, manifest, systems, out=...) -> Run``: the runner from Python.

The same function backs ``transcreval evaluate``; see ``docs/cli.md`` for the run directory and
the resume rules. A :class:`Run` reads a run directory: ``.results`` (the protocol result),
``.items`` (a pandas DataFrame, one row per item x system x metric), ``.tables``,
``.compare(baseline=...)`` and ``.report()``; ``Run(path)`` opens an existing one.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from transcreval.errors import InputError
from transcreval.runs.spec import ProtocolAdapter, Unit, UnitContext
from transcreval.runs.store import RunDir

if TYPE_CHECKING:
    from transcreval.runs.orchestrate import DryRun

__all__ = ["Run", "adapter_ref", "evaluate", "load_adapter", "parse_systems", "remove_run", "select_units"]


def load_adapter(protocol: str | ProtocolAdapter) -> ProtocolAdapter:
    """A protocol's runner adapter: a catalog name (``"mptc"``), ``"package.module:ATTR"`` (a
    protocol of your own), or an adapter instance."""
    if isinstance(protocol, ProtocolAdapter):
        return protocol
    if not isinstance(protocol, str) or not protocol.strip():
        raise InputError(f"protocol must be a catalog name or 'module:attribute', got {protocol!r}")
    target = protocol
    if ":" not in protocol:
        from transcreval.protocols.catalog import get_protocol

        try:
            info = get_protocol(protocol)
        except KeyError as e:
            raise InputError(str(e.args[0])) from None
        if not info.runner:
            raise InputError(f"protocol {protocol!r} has no runner adapter yet (it is used from Python only)")
        target = info.runner
    module, _, attr = target.partition(":")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise InputError(f"cannot load the protocol adapter {target!r}: {e}") from None
    adapter = obj() if isinstance(obj, type) else obj
    if not isinstance(adapter, ProtocolAdapter):
        raise InputError(f"{target} is a {type(adapter).__name__}, not a transcreval.runs.ProtocolAdapter")
    return adapter


def adapter_ref(adapter: ProtocolAdapter) -> str:
    """How run.json names an adapter so that ``Run`` can load it again: the catalog name when the
    catalog's runner is this adapter, else ``module:ATTR`` (or ``module:Class``)."""
    from transcreval.protocols.catalog import PROTOCOLS

    mod = importlib.import_module(type(adapter).__module__)
    attr = next((k for k, v in vars(mod).items() if v is adapter), type(adapter).__name__)
    ref = f"{type(adapter).__module__}:{attr}"
    return next((p.name for p in PROTOCOLS if p.runner == ref), ref)


def select_units(units: Sequence[Unit], metrics: Sequence[str] | None, ctx: UnitContext) -> tuple[list[Unit], dict]:
    """The units to run and ``{unit: why skipped}``: the named ones (each must be able to run),
    or by default every default unit that can run here."""
    names = [u.name for u in units]
    if metrics:
        wanted = [m.strip() for m in metrics if m.strip()]
        unknown = [m for m in wanted if m not in names]
        if unknown:
            raise InputError(
                f"unknown metric(s) {unknown}; this protocol's are {names} (transcreval ls metrics -p ...)"
            )
        chosen = [u for u in units if u.name in wanted]
        for u in chosen:
            why = u.unavailable(ctx)
            if why:
                raise InputError(f"metric {u.name!r} cannot run: {why}")
        return chosen, {}
    chosen, skipped = [], {}
    for u in units:
        why = u.unavailable(ctx) if u.default else "not a default metric (ask for it with --metrics)"
        if why:
            skipped[u.name] = why
        else:
            chosen.append(u)
    if not chosen:
        detail = "; ".join(f"{k}: {v}" for k, v in skipped.items())
        raise InputError(f"no metric of this protocol can run here ({detail})")
    return chosen, skipped


def evaluate(
    protocol: str | ProtocolAdapter,
    manifest: str | os.PathLike[str],
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
) -> Run | DryRun:
    """Score ``systems`` on ``manifest`` with ``protocol`` into the run directory ``out``.

    Args:
        protocol: a catalog name (``transcreval ls protocols``), ``"module:ATTR"`` or an adapter.
        manifest: the manifest JSONL (``docs/cli.md``).
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

    Returns:
        The :class:`Run`, or with ``dry_run`` a :class:`~transcreval.runs.orchestrate.DryRun`.
    """
    from transcreval.runs.orchestrate import run_evaluate

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
    )


def parse_systems(systems: Mapping[str, Any] | Sequence[str], *, allow_empty: bool = False) -> dict[str, str]:
    """``{name: outputs}`` from a mapping or ``["NAME=PATH", ...]`` (names unique)."""
    from transcreval.runs.manifest import parse_system_arg

    if isinstance(systems, Mapping):
        out = {str(k): os.fspath(v) for k, v in systems.items()}
    elif isinstance(systems, (str, bytes)):
        raise InputError("systems is a mapping {name: outputs} or a list of 'NAME=PATH' strings, not one string")
    else:
        out = {}
        for s in systems:
            name, path = parse_system_arg(s)
            if name in out:
                raise InputError(f"system {name!r} given twice")
            out[name] = path
    if not out and not allow_empty:
        raise InputError("no system to evaluate: give at least one --system NAME=PATH")
    return out


def remove_run(path: Path) -> None:
    """Delete a run directory (only one holding a run.json: never an arbitrary folder)."""
    if not path.exists():
        return
    if not (path / "run.json").is_file():
        raise InputError(f"--fresh: {path} holds no run.json; it is not a run directory, so it is left alone")
    shutil.rmtree(path)


class Run:
    """A run directory, read lazily (see the module docstring)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        stopped: str | None = None,
        report: Any = None,
        adapter: Any = None,
        primary: bool = True,
    ) -> None:
        self.path = Path(path)
        self.primary = primary  # False on the ranks > 0 of a torchrun run (they print nothing)
        self._adapter = load_adapter(adapter) if adapter is not None else None
        self.store = RunDir(self.path)
        self.stopped = stopped  # why the last evaluate stopped early (a judge budget), or None
        self.engine_report = report
        self._results: Any = None

    @property
    def info(self) -> dict[str, Any]:
        """run.json."""
        return self.store.read_run()

    @property
    def adapter(self) -> ProtocolAdapter:
        """The protocol's runner adapter (run.json's ``adapter``)."""
        if self._adapter is None:
            info = self.info
            self._adapter = load_adapter(info.get("adapter") or info["protocol"])
        return self._adapter

    @property
    def results(self) -> Any:
        """The protocol result (:class:`~transcreval.protocols.records.ProtocolResult`) of results.json."""
        if self._results is None:
            import json

            from transcreval.runs.aggregate import result_from_dict

            try:
                data = json.loads(self.store.results.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise InputError(f"{self.path}: no results.json yet (run `transcreval rescore {self.path}`)") from None
            self._results = result_from_dict(data["result"])
        return self._results

    @property
    def tables(self) -> Any:
        return self.results.tables

    @property
    def items(self) -> Any:
        """One row per item x system x metric (pandas; the ``export`` extra)."""
        from transcreval.integrations.tables import items_frame

        return items_frame(self.results)

    def rescore(self) -> Any:
        """Aggregate again from the stored per-item lines (no model or judge call); rewrites results.json."""
        from transcreval.runs.aggregate import aggregate

        self._results = aggregate(self.store, self.adapter)
        return self._results

    def compare(self, baseline: str, **options: Any) -> Any:
        """Every system against ``baseline`` (:func:`~transcreval.significance.compare_systems`
        with the protocol's set-level statistics); writes comparisons.json."""
        from transcreval.runs.reporting import compare_run

        return compare_run(self, baseline, **options)

    def report(self, baseline: str | None = None, **options: Any) -> dict[str, Path]:
        """report.md, report.html and figures/ in the run directory."""
        from transcreval.runs.reporting import report_run

        return report_run(self, baseline, **options)

    def __repr__(self) -> str:
        return f"Run({str(self.path)!r})"
