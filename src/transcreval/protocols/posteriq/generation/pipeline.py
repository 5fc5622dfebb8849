"""PosterIQ generation in one Python call: :func:`evaluate_generation` reads score files or
judges image folders, and :func:`score_items` (the one pipeline, which the runner adapter calls
too) scores every item and builds Table 6."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from transcreval.core.common import Mode, OnUnreadable
from transcreval.core.result import Signature
from transcreval.errors import ImageDecodeError, InputError
from transcreval.protocols.posteriq.generation.inputs import (
    GEN_TASKS,
    GenItem,
    Prompt,
    read_prompts,
    read_score_file,
    score_files,
    system_of,
)
from transcreval.protocols.posteriq.generation.judging import ask_task, per_task
from transcreval.protocols.posteriq.generation.scoring import (
    METRIC_OF,
    GenOptions,
    gen_options,
    is_error_reply,
    score_task,
    task_cell,
)
from transcreval.protocols.posteriq.generation.tables import build_table6
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult
from transcreval.utils.paths import other_extension

__all__ = ["UNUSABLE_IMAGE", "evaluate_generation", "image_items", "score_items"]

PROTOCOL = "posteriq-gen"
GenSource = str | os.PathLike[str] | Mapping[str, Any] | Iterable[Any]
#: statuses of an image the system wrote but nobody can use (the system's failure, not the
#: judge's): counted like a missing image under either denominator
UNUSABLE_IMAGE: tuple[str, ...] = ("undecodable_output",)


def _first(ids: Sequence[str]) -> str:
    return ", ".join(repr(i) for i in ids[:3]) + (", ..." if len(ids) > 3 else "")


def _prompt_set(entries: Sequence[GenItem], prompts: Sequence[Prompt] | None) -> tuple[list[Prompt], list[str]]:
    if prompts is not None:
        return list(prompts), []
    seen: dict[str, Prompt] = {}
    for e in entries:
        seen.setdefault(e.prompt.item_id, e.prompt)
    note = (
        "the prompt set is the items the systems' files hold: to count the prompts a file lacks, give the "
        "benchmark's gen_task folder (Python: tasks=; command line: -m a manifest written by "
        "transcreval.protocols.posteriq.generation.runner.write_manifest)"
    )
    return list(seen.values()), [note]


def score_items(
    entries: Sequence[GenItem], prompts: Sequence[Prompt] | None, opts: GenOptions, notes: Sequence[str] = ()
) -> ProtocolResult:
    """Table 6 and one record per system x prompt from the systems' items (``entries``: the
    present images with their replies) against the prompt set (None: the prompts the entries
    name). Missing images, judge failures and every quirk of the replies are counted in the notes."""
    if not entries and prompts is None:
        raise InputError("no generation items to score: pass score files, or image folders with tasks= and judge=")
    prompt_list, table_notes = _prompt_set(entries, prompts)
    by_id = {p.item_id: p for p in prompt_list}
    systems = list(dict.fromkeys(e.system for e in entries))
    records: list[ItemRecord] = []
    cells: dict[str, dict[str, Cell]] = {s: {} for s in systems}
    rule = (
        "each scores 0 (denominator: every prompt)"
        if opts.denominator == "prompts"
        else "left out (denominator: the images present)"
    )
    for s in systems:
        mine = [e for e in entries if e.system == s]
        outside = [e.prompt.item_id for e in mine if e.prompt.item_id not in by_id]
        if outside:  # as the runner leaves out what its manifest lacks: the prompt set is the benchmark
            table_notes.append(
                f"{s}: {len(outside)} item(s) not among the prompts (first: {_first(outside)}); not scored"
            )
            mine = [e for e in mine if e.prompt.item_id in by_id]
        for task in GEN_TASKS:
            task_prompts = [p for p in prompt_list if p.task == task]
            its = [e for e in mine if e.prompt.task == task and e.present]
            if not task_prompts and not its:
                continue
            have = {e.prompt.item_id for e in its}
            missing = [p.item_id for p in task_prompts if p.item_id not in have]
            broken = [e for e in its if e.judge is None and e.status in UNUSABLE_IMAGE]
            failed = [e for e in its if e.judge is None and e.status not in UNUSABLE_IMAGE]
            scored = [e for e in its if e.judge is not None]
            results = score_task(task, scored, opts)
            metric = METRIC_OF[task]
            for e, r in zip(scored, results):
                meta = {"task": task, **dict(e.meta)}
                if r.counted and r.status != "ok":  # scored (0) though its reply is unreadable or absent
                    meta["unreadable"] = r.status
                status = "ok" if r.counted else r.status
                records.append(ItemRecord(e.prompt.item_id, s, metric, r.value, status, None, meta))
                if r.quirk:
                    table_notes.append(f"{s}, {task} item {e.prompt.item_id!r}: {r.quirk}")
            for e in [*broken, *failed]:
                records.append(ItemRecord(e.prompt.item_id, s, metric, float("nan"), e.status, None, {"task": task}))
            for i in missing:
                records.append(ItemRecord(i, s, metric, float("nan"), "missing_image", None, {"task": task}))
            # a file that does not decode is the system's failure, counted as a missing image
            cells[s][task] = task_cell(results, len(missing) + len(broken), len(failed), opts)
            if missing:
                table_notes.append(
                    f"{s}, {task}: {len(missing)} of {len(task_prompts)} prompt(s) have no image "
                    f"(first: {_first(missing)}); {rule}"
                )
                table_notes += _elsewhere_note(s, task, [e for e in mine if e.prompt.task == task and not e.present])
            if broken:
                ids = [e.prompt.item_id for e in broken]
                table_notes.append(
                    f"{s}, {task}: {len(ids)} image(s) that do not decode (first: {_first(ids)}); {rule}"
                )
            if failed:
                per = Counter(e.status for e in failed)
                why = ", ".join(f"{k} {st}" for st, k in per.items())
                table_notes.append(f"{s}, {task}: {len(failed)} image(s) without judge replies ({why}); left out")
            errors = sum(r.status == "judge_error" for r in results)
            if errors:
                table_notes.append(f'{s}, {task}: {errors} image(s) whose judge calls failed ("error"); left out')
            if opts.code:
                n_err = sum(is_error_reply(e.judge) for e in scored)
                if n_err:
                    table_notes.append(
                        f'{s}, {task}: {n_err} image(s) with the reply "error", scored as gen_metric.py does (0)'
                    )
            bad = [r for r in results if r.status == "unparsable"]
            if bad:
                how = "scored 0" if opts.on_unreadable == "zero" else "left out"
                table_notes.append(f"{s}, {task}: {len(bad)} image(s) with an unreadable reply; {how}")
    defects = [f"ground truth of {p.task} item {p.item_id!r}: {d}" for p in prompt_list for d in p.defects]
    sig_options = opts.as_dict()
    signatures = {
        m: str(Signature.make(f"PosterIQ.gen.{m}", sig_options)) for m in dict.fromkeys(r.metric for r in records)
    }
    table = build_table6(systems, cells, [*dict.fromkeys(table_notes), *defects])
    return ProtocolResult(PROTOCOL, tuple(records), {"table6": table}, signatures, sig_options, (*notes, *defects))


def _elsewhere_note(system: str, task: str, absent: Sequence[GenItem]) -> list[str]:
    """The note on prompts without an image whose folder holds a file of the same name under
    another extension (``meta["other_extension"]``: that file's name): only the prompt's path is
    read, so it stays missing, but the reader learns why."""
    pairs = [
        f"{e.prompt.item_id!r} as {str(PurePosixPath(e.prompt.item_id).with_name(e.meta['other_extension']))!r}"
        for e in absent
        if e.meta.get("other_extension")
    ]
    if not pairs:
        return []
    return [
        f"{system}, {task}: {len(pairs)} prompt(s) without an image have a file under another extension "
        f"(first: {', '.join(pairs[:3])}{', ...' if len(pairs) > 3 else ''}); only the prompt's path is read: "
        "save the image under it"
    ]


def image_items(system: str, folder: str | os.PathLike[str], prompts: Sequence[Prompt]) -> list[GenItem]:
    """One item per prompt whose image lies at ``folder/<path>`` (the path's ``/`` form); the
    replies are asked for later (``judge`` None, status ``"not_judged"``). A file that does not
    decode gets status ``"undecodable_output"`` (never sent to the judge; the runner's rule); a
    prompt without a file is an item with ``present`` False, with ``meta["other_extension"]``
    when a file of that name lies there under another extension."""
    from transcreval.io import open_image

    root = Path(folder)
    if not root.is_dir():
        raise InputError(f"{system}: no such image folder: {root}")
    out = []
    for p in prompts:
        image = root / p.item_id
        if not image.is_file():
            other = other_extension(image)
            out.append(
                GenItem(
                    system, p, None, False, "missing_image", str(image), {"other_extension": other} if other else {}
                )
            )
            continue
        try:
            open_image(image).close()
        except ImageDecodeError as e:
            out.append(GenItem(system, p, None, True, "undecodable_output", str(image), {"detail": str(e)}))
            continue
        out.append(GenItem(system, p, None, True, "not_judged", str(image), {"image": str(image)}))
    return out


def _systems(source: GenSource, system: str | None) -> list[tuple[str, Path]]:
    """(system, path) pairs: a score file, a folder of score files, an image folder, a list or a mapping."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.is_dir():
            found = score_files(path)
            if found:
                if system is not None:
                    raise InputError(f"{path}: a folder of score files names its systems; pass {{system: file}}")
                return [(f.stem[: -len("_score")] or f.stem, f) for f in found]
            return [(system or path.name, path)]
        return [(system or "", path)]
    if isinstance(source, Mapping):
        if system is not None:
            raise InputError("system= names one file's system; the mapping already names each system")
        return [(str(k), Path(v)) for k, v in source.items()]
    paths = list(source)
    if not paths or not all(isinstance(p, (str, os.PathLike)) for p in paths):
        raise InputError("source must be a score file, a folder, a list of them or {system: path}")
    if system is not None and len(paths) > 1:
        raise InputError("system= names one file's system; with several pass {system: path}")
    return [pair for p in paths for pair in _systems(p, system)]


def evaluate_generation(
    source: GenSource,
    *,
    system: str | None = None,
    tasks: Any = None,
    judge: Any = None,
    judge_template: Any = None,
    mode: Mode = "paper",
    denominator: str | None = None,
    on_unreadable: OnUnreadable = "zero",
) -> ProtocolResult:
    """PosterIQ's Table 6 (generation) from score files, or from generated images and a judge.

    Args:
        source: (a) ``{model}_score.json`` as PosterIQ's ``gen_metric.py`` writes it (no judge
            needed), a folder of them, a list, or ``{system: path}``; (b) a folder of one
            system's generated images laid out by the prompts' ``path`` (``dense/1000.jpg``),
            or ``{system: folder}``, with ``tasks`` and ``judge``. Kinds may be mixed per system.
        system: the system's name for one file or folder (default: the file's stem without
            ``_score``, the folder's name).
        tasks: the prompts (the benchmark's ``gen_task`` folder, a merged list, or the items):
            needed for image folders; with score files it names the prompts a file lacks.
        judge: one judge for every task or ``{task: judge}`` ("dense", "font", "style",
            "composition", "intention"; the paper uses GPT-5 for dense, font, style and
            intention and Gemini-2.5-Pro for composition).
        judge_template: the prompt template (or a file, e.g. the published prompt) for every
            task, or ``{task: template}``; default the project's built-in templates.
        mode: "paper" (Eq. 10, 13, 14-15 as Supp. B states them) or "posteriq-code"
            (``gen_metric.py``'s compute functions); docs/protocols/posteriq.md.
        denominator: "prompts" (every prompt, a missing image scores 0: paper mode's default)
            or "present" (the images present: code mode's default).
        on_unreadable: a reply that cannot be read as yes/no or a style scores 0 ("zero") or
            is left out ("drop"); counted either way (paper mode).

    Returns:
        A :class:`~transcreval.protocols.records.ProtocolResult` with ``tables["table6"]`` and
        one record per system x prompt (metrics ``dense_point``, ``font_richness``,
        ``style_correct``, ``composition_point``, ``intention_point``).
    """
    opts = gen_options(mode, denominator, on_unreadable)
    prompts = read_prompts(tasks) if tasks is not None else None
    judges, templates = per_task(judge, "judge"), per_task(judge_template, "judge_template")
    entries: list[GenItem] = []
    sources = _systems(source, system)
    seen: dict[str, Path] = {}
    for name, path in sources:
        key = name or (path.name if path.is_dir() else system_of(path))
        if key in seen:
            raise InputError(f"system {key!r} is given twice ({seen[key]} and {path}): name each one, {{system: path}}")
        seen[key] = path
    for name, path in sources:
        if path.is_dir():
            if prompts is None:
                raise InputError(f"{path}: an image folder needs the prompts: pass tasks= (the gen_task folder)")
            entries += judge_items(image_items(name or path.name, path, prompts), judges, templates)
        else:
            entries += read_score_file(path, name or None)
    return score_items(entries, prompts, opts)


def judge_items(items: Sequence[GenItem], judges: Mapping[str, Any], templates: Mapping[str, Any]) -> list[GenItem]:
    """``items`` with the judge's replies (per task, one batch each); those with nothing to
    judge (no image, a file that does not decode) as they are."""
    out = [it for it in items if it.status != "not_judged"]  # missing or undecodable: nothing to ask
    for task in GEN_TASKS:
        its = [it for it in items if it.prompt.task == task and it.status == "not_judged"]
        got = ask_task(
            task,
            [str(it.meta["image"]) for it in its],
            [it.prompt.target for it in its],
            judge=judges[task],
            template=templates[task],
        )
        out += [
            GenItem(it.system, it.prompt, reply, True, status, it.where, {}) for it, (reply, status) in zip(its, got)
        ]
    return out
