"""From the stored per-item lines to ``results.json``: no model, no judge (``transcreval rescore``).

:func:`run_data` reads the run in one call (:meth:`~transcreval.runs.store.RunDir.read_stored`:
``manifest.lock.jsonl``, every unit's lines, and for each item the stored line whose key matches
the unit's current signature in run.json), and gives an item with no
such line one ``not_computed`` record per metric (a run stopped early, or a unit whose options
changed and that has not run again). :func:`aggregate` hands that to the protocol's
:meth:`~transcreval.runs.spec.ProtocolAdapter.tables` and writes ``results.json``: the
protocol result (records, tables, signatures, options), the denominators per system and metric
(with the items whose judge answers came from another model than the one asked), the judge calls
and tokens per unit, and the run's provenance (:mod:`transcreval.runs.provenance`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.records import ItemRecord, ProtocolResult, Table
from transcreval.runs.provenance import run_provenance
from transcreval.runs.served import other_models
from transcreval.runs.spec import ProtocolAdapter, RunData
from transcreval.runs.store import RunDir, StoredRun, record_from_dict

__all__ = ["aggregate", "counts", "result_from_dict", "run_data"]

#: ``{(unit, system, item id): ({served model: answers}, {model: [metrics it scored]} or None)}``
#: of the lines that record it (None: a line written before the metrics were recorded)
Served = dict[tuple[str, str, str], tuple[dict[str, int], dict[str, list[str]] | None]]


def _collect(root: Path, info: Mapping[str, Any], stored: StoredRun) -> tuple[RunData, Served]:
    """Everything stored, for the adapter's tables, and the served models the current lines record."""
    items, outputs = stored.items, stored.outputs
    systems = tuple(info.get("systems", {}))
    records: list[ItemRecord] = []
    payloads: dict[tuple[str, str, str], dict[str, Any]] = {}
    signatures: dict[str, str] = {}
    served: Served = {}
    for name, u in dict(info.get("units", {})).items():
        signatures[name] = u["signature"]
        ref = u.get("reference_system")
        for system in (*systems, *([ref] if ref else [])):
            for it in items:
                line = stored.current.get((name, system, it.id))
                if line is None:
                    records += [
                        ItemRecord(it.id, system, m, math.nan, "not_computed", it.group, dict(it.meta))
                        for m in u.get("metrics", ())
                    ]
                    continue
                records += stored.records[(name, system, it.id)]
                if line.get("payload"):
                    payloads[(system, name, it.id)] = dict(line["payload"])
                if line.get("served"):
                    by = line.get("other_model_metrics")
                    served[(name, system, it.id)] = (
                        {str(k): int(v) for k, v in line["served"].items()},
                        {str(k): [str(m) for m in v] for k, v in by.items()} if isinstance(by, dict) else None,
                    )
    data = RunData(
        tuple(items), systems, outputs, tuple(records), payloads, signatures, dict(info.get("options", {})), root
    )
    return data, served


def run_data(store: RunDir, info: Mapping[str, Any]) -> RunData:
    """Everything stored, for the adapter's tables (see the module docstring)."""
    return _collect(store.root, info, store.read_stored(info))[0]


def counts(
    result: ProtocolResult, other_model: Mapping[str, Mapping[str, int]] | None = None
) -> dict[str, dict[str, dict[str, Any]]]:
    """``{system: {metric: {"n": ok, "of": all, "failures": {status: k}}}}``: every failure with
    its denominator; with ``other_model`` (``{system: {metric: items}}``), ``"other_model"``: the
    items of that cell whose judge answers came (partly) from another model than the one asked."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for r in result.records:
        c = out.setdefault(r.system, {}).setdefault(r.metric, {"n": 0, "of": 0, "failures": {}})
        c["of"] += 1
        if r.status == "ok":
            c["n"] += 1
        else:
            c["failures"][r.status] = c["failures"].get(r.status, 0) + 1
    for system, per in (other_model or {}).items():
        for metric, k in per.items():
            if k and metric in out.get(system, {}):
                out[system][metric]["other_model"] = k
    return out


def _judge_models(info: Mapping[str, Any], stored: StoredRun, served: Served) -> dict[str, Any]:
    """Per judge unit: the served model names of the calls the run made (summed over systems and
    passes), and per system the items with answers from another model, with those answers and,
    per metric, the items whose value such answers scored (every metric of the unit for a line
    that does not say which)."""
    asked = (info.get("judge") or {}).get("model")
    per_unit: dict[str, dict[str, Any]] = {}
    for name, u in dict(info.get("units", {})).items():
        if not u.get("uses_judge"):
            continue
        calls: dict[str, int] = {}
        ref = u.get("reference_system")
        for system in (*info.get("systems", {}), *([ref] if ref else [])):
            for line in stored.lines[(name, system)].lines:
                for model, n in (line.get("served") or {}).items() if "usage" in line else ():
                    calls[model] = calls.get(model, 0) + int(n)
        per_unit[name] = {"served": calls, "other_model": {}}
    for (unit, system, item), (models, scored) in served.items():
        other = other_models(asked, models)
        if unit not in per_unit or not other:
            continue
        entry = per_unit[unit]["other_model"].setdefault(system, {"items": [], "answers": {}, "metrics": {}})
        entry["items"].append(item)
        for model, n in other.items():
            entry["answers"][model] = entry["answers"].get(model, 0) + n
        if scored is None:
            metrics = set(dict(info.get("units", {}))[unit].get("metrics", ()))
        else:
            metrics = {m for model in other for m in scored.get(model, ())}
        for m in sorted(metrics):
            entry["metrics"][m] = entry["metrics"].get(m, 0) + 1
    return {"per_unit": per_unit}


def _other_model_cells(judge: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """``{system: {metric: items whose value answers from another model scored}}``."""
    out: dict[str, dict[str, int]] = {}
    for entry in judge.get("per_unit", {}).values():
        for system, got in entry["other_model"].items():
            for m, k in got["metrics"].items():
                out.setdefault(system, {})[m] = out.get(system, {}).get(m, 0) + k
    return out


def judge_usage(info: Mapping[str, Any], stored: StoredRun) -> dict[str, Any]:
    """Judge calls, cached answers and tokens per unit (summed over systems and runs)."""
    per_unit: dict[str, dict[str, float]] = {}
    for name, u in dict(info.get("units", {})).items():
        if not u.get("uses_judge"):
            continue
        ref = u.get("reference_system")
        tot: dict[str, float] = {}
        for system in (*info.get("systems", {}), *([ref] if ref else [])):
            for k, v in stored.lines[(name, system)].usage().items():
                tot[k] = tot.get(k, 0) + v
        per_unit[name] = tot
    total: dict[str, float] = {}
    for tot in per_unit.values():
        for k, v in tot.items():
            total[k] = total.get(k, 0) + v
    return {"per_unit": per_unit, "total": total}


def aggregate(store: RunDir, adapter: ProtocolAdapter) -> ProtocolResult:
    """Tables from the stored lines; writes ``results.json``; returns the protocol result."""
    info = store.read_run()
    if not info.get("units"):
        raise InputError(f"{store.root}: no unit has run yet (run.json lists none): run `transcreval evaluate`")
    stored = store.read_stored(info)
    data, served = _collect(store.root, info, stored)
    result = adapter.tables(data)
    models = _judge_models(info, stored, served)
    store.write_results(
        {
            "protocol": info["protocol"],
            "protocol_version": info["protocol_version"],
            "systems": list(info.get("systems", {})),
            "units": {k: v["signature"] for k, v in info["units"].items()},
            "counts": counts(result, _other_model_cells(models)),
            "judge_usage": judge_usage(info, stored),
            "provenance": run_provenance(
                info, lock_sha256=stored.lock_sha256, signatures=result.signatures, served=models
            ),
            "result": result.to_dict(),
        },
    )
    return result


def result_from_dict(d: Mapping[str, Any]) -> ProtocolResult:
    """A :class:`ProtocolResult` back from ``to_dict()`` (tables' list rows become tuples; a
    result written before figures existed has none)."""
    records = tuple(record_from_dict(r) for r in d["records"])
    tables = {key: Table.from_dict(t) for key, t in d["tables"].items()}
    figures = {key: Table.from_dict(t) for key, t in d.get("figures", {}).items()}
    return ProtocolResult(
        d["protocol"],
        records,
        tables,
        dict(d.get("signatures", {})),
        dict(d.get("options", {})),
        tuple(d.get("notes", ())),
        figures,
    )
