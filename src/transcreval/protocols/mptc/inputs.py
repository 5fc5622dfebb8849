"""MPTc-Bench's checked inputs: :func:`load` reads the records once and splits the items.

The record format is in :mod:`transcreval.protocols.mptc.schema`; :class:`MPTcSet` holds the
items with their Surface/Deep split (pHash distance of SRC and GT by default), the outputs,
and the planners and editors in table order. Every table function takes an :class:`MPTcSet`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from transcreval.errors import InputError
from transcreval.protocols.mptc.schema import (
    ERROR_TYPES,
    SPLITS,
    MPTcItem,
    MPTcOutput,
    decade_of,
    plan_title,
    read_items,
    read_outputs,
    system_name,
)

__all__ = [
    "ERROR_TYPES",
    "SPLITS",
    "UNDECODABLE",
    "MPTcItem",
    "MPTcOutput",
    "MPTcSet",
    "as_set",
    "decade_of",
    "load",
    "plan_title",
    "read_items",
    "read_outputs",
    "system_name",
]


#: the split of an item whose SRC or GT does not decode under ``split_by="phash"`` (not scored)
UNDECODABLE = "undecodable_input"


@dataclass(frozen=True)
class MPTcSet:
    """Checked inputs: the items with their split, the outputs, the planners and editors in order.

    Attributes:
        items: the items, in input order.
        outputs: the outputs, in input order.
        splits: item id -> ``"surface"``, ``"deep"`` or ``"intermediate"`` (not scored), or
            ``"undecodable_input"`` (SRC or GT does not decode; not scored).
        phash: item id -> the pHash distance of SRC and GT (``None`` with ``split_by="field"``,
            or where an image does not decode).
        planners, editors: in the order given, else in order of first appearance.
        options: how the split was made (``split_by``, thresholds, mismatching items).
    """

    items: tuple[MPTcItem, ...]
    outputs: tuple[MPTcOutput, ...]
    splits: Mapping[str, str]
    phash: Mapping[str, int | None]
    planners: tuple[str, ...]
    editors: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    _by_id: dict[str, MPTcItem] = field(init=False, repr=False, compare=False)
    _runs: dict[tuple[str, str, str], dict[str, MPTcOutput]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_id = {i.item_id: i for i in self.items}
        runs: dict[tuple[str, str, str], dict[str, MPTcOutput]] = {}
        for o in self.outputs:
            runs.setdefault((self.splits[o.item_id], o.planner, o.editor), {})[o.item_id] = o
        object.__setattr__(self, "_by_id", by_id)
        object.__setattr__(self, "_runs", runs)

    def item(self, item_id: str) -> MPTcItem:
        return self._by_id[item_id]

    def split_items(self, split: str) -> list[MPTcItem]:
        """The items of one split, in input order."""
        return [i for i in self.items if self.splits[i.item_id] == split]

    def present_splits(self, order: Sequence[str] = ("deep", "surface")) -> list[str]:
        """The splits that hold at least one item, in ``order`` (the paper's Tables 3-5: Deep first)."""
        return [s for s in order if any(v == s for v in self.splits.values())]

    def run_outputs(self, split: str, planner: str, editor: str) -> dict[str, MPTcOutput] | None:
        """The outputs of one system on one split by item id; None when the system did not run it."""
        return self._runs.get((split, planner, editor))

    def runs(self, splits: Sequence[str] = ("deep", "surface")) -> list[tuple[str, str, str]]:
        """``(split, planner, editor)`` of every system with an output record on the split."""
        return [
            (s, p, e)
            for s in splits
            for p in self.planners
            for e in self.editors
            if self.run_outputs(s, p, e) is not None
        ]


def _order(given: Sequence[str] | None, seen: list[str], what: str) -> tuple[str, ...]:
    found = list(dict.fromkeys(seen))
    if given is None:
        return tuple(found)
    order = [str(x) for x in given]
    missing = [x for x in found if x not in order]
    if missing or len(set(order)) != len(order):
        raise InputError(f"{what}= must list every {what[:-1]} once; it lacks {missing} (found {found})")
    return tuple(x for x in order if x in found)


def _phash_distances(items: Sequence[MPTcItem], chunk: int = 64) -> list[int | None]:
    """The pHash distance of each item's SRC and GT; None where one of them does not decode
    (the item is counted ``undecodable_input``, never a reason to stop)."""
    from transcreval.errors import ImageDecodeError
    from transcreval.functional.image.phash import phash_distances

    out: list[int | None] = []
    for i in range(0, len(items), chunk):
        part = items[i : i + chunk]
        try:
            d = phash_distances([x.source for x in part], [x.gt for x in part])
            out += [int(v) for v in d.tolist()]
        except ImageDecodeError:  # find which: one item at a time
            for x in part:
                try:
                    out.append(int(phash_distances([x.source], [x.gt]).tolist()[0]))
                except ImageDecodeError:
                    out.append(None)
    return out


def load(
    items: Any,
    outputs: Any = (),
    *,
    split_by: Literal["phash", "field"] = "phash",
    surface_max: int = 12,
    deep_min: int = 30,
    planners: Sequence[str] | None = None,
    editors: Sequence[str] | None = None,
    root: Any = None,
) -> MPTcSet:
    """Read and check the inputs once and split the items (see the module docstring).

    ``split_by="phash"`` (default; MPTc §3.2): Surface when the pHash distance of SRC and GT is
    <= ``surface_max``, Deep when >= ``deep_min`` (inclusive, App. B.2's form), the band between
    is "intermediate" and not scored. An item whose ``split`` field disagrees keeps the pHash
    split; the disagreements are listed in ``options["split_mismatch"]`` and warned about.
    ``split_by="field"`` uses each item's ``split`` (then required).
    """
    from transcreval.utils.warn import warn_user

    if split_by not in ("phash", "field"):
        raise InputError(f"split_by must be 'phash' or 'field', got {split_by!r}")
    if not surface_max < deep_min:
        raise InputError(f"surface_max ({surface_max}) must be below deep_min ({deep_min})")
    its = read_items(items, root=root) if not _is_read(items, MPTcItem) else list(items)
    outs = read_outputs(outputs, root=root) if not _is_read(outputs, MPTcOutput) else list(outputs)
    if not its:
        raise InputError("no items: pass at least one item record")
    seen: dict[str, str] = {}
    for it in its:
        if it.item_id in seen:
            raise InputError(f"{it.where}: item_id {it.item_id!r} repeats {seen[it.item_id]}")
        seen[it.item_id] = it.where
    done: dict[tuple[str, str, str], str] = {}
    for o in outs:
        if o.item_id not in seen:
            raise InputError(f"{o.where}: item_id {o.item_id!r} is not among the items")
        key = (o.item_id, o.planner, o.editor)
        if key in done:
            raise InputError(f"{o.where}: a second output of {o.system!r} for item {o.item_id!r} (first: {done[key]})")
        done[key] = o.where
    options: dict[str, Any] = {"split_by": split_by}
    if split_by == "field":
        lacking = [i.where for i in its if i.split is None]
        if lacking:
            raise InputError(f"split_by='field' needs 'split' on every item; missing at {', '.join(lacking[:5])}")
        splits = {i.item_id: str(i.split) for i in its}
        dist: dict[str, int | None] = {i.item_id: None for i in its}
    else:
        dist = dict(zip((i.item_id for i in its), _phash_distances(its)))
        splits = {
            k: UNDECODABLE
            if d is None
            else "surface"
            if d <= surface_max
            else "deep"
            if d >= deep_min
            else "intermediate"
            for k, d in dist.items()
        }
        options.update(surface_max=surface_max, deep_min=deep_min)
        mismatch = [i.item_id for i in its if i.split is not None and splits[i.item_id] not in (i.split, UNDECODABLE)]
        options["split_mismatch"] = mismatch
        if mismatch:
            warn_user(
                f"{len(mismatch)} item(s) have a 'split' field that disagrees with their pHash split "
                f"(first: {mismatch[:3]}); the pHash split is used (split_by='field' uses the field)"
            )
    return MPTcSet(
        tuple(its),
        tuple(outs),
        splits,
        dist,
        _order(planners, [o.planner for o in outs], "planners"),
        _order(editors, [o.editor for o in outs], "editors"),
        options,
    )


def _is_read(x: Any, cls: type) -> bool:
    return isinstance(x, (list, tuple)) and bool(x) and all(isinstance(r, cls) for r in x)


def as_set(data: Any, what: str) -> MPTcSet:
    """``data`` if it is an :class:`MPTcSet`; an InputError naming :func:`load` otherwise."""
    if not isinstance(data, MPTcSet):
        raise InputError(f"{what} takes the checked inputs: data = transcreval.protocols.mptc.load(items, outputs)")
    return data
