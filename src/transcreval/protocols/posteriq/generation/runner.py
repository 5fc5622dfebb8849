"""PosterIQ generation in ``transcreval evaluate -p posteriq-gen``: the runner adapter (:data:`ADAPTER`).

Two ways in, as :func:`~transcreval.protocols.posteriq.generation.pipeline.evaluate_generation`:

* **score files**: ``-s NAME=NAME_score.json`` (PosterIQ's ``gen_metric.py`` output) carries the
  prompts and the judge's replies: no judge is called. Without a manifest the prompt set is the
  files' items (an item another file has and this one lacks is a missing image); with ``-m`` a
  manifest (:func:`write_manifest`) it is the manifest's, as ``tasks=`` in Python.
* **generated images, a manifest and --judge**: the manifest has one line per prompt, ``id`` = the
  prompt's path with ``/`` (``dense/1000.jpg``) and ``meta``: ``task`` and ``target`` (the key
  points, or the style; none for font); :func:`write_manifest` writes it from the benchmark's
  ``gen_task`` folder. The outputs are ``-s NAME=folder/{id}`` (the images laid out by path). The
  unit ``judge`` asks the run's judge about every image with the project's templates (or
  ``--option judge_template=FILE``) and stores the replies; the tables are computed from them
  with no call, so resume and ``rescore`` cost nothing.

Both end in :func:`~transcreval.protocols.posteriq.generation.pipeline.score_items`, the one
pipeline, so a run's Table 6 equals the Python entry's on the same replies.
"""

from __future__ import annotations

import json
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
from transcreval.protocols.posteriq.generation.inputs import (
    GEN_TASKS,
    GenItem,
    Prompt,
    prompt_of,
    read_prompts,
    read_score_file,
)
from transcreval.protocols.posteriq.generation.judging import ask_task, per_task
from transcreval.protocols.posteriq.generation.pipeline import score_items
from transcreval.protocols.posteriq.generation.scoring import gen_options
from transcreval.protocols.records import ProtocolResult
from transcreval.utils.digest import content_digest

__all__ = ["ADAPTER", "PosterIQGenAdapter", "write_manifest"]

_TARGET_KEY = {"dense": "gt", "composition": "gt", "intention": "gt", "style": "style"}


def _prompt(item: Item) -> Prompt:
    """The prompt of a manifest item (its id is the path)."""
    task = item.meta.get("task")
    row: dict[str, Any] = {"task": task, "path": item.id}
    key = _TARGET_KEY.get(str(task).strip().lower().split()[-1] if isinstance(task, str) and task.strip() else "")
    if key is not None:
        row[key] = item.meta.get("target")
    return prompt_of(row, item.where)


def write_manifest(tasks: Any, path: str | os.PathLike[str]) -> Path:
    """Write the run manifest of the generation prompts (``tasks``: the ``gen_task`` folder, a
    merged list or the items) to ``path``: one line per prompt, ``id`` its path with ``/``."""
    out = Path(path)
    lines = []
    for p in read_prompts(tasks):
        meta: dict[str, Any] = {"task": p.task}
        if p.target is not None:
            meta["target"] = p.target
        lines.append(json.dumps({"id": p.item_id, "meta": meta}, ensure_ascii=False))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def _spec_path(spec: str, root: str | None) -> Path:
    return Path(spec) if root is None or os.path.isabs(spec) else Path(root) / spec


def _score_outputs(name: str, path: Path) -> list[tuple[GenItem, Output]]:
    """A score file's items, each with the Output that carries its replies (``meta["judge"]``)."""
    out = []
    for it in read_score_file(path, name):
        meta = {"judge": it.judge, "file": path.name} if it.judge is not None else {"no_judge": True}
        out.append((it, Output(name, it.prompt.item_id, meta=meta, digest=content_digest(meta), where=it.where)))
    return out


def _each_item(name: str, spec: str, got: Mapping[str, Output], items: Sequence[Item]) -> dict[str, Output]:
    """An Output per item: the file's, or a missing one (the file has no such item: no image)."""
    return {
        it.id: got.get(it.id)
        or Output(
            name,
            it.id,
            digest=content_digest({"missing": True}),
            status="missing_output",
            detail=f"{name}'s score file has no item {it.id!r} (no image)",
            where=spec,
        )
        for it in items
    }


def _judge_unit() -> Unit:
    def signature(ctx: UnitContext) -> str:
        desc = dict(ctx.judge.describe()) if ctx.judge is not None and hasattr(ctx.judge, "describe") else {}
        return "posteriq-gen.judge|" + json.dumps(
            {"judge": desc, "template": ctx.options["judge_template"]}, sort_keys=True, default=str
        )

    def prepare(ctx: UnitContext) -> Prepared:
        templates = per_task(ctx.options["judge_template"], "judge_template")

        def score(works: Sequence[Work]) -> list[Outcome]:
            asked: dict[int, dict[str, Any]] = {}
            prompts = [_prompt(w.item) for w in works]  # each item's prompt, checked once
            for task in GEN_TASKS:
                todo = [(i, w) for i, w in enumerate(works) if w.output.image and prompts[i].task == task]
                got = ask_task(
                    task,
                    [str(w.output.image) for _, w in todo],
                    [prompts[i].target for i, _ in todo],
                    judge=ctx.judge,
                    template=templates[task],
                )
                for (i, _), (reply, status) in zip(todo, got):
                    asked[i] = {"judge": reply} if status == "ok" else {"judge": reply, "status": status}
            return [Outcome((), asked.get(i, {})) for i in range(len(works))]

        return Prepared(signature(ctx), score)

    return Unit(
        "judge",
        (),
        prepare,
        signature,
        needs=("image",),
        uses_judge=True,
        summary="every generated image judged with the project's templates (replies stored)",
    )


def _replies_unit() -> Unit:
    """The score files' replies, kept as they are (no judge): stored so that a run's records say
    which items it read."""

    def signature(ctx: UnitContext) -> str:
        return "posteriq-gen.replies|1"

    def prepare(ctx: UnitContext) -> Prepared:
        def score(works: Sequence[Work]) -> list[Outcome]:
            return [Outcome((), {"from_file": "judge" in w.output.meta}) for w in works]

        return Prepared(signature(ctx), score)

    return Unit(
        "replies", (), prepare, signature, needs=(), summary="the replies of gen_metric.py's score files, as given"
    )


class PosterIQGenAdapter(ProtocolAdapter):
    """PosterIQ generation's runner adapter (see the module docstring)."""

    name: ClassVar[str] = "posteriq-gen"
    version: ClassVar[str] = "1"
    item_fields: ClassVar[tuple[str, ...]] = ()
    output_fields: ClassVar[tuple[str, ...]] = ("image",)
    meta_fields: ClassVar[dict[str, str]] = {
        "item:task": f"one of {', '.join(GEN_TASKS)} (or 'poster dense', ...)",
        "item:target": "the key points (dense, composition, intention) or the style (style)",
        "item:from_score_files": "set on the prompts read from score files without a manifest",
        "output:judge": "the judge's replies as gen_metric.py writes them (score files)",
        "output:file": "the score file an item was read from (score files)",
        "output:no_judge": "the score file's item has no replies (score files)",
    }
    option_defaults: ClassVar[dict[str, Any]] = {
        "mode": "paper",
        "denominator": None,
        "on_unreadable": "zero",
        "judge_template": None,
    }

    def check_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        out = super().check_options(options)
        gen_options(out["mode"], out["denominator"], out["on_unreadable"])
        per_task(out["judge_template"], "judge_template")
        return out

    def check_item(self, item: Item) -> None:
        _prompt(item)

    def output_suffix(self, item: Item) -> str | None:
        """The extension of the prompt's path (its id): ``.jpg`` for every benchmark prompt."""
        return Path(item.id).suffix.lower() or None

    def own_inputs(
        self, systems: Mapping[str, str], *, root: str | None = None
    ) -> tuple[list[Item], dict[str, dict[str, Output]], list[str]]:
        """Items and outputs from PosterIQ's score files (``-s NAME=NAME_score.json``), which carry
        the prompts and the replies; one file per system. The prompt set is then the files' items
        (each item's ``meta["from_score_files"]``); ``-m`` a manifest names the whole set."""
        if not systems:
            raise InputError("name each system's score file: -s NAME=NAME_score.json (no manifest needed)")
        items: dict[str, Item] = {}
        found: dict[str, dict[str, Output]] = {}
        for name, spec in systems.items():
            path = _spec_path(spec, root)
            if path.is_dir():
                raise InputError(
                    f"-s {name}={spec}: a folder; without a manifest name one score file per system "
                    "(NAME=NAME_score.json), or give a manifest (write_manifest) and NAME=folder/{id}"
                )
            found[name] = {}
            for it, output in _score_outputs(name, path):
                p = it.prompt
                meta: dict[str, Any] = {"task": p.task, "from_score_files": True}
                if p.target is not None:
                    meta["target"] = p.target
                items.setdefault(
                    p.item_id, Item(p.item_id, p.item_id, meta=meta, digest=content_digest(meta), where=it.where)
                )
                found[name][p.item_id] = output
        order = list(items.values())
        outputs = {name: _each_item(name, str(systems[name]), got, order) for name, got in found.items()}
        return order, outputs, []

    def own_outputs(
        self, system: str, spec: str, items: Sequence[Item], *, root: str | None = None
    ) -> tuple[dict[str, Output], list[str]] | None:
        """With a manifest of the prompts, ``-s NAME=NAME_score.json`` is read as a score file:
        its items join the manifest by path; a prompt the file lacks is a missing image, an item
        the manifest lacks is left out (noted). Any other spec: None (images by ``{id}``)."""
        path = _spec_path(spec, root)
        if "{id}" in spec or path.suffix.lower() != ".json" or not path.is_file():
            return None
        got = {it.prompt.item_id: output for it, output in _score_outputs(system, path)}
        wanted = {it.id for it in items}
        extra = [i for i in got if i not in wanted]
        notes = []
        if extra:
            notes.append(
                f"{system}: {len(extra)} item(s) of {path.name} are not among the manifest's prompts "
                f"(first: {extra[:3]}); not scored"
            )
        return _each_item(system, spec, got, items), notes

    def units(self, options: Mapping[str, Any]) -> list[Unit]:
        return [_replies_unit(), _judge_unit()]

    def tables(self, data: RunData) -> ProtocolResult:
        prompts = [_prompt(it) for it in data.items]
        entries: list[GenItem] = []
        # the prompt set: the manifest's; without one, the items the score files hold
        from_files = all(it.meta.get("from_score_files") for it in data.items)
        for s in data.systems:
            for it, p in zip(data.items, prompts):
                o = data.outputs[s].get(it.id)
                if o is None or not o.ok:  # no image; the reader may name a file under another extension
                    other = o.meta.get("other_extension") if o is not None else None
                    meta = {"other_extension": other} if other else {}
                    entries.append(GenItem(s, p, None, False, "missing_image", o.where if o else "", meta))
                    continue
                if "judge" in o.meta or o.meta.get("no_judge"):
                    status = "no_judge" if o.meta.get("no_judge") else "ok"
                    meta = {"file": o.meta["file"]} if "file" in o.meta else {}
                    entries.append(GenItem(s, p, o.meta.get("judge"), True, status, o.where, meta))
                    continue
                got = data.payload(s, "judge", it.id) or {}
                if "judge" not in got:  # the engine's reason (undecodable_output, ...) when it gave one
                    entries.append(GenItem(s, p, None, True, str(got.get("status", "not_judged")), o.where, {}))
                    continue
                entries.append(GenItem(s, p, got["judge"], True, str(got.get("status", "ok")), o.where, {}))
        opts = gen_options(data.options["mode"], data.options["denominator"], data.options["on_unreadable"])
        res = score_items(entries, None if from_files else prompts, opts)
        return ProtocolResult(
            res.protocol, res.records, res.tables, {**res.signatures, **data.signatures}, res.options, res.notes
        )

    def report_options(self, result: ProtocolResult) -> dict[str, Any]:
        return {"by": "task", "gallery_metrics": []}


ADAPTER = PosterIQGenAdapter()
