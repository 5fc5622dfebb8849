"""The IMTBench protocol's inputs: the benchmark manifest and each system's outputs, as JSONL.

**Manifest** (one JSON object per line; blank lines are skipped)::

    {"id": "doc-0001", "scenario": "document", "language": "fr",
     "source_image": "src/doc-0001.png", "reference_image": "ref/doc-0001.png",
     "source_text": "Teacher's lounge", "reference_text": "Salle des professeurs"}

``scenario``: one of IMTBench's four (``document``, ``web``, ``scene``, ``ppt``; also ``doc``,
``webpage``, ``powerpoint``, ``slides``, any case); ``language``: the target language, an
ISO 639-1 code of IMTBench's nine (ar, de, en, es, fr, it, ja, ru, zh) or its English name
(``languages=`` allows others). Optional: ``source_language``, ``mask`` (a background mask
image, non-zero = background, for ``bg_mask="given"``). A text may be a list of strings
(one per text region): they are joined with ``text_join`` (a newline by default) into the one
segment COMET scores. Relative paths are read from the manifest's folder.

**System outputs** (one file per system)::

    {"id": "doc-0001", "image": "gpt/doc-0001.png", "text": "Salle des professeurs"}

joined to the manifest by ``id``. ``image`` or ``text`` null or absent: the system gave none
(the components that need it are missing for that item, and counted). A manifest item with no
output line is missing every component.

Every problem is an :class:`~transcreval.errors.InputError` naming the file and line: a line
that is not a JSON object, a missing or mistyped field, a repeated id, an unknown scenario or
language, an image file that does not exist, an output id that is not in the manifest.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transcreval.errors import InputError
from transcreval.utils.jsonl import read_jsonl_lines

__all__ = [
    "LANGUAGES",
    "SCENARIOS",
    "SCENARIO_LABELS",
    "IMTBenchItem",
    "SystemOutput",
    "language_code",
    "read_manifest",
    "read_outputs",
    "scenario_name",
]

SCENARIOS = ("document", "web", "scene", "ppt")
SCENARIO_LABELS = {"document": "Doc.", "web": "Web", "scene": "Scene", "ppt": "PPT"}
_SCENARIO_NAMES = {
    **{s: s for s in SCENARIOS},
    "doc": "document",
    "doc.": "document",
    "documents": "document",
    "webpage": "web",
    "web.": "web",
    "powerpoint": "ppt",
    "slides": "ppt",
    "presentation": "ppt",
}
LANGUAGES = {
    "ar": "Arabic",
    "de": "German",
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "it": "Italian",
    "ja": "Japanese",
    "ru": "Russian",
    "zh": "Chinese",
}
_REQUIRED = ("id", "scenario", "language", "source_image", "reference_image", "source_text", "reference_text")


@dataclass(frozen=True)
class IMTBenchItem:
    """One benchmark item (a line of the manifest)."""

    id: str
    scenario: str
    language: str
    source_image: Any
    reference_image: Any
    source_text: str
    reference_text: str
    source_language: str | None = None
    mask: Any = None
    line: int = 0


@dataclass(frozen=True)
class SystemOutput:
    """A system's output for one item: its image and its translation text (None: not given)."""

    id: str
    image: Any = None
    text: str | None = None
    line: int = 0
    meta: Mapping[str, Any] = field(default_factory=dict)


def _rows(source: Any, what: str) -> tuple[list[tuple[int, Any]], Path | None, str]:
    """``[(line number, parsed row)]``, the folder relative paths start from, and how errors name a line."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        return read_jsonl_lines(path, what, where=lambda n: f"{path} line {n}"), path.parent, f"{path} line"
    if isinstance(source, Iterable) and not isinstance(source, (str, bytes, Mapping)):
        return list(enumerate(source, 1)), None, f"the {what}, row"
    raise InputError(f"the {what} must be a JSONL file path or a list of dicts, got {type(source).__name__}")


def _text(value: Any, key: str, where: str, join: str, *, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return join.join(value)
    raise InputError(f"{where}: {key!r} must be a string or a list of strings, got {value!r}")


def _image(value: Any, key: str, where: str, root: Path | None) -> Any:
    if isinstance(value, (str, os.PathLike)):
        p = Path(value)
        if root is not None and not p.is_absolute():
            p = root / p
        if not p.is_file():
            raise InputError(f"{where}: {key} {str(value)!r} does not exist (looked for {p})")
        return p
    if value is None or isinstance(value, (bool, int, float, list, dict)):
        raise InputError(f"{where}: {key} must be an image file path, got {value!r}")
    return value  # an image object given in Python (PIL, array, tensor): io decodes it


def _language(value: Any, where: str, allowed: Mapping[str, str], key: str = "language") -> str:
    names = {v.lower(): k for k, v in allowed.items()}
    code = str(value).strip().lower() if isinstance(value, str) else None
    if code is not None and code in allowed:
        return code
    if code is not None and code in names:
        return names[code]
    known = ", ".join(sorted(allowed))
    raise InputError(f"{where}: unknown {key} {value!r} (known: {known}); pass languages= to allow others")


def read_manifest(
    source: Any, *, languages: Mapping[str, str] | Sequence[str] | None = None, text_join: str = "\n"
) -> list[IMTBenchItem]:
    """The items of a manifest (a JSONL path, or a list of dicts), checked line by line."""
    rows, root, name = _rows(source, "manifest")
    allowed = _allowed(languages)
    items: list[IMTBenchItem] = []
    seen: dict[str, int] = {}
    for n, row in rows:
        where = f"{name} {n}"
        if not isinstance(row, Mapping):
            raise InputError(f"{where}: not a JSON object ({type(row).__name__})")
        missing = [k for k in _REQUIRED if row.get(k) is None]
        if missing:
            raise InputError(f"{where}: missing {', '.join(repr(k) for k in missing)} (every item needs {_REQUIRED})")
        item_id = row["id"]
        if not isinstance(item_id, (str, int)) or isinstance(item_id, bool) or str(item_id) == "":
            raise InputError(f"{where}: 'id' must be a non-empty string, got {item_id!r}")
        item_id = str(item_id)
        if item_id in seen:
            raise InputError(f"{where}: id {item_id!r} repeats line {seen[item_id]}")
        seen[item_id] = n
        scenario = scenario_name(row["scenario"], where)
        src_lang = row.get("source_language")
        items.append(
            IMTBenchItem(
                id=item_id,
                scenario=scenario,
                language=_language(row["language"], where, allowed),
                source_image=_image(row["source_image"], "source_image", where, root),
                reference_image=_image(row["reference_image"], "reference_image", where, root),
                source_text=str(_text(row["source_text"], "source_text", where, text_join)),
                reference_text=str(_text(row["reference_text"], "reference_text", where, text_join)),
                source_language=None if src_lang is None else _language(src_lang, where, allowed, "source_language"),
                mask=None if row.get("mask") is None else _image(row["mask"], "mask", where, root),
                line=n,
            )
        )
    if not items:
        raise InputError(f"{name.rsplit(' ', 1)[0]}: no items")
    return items


def scenario_name(value: Any, where: str) -> str:
    """IMTBench's name of a scenario (``"Doc."`` -> ``"document"``); an InputError naming ``where`` otherwise."""
    scenario = _SCENARIO_NAMES.get(str(value).strip().lower()) if isinstance(value, str) else None
    if scenario is None:
        raise InputError(f"{where}: unknown scenario {value!r} (IMTBench's scenarios: {', '.join(SCENARIOS)})")
    return scenario


def language_code(
    value: Any, where: str, languages: Mapping[str, str] | Sequence[str] | None = None, key: str = "language"
) -> str:
    """The language's code (``"French"`` -> ``"fr"``) among IMTBench's nine (or ``languages``)."""
    return _language(value, where, _allowed(languages), key)


def _allowed(languages: Mapping[str, str] | Sequence[str] | None) -> dict[str, str]:
    if languages is None:
        return dict(LANGUAGES)
    if isinstance(languages, Mapping):
        return {str(k).lower(): str(v) for k, v in languages.items()}
    if isinstance(languages, str) or not isinstance(languages, Sequence):
        raise InputError("languages must be a list of language codes or a {code: name} mapping")
    return {str(k).lower(): str(k) for k in languages}


def read_outputs(
    source: Any, items: Sequence[IMTBenchItem], *, system: str = "system", text_join: str = "\n"
) -> dict[str, SystemOutput]:
    """A system's outputs by item id (a JSONL path, or a list of dicts), checked line by line."""
    rows, root, name = _rows(source, f"outputs of {system!r}")
    ids = {it.id for it in items}
    out: dict[str, SystemOutput] = {}
    lines: dict[str, int] = {}
    for n, row in rows:
        where = f"{name} {n}"
        if not isinstance(row, Mapping):
            raise InputError(f"{where}: not a JSON object ({type(row).__name__})")
        if row.get("id") is None:
            raise InputError(f"{where}: missing 'id'")
        item_id = str(row["id"])
        if item_id not in ids:
            raise InputError(f"{where}: id {item_id!r} is not in the manifest")
        if item_id in lines:
            raise InputError(f"{where}: id {item_id!r} repeats line {lines[item_id]}")
        lines[item_id] = n
        image = row.get("image")
        out[item_id] = SystemOutput(
            id=item_id,
            image=None if image is None else _image(image, "image", where, root),
            text=_text(row.get("text"), "text", where, text_join, required=False),
            line=n,
            meta={k: v for k, v in row.items() if k not in ("id", "image", "text")},
        )
    return out
