"""IMTBench (Lyu et al.) from a system's raw outputs: per-item S_text, S_bg, S_align, S_vis and S,
and Table 2.

:func:`evaluate` reads the benchmark manifest and each system's outputs (JSONL:
:mod:`transcreval.protocols.imtbench_manifest`), scores every item with the four components of
§4 (COMET, 1 - masked LPIPS over the background, the judge's alignment and harmonization; see
:mod:`transcreval.functional.judge.imtbench_components`) and S (Eq. 6), and returns a
:class:`~transcreval.protocols.records.ProtocolResult`: one record per item x system x metric
(``S_text``, ``S_bg``, ``S_align``, ``S_vis``, ``S``; NaN with the reason where missing) and
one Table 2 per system (``tables["table2/<system>"]``, :func:`table2`).

IMTBench has no public code: every choice the paper leaves open is an option of
:func:`evaluate` (docs/protocols/imtbench.md lists them), recorded in ``result.options``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from transcreval.errors import InputError
from transcreval.functional.judge.imtbench_components import COMPONENTS
from transcreval.functional.judge.imtbench_score import PACKAGES, IMTBenchOptions
from transcreval.protocols.imtbench_manifest import (
    SCENARIO_LABELS,
    SCENARIOS,
    IMTBenchItem,
    read_manifest,
    read_outputs,
)
from transcreval.protocols.records import Cell, ItemRecord, ProtocolResult, Table, cell_mean

__all__ = ["COLUMNS", "evaluate", "table2"]

COLUMNS = (*COMPONENTS, "S")
ALL = "All"
S_AVG = "S_avg"
ITEM_WEIGHTED = "item-weighted"


def _mask(value: Any) -> Any:
    """A background mask from a file (non-zero = background, any bit depth) or as given."""
    from transcreval.io import read_mask

    if value is None:
        return None
    if hasattr(value, "__fspath__") or isinstance(value, str):
        return read_mask(value)
    return value


def _system_records(
    system: str, items: Sequence[IMTBenchItem], setup: Any, outputs: Mapping[str, Any], chunk_size: int
) -> list[ItemRecord]:
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


def _group_cell(records: Sequence[ItemRecord], column: str) -> Cell:
    return cell_mean([r.value for r in records if r.metric == column], scale=100.0)


def table2(records: Sequence[ItemRecord], system: str) -> Table:
    """IMTBench Table 2 for one system, in percent, from its per-item records.

    Rows: per scenario (in the paper's order: Doc., Web, Scene, PPT; those present) the row
    ``(label, "all")`` and one row per target language ``(label, language)``; then
    ``("All", language)`` per language over every scenario; then ``("All", "S_avg")``, the
    paper's "All" row: each column the plain mean of the scenario rows (this reproduces the
    paper's 57.8 and 56.4), and ``("All", "item-weighted")``, the mean over all items. Columns
    S_text, S_bg, S_align, S_vis, S. Each cell is the mean over the items that have the value,
    with ``n`` those items and ``n_missing`` the group's items without it (a missing
    component is never averaged as 0); S exists where all four components do.
    """
    mine = [r for r in records if r.system == system]
    if not mine:
        raise InputError(f"no records of system {system!r}")
    scen_of = {r.item_id: r.meta.get("scenario") for r in mine}
    lang_of = {r.item_id: r.meta.get("language") for r in mine}
    present = [s for s in SCENARIOS if s in set(scen_of.values())]
    langs = sorted({str(v) for v in lang_of.values()})
    cells: dict[tuple[Any, str], Cell] = {}
    rows: list[Any] = []

    def add(row: Any, group: list[ItemRecord]) -> None:
        rows.append(row)
        for col in COLUMNS:
            cells[(row, col)] = _group_cell(group, col)

    for s in present:
        label = SCENARIO_LABELS[s]
        add((label, "all"), [r for r in mine if scen_of[r.item_id] == s])
        for lang in langs:
            group = [r for r in mine if scen_of[r.item_id] == s and lang_of[r.item_id] == lang]
            if group:
                add((label, lang), group)
    for lang in langs:
        add((ALL, lang), [r for r in mine if lang_of[r.item_id] == lang])
    avg = (ALL, S_AVG)
    rows.append(avg)
    for col in COLUMNS:
        per_scenario = [cells[((SCENARIO_LABELS[s], "all"), col)] for s in present]
        defined = [c for c in per_scenario if c.n > 0]
        value = math.fsum(c.value for c in defined) / len(defined) if defined else math.nan
        cells[(avg, col)] = Cell(value, sum(c.n for c in per_scenario), sum(c.n_missing for c in per_scenario))
    add((ALL, ITEM_WEIGHTED), mine)
    notes = [
        "S_avg: each column the plain mean of the scenario rows (the paper's All row); item-weighted: the mean "
        "over all items",
        "a cell averages the items that have the value (n); n_missing counts the group's items without it, never "
        "averaged as 0; S = (S_text + S_bg + S_align + S_vis) / 4 where all four exist (Eq. 6)",
    ]
    for c in COMPONENTS:
        reasons: dict[str, int] = {}
        for r in mine:
            if r.metric == c and r.status != "ok":
                reasons[r.status] = reasons.get(r.status, 0) + 1
        if reasons:
            notes.append(f"{c} missing: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    return Table(
        name=f"IMTBench Table 2 ({system})",
        columns=COLUMNS,
        rows=tuple(rows),
        cells=cells,
        decimals=1,
        units="%",
        notes=tuple(notes),
    )


def evaluate(
    manifest: Any,
    outputs: Mapping[str, Any],
    *,
    judge: Any,
    languages: Mapping[str, str] | Sequence[str] | None = None,
    text_join: str = "\n",
    chunk_size: int = 32,
    **options: Any,
) -> ProtocolResult:
    """IMTBench from raw outputs: per-item records and Table 2 per system.

    Args:
        manifest: the benchmark manifest (JSONL path or list of dicts; see
            :mod:`transcreval.protocols.imtbench_manifest`).
        outputs: ``{system name: its outputs (JSONL path or list of dicts)}``.
        judge: the VLM judge for S_vis and S_align.
        comet: a :class:`~transcreval.COMETScore`, a dict of its options, or None (COMET-22 DA).
        judge_call: "joint" (default: one call per item asks both scores, as the paper's prompt)
            or "separate" (one call per score).
        reference: show the reference image to the S_vis judge (Eq. 4, default) or not.
        combine: S_vis from "naturalness" (Eq. 4, default), "min" or "mean" with artifacts.
        templates: judge templates to replace (``joint``, ``harmonization``, ``alignment``).
        bg_mask: "ocr" (default: the background is outside the text OCR finds in the reference
            image) or "given" (the manifest's ``mask`` files).
        ocr_backend, ocr_dilate_px: the OCR detector ("rapidocr") and how far text regions grow.
        lpips_net, lpips_weights: LPIPS of S_bg ("alex", lpips' default; weights as LPIPS).
        lpips_version: the LPIPS version of linear layers that are not lpips' own (as LPIPS).
        lpips_mode: "area" (Eq. 3, per layer at its resolution) or "upsample".
        resize: "output-to-reference" (default) or "error" (S_bg missing: "size_mismatch").
        languages: the target languages allowed (default: IMTBench's nine).
        text_join: how a list of text regions becomes one COMET segment ("\\n").
        chunk_size: items scored (and images held in memory) at a time.
        device: where LPIPS runs.

    ``comet`` to ``device`` are :class:`~transcreval.IMTBenchScore`'s options, one
    :class:`~transcreval.functional.judge.imtbench_score.IMTBenchOptions`.
    """
    opts = IMTBenchOptions.take({"judge": judge, **options}, "imtbench.evaluate")  # checked before any read
    if not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size < 1:
        raise InputError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if not isinstance(outputs, Mapping) or not outputs:
        raise InputError("outputs must be a non-empty {system name: outputs JSONL path or rows} mapping")
    items = read_manifest(manifest, languages=languages, text_join=text_join)
    per_system = {str(s): read_outputs(o, items, system=str(s), text_join=text_join) for s, o in outputs.items()}
    setup = opts.loaded
    records: list[ItemRecord] = []
    for system, outs in per_system.items():
        records += _system_records(system, items, setup, outs, chunk_size)
    sig = opts.signature("IMTBenchScore", PACKAGES)
    recorded = {
        **{k: getattr(opts, k) for k in ("judge_call", "reference", "combine", "bg_mask", "ocr_dilate_px")},
        **{k: getattr(opts, k) for k in ("lpips_net", "lpips_mode", "resize")},
        "text_join": text_join,
        "all_row": "plain mean of the scenario rows (S_avg), item-weighted row beside it",
        "comet_normalize": setup.comet.normalize,
    }
    return ProtocolResult(
        protocol="imtbench",
        records=tuple(records),
        tables={f"table2/{s}": table2(records, s) for s in per_system},
        signatures={"S_text": str(setup.comet.signature), "S": str(sig)},
        options=recorded,
    )
