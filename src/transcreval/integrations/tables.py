"""Per-item records as a pandas DataFrame, and as CSV / Parquet files joinable by item id.

:func:`items_frame` gives one row per item x system x metric with the columns ``protocol``,
``item_id``, ``system``, ``metric``, ``value`` (NaN unless ``status`` is ``"ok"``),
``status``, ``group`` and one ``meta.<key>`` column per meta key (scalars as they are; lists
and dicts as JSON text). :func:`items_wide` pivots it to one row per item with a
``<system>/<metric>`` column each. :func:`export_items` writes either as ``.csv`` or
``.parquet``; :func:`read_items` reads the long form back into records. The ids are strings
everywhere (read a CSV with ``dtype={"item_id": str}`` to join it elsewhere).

Needs the ``export`` extra (pandas; pyarrow for Parquet); importing this module does not
import them.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from transcreval.errors import InputError, MissingDependencyError
from transcreval.protocols.records import ItemRecord, ProtocolResult

__all__ = ["BASE_COLUMNS", "export_items", "items_frame", "items_wide", "read_items"]

BASE_COLUMNS = ("protocol", "item_id", "system", "metric", "value", "status", "group")
_TEXT = ("protocol", "item_id", "system", "metric", "status", "group")


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as e:
        raise MissingDependencyError("per-item tables", "pandas", "export") from e
    return pandas


def _results(results: ProtocolResult | Sequence[ProtocolResult]) -> list[ProtocolResult]:
    out = [results] if isinstance(results, ProtocolResult) else list(results)
    if not out or not all(isinstance(r, ProtocolResult) for r in out):
        raise InputError("expected a ProtocolResult or a list of them")
    return out


def _cell(value: Any) -> Any:
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, sort_keys=True, default=str)
    return value


def items_frame(results: ProtocolResult | Sequence[ProtocolResult]) -> Any:
    """One row per item x system x metric (several results are stacked, told apart by ``protocol``)."""
    pd = _pandas()
    rows: list[dict[str, Any]] = []
    meta_keys: dict[str, None] = {}
    for res in _results(results):
        for r in res.records:
            row = {
                "protocol": res.protocol,
                "item_id": r.item_id,
                "system": r.system,
                "metric": r.metric,
                "value": r.value,
                "status": r.status,
                "group": r.group if r.group is not None else r.item_id,
            }
            for k, v in r.meta.items():
                meta_keys.setdefault(f"meta.{k}", None)
                row[f"meta.{k}"] = _cell(v)
            rows.append(row)
    frame = pd.DataFrame(rows, columns=[*BASE_COLUMNS, *meta_keys])
    frame["value"] = frame["value"].astype("float64")
    for c in _TEXT:
        frame[c] = frame[c].astype(str)
    return frame


def items_wide(results: ProtocolResult | Sequence[ProtocolResult]) -> Any:
    """One row per item (index ``item_id``, plus ``protocol`` when several results are given),
    one ``<system>/<metric>`` column of values each (NaN where missing or failed)."""
    frame = items_frame(results)
    frame["column"] = frame["system"] + "/" + frame["metric"]
    index = ["protocol", "item_id"] if frame["protocol"].nunique() > 1 else ["item_id"]
    dup = frame.duplicated([*index, "column"])
    if dup.any():
        first = frame[dup].iloc[0]
        raise InputError(f"item {first['item_id']!r} has two records for {first['column']!r}: cannot pivot")
    wide = frame.pivot(index=index, columns="column", values="value")
    wide.columns.name = None
    order = list(dict.fromkeys(frame["column"]))
    return wide[order]


def _format(path: Path, format: str | None) -> str:
    fmt = format or path.suffix.lstrip(".").lower()
    if fmt not in ("csv", "parquet"):
        raise InputError(f"{path}: give a .csv or .parquet file name (or format='csv' / 'parquet'), not {fmt!r}")
    return fmt


def export_items(
    results: ProtocolResult | Sequence[ProtocolResult],
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    wide: bool = False,
) -> Path:
    """Write the per-item table (long, or ``wide=True``) to ``path``; returns the path.

    The format comes from the suffix (``.csv``, ``.parquet``) unless ``format`` says.
    """
    out = Path(path)
    fmt = _format(out, format)
    frame = items_wide(results).reset_index() if wide else items_frame(results)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    if fmt == "csv":
        frame.to_csv(tmp, index=False)
    else:
        try:
            import pyarrow  # noqa: F401
        except ImportError as e:
            raise MissingDependencyError("Parquet export", "pyarrow", "export") from e
        frame.to_parquet(tmp, index=False)
    os.replace(tmp, out)
    return out


def read_items(path: str | os.PathLike[str], *, format: str | None = None) -> list[ItemRecord]:
    """The records of a long-form file written by :func:`export_items` (meta values as stored)."""
    pd = _pandas()
    src = Path(path)
    fmt = _format(src, format)
    # from CSV, ids and names stay text exactly as written ("NA" is an id, not a missing value)
    frame = pd.read_csv(src, dtype=str, keep_default_na=False) if fmt == "csv" else pd.read_parquet(src)
    missing = [c for c in BASE_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"{src}: not a long-form per-item table (columns {missing} missing); export with wide=False")
    if fmt == "csv":
        frame["value"] = pd.to_numeric(frame["value"].mask(frame["value"] == ""))
        for c in [c for c in frame.columns if c.startswith("meta.")]:
            # a meta column of numbers (empty where an item has no such key) reads back as numbers
            with contextlib.suppress(ValueError, TypeError):
                frame[c] = pd.to_numeric(frame[c].mask(frame[c] == ""))
    meta_cols = [c for c in frame.columns if c.startswith("meta.")]
    records = []
    for row in frame.to_dict("records"):
        meta = {}
        for c in meta_cols:
            v = row[c]
            if v is None or v == "" or (isinstance(v, float) and math.isnan(v)):
                continue
            meta[c[len("meta.") :]] = v.item() if hasattr(v, "item") else v
        value = float(row["value"])
        ids = {k: str(row[k]) for k in ("item_id", "system", "metric", "status", "group")}
        records.append(ItemRecord(value=value, meta=meta, **ids))
    return records
