"""MPTc-Bench runner inputs: manifest items and outputs as MPTc records, systems as planner + editor."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.adapter import Item, Output
from transcreval.protocols.mptc.inputs import MPTcSet, load, system_name
from transcreval.protocols.records import ItemRecord

__all__ = [
    "ITEM_META",
    "OUTPUT_META",
    "item_record",
    "mptc_set",
    "nan_records",
    "output_record",
    "planner_editor",
    "signature_json",
]

#: item meta keys that are MPTc item fields (the rest stays in the item's meta)
ITEM_META = ("source_market", "genre", "year", "split", "genre_options", "decade_options", "source_title", "movie")
OUTPUT_META = ("plan_title", "error_labels")


def planner_editor(system: str, options: Mapping[str, Any]) -> tuple[str, str]:
    """``"Editor + Planner"`` -> (planner, editor); any other name is an editor with the option ``planner``."""
    if " + " in system:
        editor, planner = (x.strip() for x in system.split(" + ", 1))
        if editor and planner:
            return planner, editor
    return str(options["planner"]), system


def item_record(it: Item) -> dict[str, Any]:
    meta = dict(it.meta)
    rec = {k: meta.pop(k) for k in ITEM_META if k in meta}
    return {
        "item_id": it.id,
        "source": it.source_image,
        "gt": it.reference_image,
        "target_market": it.target_locale,
        **rec,
        "meta": meta,
    }


def output_record(o: Output, planner: str, editor: str) -> dict[str, Any]:
    meta = dict(o.meta)
    rec = {k: meta.pop(k) for k in OUTPUT_META if k in meta}
    image = o.image if o.ok else None
    return {
        "item_id": o.item_id,
        "planner": planner,
        "editor": editor,
        "output": image,
        "plan": o.text,
        **rec,
        "meta": meta,
    }


def mptc_set(
    items: Sequence[Item], outputs: Mapping[str, Mapping[str, Output]], options: Mapping[str, Any]
) -> tuple[MPTcSet, dict[str, str]]:
    """The checked :class:`MPTcSet` (split as the options say) and ``{MPTc system name: runner name}``."""
    names: dict[str, str] = {}
    outs = []
    for name, by_id in outputs.items():
        p, e = planner_editor(name, options)
        key = system_name(p, e)
        if key in names:
            raise InputError(f"systems {names[key]!r} and {name!r} are both planner {p!r} + editor {e!r}")
        names[key] = name
        outs += [output_record(by_id[it.id], p, e) for it in items if it.id in by_id]
    data = load(
        [item_record(it) for it in items],
        outs,
        split_by=options["split_by"],
        surface_max=options["surface_max"],
        deep_min=options["deep_min"],
    )
    return data, names


def signature_json(payload: Mapping[str, Any]) -> str:
    """A unit signature: the JSON of what defines its numbers (keys sorted)."""
    return json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)


def nan_records(item: Item, system: str, metrics: Sequence[str], status: str) -> tuple[ItemRecord, ...]:
    return tuple(ItemRecord(item.id, system, m, math.nan, status, item.group, dict(item.meta)) for m in metrics)
