"""A run directory from Python: :class:`Run` (``.results``, ``.items``, ``.tables``, ``.rescore()``),
and its ``compare`` and ``report``, built on :mod:`transcreval.significance` and
:mod:`transcreval.report` with the protocol's own settings (set-level statistics, figures)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from transcreval.errors import InputError
from transcreval.runs.adapters import load_adapter
from transcreval.runs.lock import run_lock
from transcreval.runs.spec import ProtocolAdapter
from transcreval.runs.store import RunDir, write_json

__all__ = ["Run", "compare_run", "item_images", "report_run"]


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
            from transcreval.runs.aggregate import result_from_dict

            try:
                data = json.loads(self.store.results.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise InputError(f"{self.path}: no results.json yet (run `transcreval rescore {self.path}`)") from None
            self._results = result_from_dict(data["result"])
        return self._results

    @property
    def tables(self) -> Any:
        """The paper's tables (:class:`~transcreval.protocols.records.Tables`: ``print`` them, or
        let a notebook show them)."""
        from transcreval.protocols.records import Tables

        return Tables(self.results.tables)

    @property
    def figures(self) -> Any:
        """The numbers behind the paper's figures, one table per figure (as :attr:`tables`)."""
        from transcreval.protocols.records import Tables

        return Tables(self.results.figures)

    @property
    def items(self) -> Any:
        """One row per item x system x metric (pandas; the ``export`` extra)."""
        from transcreval.integrations.tables import items_frame

        return items_frame(self.results)

    def rescore(self) -> Any:
        """Aggregate again from the stored per-item lines (no model or judge call); rewrites results.json."""
        from transcreval.runs.aggregate import aggregate

        with self._writing("rescore"):
            self._results = aggregate(self.store, self.adapter)
        return self._results

    def compare(self, baseline: str, **options: Any) -> Any:
        """Every system against ``baseline`` (:func:`~transcreval.significance.compare_systems`
        with the protocol's set-level statistics); writes comparisons.json."""
        with self._writing("compare"):
            return compare_run(self, baseline, **options)

    def report(self, baseline: str | None = None, **options: Any) -> dict[str, Path]:
        """report.md, report.html and figures/ in the run directory."""
        with self._writing("report"):
            return report_run(self, baseline, **options)

    def _writing(self, command: str) -> contextlib.AbstractContextManager[None]:
        """The run directory's lock (:mod:`transcreval.runs.lock`), once it is known to be a run."""
        self.store.read_run()
        return run_lock(self.path, command)

    def __repr__(self) -> str:
        return f"Run({str(self.path)!r})"

    def __str__(self) -> str:
        return f"{self!r}\n\n{self.tables}"

    def _repr_html_(self) -> str:
        import html

        return f"<p><code>{html.escape(repr(self))}</code></p>{self.tables._repr_html_()}"


_SETTINGS = ("test", "n_resamples", "seed", "confidence", "alpha", "compat")


def compare_run(run: Run, baseline: str, **options: Any) -> Any:
    """:func:`~transcreval.significance.compare_systems` on the run's result with the
    protocol's ``statistics`` / ``rows_from`` (FID and other set-level metrics); writes
    ``comparisons.json`` (the settings with the rows, so ``report`` can redo them)."""
    from transcreval.significance import compare_systems

    result = run.results
    extra = run.adapter.compare_options(result)
    for k in ("statistics", "rows_from", "metrics"):
        if k in options and options[k] is not None:
            extra[k] = options.pop(k)
    opts = {k: v for k, v in options.items() if v is not None}
    comp = compare_systems(result, baseline, **extra, **opts)
    write_json(run.store.comparisons, comp.to_dict())
    return comp


def _stored_comparisons(run: Run) -> tuple[str, dict[str, Any]] | None:
    path = run.store.comparisons
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (ValueError, UnicodeDecodeError):
        data = None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("baseline"), str)
        or not isinstance(data.get("settings", {}), dict)
    ):
        raise InputError(
            f"{path} is damaged (not what `transcreval compare` writes): delete it, or run `transcreval compare "
            f"{run.path} -b BASELINE` again"
        )
    settings = {k: v for k, v in data.get("settings", {}).items() if k in _SETTINGS}
    return data["baseline"], settings


def item_images(run: Run) -> Any:
    """The galleries' pictures from manifest.lock.jsonl (sources, references, every output)."""
    from transcreval.report import ItemImages

    source: dict[str, Any] = {}
    reference: dict[str, Any] = {}
    outputs: dict[str, dict[str, Any]] = {}
    for line in run.store.read_lock():
        if line.get("source_image"):
            source[line["id"]] = line["source_image"]
        if line.get("reference_image"):
            reference[line["id"]] = line["reference_image"]
        for system, o in line.get("outputs", {}).items():
            if o.get("image") and o.get("status") == "ok":
                outputs.setdefault(system, {})[line["id"]] = o["image"]
    return ItemImages(source=source, reference=reference, outputs=outputs)


def _provenance(run: Run) -> dict[str, Any]:
    """results.json's provenance, with its counts (the report's status table flags answers from
    another judge model with them)."""
    data = json.loads(run.store.results.read_text(encoding="utf-8"))
    out = {**dict(data.get("provenance") or {}), "counts": data.get("counts") or {}}
    if "figures" not in (data.get("result") or {}):  # an older transcreval wrote results.json
        out["stale"] = (
            "results.json was written before paper figures were stored (result.figures), so this report "
            f"draws none: `transcreval rescore {run.path}` recomputes them from the stored lines (no model "
            "or judge call)"
        )
    return out


def report_run(run: Run, baseline: str | None = None, **options: Any) -> dict[str, Path]:
    """``report.md``, ``report.html`` and ``figures/`` in the run directory: the summaries with
    intervals, the paper tables, the protocol's figures and the galleries. Comparisons against
    ``baseline`` (default: the one of comparisons.json, with its settings) when there is one."""
    from transcreval.report import write_report

    result = run.results
    comp = None
    stored = _stored_comparisons(run)
    if baseline is not None:
        comp = compare_run(run, baseline, **(stored[1] if stored and stored[0] == baseline else {}))
    elif stored is not None:
        comp = compare_run(run, stored[0], **stored[1])
    opts: dict[str, Any] = {
        "images": item_images(run),
        "title": f"transcreval report: {run.info['protocol']}",
        "provenance": _provenance(run),
    }
    opts.update(run.adapter.report_options(result))
    opts.update({k: v for k, v in options.items() if v is not None})
    try:
        import matplotlib  # noqa: F401

        drawable = bool(opts.get("plots", True))
    except ImportError:  # the report extra is not installed: tables and galleries only
        drawable = opts["plots"] = False
    # a protocol's figures come as (title, draw) pairs: drawn (by the report, which names a figure
    # that has nothing to draw instead of failing) only where matplotlib is
    opts["figures"] = list(opts.get("figures", ())) if drawable else []
    try:
        return write_report(run.path, result, comp, **opts)
    except KeyError as e:
        raise InputError(f"report: {e}") from None
