"""``transcreval validate``: check a manifest and the systems' outputs before scoring anything.

Every problem is collected (not only the first): lines that are not JSON objects, unknown keys,
fields the protocol requires, duplicate ids, files that do not exist or do not decode (through
:mod:`transcreval.io`), outputs missing or undecodable per system, ids the manifest lacks,
lossy formats, ``meta`` keys the protocol does not document; and the counts per group and per
target locale. With the arguments ``evaluate`` takes (options, ``limit``, ``metrics``, the
judge config, the device) it runs every check ``evaluate`` makes before scoring: option values,
the device, system names, and each unit's own check of the items (a field its prompts need, too
few labels for a quiz). Errors make ``ok`` False; warnings do not (a check of a default unit
that cannot run here, such as the judge without ``--judge``, is a warning).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from transcreval.errors import ImageDecodeError, InputError
from transcreval.runs.adapters import check_device, check_units, select_units
from transcreval.runs.judging import read_judge_config
from transcreval.runs.manifest import (
    asked_suffixes,
    lossy_outputs,
    parse_item,
    read_jsonl,
)
from transcreval.runs.names import check_system_names
from transcreval.runs.spec import Item, Output, ProtocolAdapter, UnitContext

__all__ = ["validate"]


def _decodes(path: str | None) -> str:
    if path is None:
        return ""
    from transcreval.io import open_image

    try:
        open_image(path).close()
    except ImageDecodeError as e:
        return str(e)
    return ""


def _meta_keys(adapter: ProtocolAdapter, kind: str) -> set[str] | None:
    keys = {k.split(":", 1)[1] for k in adapter.meta_fields if k.startswith(f"{kind}:")}
    return keys if adapter.meta_fields else None


def _own(
    adapter: ProtocolAdapter,
    systems: Mapping[str, str],
    root: Any,
    limit: int | None,
    errors: list[str],
    warnings: list[str],
) -> tuple[list[Item], dict[str, dict[str, Output]]]:
    """Without a manifest: the items and outputs of the systems' own files (PosterIQ's)."""
    from transcreval.runs.orchestrate import own_inputs

    try:
        items, outputs, notes = own_inputs(adapter, systems, root=root, limit=limit)
    except InputError as e:
        errors.append(str(e))
        return [], {}
    warnings += notes
    for it in items:
        try:
            adapter.check_item(it)
        except InputError as e:
            errors.append(str(e))
    return items, outputs


def _collect(errors: list[str], fn: Any, *args: Any) -> Any:
    """``fn(*args)``, or None with its InputError's message added to ``errors``."""
    try:
        return fn(*args)
    except InputError as e:
        errors.append(str(e))
        return None


def _check_units(
    adapter: ProtocolAdapter,
    opts: Mapping[str, Any],
    items: list[Item],
    metrics: Sequence[str] | None,
    judge: Any,
    device: str | None,
    errors: list[str],
    warnings: list[str],
) -> None:
    """The units ``evaluate`` would run and their own checks (:attr:`Unit.check`): errors for
    those it would run, warnings for default ones it would skip here (no judge, no weights)."""
    ctx = UnitContext(judge, device, 16, None, opts, tuple(items))
    units = adapter.units(opts)
    try:
        chosen, skipped = select_units(units, metrics, ctx)
    except InputError as e:
        if metrics:  # a metric asked for cannot run: evaluate refuses
            errors.append(str(e))
            return
        warnings.append(f"with these arguments evaluate would run no metric: {e}")  # depends on this machine
        chosen, skipped = (
            [],
            {u.name: u.unavailable(ctx) or "not a default metric" for u in units},
        )
    for u in units:
        if u.check is None or (u not in chosen and (not u.default or metrics)):
            continue
        try:
            check_units([u], ctx)
        except InputError as e:
            if u in chosen:
                errors.append(str(e))
            else:
                warnings.append(f"{e} (when it runs: it is skipped here, {skipped.get(u.name)})")


def _manifest_items(
    adapter: ProtocolAdapter,
    manifest: Any,
    root: Any,
    limit: int | None,
    decode: bool,
    errors: list[str],
    warnings: list[str],
) -> list[Item]:
    """The manifest's items that parse (the first ``limit``), every problem of the others, of
    repeated ids, undocumented ``meta`` keys and (``decode``) images that do not decode collected."""
    items: list[Item] = []
    seen: dict[str, str] = {}
    item_keys = _meta_keys(adapter, "item")
    rows = read_jsonl(manifest, "manifest")
    base = Path(root) if root is not None else Path(manifest).resolve().parent
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            errors.append(f"--limit must be a positive integer, got {limit!r}")
        else:
            rows = rows[:limit]
    for where, raw in rows:
        try:
            it = parse_item(where, raw, base, adapter.item_fields)
            adapter.check_item(it)
        except InputError as e:
            errors.append(str(e))
            continue
        if it.id in seen:
            errors.append(f"{where}: id {it.id!r} repeats {seen[it.id]}")
            continue
        seen[it.id] = where
        items.append(it)
        if item_keys is not None and set(it.meta) - item_keys:
            warnings.append(f"{where}: meta key(s) {sorted(set(it.meta) - item_keys)} are not used by {adapter.name}")
        if decode:
            for role in ("source_image", "reference_image"):
                bad = _decodes(getattr(it, role))
                if bad:
                    errors.append(f"{where}: {role} does not decode: {bad}")
    return items


def _check_outputs(
    adapter: ProtocolAdapter,
    name: str,
    got: Mapping[str, Output],
    n_items: int,
    decode: bool,
    errors: list[str],
    warnings: list[str],
    own_files: bool = False,
    asked: Mapping[str, str | None] | None = None,
) -> dict[str, Any]:
    """One system's outputs checked (the protocol's checks, ``meta`` keys, decoding, what the
    protocol needs, lossy formats); returns its line of the report: counts per status. Outputs
    read from the protocol's own result files (``own_files``: PosterIQ generation's score files
    hold the judge's replies) are not asked for an image; ``asked``: the extension each item's
    task names (no lossy warning for an output in it)."""
    out_keys = _meta_keys(adapter, "output")
    status = Counter(o.status for o in got.values())
    for o in got.values():
        if not o.ok:
            continue
        try:
            adapter.check_output(o)
        except InputError as e:
            errors.append(str(e))
        if out_keys is not None and set(o.meta) - out_keys:
            warnings.append(f"{o.where}: meta key(s) {sorted(set(o.meta) - out_keys)} are not used by {adapter.name}")
        if decode and o.image is not None:
            bad = _decodes(o.image)
            if bad:
                status["ok"] -= 1
                status["undecodable_output"] += 1
                warnings.append(
                    f"{name}, item {o.item_id!r}: the output does not decode ({bad}); it will count as failed"
                )
        if (
            not own_files
            and "image" in adapter.output_fields
            and "text" not in adapter.output_fields
            and o.image is None
        ):
            warnings.append(f"{name}, item {o.item_id!r}: no image")
        if adapter.output_fields == ("text",) and o.text is None:
            warnings.append(f"{name}, item {o.item_id!r}: no text")
    lossy = lossy_outputs(got, asked)
    if lossy:
        warnings.append(f"{name}: {len(lossy)} output(s) in a lossy format (JPEG/WebP), first {lossy[:3]}")
    failed = n_items - status.get("ok", 0)
    if failed:
        warnings.append(f"{name}: {failed} of {n_items} item(s) have no usable output ({dict(status)})")
    return {"of": n_items, **dict(status), "lossy": len(lossy)}


def validate(
    protocol: str | ProtocolAdapter,
    manifest: str | os.PathLike[str] | None,
    systems: Mapping[str, str] | None = None,
    *,
    root: str | os.PathLike[str] | None = None,
    decode: bool = True,
    options: Mapping[str, Any] | None = None,
    limit: int | None = None,
    metrics: Sequence[str] | None = None,
    judge: Any = None,
    device: str | None = None,
) -> dict[str, Any]:
    """Check everything ``evaluate`` would with the same arguments (see the module docstring);
    returns ``{"ok", "errors", "warnings", "items", "groups", "locales", "systems"}``. ``manifest``
    None: a protocol whose result files carry the ground truth (PosterIQ's) reads the items from
    the systems' files."""
    from transcreval.runs.api import load_adapter
    from transcreval.runs.orchestrate import system_outputs

    adapter = load_adapter(protocol)
    errors: list[str] = []
    warnings: list[str] = []
    opts = _collect(errors, adapter.check_options, options)
    _collect(errors, check_device, device)
    if judge is not None and not callable(getattr(judge, "complete", None)):
        _collect(errors, read_judge_config, judge)
    own: dict[str, dict[str, Output]] | None = None
    if manifest is None:
        items, own = _own(adapter, systems or {}, root, limit, errors, warnings)
    else:
        items = _manifest_items(adapter, manifest, root, limit, decode, errors, warnings)
    if not items and not errors:
        errors.append(f"{manifest}: the manifest has no items" if manifest is not None else "no items in the files")
    report_systems: dict[str, dict[str, Any]] = {}
    _collect(
        errors,
        check_system_names,
        systems or {},
        adapter.reserved_systems(opts or adapter.check_options(None)),
    )
    if opts is not None and items:
        _check_units(adapter, opts, items, metrics, judge, device, errors, warnings)
    asked = asked_suffixes(adapter, items)  # the items' own formats, the same for every system
    for name, spec in (systems or {}).items():
        own_file = own is not None
        if own is not None:
            if name not in own:
                continue
            got = own[name]
        else:
            try:
                got, notes, own_file = system_outputs(adapter, name, spec, items, root=root)
            except InputError as e:
                errors.append(str(e))
                continue
            warnings += notes
        report_systems[name] = _check_outputs(
            adapter,
            name,
            got,
            len(items),
            decode,
            errors,
            warnings,
            own_files=own_file,
            asked=asked,
        )
    return {
        "ok": not errors,
        "protocol": adapter.name,
        "errors": errors,
        "warnings": warnings,
        "items": len(items),
        "groups": dict(Counter(it.group for it in items)),
        "locales": dict(Counter(it.target_locale or "-" for it in items)),
        "systems": report_systems,
    }
