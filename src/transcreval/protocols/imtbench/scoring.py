"""IMTBench's per-item scoring for the Python :func:`~transcreval.protocols.imtbench.evaluate`:
the four components of §4 and S (Eq. 6) for one system's outputs, chunk by chunk, with the
per-item functions of :mod:`transcreval.functional.judge.imtbench_components` (the runner's units,
:mod:`transcreval.protocols.imtbench.units`, call the same functions one unit at a time)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from transcreval.errors import InputError
from transcreval.functional.judge.imtbench_components import COMPONENTS
from transcreval.protocols.imtbench.inputs import IMTBenchItem
from transcreval.protocols.records import ItemRecord

__all__ = ["system_records"]


def _mask(value: Any) -> Any:
    """A background mask from a file (non-zero = background, any bit depth) or as given."""
    from transcreval.io import read_mask

    if value is None:
        return None
    if hasattr(value, "__fspath__") or isinstance(value, str):
        return read_mask(value)
    return value


def system_records(
    system: str, items: Sequence[IMTBenchItem], setup: Any, outputs: Mapping[str, Any], chunk_size: int
) -> list[ItemRecord]:
    """One system's per-item records (S_text, S_bg, S_align, S_vis, then S) over ``items``,
    scored ``chunk_size`` items at a time by ``setup`` (an :class:`IMTBenchOptions`' loaded
    scorers); a component that cannot be computed is NaN with its reason as the status."""
    records: list[ItemRecord] = []
    for start in range(0, len(items), chunk_size):
        chunk = items[start : start + chunk_size]
        outs = [outputs.get(it.id) for it in chunk]
        masks = [_mask(it.mask) for it in chunk] if setup.options.bg_mask == "given" else None
        if masks is not None and any(m is None for m in masks):
            lines = ", ".join(str(it.line) for it, m in zip(chunk, masks) if m is None)
            raise InputError(f"bg_mask='given' but the manifest gives no 'mask' on line(s) {lines}")
        comp = setup.items(
            [o.image if o is not None else None for o in outs],
            [it.reference_image for it in chunk],
            [o.text if o is not None else None for o in outs],
            [it.reference_text for it in chunk],
            [it.source_text for it in chunk],
            mask=masks,
        )
        overall = comp.overall()
        for k, it in enumerate(chunk):
            meta = {"scenario": it.scenario, "language": it.language, "source_language": it.source_language}
            for c in COMPONENTS:
                value, status = comp.values[c][k], comp.status[c][k]
                records.append(ItemRecord(it.id, system, c, value if status == "ok" else math.nan, status, None, meta))
            ok = math.isfinite(overall[k])
            records.append(
                ItemRecord(
                    it.id, system, "S", overall[k] if ok else math.nan, "ok" if ok else "missing_component", None, meta
                )
            )
    return records
