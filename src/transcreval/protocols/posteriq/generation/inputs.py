"""PosterIQ generation's inputs: the prompts, and the judge's replies as PosterIQ's scorer writes them.

**The prompts** (:func:`read_prompts`): the benchmark's ``gen_task/`` folder (its five
``gen_*.json`` files, 822 prompts), one of those files, a merged list (``merge.json``), or the
items themselves. Each item has ``task`` ("poster dense", "poster font", "poster style",
"poster composition", "poster intention"; the short names of :data:`GEN_TASKS` are read too),
``path`` (where the generated image lies, relative to a system's folder; PosterIQ writes some
with Windows separators, read as ``/``) and the task's ground truth: ``gt`` (the key points) for
dense, composition and intention, ``style`` for style, nothing for font. The item id is the path
with ``/`` separators (``"dense/1000.jpg"``), unique over the benchmark.

**A score file** (:func:`read_score_file`): ``{model}_score.json`` as PosterIQ's
``gen_metric.py`` writes it, a flat list of the items whose image was present, each with the
prompt's fields, ``local_path`` and ``judge``: the replies, one per key point (a list) for dense,
composition and intention, one reply (a string) for font and style; ``"error"`` where the calls
failed. The system is the file's stem without ``_score`` unless named. What the scorer would
stumble on (an empty reply list, a reply that is not text, a font reply given as a list, a reply
count that differs from the key points) is read as described in docs/protocols/posteriq.md and
noted, never a crash.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transcreval.errors import InputError

__all__ = [
    "COLUMN_OF",
    "GEN_TASKS",
    "POINT_TASKS",
    "SCORE_SUFFIX",
    "GenItem",
    "Prompt",
    "item_id_of",
    "read_prompts",
    "read_score_file",
    "score_files",
    "system_of",
    "task_of",
]

#: the five generation tasks, in Table 6's column order
GEN_TASKS: tuple[str, ...] = ("dense", "font", "style", "composition", "intention")
#: Table 6's column of each task
COLUMN_OF: dict[str, str] = {
    "dense": "Dense",
    "font": "Font",
    "style": "Style",
    "composition": "Composition",
    "intention": "Intention",
}
#: the tasks scored by key points (a judge reply per point)
POINT_TASKS: tuple[str, ...] = ("dense", "composition", "intention")
#: the file-name ending of PosterIQ's generation score files (``{model}_score.json``)
SCORE_SUFFIX = "_score"


@dataclass(frozen=True)
class Prompt:
    """One generation prompt: its task, id (the path with ``/``), path as given, ground truth
    (key points for the point tasks, the style name for style, None for font), where it was read
    and what is wrong with its ground truth (kept and scored as given)."""

    task: str
    item_id: str
    path: str
    target: Any
    where: str = ""
    defects: tuple[str, ...] = ()


@dataclass(frozen=True)
class GenItem:
    """One system's result for one prompt: ``judge`` holds the replies in the score file's form
    (None where there is no image: ``present`` False); ``status`` says why a present image has no
    replies ("ok" otherwise, or the judge's failure status); ``where`` names it in notes."""

    system: str
    prompt: Prompt
    judge: Any
    present: bool = True
    status: str = "ok"
    where: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)


def task_of(name: Any, where: str) -> str:
    """The short task name (one of :data:`GEN_TASKS`) of "poster dense", "dense", "gen_dense"..."""
    if isinstance(name, str):
        key = name.strip().lower().replace("-", " ").replace("_", " ").split()
        if key and key[0] in ("poster", "gen"):
            key = key[1:]
        if len(key) == 1 and key[0] in GEN_TASKS:
            return key[0]
    raise InputError(f"{where}: task must be one of {', '.join('poster ' + t for t in GEN_TASKS)}, got {name!r}")


def item_id_of(path: Any, where: str) -> str:
    """The item id of a prompt's ``path``: ``/`` separators, no leading ``./``."""
    if not isinstance(path, str) or not path.strip():
        raise InputError(f"{where}: path must be the image's relative path (a non-empty string), got {path!r}")
    parts = [p for p in path.strip().replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts or os.path.isabs(path) or ":" in parts[0]:
        raise InputError(f"{where}: path {path!r} must stay inside the system's folder (a relative path)")
    return "/".join(parts)


def _target(task: str, row: Mapping[str, Any], where: str, defects: list[str]) -> Any:
    if task in POINT_TASKS:
        gt = row.get("gt")
        if isinstance(gt, str) or not isinstance(gt, list) or not gt or not all(isinstance(x, str) for x in gt):
            raise InputError(f"{where}: a {task} prompt needs 'gt', its key points (a non-empty list of strings)")
        empty = [str(i + 1) for i, x in enumerate(gt) if not x.strip()]
        if empty:
            defects.append(f"key point(s) {', '.join(empty)} empty (of {len(gt)}); judged like any other")
        return list(gt)
    if task == "style":
        style = row.get("style")
        if not isinstance(style, str) or not style.strip():
            raise InputError(f"{where}: a style prompt needs 'style', the target style (a string)")
        return style
    return None


def prompt_of(row: Any, where: str) -> Prompt:
    """One prompt item (or a score-file item, whose extra fields are ignored)."""
    if not isinstance(row, Mapping):
        raise InputError(f"{where}: an item is a JSON object, got {type(row).__name__}")
    task = task_of(row.get("task"), where)
    item_id = item_id_of(row.get("path"), where)
    defects: list[str] = []
    target = _target(task, row, where, defects)
    return Prompt(task, item_id, str(row["path"]), target, where, tuple(defects))


def _read_json_list(path: Path) -> list[tuple[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read {path}: {e}") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of items")
    return [(f"{path.name}, item {n}", r) for n, r in enumerate(data, start=1)]


def read_prompts(source: str | os.PathLike[str] | Iterable[Any]) -> list[Prompt]:
    """The prompts of ``source`` (see the module docstring); a folder is read as its ``gen_*.json``
    files (else every ``*.json``), sorted by name. Two prompts with one id are an InputError."""
    rows: list[tuple[str, Any]]
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.is_dir():
            files = sorted(path.glob("gen_*.json")) or sorted(path.glob("*.json"))
            if not files:
                raise InputError(f"{path}: no prompt files (gen_*.json) in this folder")
            rows = [r for f in files for r in _read_json_list(f)]
        elif path.is_file():
            rows = _read_json_list(path)
        else:
            raise InputError(f"no such prompts file or folder: {path}")
    else:
        rows = [(f"prompt {n}", r) for n, r in enumerate(source, start=1)]
    out: list[Prompt] = []
    seen: dict[str, str] = {}
    for where, row in rows:
        p = prompt_of(row, where)
        if p.item_id in seen:
            raise InputError(f"{where}: a second prompt with path {p.item_id!r} (first: {seen[p.item_id]})")
        seen[p.item_id] = where
        out.append(p)
    if not out:
        raise InputError("no generation prompts: pass the benchmark's gen_task folder or its items")
    return out


def system_of(path: str | os.PathLike[str]) -> str:
    """The system a score file is named after: its stem without ``_score``."""
    stem = Path(path).stem
    return stem[: -len(SCORE_SUFFIX)] if stem.endswith(SCORE_SUFFIX) and len(stem) > len(SCORE_SUFFIX) else stem


def score_files(folder: Path) -> list[Path]:
    """The score files (``*_score.json``, any case) of a folder, sorted by name."""
    suffix = f"{SCORE_SUFFIX}.json"
    return sorted(p for p in folder.iterdir() if p.is_file() and p.name.lower().endswith(suffix))


def read_score_file(path: str | os.PathLike[str], system: str | None = None) -> list[GenItem]:
    """The items of one ``{model}_score.json``, each with its replies (``judge``), named
    ``system`` (default: the file's stem without ``_score``). An item without ``judge``, or with
    ``"judge": null``, is a judge failure (status ``"no_judge"``); two items with one path are an
    InputError."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"no such score file: {p}")
    name = system or system_of(p)
    out: list[GenItem] = []
    seen: dict[str, str] = {}
    for where, row in _read_json_list(p):
        prompt = prompt_of(row, where)
        if prompt.item_id in seen:
            raise InputError(f"{where}: a second item with path {prompt.item_id!r} (first: {seen[prompt.item_id]})")
        seen[prompt.item_id] = where
        if row.get("judge") is None:  # no field, or null: the API gave no content (gen_metric.py would crash)
            out.append(GenItem(name, prompt, None, True, "no_judge", where, {"file": p.name}))
            continue
        out.append(GenItem(name, prompt, row["judge"], True, "ok", where, {"file": p.name}))
    return out
