"""MPTc-Bench protocol inputs: the item and output records, their reader, plan titles.

Two kinds of record, each a JSON object (one per line of a JSONL file) or a Python dict:

**Item** (one per benchmark example, shared by every system)

=================  ========  ==============================================================
key                required  meaning
=================  ========  ==============================================================
``item_id``        yes       the example's id (the join key of every record)
``source``         yes       the source-market poster SRC: a file path (relative paths are
                             read from ``root``, by default the JSONL file's folder) or, in
                             Python, any image :mod:`transcreval.io` reads
``gt``             yes       the human target-market poster GT, the same way
``source_market``  yes       the source market ("USA"), as the judge prompts name it
``target_market``  yes       the target market ("Japan")
``genre``          no        the film's genre (judge prompts, genre quiz; required by
                             :func:`~transcreval.protocols.mptc.judge_tables`)
``year``           no        the release year (decade quiz, Table 9)
``split``          no        ``"surface"`` or ``"deep"`` (used with ``split_by="field"``;
                             checked against pHash otherwise)
``genre_options``  no        the genre quiz's options for this item (must hold ``genre``)
``decade_options`` no        the decade quiz's options ("1990s", ...; must hold the decade)
``source_title``   no        the film's title as printed on SRC (reference of the OCR title
                             baseline, Table 10)
``movie``          no        the film's id or name (for your own joins)
``meta``           no        any other facts (a JSON object), copied into the records
=================  ========  ==============================================================

**Output** (one per item and system; a system is a planner and an editor)

=================  ========  ==============================================================
``item_id``        yes       the item it belongs to
``planner``        yes       the planner's name ("GPT-4.1")
``editor``         yes       the editor's name ("Gemini 3")
``output``         no        the system's poster MTc (``null``: the system produced none;
                             counted as missing, never scored)
``plan``           no        the planner's plan text (the proposed title is read from it)
``plan_title``     no        the proposed title, when it was read from the plan elsewhere
``error_labels``   no        human error labels: one list of error types per annotation,
                             e.g. ``[["wrong_script"], []]`` (App. B.3; types in
                             :data:`ERROR_TYPES`)
``meta``           no        any other facts
=================  ========  ==============================================================

Unknown keys are an error (a misspelt optional key would otherwise be lost silently); put
anything else under ``meta``. Every error names the record (``items.jsonl:12`` or
``items[11]``) and the key.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transcreval.errors import InputError
from transcreval.utils.jsonl import read_jsonl_lines

__all__ = [
    "ERROR_TYPES",
    "SPLITS",
    "MPTcItem",
    "MPTcOutput",
    "decade_of",
    "image_field",
    "plan_title",
    "read_items",
    "read_outputs",
    "system_name",
]

#: App. B.3's five error types, in the paper's order
ERROR_TYPES = ("garbled_text", "wrong_script", "layout_collapse", "non_evidenced_elements", "identity_drift")
#: the two task variants, as the tables print them
SPLITS = {"surface": "Surface", "deep": "Deep"}

_ITEM_KEYS = {
    "item_id": True,
    "source": True,
    "gt": True,
    "source_market": True,
    "target_market": True,
    "genre": False,
    "year": False,
    "split": False,
    "genre_options": False,
    "decade_options": False,
    "source_title": False,
    "movie": False,
    "meta": False,
}
_OUTPUT_KEYS = {
    "item_id": True,
    "planner": True,
    "editor": True,
    "output": False,
    "plan": False,
    "plan_title": False,
    "error_labels": False,
    "meta": False,
}


def system_name(planner: str, editor: str) -> str:
    """A system's name as the paper prints it: ``"Gemini 3 + GPT-4.1"`` (editor + planner)."""
    return f"{editor} + {planner}"


def decade_of(year: int) -> str:
    """The decade label of a release year: 1994 -> ``"1990s"``."""
    return f"{year // 10 * 10}s"


_TITLE_LINE = re.compile(
    r"^[ \t]*(?:[-*•][ \t]*)?(?:\d+[ \t]*[.)][ \t]*)?[*_]*[ \t]*(?:main[ \t]+|movie[ \t]+|film[ \t]+)?title"
    r"[ \t]*(?:\([^)\n]*\))?[ \t]*[*_]*[ \t]*[:：](.*)$",
    re.I | re.M,
)
_ARROW = re.compile(r"→|⟶|➔|➡|⇒|-+>|=>")
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|„([^“”]+)[“”]|「([^」]+)」|『([^』]+)』|«\s*([^»]+?)\s*»|《([^》]+)》')


def plan_title(plan: str) -> str | None:
    """The title a plan proposes (MPTc App. A.1 asks for ``1. Title: "Original" → "Translated"``).

    The first line labelled ``Title:`` (numbered, bulleted or in bold or not) is read; the text
    after its last arrow (``→``, ``->``, ``=>``, ...) is the proposal, and the first quoted string
    there (``"..."``, ``“...”``, ``「...」``, ``『...』``, ``«...»``, ``《...》``) is the title;
    unquoted text is taken whole (stripped of ``*`` and spaces). A line with no arrow gives its
    last quoted string. None when no line is labelled ``Title:`` or it proposes nothing.
    """
    m = _TITLE_LINE.search(plan)
    if m is None:
        return None
    rest = m.group(1)
    parts = _ARROW.split(rest)
    tail = parts[-1]
    quoted = [next(g for g in q if g) for q in _QUOTED.findall(tail)]
    if len(parts) == 1 and quoted:
        found = quoted[-1]
    elif quoted:
        found = quoted[0]
    else:
        found = tail.strip().strip("*_ \t")
        if len(found) >= 2 and found[0] == found[-1] == "'":
            found = found[1:-1]
    found = found.strip()
    return found or None


@dataclass(frozen=True)
class MPTcItem:
    """One benchmark example (see the module docstring for each field)."""

    item_id: str
    source: Any
    gt: Any
    source_market: str
    target_market: str
    genre: str | None = None
    year: int | None = None
    split: str | None = None
    genre_options: tuple[str, ...] | None = None
    decade_options: tuple[str, ...] | None = None
    source_title: str | None = None
    movie: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    where: str = ""


@dataclass(frozen=True)
class MPTcOutput:
    """One system's output for one item (see the module docstring for each field)."""

    item_id: str
    planner: str
    editor: str
    output: Any = None
    plan: str | None = None
    plan_title: str | None = None
    error_labels: tuple[tuple[str, ...], ...] | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    where: str = ""

    @property
    def system(self) -> str:
        return system_name(self.planner, self.editor)


def _rows(source: Any, what: str) -> tuple[list[tuple[str, Any]], Path | None]:
    """``(where, raw record)`` pairs from a JSONL path or an iterable of records."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        return [(f"{path.name}:{n}", v) for n, v in read_jsonl_lines(path, f"{what} file")], path.parent
    if isinstance(source, (bytes, Mapping)) or not isinstance(source, Iterable):
        raise InputError(f"{what} must be a JSONL file path or a list of records, got {type(source).__name__}")
    return [(f"{what}[{i}]", r) for i, r in enumerate(source)], None


def _text(where: str, key: str, v: Any, required: bool) -> str | None:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        if required:
            raise InputError(f"{where}: {key!r} is required")
        return None
    if not isinstance(v, str) or not v.strip():
        raise InputError(f"{where}: {key!r} must be a non-empty string, got {v!r}")
    return v.strip()


def _strings(where: str, key: str, v: Any) -> tuple[str, ...] | None:
    if v is None:
        return None
    if isinstance(v, str) or not isinstance(v, Sequence) or not all(isinstance(x, str) and x.strip() for x in v):
        raise InputError(f"{where}: {key!r} must be a list of non-empty strings, got {v!r}")
    return tuple(x.strip() for x in v)


def image_field(where: str, key: str, v: Any, root: Path | None, required: bool) -> Any:
    """An image field of a record: a path (relative ones read from ``root``) that must be a file,
    or an image object passed through (decoded by :mod:`transcreval.io` when used); None allowed
    unless ``required``. Errors name the record (``where``) and the key."""
    if v is None:
        if required:
            raise InputError(f"{where}: {key!r} (an image file path) is required")
        return None
    if isinstance(v, (str, os.PathLike)):
        p = Path(v)
        if not p.is_absolute() and root is not None:
            p = root / p
        if not p.is_file():
            raise InputError(f"{where}: {key!r} names {str(v)!r}, which is not a file (looked at {p})")
        return str(p)
    return v  # an image object (PIL, numpy, tensor): decoded by transcreval.io when used


def _record(where: str, raw: Any, keys: Mapping[str, bool], what: str) -> dict[str, Any]:
    if isinstance(raw, (MPTcItem, MPTcOutput)):
        raw = {k: getattr(raw, k) for k in keys}
    if not isinstance(raw, Mapping):
        raise InputError(f"{where}: a {what} record must be a JSON object (dict), got {type(raw).__name__}")
    unknown = sorted(set(map(str, raw)) - set(keys))
    if unknown:
        raise InputError(
            f"{where}: unknown key(s) {unknown} in a {what} record; the keys are {sorted(keys)} "
            "(put anything else under 'meta')"
        )
    meta = raw.get("meta") or {}
    if not isinstance(meta, Mapping):
        raise InputError(f"{where}: 'meta' must be a JSON object, got {type(meta).__name__}")
    return {**raw, "meta": dict(meta)}


def _year(where: str, v: Any) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, str)) or not str(v).strip().isdigit():
        raise InputError(f"{where}: 'year' must be a release year such as 1994, got {v!r}")
    y = int(v)
    if not 1800 <= y <= 2200:
        raise InputError(f"{where}: 'year' {y} is not a plausible release year")
    return y


def _item(where: str, raw: Any, root: Path | None) -> MPTcItem:
    r = _record(where, raw, _ITEM_KEYS, "item")
    split = _text(where, "split", r.get("split"), False)
    if split is not None and split.lower() not in SPLITS:
        raise InputError(f"{where}: 'split' must be 'surface' or 'deep', got {split!r}")
    item = MPTcItem(
        item_id=str(_text(where, "item_id", r.get("item_id"), True)),
        source=image_field(where, "source", r.get("source"), root, True),
        gt=image_field(where, "gt", r.get("gt"), root, True),
        source_market=str(_text(where, "source_market", r.get("source_market"), True)),
        target_market=str(_text(where, "target_market", r.get("target_market"), True)),
        genre=_text(where, "genre", r.get("genre"), False),
        year=_year(where, r.get("year")),
        split=split.lower() if split else None,
        genre_options=_strings(where, "genre_options", r.get("genre_options")),
        decade_options=_strings(where, "decade_options", r.get("decade_options")),
        source_title=_text(where, "source_title", r.get("source_title"), False),
        movie=_text(where, "movie", r.get("movie"), False),
        meta=r["meta"],
        where=where,
    )
    if item.genre_options is not None and item.genre not in item.genre_options:
        raise InputError(f"{where}: 'genre_options' {list(item.genre_options)} must hold the genre {item.genre!r}")
    if item.decade_options is not None and (item.year is None or decade_of(item.year) not in item.decade_options):
        raise InputError(f"{where}: 'decade_options' must hold the decade of 'year' ({item.year!r})")
    return item


def _labels(where: str, v: Any) -> tuple[tuple[str, ...], ...] | None:
    if v is None:
        return None
    hint = 'one list of error types per annotation, e.g. [["wrong_script"], []]'
    if isinstance(v, str) or not isinstance(v, Sequence) or any(isinstance(a, str) for a in v):
        raise InputError(f"{where}: 'error_labels' must be {hint}; got {v!r}")
    out = []
    for a in v:
        if not isinstance(a, Sequence) or isinstance(a, str):
            raise InputError(f"{where}: 'error_labels' must be {hint}; got {v!r}")
        bad = [x for x in a if x not in ERROR_TYPES]
        if bad:
            raise InputError(
                f"{where}: unknown error type(s) {bad} in 'error_labels'; the types are {list(ERROR_TYPES)}"
            )
        out.append(tuple(dict.fromkeys(a)))
    return tuple(out)


def _output(where: str, raw: Any, root: Path | None) -> MPTcOutput:
    r = _record(where, raw, _OUTPUT_KEYS, "output")
    plan = r.get("plan")
    if plan is not None and not isinstance(plan, str):
        raise InputError(f"{where}: 'plan' must be the plan text (a string), got {type(plan).__name__}")
    return MPTcOutput(
        item_id=str(_text(where, "item_id", r.get("item_id"), True)),
        planner=str(_text(where, "planner", r.get("planner"), True)),
        editor=str(_text(where, "editor", r.get("editor"), True)),
        output=image_field(where, "output", r.get("output"), root, False),
        plan=plan if plan and plan.strip() else None,
        plan_title=_text(where, "plan_title", r.get("plan_title"), False),
        error_labels=_labels(where, r.get("error_labels")),
        meta=r["meta"],
        where=where,
    )


def read_items(source: Any, *, root: str | os.PathLike[str] | None = None) -> list[MPTcItem]:
    """Item records from a JSONL file or a list of dicts; relative image paths from ``root``
    (default: the file's folder, or the working directory for a list)."""
    rows, folder = _rows(source, "items")
    base = Path(root) if root is not None else folder
    return [_item(w, r, base) for w, r in rows]


def read_outputs(source: Any, *, root: str | os.PathLike[str] | None = None) -> list[MPTcOutput]:
    """Output records from a JSONL file or a list of dicts (see :func:`read_items` for ``root``)."""
    rows, folder = _rows(source, "outputs")
    base = Path(root) if root is not None else folder
    return [_output(w, r, base) for w, r in rows]
