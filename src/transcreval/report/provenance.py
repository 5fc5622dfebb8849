"""The report's "why and how" blocks: each item status counted, and how the numbers were made.

* :func:`status_table`: per metric and system, how many items had each status (``ok``,
  ``api_error``, ``unparsable``, ``refused``, ``missing_output``, ``timeout``,
  ``not_computed``, ...), and with a run's counts how many had their value scored by judge
  answers from another model;
* :func:`provenance_blocks`: every metric's signature and, for a run (``provenance`` from
  results.json, :mod:`transcreval.runs.provenance`), the command line of every ``evaluate`` pass
  with its dates, the manifest's and the inputs' digests, the package versions, and the judge:
  the model asked for, the models that answered (calls per served name), and the items whose
  answers came from another model.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from transcreval.engines.judge.setups import same_model
from transcreval.protocols.records import ProtocolResult
from transcreval.report.blocks import Block, Heading, Paragraph, TableBlock, TextCell

__all__ = ["provenance_blocks", "status_table"]

_SHOWN_IDS = 10


def _other_model_cells(provenance: Mapping[str, Any] | None) -> dict[tuple[str, str], int]:
    counts = (provenance or {}).get("counts") or {}
    return {
        (system, metric): int(c.get("other_model", 0))
        for system, per in counts.items()
        for metric, c in per.items()
        if c.get("other_model")
    }


def status_table(result: ProtocolResult, provenance: Mapping[str, Any] | None = None) -> TableBlock:
    """How many items of each metric x system had each status (the failures the summary's
    ``n_missing`` adds up), with the items answered partly by another judge model."""
    cells: dict[tuple[str, str], dict[str, int]] = {}
    for r in result.records:
        c = cells.setdefault((r.metric, r.system), {})
        c[r.status] = c.get(r.status, 0) + 1
    statuses = sorted({s for c in cells.values() for s in c if s != "ok"})
    other = _other_model_cells(provenance)
    header = ("metric", "system", "items", "ok", *statuses, *(("another model",) if other else ()))
    rows = []
    for (metric, system), c in cells.items():
        row = [TextCell(metric), TextCell(system), TextCell(str(sum(c.values()))), TextCell(str(c.get("ok", 0)))]
        row += [TextCell(str(c.get(s, 0)), "missing" if c.get(s) else "") for s in statuses]
        if other:
            k = other.get((system, metric), 0)
            row.append(TextCell(str(k), "missing" if k else "", "items with judge answers from another model"))
        rows.append(tuple(row))
    return TableBlock(f"{result.protocol}: item status per metric and system", header, tuple(rows))


def _kv(caption: str, pairs: Sequence[tuple[str, Any]]) -> TableBlock:
    rows = tuple((TextCell(k), TextCell("-" if v is None else str(v))) for k, v in pairs)
    return TableBlock(caption, ("", ""), rows)


def _command(cmd: Any) -> str:
    if not cmd:
        return "-"
    return shlex.join(str(c) for c in cmd) if isinstance(cmd, (list, tuple)) else str(cmd)


def _manifest_rows(manifest: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The manifest's path and sha256, or where the ground truth came from without one."""
    if manifest.get("path") is None and manifest.get("from"):
        return [("manifest", f"none: the ground truth came from {manifest['from']} (below)")]
    return [("manifest", manifest.get("path")), ("manifest sha256", manifest.get("sha256"))]


def _own_files_block(manifest: Mapping[str, Any]) -> list[Block]:
    """A run without a manifest: each system's own file, the ground truth with its answers."""
    files = manifest.get("files") or {}
    if not files:
        return []
    rows = tuple(
        (TextCell(system), TextCell(str(f.get("path") or "-")), TextCell(str(f.get("sha256") or "-")))
        for system, f in files.items()
    )
    return [
        TableBlock(
            "The systems' own files (the ground truth and each system's answers)", ("system", "file", "sha256"), rows
        )
    ]


def _run_blocks(p: Mapping[str, Any]) -> list[Block]:
    manifest = p.get("manifest") or {}
    versions = p.get("versions") or {}
    passes = list(p.get("passes") or ())
    out: list[Block] = [
        _kv(
            "The run",
            [
                ("command (last evaluate)", _command(p.get("command"))),
                ("created", p.get("created")),
                ("last evaluated", p.get("evaluated")),
                ("results aggregated", p.get("aggregated")),
                ("report written", datetime.now(timezone.utc).isoformat(timespec="seconds")),
                *_manifest_rows(manifest),
                ("inputs sha256 (manifest.lock.jsonl: every path and image digest)", manifest.get("lock_sha256")),
                ("transcreval", p.get("transcreval")),
                *([("note", p["stale"])] if p.get("stale") else []),
            ],
        ),
        *_own_files_block(manifest),
    ]
    if passes:
        rows = tuple(
            (
                TextCell(str(i)),
                TextCell(str(q.get("started") or "-")),
                TextCell(str(q.get("finished") or "did not finish")),
                TextCell(str(q.get("stopped") or "")),
                TextCell(_command(q.get("command"))),
            )
            for i, q in enumerate(passes, 1)
        )
        out.append(TableBlock("Every evaluate pass", ("#", "started", "finished", "stopped early", "command"), rows))
    if versions:
        out.append(
            TableBlock(
                "Package versions",
                ("package", "version"),
                tuple((TextCell(k), TextCell(str(v))) for k, v in versions.items()),
            )
        )
    return out


def _judge_blocks(judge: Mapping[str, Any]) -> list[Block]:
    asked = dict(judge.get("asked") or {})
    name = asked.get("model")
    out: list[Block] = []
    if asked:
        out.append(_kv("The judge asked", [(k, v) for k, v in asked.items()]))
    served_rows = []
    other_rows = []
    for unit, entry in (judge.get("per_unit") or {}).items():
        for model, n in sorted((entry.get("served") or {}).items()):
            same = ("the model asked" if same_model(name, model) else "another model") if name else ""
            served_rows.append((TextCell(unit), TextCell(model), TextCell(str(n)), TextCell(same)))
        for system, got in (entry.get("other_model") or {}).items():
            ids = list(got.get("items") or ())
            shown = ", ".join(ids[:_SHOWN_IDS]) + (
                f" and {len(ids) - _SHOWN_IDS} more" if len(ids) > _SHOWN_IDS else ""
            )
            answers = ", ".join(f"{m}: {k}" for m, k in sorted((got.get("answers") or {}).items()))
            scored = ", ".join(f"{m}: {k}" for m, k in sorted((got.get("metrics") or {}).items()))
            other_rows.append(
                (
                    TextCell(unit),
                    TextCell(system),
                    TextCell(str(len(ids)), "missing"),
                    TextCell(answers),
                    TextCell(scored),
                    TextCell(shown),
                )
            )
    if served_rows:
        out.append(
            TableBlock(
                "Judge calls by the model that answered (as the endpoint reported it)",
                ("unit", "served model", "calls", "asked?"),
                tuple(served_rows),
            )
        )
    if other_rows:
        out.append(
            TableBlock(
                f"Answers from another model than {name!r}: scored, and flagged here",
                ("unit", "system", "items", "answers by model", "items per metric they scored", "item ids"),
                tuple(other_rows),
            )
        )
    elif name:
        out.append(Paragraph(f"Every judge answer came from the model asked for ({name}) or a dated snapshot of it."))
    return out


def provenance_blocks(results: Sequence[ProtocolResult], provenance: Mapping[str, Any] | None = None) -> list[Block]:
    """The "how these numbers were made" section (see the module docstring)."""
    out: list[Block] = [Heading("How these numbers were made", 2)]
    p = dict(provenance or {})
    if p:
        out += _run_blocks(p)
    named: dict[str, list[str]] = {}  # signature -> what it signs (a unit and its metric often share one)
    for name, sig in (p.get("units") or {}).items():
        named.setdefault(str(sig), []).append(f"unit {name}")
    for result in results:
        for metric, sig in result.signatures.items():
            named.setdefault(str(sig), []).append(f"metric {metric}")
    sig_rows = [(TextCell(", ".join(dict.fromkeys(who))), TextCell(sig)) for sig, who in named.items()]
    if sig_rows:
        out.append(
            TableBlock(
                "Signatures: every option, model and version behind each number", ("", "signature"), tuple(sig_rows)
            )
        )
    if p.get("judge"):
        out += _judge_blocks(p["judge"])
    return out
