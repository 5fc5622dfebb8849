"""The manifest and the systems' outputs: reading, matching by id, content digests.

**Manifest** (JSONL, one item per line): ``id`` (required; a string or an integer), ``group``
(the source item, for clustered significance; default ``id``), ``source_image``,
``target_locale``, ``reference_image``, ``reference_text`` (which are required depends on the
protocol) and ``meta`` (an object with the protocol's own fields). Any other key is an error
naming the line (put it under ``meta``).

**Outputs** of a system (``--system NAME=PATH``):

* a JSONL file, one line per item: ``{"id": ..., "image": "path", "text": "...", "meta": {...}}``
  (``image`` and ``text`` as the protocol needs them);
* a directory: the file named ``<id>.<any extension>`` inside it is the item's image;
* a pattern holding ``{id}``: ``outs/sysA/{id}_final.png`` (where the file is missing but one of
  its name lies there under another extension, the missing output names it:
  ``meta["other_extension"]``).

Items are matched by id, never by order. Relative paths resolve against the folder of the file
that names them (the manifest's folder for items, the outputs file's folder for outputs), or
against ``root`` when given. An item with no output, or an output file that does not exist, is a
counted failure of that system (status ``missing_output`` / ``missing_file``), never dropped.
Outputs with ids the manifest lacks are reported and ignored. JPEG (and WebP, often lossy)
outputs are warned about: re-encoding changes pixel metrics; not where the protocol's task itself
names that format (``ProtocolAdapter.output_suffix``: PosterIQ generation's ``dense/12.jpg``).
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.adapter import Item, Output, ProtocolAdapter
from transcreval.utils.digest import content_digest, sha256_file
from transcreval.utils.jsonl import read_jsonl_lines
from transcreval.utils.paths import other_extension

__all__ = [
    "ITEM_KEYS",
    "LOSSY_SUFFIXES",
    "asked_suffixes",
    "check_limit",
    "content_digest",
    "line_id",
    "lossy_outputs",
    "parse_system_arg",
    "read_jsonl",
    "read_manifest",
    "read_outputs",
    "sha256_file",
]

ITEM_KEYS = ("id", "group", "source_image", "target_locale", "reference_image", "reference_text", "meta")
OUTPUT_KEYS = ("id", "image", "text", "meta")
LOSSY_SUFFIXES = (".jpg", ".jpeg", ".jfif", ".webp")


def read_jsonl(path: str | os.PathLike[str], what: str) -> list[tuple[str, Any]]:
    """``(where, object)`` for every non-blank line; a line that is not JSON names itself."""
    name = Path(path).name
    return [(f"{name}:{n}", value) for n, value in read_jsonl_lines(path, what)]


def _text(where: str, key: str, v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (str, int)) or not str(v).strip():
        raise InputError(f"{where}: {key!r} must be a non-empty string, got {v!r}")
    return str(v)


def _path(where: str, key: str, v: Any, base: Path) -> str | None:
    if v is None:
        return None
    if not isinstance(v, str) or not v.strip():
        raise InputError(f"{where}: {key!r} must be a file path (a string), got {v!r}")
    p = Path(v).expanduser()
    return str(p if p.is_absolute() else (base / p).resolve())


def _file_sha(where: str, key: str, path: str | None) -> str | None:
    if path is None:
        return None
    if not os.path.isfile(path):
        raise InputError(
            f"{where}: {key!r} names {path}, which is not a file (paths resolve against the file's folder)"
        )
    return sha256_file(path)


def _meta(where: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    meta = raw.get("meta")
    if meta is None:
        return {}
    if not isinstance(meta, Mapping):
        raise InputError(f"{where}: 'meta' must be a JSON object, got {type(meta).__name__}")
    return dict(meta)


def line_id(where: str, raw: Any, what: str, keys: Sequence[str], hint: str = "") -> str:
    """The ``id`` of a manifest or output line, once the line is checked: a JSON object of known keys."""
    if not isinstance(raw, Mapping):
        raise InputError(f"{where}: {what} is a JSON object, got {type(raw).__name__}")
    unknown = sorted(set(map(str, raw)) - set(keys))
    if unknown:
        raise InputError(f"{where}: unknown key(s) {unknown}; the keys are {list(keys)}{hint}")
    got = _text(where, "id", raw.get("id"))
    if got is None:
        raise InputError(f"{where}: 'id' is required")
    return got


def parse_item(where: str, raw: Any, base: Path, required: Sequence[str] = ()) -> Item:
    """One manifest line as an :class:`Item` (files checked and hashed)."""
    item_id = line_id(where, raw, "a manifest line", ITEM_KEYS, " (put others under 'meta')")
    for key in required:
        if raw.get(key) is None:
            raise InputError(f"{where}: {key!r} is required by this protocol")
    src = _path(where, "source_image", raw.get("source_image"), base)
    ref = _path(where, "reference_image", raw.get("reference_image"), base)
    fields = {
        "group": _text(where, "group", raw.get("group")) or item_id,
        "target_locale": _text(where, "target_locale", raw.get("target_locale")),
        "reference_text": raw.get("reference_text"),
    }
    if fields["reference_text"] is not None and not isinstance(fields["reference_text"], str):
        raise InputError(f"{where}: 'reference_text' must be a string, got {fields['reference_text']!r}")
    meta = _meta(where, raw)
    shas = {
        "source_image": _file_sha(where, "source_image", src),
        "reference_image": _file_sha(where, "reference_image", ref),
    }
    digest = content_digest({"id": item_id, **fields, **shas, "meta": meta})
    group = str(fields["group"])
    return Item(item_id, group, src, fields["target_locale"], ref, fields["reference_text"], meta, digest, where)


def check_limit(limit: Any) -> None:
    """``limit`` (the first N items) is None or a positive integer."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InputError(f"limit must be a positive integer, got {limit!r}")


def read_manifest(
    path: str | os.PathLike[str],
    *,
    root: str | os.PathLike[str] | None = None,
    required: Sequence[str] = (),
    limit: int | None = None,
) -> list[Item]:
    """The manifest's items in file order (the first ``limit``); ids must be unique."""
    rows = read_jsonl(path, "manifest")
    base = Path(root) if root is not None else Path(path).resolve().parent
    check_limit(limit)
    if limit is not None:
        rows = rows[:limit]
    items: list[Item] = []
    seen: dict[str, str] = {}
    for where, raw in rows:
        it = parse_item(where, raw, base, required)
        if it.id in seen:
            raise InputError(f"{where}: id {it.id!r} repeats {seen[it.id]}; ids must be unique")
        seen[it.id] = where
        items.append(it)
    if not items:
        raise InputError(f"{path}: the manifest has no items")
    return items


def parse_system_arg(arg: str) -> tuple[str, str]:
    """``"NAME=PATH"`` -> (name, path)."""
    name, sep, path = arg.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise InputError(f"--system takes NAME=PATH (a JSONL file, a directory or a pattern with {{id}}), got {arg!r}")
    return name.strip(), path.strip()


def _output(system: str, item_id: str, image: str | None, text: Any, meta: dict[str, Any], where: str) -> Output:
    if text is not None and not isinstance(text, str):
        raise InputError(f"{where}: 'text' must be a string, got {type(text).__name__}")
    if image is not None and not os.path.isfile(image):
        digest = content_digest({"missing": image, "text": text, "meta": meta})
        return Output(system, item_id, image, text, meta, digest, "missing_file", f"{image} does not exist", where)
    sha = sha256_file(image) if image is not None else None
    digest = content_digest({"image": sha, "text": text, "meta": meta})
    return Output(system, item_id, image, text, meta, digest, "ok", "", where)


def _missing(system: str, item_id: str, where: str, other: str | None = None) -> Output:
    """No output for the item; ``other``: the name of a file under another extension where the
    ``{id}`` pattern points (kept as ``meta["other_extension"]``, named in the detail)."""
    detail = f"{system} has no output for item {item_id!r}"
    if other:
        detail += f" ({other} is there, under another extension: the pattern names the file exactly)"
    return Output(
        system,
        item_id,
        meta={"other_extension": other} if other else {},
        digest=content_digest({"missing": True}),
        status="missing_output",
        detail=detail,
        where=where,
    )


def read_outputs(
    system: str, spec: str | os.PathLike[str], items: Sequence[Item], *, root: str | os.PathLike[str] | None = None
) -> tuple[dict[str, Output], list[str]]:
    """``({item id: Output}, notes)`` for one system: every item gets an Output (a missing one has
    status ``missing_output``); notes list ignored ids."""
    spec_s = os.fspath(spec)
    ids = [it.id for it in items]
    wanted = set(ids)
    found: dict[str, Output] = {}
    notes: list[str] = []
    if "{id}" in spec_s:
        pattern = spec_s if root is None or os.path.isabs(spec_s) else os.path.join(os.fspath(root), spec_s)
        for i in ids:
            _check_id_in_pattern(i, system, spec_s)
            p = pattern.replace("{id}", i)
            if os.path.isfile(p):
                found[i] = _output(system, i, str(Path(p).resolve()), None, {}, p)
            else:
                found[i] = _missing(system, i, spec_s, other_extension(p))
    elif os.path.isdir(spec_s):
        by_stem: dict[str, list[str]] = {}
        for p in sorted(glob.glob(os.path.join(glob.escape(spec_s), "*"))):
            if os.path.isfile(p):
                by_stem.setdefault(Path(p).stem, []).append(p)
        for i in ids:
            got = by_stem.get(i, [])
            if len(got) > 1:
                raise InputError(f"{spec_s}: several files for item {i!r} ({[Path(g).name for g in got]}); keep one")
            if got:
                found[i] = _output(system, i, str(Path(got[0]).resolve()), None, {}, got[0])
        extra = sorted(set(by_stem) - wanted)
        if extra:
            notes.append(f"{system}: {len(extra)} file(s) in {spec_s} match no manifest id (first: {extra[:3]})")
    elif os.path.isfile(spec_s):
        base = Path(root) if root is not None else Path(spec_s).resolve().parent
        extra_ids: list[str] = []
        for where, raw in read_jsonl(spec_s, f"outputs of {system}"):
            got_id = line_id(where, raw, "an output line", OUTPUT_KEYS)
            i = got_id
            if i in found:
                raise InputError(f"{where}: a second output for item {i!r} (first: {found[i].where})")
            if i not in wanted:
                extra_ids.append(i)
                continue
            image = _path(where, "image", raw.get("image"), base)
            found[i] = _output(system, i, image, raw.get("text"), _meta(where, raw), where)
        if extra_ids:
            notes.append(f"{system}: {len(extra_ids)} output(s) with ids the manifest lacks (first: {extra_ids[:3]})")
    else:
        raise InputError(
            f"--system {system}={spec_s}: not a JSONL file, a directory or a pattern with {{id}} (nothing there)"
        )
    out = {i: found.get(i) or _missing(system, i, spec_s) for i in ids}
    return out, notes


def _check_id_in_pattern(item_id: str, system: str, spec: str) -> None:
    """An id put into an ``{id}`` pattern must not lead out of the pattern's folder (``..``, an
    absolute path): ``outs/{id}.png`` with the id ``../secret/x`` would read ``secret/x.png``."""
    parts = re.split(r"[\\/]", item_id)
    if os.path.isabs(item_id) or item_id.startswith(("/", "\\")) or ".." in parts or re.match(r"^[A-Za-z]:", item_id):
        raise InputError(
            f"--system {system}={spec}: item id {item_id!r} would leave the outputs folder through the "
            "{id} pattern; rename the item (ids may hold subfolders, never '..' or an absolute path)"
        )


def lossy_outputs(outputs: Mapping[str, Output], asked: Mapping[str, str | None] | None = None) -> list[str]:
    """Ids of outputs stored in a lossy (or often lossy) format, except those in the format the
    protocol's task itself names (``asked``: item id -> extension, from
    :meth:`~transcreval.protocols.adapter.ProtocolAdapter.output_suffix`)."""
    named = asked or {}
    out = []
    for i, o in outputs.items():
        suffix = Path(o.image).suffix.lower() if o.image is not None else ""
        if suffix in LOSSY_SUFFIXES and suffix != named.get(i):
            out.append(i)
    return out


def asked_suffixes(adapter: ProtocolAdapter, items: Sequence[Item]) -> dict[str, str | None]:
    """Each item's output extension as the protocol's task names it (None: not named)."""
    return {it.id: adapter.output_suffix(it) for it in items}


def lock_line(item: Item, outputs: Mapping[str, Mapping[str, Output]]) -> dict[str, Any]:
    """One ``manifest.lock.jsonl`` line: the item's resolved paths and digests with every
    system's output."""
    src = sha256_file(item.source_image) if item.source_image else None
    ref = sha256_file(item.reference_image) if item.reference_image else None
    outs = {}
    for system, by_id in outputs.items():
        o = by_id[item.id]
        sha = sha256_file(o.image) if o.image and o.status != "missing_file" else None
        outs[system] = {
            "image": o.image,
            "sha256": sha,
            "text": o.text,
            "meta": dict(o.meta),
            "status": o.status,
            "digest": o.digest,
        }
    return {
        "id": item.id,
        "group": item.group,
        "source_image": item.source_image,
        "source_sha256": src,
        "target_locale": item.target_locale,
        "reference_image": item.reference_image,
        "reference_sha256": ref,
        "reference_text": item.reference_text,
        "meta": dict(item.meta),
        "digest": item.digest,
        "outputs": outs,
    }


def items_from_lock(lines: Sequence[Mapping[str, Any]]) -> tuple[list[Item], dict[str, dict[str, Output]]]:
    """Items and outputs back from ``manifest.lock.jsonl`` (no file is read)."""
    items: list[Item] = []
    outputs: dict[str, dict[str, Output]] = {}
    for n, d in enumerate(lines, 1):
        where = f"manifest.lock.jsonl:{n}"
        items.append(
            Item(
                d["id"],
                d["group"],
                d["source_image"],
                d["target_locale"],
                d["reference_image"],
                d["reference_text"],
                d["meta"],
                d["digest"],
                where,
            )
        )
        for system, o in d["outputs"].items():
            outputs.setdefault(system, {})[d["id"]] = Output(
                system, d["id"], o["image"], o["text"], o["meta"], o["digest"], o["status"], "", where
            )
    return items, outputs
