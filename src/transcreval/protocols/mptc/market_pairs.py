"""MPTc-Bench's market-preference pairs (§5.2, Fig. 4), the file that
:func:`~transcreval.protocols.mptc.market_validation` reads.

One row per pair: two human posters of the same film made for two markets, the judge
role-playing a viewer of the first. A CSV file with a header line, a JSON Lines file, or a list
of mappings, with these fields:

* ``pair_id`` (required): the pair's id; it seeds the pair's A/B order, so keep it stable;
* ``gt_target`` (required): the human poster made for ``target_market`` (GT_tgt);
* ``gt_other`` (required): a human poster of the same film made for another market (GT_other,
  the distractor);
* ``target_market`` (required): the market the judge role-plays ("Japan"), as the prompt names it;
* ``other_market`` (optional): the distractor's market (recorded; never shown to the judge);
* ``source`` (optional): the source poster SRC. App. A.2's prompt shows the judge only the
  two posters, so SRC is checked to be a file and recorded, never sent;
* ``movie`` (optional): the film's id; the pairs of one film form one group (clustered
  statistics); default the pair id;
* ``meta`` (optional, JSON Lines and mappings only): any other facts, copied into the records.

Images are file paths (relative ones read from ``root``, by default the file's folder) or, in
Python, any image :mod:`transcreval.io` reads. A blank optional cell is "not given". Refused,
naming the file and line (or ``pairs[i]``) and the field: a missing or unknown field, an empty
id or market, an image path that is not a file, the same pair id twice, the same path as both
posters, and an ``other_market`` equal to ``target_market``. (Two posters with identical
pixels are refused when the posters are decoded, before the judge is asked.)
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.mptc.schema import image_field
from transcreval.utils.row_files import field_problems, read_row_file

__all__ = ["PAIR_FIELDS", "MarketPair", "read_market_pairs"]

#: the fields of a pair row, in the documented column order (``meta`` besides, outside CSV)
PAIR_FIELDS = ("pair_id", "gt_target", "gt_other", "target_market", "other_market", "source", "movie")
_REQUIRED = ("pair_id", "gt_target", "gt_other", "target_market")
_META_HINT = "other facts go under 'meta' (a JSON object)"


@dataclass(frozen=True)
class MarketPair:
    """One checked pair (see the module docstring); ``where`` names its row in messages."""

    where: str
    pair_id: str
    gt_target: Any
    gt_other: Any
    target_market: str
    other_market: str | None = None
    source: Any = None
    movie: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)


def _blank(v: Any) -> bool:
    return v is None or (isinstance(v, str) and not v.strip()) or (isinstance(v, float) and math.isnan(v))


def _text(raw: Mapping[str, Any], key: str, where: str) -> str | None:
    v = raw.get(key)
    if _blank(v):
        if key in _REQUIRED:
            raise InputError(f"{where}: {key!r} is required (a non-empty string)")
        return None
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        raise InputError(f"{where}: {key!r} must be a non-empty string, got {v!r}")
    return str(v).strip()


def _pair(raw: Any, where: str, root: Path | None) -> MarketPair:
    if not isinstance(raw, Mapping):
        raise InputError(f"{where}: a pair row is a mapping with the fields {', '.join(PAIR_FIELDS)}")
    wrong = field_problems([str(k) for k in raw if k != "meta"], PAIR_FIELDS, ())
    if wrong:
        raise InputError(f"{where}: {wrong}; a pair row has {', '.join(PAIR_FIELDS)}; {_META_HINT}")
    texts = {k: _text(raw, k, where) for k in ("pair_id", "target_market", "other_market", "movie")}
    images = {
        k: image_field(where, k, None if _blank(raw.get(k)) else raw.get(k), root, k in _REQUIRED)
        for k in ("gt_target", "gt_other", "source")
    }
    meta = raw.get("meta") or {}
    if not isinstance(meta, Mapping):
        raise InputError(f"{where}: 'meta' must be a mapping (a JSON object), got {type(meta).__name__}")
    target, other = texts["target_market"], texts["other_market"]
    if other is not None and str(other).casefold() == str(target).casefold():
        raise InputError(f"{where}: 'other_market' is the target market {target!r}; the distractor is another market's")
    a, b = images["gt_target"], images["gt_other"]
    if isinstance(a, str) and isinstance(b, str) and os.path.realpath(a) == os.path.realpath(b):
        raise InputError(f"{where}: 'gt_target' and 'gt_other' are the same file {a}; give another market's poster")
    return MarketPair(
        where,
        str(texts["pair_id"]),
        a,
        b,
        str(target),
        other,
        images["source"],
        texts["movie"],
        dict(meta),
    )


def _rows(pairs: Any, root: Path | None) -> list[MarketPair]:
    if isinstance(pairs, (str, os.PathLike)):
        path = Path(pairs)
        optional = ",".join(k for k in PAIR_FIELDS if k not in _REQUIRED)
        columns = f"the columns are {','.join(_REQUIRED)} and, if wanted, {optional}; {_META_HINT} in a JSON Lines file"
        rows = read_row_file(path, "pairs", PAIR_FIELDS, required=_REQUIRED, columns=columns)
        base = root if root is not None else path.resolve().parent
        return [_pair(row, where, base) for where, row in rows]
    if isinstance(pairs, (Mapping, bytes)) or not isinstance(pairs, Iterable):
        raise InputError(f"pairs: give a .csv or .jsonl path or a list of mappings, not a {type(pairs).__name__}")
    return [_pair(r, f"pairs[{i}]", root) for i, r in enumerate(pairs)]


def read_market_pairs(pairs: Any, *, root: str | os.PathLike[str] | None = None) -> list[MarketPair]:
    """The checked pairs of a ``.csv`` / ``.jsonl`` path or a list of mappings (the module
    docstring lists the fields and what is refused); relative image paths are read from
    ``root`` (default: the file's folder; the working directory for a list)."""
    rows = _rows(pairs, Path(root) if root is not None else None)
    if not rows:
        raise InputError("pairs: no pair rows")
    first: dict[str, str] = {}
    for p in rows:
        if p.pair_id in first:
            raise InputError(f"{p.where}: pair_id {p.pair_id!r} repeats {first[p.pair_id]}; pair ids must be unique")
        first[p.pair_id] = p.where
    return rows
