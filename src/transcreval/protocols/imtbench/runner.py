"""IMTBench in ``transcreval evaluate``: the runner adapter (:data:`ADAPTER`).

Manifest (one line per benchmark item): ``source_image``, ``reference_image`` (I_tgt),
``target_locale`` = the target language (an ISO 639-1 code of IMTBench's nine, or its English
name), ``reference_text`` = the reference translation T_tgt, and in ``meta``: ``scenario``
(required: document, web, scene, ppt and their aliases), ``source_text`` (required: a string, or
a list of text regions joined with the option ``text_join``), ``source_language`` (optional),
``mask`` (a background mask image, non-zero = background, for ``--option bg_mask=given``; a
relative path resolves against ``--option mask_root=DIR``). Outputs: each system's ``image``
and ``text`` (its translation; either may be absent: the components that need it are missing
for that item, and counted).

Units (``--metrics``; :mod:`~transcreval.protocols.imtbench.units`): ``text`` (S_text:
COMET, Eq. 2; needs unbabel-comet, the ``comet`` extra), ``background`` (S_bg: 1 - masked
LPIPS over the background, Eq. 3) and ``judge`` (S_vis and S_align, Eq. 4-5: one joint call
per item by default). Each scores items with the same per-item functions as
:func:`transcreval.protocols.imtbench.evaluate`; S (Eq. 6) and Table 2
(:func:`~transcreval.protocols.imtbench.tables.table2`) are built from the stored values, so the
tables equal what ``imtbench.evaluate`` gives on the same inputs and options.

Without unbabel-comet, ``evaluate`` fails before scoring anything, naming the ``comet`` extra;
``--metrics background,judge`` scores the other components (S_text and S then show as missing).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from transcreval.errors import InputError
from transcreval.functional.judge.imtbench_components import COMPONENTS, overall_score
from transcreval.protocols.adapter import Item, ProtocolAdapter, RunData, Unit
from transcreval.protocols.imtbench.inputs import SCENARIOS
from transcreval.protocols.imtbench.tables import S_AVG_READINGS, fig6_by_source, table2
from transcreval.protocols.imtbench.units import background_unit, item_meta, judge_unit, source_text, text_unit
from transcreval.protocols.records import ItemRecord, ProtocolResult, Table

__all__ = ["ADAPTER", "IMTBenchAdapter"]


class IMTBenchAdapter(ProtocolAdapter):
    """IMTBench's runner adapter (see the module docstring)."""

    name: ClassVar[str] = "imtbench"
    version: ClassVar[str] = "1"
    item_fields: ClassVar[tuple[str, ...]] = ("source_image", "reference_image", "target_locale", "reference_text")
    output_fields: ClassVar[tuple[str, ...]] = ("image", "text")
    meta_fields: ClassVar[dict[str, str]] = {
        "item:scenario": f"the item's scenario (required): {', '.join(SCENARIOS)}",
        "item:source_text": "the source text T_src (required; a list of regions is joined with text_join)",
        "item:source_language": "the source language (optional)",
        "item:mask": "a background mask image, non-zero = background (bg_mask=given; relative to mask_root)",
    }
    option_defaults: ClassVar[dict[str, Any]] = {
        "comet": None,
        "judge_call": "joint",
        "reference": True,
        "combine": "naturalness",
        "templates": None,
        "bg_mask": "ocr",
        "mask_root": None,
        "ocr_backend": "rapidocr",
        "ocr_dilate_px": 0,
        "lpips_net": "alex",
        "lpips_weights": None,
        "lpips_mode": "area",
        "resize": "output-to-reference",
        "text_join": "\n",
        "s_avg": "scenarios",
    }

    def check_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        from transcreval.core.common import check_choice
        from transcreval.engines.ocr.masks import check_dilate_px
        from transcreval.functional.judge.imtbench import check_combine
        from transcreval.functional.judge.imtbench_calls import JUDGE_CALLS, check_judge_templates
        from transcreval.functional.judge.imtbench_components import BG_MASKS, RESIZES

        o = super().check_options(options)
        check_choice("judge_call", o["judge_call"], JUDGE_CALLS)
        check_choice("bg_mask", o["bg_mask"], BG_MASKS)
        check_choice("resize", o["resize"], RESIZES)
        check_choice("lpips_mode", o["lpips_mode"], ("area", "upsample"))
        check_choice("lpips_net", o["lpips_net"], ("alex", "vgg", "squeeze"))
        check_choice("s_avg", o["s_avg"], S_AVG_READINGS)
        if not isinstance(o["reference"], bool):
            raise InputError(f"--option reference must be true or false, got {o['reference']!r}")
        if not isinstance(o["text_join"], str):
            raise InputError(f"--option text_join must be a string, got {o['text_join']!r}")
        if o["comet"] is not None and not isinstance(o["comet"], Mapping):
            raise InputError(f"--option comet must be a JSON object of COMETScore options, got {o['comet']!r}")
        if o["mask_root"] is not None:
            o["mask_root"] = os.fspath(Path(o["mask_root"]).expanduser().resolve())
        check_combine(o["combine"])
        check_judge_templates(o["templates"], reference=o["reference"])
        check_dilate_px(o["ocr_dilate_px"], "ocr_dilate_px")
        return o

    def check_item(self, item: Item) -> None:
        item_meta(item)
        source_text(item, "\n")
        mask = item.meta.get("mask")
        if mask is not None and not isinstance(mask, str):
            raise InputError(f"{item.where}: meta.mask must be a file path (a string), got {mask!r}")

    def units(self, options: Mapping[str, Any]) -> list[Unit]:
        return [text_unit(), background_unit(), judge_unit()]

    def tables(self, data: RunData) -> ProtocolResult:
        """Per-item S_text, S_bg, S_align, S_vis and S, and Table 2 per system (as
        :func:`transcreval.protocols.imtbench.evaluate`); a component whose unit did not run for
        an item is ``not_computed``, never 0."""
        got = {(r.item_id, r.system, r.metric): r for r in data.records}
        records: list[ItemRecord] = []
        for system in data.systems:
            for it in data.items:
                meta = item_meta(it)
                values: dict[str, float] = {}
                for c in COMPONENTS:
                    r = got.get((it.id, system, c))
                    status = r.status if r is not None else "not_computed"
                    values[c] = float(r.value) if r is not None and status == "ok" else math.nan
                    records.append(ItemRecord(it.id, system, c, values[c], status, it.group, meta))
                s = overall_score(values)
                ok = math.isfinite(s)
                status = "ok" if ok else "missing_component"
                records.append(ItemRecord(it.id, system, "S", s if ok else math.nan, status, it.group, meta))
        names = {"text": "S_text", "background": "S_bg", "judge": "S_vis/S_align"}
        return ProtocolResult(
            protocol="imtbench",
            records=tuple(records),
            tables={f"table2/{s}": table2(records, s, s_avg=data.options["s_avg"]) for s in data.systems},
            signatures={names.get(k, k): v for k, v in data.signatures.items()},
            options={
                **dict(data.options),
                "all_row": "plain mean of the scenario rows (S_avg), item-weighted row beside it",
            },
            figures={"fig6_by_source": fig} if (fig := fig6_by_source(records)) is not None else {},
        )

    def report_options(self, result: ProtocolResult) -> dict[str, Any]:
        from transcreval.report import plot_heatmap

        figures = []
        for system in dict.fromkeys(r.system for r in result.records):
            if any(r.system == system and r.metric == "S" and r.status == "ok" for r in result.records):
                figures.append((f"S by scenario x language: {system}", _heatmap(plot_heatmap, result, system)))
        fig6 = result.figures.get("fig6_by_source")
        if fig6 is not None:
            for target in dict.fromkeys(r[1] for r in fig6.rows):
                for col in _fig6_columns(fig6, target):
                    title = f"Fig. 6 (right): {col} by source language, target {target}"
                    figures.append((title, _by_source(result, target, col)))
        return {"figures": figures, "by": "scenario", "gallery_metrics": ["S"], "headline": ["S", *COMPONENTS]}


def _heatmap(fn: Any, result: ProtocolResult, system: str) -> Any:
    return lambda: fn(result, "S", system=system)


def _fig6_columns(fig6: Table, target: str) -> list[str]:
    """The Fig. 6 panels for ``target``: S where any source language has it, else each component
    that has a value (a run without S_text or S_bg still shows S_align / S_vis); S alone when
    nothing has a value, so the report names the panel it cannot draw."""
    filled = {col for (row, col), cell in fig6.cells.items() if row[1] == target and cell.n > 0}
    present = [c for c in fig6.columns if c in filled]
    if "S" in present or not present:
        return ["S"]
    return present


def _by_source(result: ProtocolResult, target: str, column: str) -> Any:
    from transcreval.report import plot_by_source

    return lambda: plot_by_source(result, "fig6_by_source", target=target, column=column)


ADAPTER = IMTBenchAdapter()
