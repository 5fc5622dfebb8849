"""From the stored per-item lines to ``results.json``: no model, no judge (``transcreval rescore``).

:func:`run_data` reads ``manifest.lock.jsonl`` and every unit's lines, keeps for each item the
stored line whose key matches the unit's current signature (run.json), and gives an item with no
such line one ``not_computed`` record per metric (a run stopped early, or a unit whose options
changed and that has not run again). :func:`aggregate` hands that to the protocol's
:meth:`~transcreval.runs.spec.ProtocolAdapter.tables` and writes ``results.json``: the
protocol result (records, tables, signatures, options), the denominators per system and metric,
and the judge calls and tokens per unit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table
from transcreval.runs.engine import reference_output, work_key
from transcreval.runs.manifest import items_from_lock
from transcreval.runs.spec import ProtocolAdapter, RunData, Work
from transcreval.runs.store import RunDir, record_from_dict, write_json

__all__ = ["aggregate", "counts", "result_from_dict", "run_data"]


def run_data(store: RunDir, info: Mapping[str, Any]) -> RunData:
    """Everything stored, for the adapter's tables (see the module docstring)."""
    items, outputs = items_from_lock(store.read_lock())
    systems = tuple(info.get("systems", {}))
    records: list[ItemRecord] = []
    payloads: dict[tuple[str, str, str], dict[str, Any]] = {}
    signatures: dict[str, str] = {}
    store.check_current(info)
    for name, u in dict(info.get("units", {})).items():
        sig = u["signature"]
        digest = u["signature_digest"]
        signatures[name] = sig
        ref = u.get("reference_system")
        for system in (*systems, *([ref] if ref else [])):
            stored = store.latest(system, name)
            for it in items:
                out = reference_output(it, system) if system == ref else outputs[system][it.id]
                key = work_key(info["protocol"], str(info["protocol_version"]), name, digest, Work(it, out, system))
                line = stored.get(it.id)
                if line is not None and line.get("key") == key:
                    records += [record_from_dict(r) for r in line.get("records", ())]
                    if line.get("payload"):
                        payloads[(system, name, it.id)] = dict(line["payload"])
                else:
                    records += [
                        ItemRecord(it.id, system, m, math.nan, "not_computed", it.group, dict(it.meta))
                        for m in u.get("metrics", ())
                    ]
    return RunData(
        tuple(items), systems, outputs, tuple(records), payloads, signatures, dict(info.get("options", {})), store.root
    )


def counts(result: ProtocolResult) -> dict[str, dict[str, dict[str, Any]]]:
    """``{system: {metric: {"n": ok, "of": all, "failures": {status: k}}}}``: every failure with
    its denominator."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for r in result.records:
        c = out.setdefault(r.system, {}).setdefault(r.metric, {"n": 0, "of": 0, "failures": {}})
        c["of"] += 1
        if r.status == "ok":
            c["n"] += 1
        else:
            c["failures"][r.status] = c["failures"].get(r.status, 0) + 1
    return out


def judge_usage(store: RunDir, info: Mapping[str, Any]) -> dict[str, Any]:
    """Judge calls, cached answers and tokens per unit (summed over systems and runs)."""
    per_unit: dict[str, dict[str, float]] = {}
    for name, u in dict(info.get("units", {})).items():
        if not u.get("uses_judge"):
            continue
        ref = u.get("reference_system")
        tot: dict[str, float] = {}
        for system in (*info.get("systems", {}), *([ref] if ref else [])):
            for k, v in store.usage(system, name).items():
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
    result = adapter.tables(run_data(store, info))
    write_json(
        store.results,
        {
            "protocol": info["protocol"],
            "protocol_version": info["protocol_version"],
            "systems": list(info.get("systems", {})),
            "units": {k: v["signature"] for k, v in info["units"].items()},
            "counts": counts(result),
            "judge_usage": judge_usage(store, info),
            "result": result.to_dict(),
        },
    )
    return result


def _row(x: Any) -> Any:
    return tuple(_row(v) for v in x) if isinstance(x, list) else x


def result_from_dict(d: Mapping[str, Any]) -> ProtocolResult:
    """A :class:`ProtocolResult` back from ``to_dict()`` (tables' list rows become tuples)."""
    records = tuple(record_from_dict(r) for r in d["records"])
    tables = {}
    for key, t in d["tables"].items():
        cells = {}
        for c in t["cells"]:
            v = c.get("value")
            ci = c.get("ci")
            cell = Cell(
                math.nan if v is None else float(v),
                int(c["n"]),
                int(c.get("n_missing", 0)),
                tuple(ci) if ci is not None else None,
            )
            cells[(_row(c["row"]), c["column"])] = cell
        dec = t["decimals"]
        tables[key] = Table(
            t["name"],
            tuple(t["columns"]),
            tuple(_row(r) for r in t["rows"]),
            cells,
            dec if isinstance(dec, int) else dict(dec),
            t.get("units", ""),
            tuple(t.get("notes", ())),
        )
    return ProtocolResult(
        d["protocol"],
        records,
        tables,
        dict(d.get("signatures", {})),
        dict(d.get("options", {})),
        tuple(d.get("notes", ())),
    )
