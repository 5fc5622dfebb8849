"""The PosterIQ protocol's input: one record per system x task item (a JSON Lines row).

Every record is a JSON object with these fields (docs/protocols/posteriq.md has examples):

* ``system`` (string): the model's name; may be left out when ``evaluate(..., system=...)``
  names the one system of a file;
* ``task`` (string): one of :data:`TASKS` (spaces or hyphens for underscores are fine, and
  PosterIQ's own "font matching 1" / "font matching 2" / "font effect" are read too);
* ``item_id`` (string or integer): the item's id, unique per system and task (the join key);
* ``answer`` (string or null): the model's raw answer; null means no answer (unreadable);
* ``target``: the ground truth, in the form :data:`TARGET_FORMS` gives for the task;
* task fields: ``font_size`` (font_size_ocr, required), ``size`` ([width, height] of the image:
  text_localization, layout_generation; needed for pixel boxes), ``subset`` (font_matching: the
  sub-task, "1" or "2"), ``n_requested`` (empty_space: how many patches the prompt asked for,
  default the number of target patches), ``verdicts`` (composition/intention understanding:
  the judge's reply or a boolean per key point, when no judge is passed);
* ``meta`` (object, optional): anything else, copied into the item's records.

Any other field, a missing one or a value of the wrong form is an
:class:`~transcreval.errors.InputError` naming the row (1-based) and how to fix it.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

from transcreval.data.posteriq import font_colors, font_effects
from transcreval.errors import InputError
from transcreval.functional.choice.labels import ALIGNMENT_LABELS, ROTATION_LABELS
from transcreval.functional.choice.style_score import POSTERIQ_STYLES

__all__ = ["TARGET_FORMS", "TASKS", "TaskItem", "complete_systems", "parse_records", "task_key"]

#: the target each task takes
TARGET_FORMS: dict[str, str] = {
    "logo_ocr": "the logo's text (a string)",
    "poster_ocr": "the poster's text instances (a list of strings)",
    "simple_ocr": "the text (a string)",
    "hard_ocr": "the text (a string)",
    "font_size_ocr": "the text (a string), with font_size",
    "font_matching": "the correct letter, A-I",
    "font_attributes": "the correct letter, A or B",
    "font_effect_1": "the correct letter, A-D",
    "font_effect_2": '{"color": one of the 16 colours, "effects": [effects from the 48]}',
    "text_localization": "the boxes [x0, y0, x1, y1] of the queried texts, in query order",
    "alignment": "'left-aligned', 'center-aligned' or 'right-aligned'",
    "rotation": "'clockwise rotation', 'no rotation' or 'counterclockwise rotation'",
    "empty_space": "the empty patch ids (a list of integers 0-48)",
    "layout_comparison": "the better layout, 'A' or 'B'",
    "layout_generation": "the boxes [x0, y0, x1, y1] of the texts, in prompt order",
    "style_understanding": "one of PosterIQ's 17 style names",
    "composition_understanding": "the key points (a list of strings)",
    "intention_understanding": "the key points (a list of strings)",
    "overall_rating": "the human score, 0-10",
}
TASKS: tuple[str, ...] = tuple(TARGET_FORMS)
_TASK_FIELDS: dict[str, tuple[str, ...]] = {
    "font_size_ocr": ("font_size",),
    "font_matching": ("subset",),
    "text_localization": ("size",),
    "layout_generation": ("size",),
    "empty_space": ("n_requested",),
    "composition_understanding": ("verdicts",),
    "intention_understanding": ("verdicts",),
}
_COMMON = ("system", "task", "item_id", "answer", "target", "meta")
_ALIASES = {"font_matching_1": ("font_matching", "1"), "font_matching_2": ("font_matching", "2")}
_ALIASES_PLAIN = {"font_effect": "font_effect_1", "font_attribute": "font_attributes"}
_LETTERS = {"font_matching": "ABCDEFGHI", "font_attributes": "AB", "font_effect_1": "ABCD", "layout_comparison": "AB"}


@dataclass(frozen=True)
class TaskItem:
    """One checked record: ``row`` is its 1-based position in the input, ``where`` names it in
    messages (``"X_bench.json, item 12"``, ``"row 3"``); ``defects`` says what is wrong with its
    ground truth (a label outside the task's options, an empty key point), each kept and scored
    as given."""

    row: int
    system: str
    task: str
    item_id: str
    answer: str | None
    target: Any
    extra: Mapping[str, Any] = field(default_factory=dict)
    meta: Mapping[str, Any] = field(default_factory=dict)
    defects: tuple[str, ...] = ()
    where: str = ""


def task_key(name: Any, where: str) -> tuple[str, str | None]:
    """The task's key in :data:`TASKS` and, for PosterIQ's "font matching 1/2", the subset."""
    if not isinstance(name, str):
        raise InputError(f"{where}: 'task' must be a string, one of {', '.join(TASKS)}")
    key = "_".join(name.strip().lower().replace("-", " ").split())
    if key in _ALIASES:
        return _ALIASES[key]
    key = _ALIASES_PLAIN.get(key, key)
    if key not in TASKS:
        raise InputError(f"{where}: unknown task {name!r}; tasks: {', '.join(TASKS)}")
    return key, None


def _text(v: Any, what: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise InputError(f"{what} must be a non-empty string, got {v!r}")
    return v


def _texts(v: Any, what: str) -> list[str]:
    if isinstance(v, str) or not isinstance(v, list) or not v:
        raise InputError(f"{what} must be a non-empty list of strings, got {v!r}")
    return [_text(x, f"{what}[{i}]") for i, x in enumerate(v)]


def _number(v: Any, what: str, low: float = -math.inf, high: float = math.inf) -> float:
    if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(float(v)) or not low <= float(v) <= high:
        raise InputError(f"{what} must be a number in [{low:g}, {high:g}], got {v!r}")
    return float(v)


def _boxes(v: Any, what: str) -> list[list[float]]:
    if not isinstance(v, list) or not v:
        raise InputError(f"{what} must be a non-empty list of [x0, y0, x1, y1] boxes, got {v!r}")
    out = []
    for i, b in enumerate(v):
        if not isinstance(b, list) or len(b) != 4:
            raise InputError(f"{what}[{i}] must be a box [x0, y0, x1, y1], got {b!r}")
        out.append([_number(x, f"{what}[{i}]") for x in b])
    return out


def _label(v: Any, labels: Iterable[str], what: str) -> str:
    """``v`` as one of ``labels`` (case, hyphens and spaces aside)."""
    allowed = list(labels)
    if isinstance(v, list) and len(v) == 1:  # PosterIQ's data wrap a label in a list
        v = v[0]
    by_key = {" ".join(a.casefold().replace("-", " ").split()): a for a in allowed}
    key = " ".join(v.casefold().replace("-", " ").split()) if isinstance(v, str) else None
    if key not in by_key:
        raise InputError(f"{what} must be one of {allowed}, got {v!r}")
    return by_key[key]


def _vocabulary_label(v: Any, labels: Sequence[str], what: str, kind: str, defects: list[str]) -> str:
    """``v`` as one of ``labels``; a non-empty string outside them is kept as given and noted in
    ``defects`` (a defect of the ground truth is a note, never the end of the run)."""
    try:
        return _label(v, labels, what)
    except InputError:
        if not isinstance(v, str) or not v.strip():
            raise
    close = difflib.get_close_matches(v, labels, n=1)
    hint = f" (closest option: {close[0]!r})" if close else ""
    defects.append(f"{kind} {v!r} is not among the task's {len(labels)} options{hint}; scored as given")
    return v


def _target(task: str, v: Any, what: str, defects: list[str]) -> Any:
    if task in ("simple_ocr", "hard_ocr", "font_size_ocr") and isinstance(v, list):
        return "\n".join(_texts(v, what))  # PosterIQ's lines: cleaning deletes the line breaks
    if task in ("logo_ocr", "simple_ocr", "hard_ocr", "font_size_ocr"):
        return _text(v, what)
    if task == "poster_ocr":
        return [_text(v, what)] if isinstance(v, str) else _texts(v, what)
    if task in _LETTERS:
        return _label(v.strip().upper() if isinstance(v, str) else v, _LETTERS[task], what)
    if task == "font_effect_2":
        if isinstance(v, list) and v:
            v = {"color": v[0], "effects": v[1:]}
        if not isinstance(v, dict) or set(v) != {"color", "effects"} or not isinstance(v["effects"], list):
            raise InputError(f'{what} must be {{"color": ..., "effects": [...]}}, got {v!r}')
        effects = [
            _vocabulary_label(e, font_effects(), f"{what}.effects[{i}]", "effect", defects)
            for i, e in enumerate(v["effects"])
        ]
        for e in dict.fromkeys(e for e in effects if effects.count(e) > 1):
            defects.append(
                f"effect {e!r} is listed {effects.count(e)} times; paper mode scores the share of distinct effects, "
                "code mode (as the script) the share of the list"
            )
        return {
            "color": _vocabulary_label(v["color"], font_colors(), f"{what}.color", "colour", defects),
            "effects": effects,
        }
    if task in ("text_localization", "layout_generation"):
        return _boxes(v, what)
    if task == "alignment":
        return [_label(x, ALIGNMENT_LABELS, what) for x in (v if isinstance(v, list) and v else [v])]
    if task == "rotation":
        return _label(v, ROTATION_LABELS, what)
    if task == "empty_space":
        if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            raise InputError(f"{what} must be a list of integer patch ids, got {v!r}")
        return list(v)
    if task == "style_understanding":
        return _label(v, POSTERIQ_STYLES, what)
    if task in ("composition_understanding", "intention_understanding"):
        if isinstance(v, str) or not isinstance(v, list) or not v or not all(isinstance(x, str) for x in v):
            raise InputError(f"{what} must be a non-empty list of strings, got {v!r}")
        empty = [str(i + 1) for i, x in enumerate(v) if not x.strip()]
        if empty:
            which = f"point {empty[0]} is" if len(empty) == 1 else f"points {', '.join(empty)} are"
            defects.append(f"key {which} empty (of {len(v)}); judged like any other")
        return list(v)
    return _number(v, what, 0.0, 10.0)  # overall_rating


def _extra(task: str, rec: Mapping[str, Any], target: Any, where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if task == "font_size_ocr":
        if "font_size" not in rec:
            raise InputError(f"{where}: font_size_ocr needs 'font_size' (the size the text was rendered at)")
        out["font_size"] = _number(rec["font_size"], f"{where}: font_size", 1e-9)
    if "size" in rec:
        s = rec["size"]
        if not isinstance(s, list) or len(s) != 2:
            raise InputError(f"{where}: size must be [width, height], got {s!r}")
        out["size"] = (_number(s[0], f"{where}: width", 1e-9), _number(s[1], f"{where}: height", 1e-9))
    if "subset" in rec:
        out["subset"] = str(rec["subset"])
    if "n_requested" in rec:
        n = rec["n_requested"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InputError(f"{where}: n_requested must be an integer >= 0, got {n!r}")
        out["n_requested"] = n
    if "verdicts" in rec:
        vs = rec["verdicts"]
        if not isinstance(vs, list) or len(vs) != len(target):
            raise InputError(f"{where}: verdicts must be a list with one verdict per key point ({len(target)})")
        if not all(isinstance(x, (bool, str)) or x is None for x in vs):
            raise InputError(f"{where}: each verdict is the judge's reply (a string), a boolean or null")
        out["verdicts"] = list(vs)
    return out


def parse_records(
    records: Iterable[Mapping[str, Any]], system: str | None = None, wheres: Sequence[str] | None = None
) -> list[TaskItem]:
    """Check every record and return them as :class:`TaskItem` (errors name the record: its
    ``wheres`` label, such as ``"X_bench.json, item 12"``, else ``"row N"``)."""
    items: list[TaskItem] = []
    seen: dict[tuple[str, str, str], str] = {}
    for row, rec in enumerate(records, start=1):
        at = wheres[row - 1] if wheres is not None else f"row {row}"
        where = at
        if not isinstance(rec, Mapping):
            raise InputError(f"{where}: a record is a JSON object, got {type(rec).__name__}")
        task, subset = task_key(rec.get("task"), where)
        allowed = set(_COMMON) | set(_TASK_FIELDS.get(task, ()))
        unknown = sorted(set(rec) - allowed)
        if unknown:
            raise InputError(f"{where} ({task}): unknown field(s) {unknown}; allowed: {sorted(allowed)}")
        for key in ("item_id", "answer", "target"):
            if key not in rec:
                hint = " (null for no answer)" if key == "answer" else ""
                raise InputError(f"{where} ({task}): missing field {key!r}{hint}")
        item_id = rec["item_id"]
        if isinstance(item_id, bool) or not isinstance(item_id, (str, int)) or str(item_id) == "":
            raise InputError(f"{where} ({task}): item_id must be a non-empty string or an integer, got {item_id!r}")
        where = f"{at} (task {task}, item {item_id!r})"
        name = rec.get("system", system)
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{where}: no system name: give each record 'system' or pass system='...'")
        answer = rec["answer"]
        if answer is not None and not isinstance(answer, str):
            raise InputError(f"{where}: answer must be the model's raw answer (a string) or null, got {answer!r}")
        meta = rec.get("meta", {})
        if not isinstance(meta, Mapping):
            raise InputError(f"{where}: meta must be an object, got {meta!r}")
        defects: list[str] = []
        target = _target(task, rec["target"], f"{where}: target ({TARGET_FORMS[task]})", defects)
        extra = _extra(task, rec, target, where)
        if subset is not None:
            extra.setdefault("subset", subset)
        ident = (name, task, str(item_id))
        if ident in seen:
            raise InputError(f"{where}: the same system, task and item_id as {seen[ident]}")
        seen[ident] = at
        items.append(TaskItem(row, name, task, str(item_id), answer, target, extra, dict(meta), tuple(defects), at))
    if not items:
        raise InputError("no records: pass at least one system x task item")
    return items


def _ground_truth(it: TaskItem) -> tuple[Any, ...]:
    return it.target, it.extra.get("size"), it.extra.get("font_size")


def complete_systems(items: list[TaskItem]) -> tuple[list[TaskItem], list[str]]:
    """Line the systems up on the same items, and say where they differ.

    Two systems giving one (task, item_id) different ground truth is an InputError naming both.
    A system read from PosterIQ's result files (``meta["file"]``) that lacks an item another
    system has gets it as unanswered (``meta["no_answer"] = "missing from its file"``, the other
    system's ground truth), as ``transcreval evaluate`` counts a missing output; a system given as
    records keeps its own items, with a note saying how many it lacks."""
    first: dict[tuple[str, str], TaskItem] = {}
    have: dict[str, set[tuple[str, str]]] = {}
    from_files: dict[str, bool] = {}
    for it in items:
        key = (it.task, it.item_id)
        ref = first.setdefault(key, it)
        if _ground_truth(ref) != _ground_truth(it):
            raise InputError(
                f"{it.where}: the ground truth of {it.task} item {it.item_id!r} differs from {ref.where}'s; score "
                "systems of one benchmark version together"
            )
        have.setdefault(it.system, set()).add(key)
        from_files[it.system] = from_files.get(it.system, True) and "file" in it.meta
    out, notes = list(items), []
    row = max((it.row for it in items), default=0)
    for system, keys in have.items():
        lacking = [ref for key, ref in first.items() if key not in keys]
        if not lacking:
            continue
        named = ", ".join(f"{r.task} {r.item_id!r}" for r in lacking[:3])
        if not from_files[system]:
            notes.append(f"{system}: no record for {len(lacking)} item(s) other systems have (first: {named})")
            continue
        notes.append(f"{system}: its file lacks {len(lacking)} item(s) other files have (first: {named})")
        for ref in lacking:
            row += 1
            meta = {k: v for k, v in ref.meta.items() if k not in ("unanswered", "no_answer", "error", "file")}
            meta |= {"unanswered": True, "no_answer": "missing from its file"}
            extra = {k: v for k, v in ref.extra.items() if k != "verdicts"}
            out.append(
                TaskItem(row, system, ref.task, ref.item_id, None, ref.target, extra, meta, ref.defects, f"{system}: -")
            )
    return out, notes
