"""PosterIQ's own result files, read as PosterIQ's runner writes them.

PosterIQ's runner (``und_api.py``) merges the benchmark's ``und_task/*.json`` files into one list,
asks the model each item's ``prompt`` and writes ``{model}_bench.json``: every ground-truth item
as the benchmark gives it (``task``, ``subtask``, ``name``, ``path``, ``prompt``, ``gt`` and the
task fields ``texts``, ``text_bbox`` with ``size``, ``alignment``, ``rotation``, ...) with the
model's answer in ``response``; an item whose calls all failed has ``error`` instead. Its scorer
(``und_metric.py``) adds ``judge``, one reply per key point, to the composition and intention
items.

:func:`bench_records` turns such items into the protocol's records
(:mod:`~transcreval.protocols.posteriq.inputs`), reading each field the way the scorer does:

* ``item_id``: the item's ``path`` (unique within a task);
* the answer: ``response`` (a list of strings is joined, as the scorer joins it); an item
  without one (the runner's calls failed), with a null one (the model returned no text) or with
  one that is not text is unanswered: ``answer`` null, ``meta["unanswered"]``,
  ``meta["no_answer"]`` (why) and ``meta["error"]`` (the runner's, where it wrote one);
* the target: ``texts`` for poster OCR, ``text_bbox`` divided by ``size`` for the box tasks
  (pixels in the files; the scorer divides them the same way), ``alignment`` and ``rotation``
  for those tasks, ``gt`` otherwise (a list of lines for the OCR tasks, ``[colour, effect, ...]``
  for font effect 2);
* ``subtask``: the font size of font-size OCR; kept in ``meta`` for the others (the attribute
  of font attributes, the effect of font effect 1);
* ``judge``: the composition/intention ``verdicts``.

A file is recognised as PosterIQ's by its items (``prompt``/``path`` and no ``item_id``), not
by its name; :func:`system_of` names the system after the file (``Qwen3-VL-8B_bench.json`` ->
``Qwen3-VL-8B``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.posteriq.inputs import task_key

__all__ = ["BENCH_SUFFIX", "bench_records", "is_bench_item", "system_of"]

#: the file-name ending of PosterIQ's result files (``{model}_bench.json``)
BENCH_SUFFIX = "_bench"
_BOX_TASKS = ("text_localization", "layout_generation")
_POINT_TASKS = ("composition_understanding", "intention_understanding")


def is_bench_item(row: Any) -> bool:
    """Whether ``row`` is an item of PosterIQ's own files (not a record of this protocol)."""
    return isinstance(row, Mapping) and "item_id" not in row and ("prompt" in row or "path" in row)


def system_of(path: str | Path) -> str:
    """The system a result file is named after: its stem without ``_bench``."""
    stem = Path(path).stem
    return stem[: -len(BENCH_SUFFIX)] if stem.endswith(BENCH_SUFFIX) and len(stem) > len(BENCH_SUFFIX) else stem


def _answer(item: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The answer, or None and why there is none: no ``response`` (the runner's calls failed),
    a null one (the model returned no text), or one that is not text."""
    if "response" not in item:
        return None, "no response"
    got = item["response"]
    if isinstance(got, str):
        return got, None
    if isinstance(got, list) and all(isinstance(x, str) for x in got):
        return "".join(got), None
    return None, ("null response" if got is None else f"a {type(got).__name__} response, not text")


def _pixel_boxes(item: Mapping[str, Any], where: str) -> list[list[float]]:
    boxes, size = item.get("text_bbox", item.get("gt")), item.get("size")
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, (int, float)) and v > 0 for v in size)):
        raise InputError(f"{where}: 'size' must be [width, height] of the image, got {size!r}")
    if not isinstance(boxes, list) or not all(isinstance(b, list) and len(b) == 4 for b in boxes):
        raise InputError(f"{where}: 'text_bbox' must be a list of [x0, y0, x1, y1] pixel boxes, got {boxes!r}")
    w, h = size
    out = []
    for i, b in enumerate(boxes):
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in b):
            raise InputError(f"{where}: text_bbox[{i}] must hold 4 numbers, got {b!r}")
        out.append([b[0] / w, b[1] / h, b[2] / w, b[3] / h])
    return out


def _target(task: str, item: Mapping[str, Any], where: str) -> Any:
    if task == "poster_ocr":
        return item.get("texts", item.get("gt"))
    if task in _BOX_TASKS:
        return _pixel_boxes(item, where)
    if task in ("alignment", "rotation"):
        return item.get(task, item.get("gt"))
    return item.get("gt")


def bench_records(rows: list[Any], system: str, source: str) -> list[tuple[str, dict[str, Any]]]:
    """The protocol's records (one per item) from the items of one PosterIQ result file, each
    with where it comes from (``"<source>, item 12"``) for messages."""
    out: list[tuple[str, dict[str, Any]]] = []
    for n, item in enumerate(rows, start=1):
        where = f"{source}, item {n}"
        if not isinstance(item, Mapping):
            raise InputError(f"{where}: an item is a JSON object, got {type(item).__name__}")
        task, _ = task_key(item.get("task"), where)
        item_id = item.get("path") or item.get("name")
        if not isinstance(item_id, str) or not item_id:
            raise InputError(f"{where} ({task}): no 'path' or 'name' to identify the item")
        where = f"{source}, item {n} ({item.get('task')}, {item_id})"
        meta: dict[str, Any] = {"name": item.get("name"), "path": item.get("path"), "file": source}
        rec: dict[str, Any] = {"system": system, "task": item["task"], "item_id": item_id}
        rec["answer"], why = _answer(item)
        if why is not None:
            meta |= {"unanswered": True, "no_answer": why}
            if "error" in item:
                meta["error"] = str(item["error"])
        rec["target"] = _target(task, item, where)
        subtask = item.get("subtask")
        if task == "font_size_ocr":
            rec["font_size"] = subtask
        elif subtask not in (None, ""):
            meta["subtask"] = subtask
        if task in _BOX_TASKS:
            rec["size"] = item.get("size")
        if task in _POINT_TASKS and "judge" in item:
            if not isinstance(item["judge"], list):
                raise InputError(f"{where}: 'judge' must be a list, one reply per key point, got {item['judge']!r}")
            rec["verdicts"] = item["judge"]
        rec["meta"] = meta
        out.append((f"{source}, item {n}", rec))
    return out
