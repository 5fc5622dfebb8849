"""PosterIQ in ``transcreval evaluate``: the runner adapter (:data:`ADAPTER`).

PosterIQ's own result files carry the ground truth: ``-s NAME=X_bench.json`` needs no manifest
(:meth:`PosterIQAdapter.own_inputs`; item ids are ``<task>:<path>``, an item without a
``response`` is a missing output). Otherwise:

Manifest (one line per task item; ids unique over all tasks, e.g. ``"font_matching/12"``):
``source_image`` (the poster, optional) and in ``meta``: ``task`` and ``target`` (required; the
forms of :data:`~transcreval.protocols.posteriq.TARGET_FORMS`) and the task fields
``font_size``, ``size``, ``subset``, ``n_requested``; other meta keys are kept. Outputs: ``text``
= the model's raw answer (a missing line or ``null`` is no answer: unreadable, scored as
``on_unreadable`` says), ``meta.verdicts`` = the judge's verdicts per key point
(composition/intention understanding) when already known.

Units: ``answers`` (every task item scored by the protocol's own code, per item) and ``points``
(composition and intention items without verdicts: the judge's verdict per key point, stored in
the payload). The tables are :func:`~transcreval.protocols.posteriq.pipeline.evaluate` on the manifest,
the answers and the stored verdicts: no judge call at aggregate time. Both units and the tables
go through that one function (:mod:`~transcreval.protocols.posteriq.pipeline`), so a run's tables
equal the Python entry's on the same answers.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from transcreval.errors import InputError
from transcreval.protocols.adapter import (
    Item,
    Outcome,
    Output,
    Prepared,
    ProtocolAdapter,
    RunData,
    Unit,
    UnitContext,
    Work,
)
from transcreval.protocols.posteriq.inputs import TASKS, TaskItem, parse_records
from transcreval.protocols.posteriq.pipeline import evaluate
from transcreval.protocols.posteriq.sources import load_sources
from transcreval.protocols.records import ItemRecord, ProtocolResult
from transcreval.utils.digest import content_digest

__all__ = ["ADAPTER", "POINT_TASKS", "PosterIQAdapter", "record_of"]

TASK_FIELDS = ("font_size", "size", "subset", "n_requested")
POINT_TASKS = {"composition_understanding": "composition_point", "intention_understanding": "intention_point"}
_EVAL_OPTIONS = (
    "mode",
    "on_unreadable",
    "refusal_filter",
    "coords",
    "target_coords",
    "mean_iou_top_n",
    "ddof",
    "definition",
)


def record_of(item: Item, output: Output | None, system: str, verdicts: Sequence[Any] | None = None) -> dict[str, Any]:
    """The PosterIQ record of one item and one system's answer (see the module docstring)."""
    meta = dict(item.meta)
    rec: dict[str, Any] = {"system": system, "task": meta.pop("task", None), "item_id": item.id}
    rec["target"] = meta.pop("target", None)
    for k in TASK_FIELDS:
        if k in meta:
            rec[k] = meta.pop(k)
    rec["answer"] = output.text if output is not None and output.ok else None
    given = (output.meta.get("verdicts") if output is not None and output.ok else None) or verdicts
    if given is not None and rec["task"] is not None and str(rec["task"]).replace(" ", "_") in POINT_TASKS:
        rec["verdicts"] = list(given)
    if output is not None and not output.ok:  # why a result file's item has no answer, as evaluate reads it
        meta.update({k: output.meta[k] for k in _NO_ANSWER_META if k in output.meta})
    rec["meta"] = meta
    return rec


def _task(item: Item) -> str:
    return str(item.meta.get("task", "")).strip().lower().replace(" ", "_").replace("-", "_")


def _eval_options(o: Mapping[str, Any]) -> dict[str, Any]:
    return {k: o[k] for k in _EVAL_OPTIONS}


def _needs_judge(w: Work) -> bool:
    return _task(w.item) in POINT_TASKS and w.output.text is not None and not w.output.meta.get("verdicts")


def _answers_unit(options: Mapping[str, Any]) -> Unit:
    def signature(ctx: UnitContext) -> str:
        return "posteriq.answers|" + json.dumps(_eval_options(ctx.options), sort_keys=True, default=str)

    def prepare(ctx: UnitContext) -> Prepared:
        def score(works: Sequence[Work]) -> list[Outcome]:
            out: list[Outcome] = []
            for w in works:  # one item at a time: its records do not depend on the batch
                if _needs_judge(w):
                    out.append(Outcome(_no_verdicts(w.item, w.system, "see_points_unit")))
                    continue
                res = evaluate([record_of(w.item, w.output, w.system)], **_eval_options(ctx.options))
                out.append(Outcome(tuple(_regroup(r, w.item) for r in res.records)))
            return out

        return Prepared(signature(ctx), score)

    return Unit("answers", (), prepare, signature, needs=(), summary="every task item scored from its raw answer")


def _points_unit(options: Mapping[str, Any]) -> Unit:
    def signature(ctx: UnitContext) -> str:
        desc = dict(ctx.judge.describe()) if ctx.judge is not None and hasattr(ctx.judge, "describe") else {}
        return "posteriq.points|" + json.dumps(
            {"judge": desc, "template": ctx.options["judge_template"]}, sort_keys=True, default=str
        )

    def prepare(ctx: UnitContext) -> Prepared:
        from transcreval.functional.judge.posteriq import judge_point_verdicts

        def score(works: Sequence[Work]) -> list[Outcome]:
            todo = [w for w in works if _needs_judge(w)]
            asked: dict[str, dict[str, Any]] = {}
            if todo:
                got = judge_point_verdicts(
                    [w.output.text for w in todo],
                    [w.item.meta["target"] for w in todo],
                    judge=ctx.judge,
                    template=ctx.options["judge_template"],
                )
                for w, vs in zip(todo, got):
                    asked[w.item.id] = {"verdicts": [bool(v.value) if v.ok else None for v in vs]}
                    failed = next((v.status for v in vs if not v.ok), None)
                    if failed is not None:  # the runner redoes a line whose status is a transient failure
                        asked[w.item.id]["status"] = failed
            return [Outcome((), asked.get(w.item.id, {})) for w in works]

        return Prepared(signature(ctx), score)

    return Unit(
        "points",
        (),
        prepare,
        signature,
        needs=(),
        uses_judge=True,
        summary="composition/intention key points without verdicts: the judge's verdicts",
    )


def _no_verdicts(item: Item, system: str, status: str) -> tuple[ItemRecord, ...]:
    metric = POINT_TASKS.get(_task(item))
    if metric is None:
        return ()
    meta = {"task": _task(item), **{k: v for k, v in item.meta.items() if k not in ("task", "target", *TASK_FIELDS)}}
    return (ItemRecord(item.id, system, metric, math.nan, status, item.group, meta),)


def _regroup(r: ItemRecord, item: Item) -> ItemRecord:
    return ItemRecord(r.item_id, r.system, r.metric, r.value, r.status, item.group, r.meta)


_NO_ANSWER_META = ("unanswered", "no_answer", "error")  # why a system's result file has no answer
_OUTPUT_META = (*_NO_ANSWER_META, "file")  # a system's, not the item's


def _own_item(it: TaskItem, where: str) -> Item:
    """The manifest item of one record of a result file (its ground truth and task fields)."""
    meta: dict[str, Any] = {"task": it.task, "target": it.target}
    meta.update({k: list(v) if isinstance(v, tuple) else v for k, v in it.extra.items() if k in TASK_FIELDS})
    meta.update({k: v for k, v in it.meta.items() if k not in _OUTPUT_META})
    item_id = f"{it.task}:{it.item_id}"
    return Item(item_id, item_id, meta=meta, digest=content_digest({"id": item_id, "meta": meta}), where=where)


def _own_output(it: TaskItem, system: str, item_id: str, where: str) -> Output:
    if it.meta.get("unanswered"):
        why = f" (PosterIQ's runner's error: {it.meta['error']})" if "error" in it.meta else ""
        detail = f"{it.meta.get('no_answer', 'no answer')}{why}"
        digest = content_digest({"missing": True, "why": detail})
        meta = {k: it.meta[k] for k in _NO_ANSWER_META if k in it.meta}
        return Output(system, item_id, meta=meta, digest=digest, status="missing_output", detail=detail, where=where)
    meta = {"verdicts": list(it.extra["verdicts"])} if "verdicts" in it.extra else {}
    return Output(
        system, item_id, None, it.answer, meta, content_digest({"text": it.answer, "meta": meta}), where=where
    )


class PosterIQAdapter(ProtocolAdapter):
    """PosterIQ's runner adapter (see the module docstring)."""

    name: ClassVar[str] = "posteriq"
    version: ClassVar[str] = "1"
    item_fields: ClassVar[tuple[str, ...]] = ()
    output_fields: ClassVar[tuple[str, ...]] = ("text",)
    meta_fields: ClassVar[dict[str, str]] = {
        "item:task": f"one of {', '.join(TASKS)}",
        "item:target": "the ground truth in the task's form",
        "item:font_size": "font_size_ocr: the rendered size",
        "item:size": "[width, height] for pixel boxes",
        "item:subset": "font_matching: '1' or '2'",
        "item:n_requested": "empty_space: patches asked for",
        "output:verdicts": "composition/intention: the judge's verdict per key point",
    }
    option_defaults: ClassVar[dict[str, Any]] = {
        "mode": "paper",
        "on_unreadable": "zero",
        "refusal_filter": None,
        "coords": "normalized",
        "target_coords": "normalized",
        "mean_iou_top_n": None,
        "ddof": 1,
        "definition": "supp-b",
        "judge_template": None,
    }

    def check_item(self, item: Item) -> None:
        try:
            parse_records([record_of(item, None, "check")])
        except InputError as e:
            raise InputError(f"{item.where}: {str(e).split(': ', 1)[-1]}") from None

    def own_inputs(
        self, systems: Mapping[str, str], *, root: str | None = None
    ) -> tuple[list[Item], dict[str, dict[str, Output]], list[str]]:
        """Items and outputs from PosterIQ result files (one per system: ``{model}_bench.json``,
        or this protocol's records files), which carry the ground truth; every file must give
        an item the same ground truth."""
        if not systems:
            raise InputError("name each system's PosterIQ result file: -s NAME=X_bench.json (no manifest needed)")
        items: dict[str, Item] = {}
        found: dict[str, dict[str, Output]] = {}
        defects: list[str] = []
        for name, spec in systems.items():
            path = Path(spec) if root is None or os.path.isabs(spec) else Path(root) / spec
            if path.is_dir():
                raise InputError(f"-s {name}={spec}: a folder; name one result file per system (NAME=X_bench.json)")
            found[name] = {}
            located = load_sources(path, name)
            parsed = parse_records([r for _, r in located], name, [w for w, _ in located])
            named = sorted({it.system for it in parsed})
            if len(named) > 1:
                raise InputError(
                    f"-s {name}={spec}: its records name {len(named)} systems ({', '.join(named[:5])}); give each "
                    "system a file of its own (-s NAME=FILE)"
                )
            for it in parsed:
                where = it.where
                defects += [f"ground truth of {it.task} item {it.item_id!r}: {d}" for d in it.defects]
                item = _own_item(it, where)
                first = items.setdefault(item.id, item)
                if first.digest != item.digest:
                    raise InputError(
                        f"{where}: the ground truth of {item.id!r} differs from {first.where}'s; score files of "
                        "one benchmark version together"
                    )
                found[name][item.id] = _own_output(it, name, item.id, where)
        order = list(items.values())
        outputs: dict[str, dict[str, Output]] = {}
        notes: list[str] = list(dict.fromkeys(defects))
        for name, got in found.items():
            missing = [it.id for it in order if it.id not in got]
            if missing:
                notes.append(f"{name}: its file lacks {len(missing)} item(s) the others have (first: {missing[:3]})")
            outputs[name] = {
                it.id: got.get(it.id)
                or Output(
                    name,
                    it.id,
                    meta={"unanswered": True, "no_answer": "missing from its file"},  # as evaluate lines files up
                    digest=content_digest({"missing": True}),
                    status="missing_output",
                    detail=f"{name}'s file has no item {it.id!r}",
                    where=str(systems[name]),
                )
                for it in order
            }
        return order, outputs, notes

    def units(self, options: Mapping[str, Any]) -> list[Unit]:
        return [_answers_unit(options), _points_unit(options)]

    def tables(self, data: RunData) -> ProtocolResult:
        records: list[dict[str, Any]] = []
        missing: list[ItemRecord] = []
        for s in data.systems:
            for it in data.items:
                o = data.outputs[s].get(it.id)
                p = data.payload(s, "points", it.id) or {}
                rec = record_of(it, o, s, p.get("verdicts"))
                if rec["task"] and _task(it) in POINT_TASKS and rec["answer"] is not None and "verdicts" not in rec:
                    missing += _no_verdicts(it, s, "no_verdicts")
                    continue
                records.append(rec)
        if not records:
            raise InputError("no PosterIQ item can be scored: composition/intention answers need verdicts or --judge")
        res = evaluate(records, **_eval_options(data.options))
        groups = {it.id: it for it in data.items}
        recs = tuple(_regroup(r, groups[r.item_id]) for r in res.records) + tuple(missing)
        return ProtocolResult(
            "posteriq", recs, res.tables, {**res.signatures, **data.signatures}, res.options, res.notes
        )

    def report_options(self, result: ProtocolResult) -> dict[str, Any]:
        return {"by": "task", "gallery_metrics": []}


ADAPTER = PosterIQAdapter()
