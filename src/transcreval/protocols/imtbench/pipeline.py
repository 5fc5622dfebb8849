"""IMTBench (Lyu et al.) in one call, from the systems' raw outputs: per-item S_text, S_bg, S_align, S_vis and S,
and Table 2.

:func:`evaluate` reads the benchmark manifest and each system's outputs (JSONL:
:mod:`transcreval.protocols.imtbench.inputs`), scores every item with the four components of
§4 (COMET, 1 - masked LPIPS over the background, the judge's alignment and harmonization; see
:mod:`transcreval.functional.judge.imtbench_components`) and S (Eq. 6), and returns a
:class:`~transcreval.protocols.records.ProtocolResult`: one record per item x system x metric
(``S_text``, ``S_bg``, ``S_align``, ``S_vis``, ``S``; NaN with the reason where missing) and
one Table 2 per system (``tables["table2/<system>"]``, :func:`~transcreval.protocols.imtbench.tables.table2`),
and Fig. 6's right panel (``figures["fig6_by_source"]``, where items have a ``source_language``).

IMTBench has no public code: every choice the paper leaves open is an option of
:func:`evaluate` (docs/protocols/imtbench.md lists them), recorded in ``result.options``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from transcreval.core.common import check_choice
from transcreval.errors import InputError
from transcreval.functional.judge.imtbench_score import PACKAGES, IMTBenchOptions
from transcreval.protocols.imtbench.inputs import read_manifest, read_outputs
from transcreval.protocols.imtbench.scoring import system_records
from transcreval.protocols.imtbench.tables import S_AVG_READINGS, fig6_by_source, table2
from transcreval.protocols.records import ItemRecord, ProtocolResult

__all__ = ["evaluate"]


def evaluate(
    manifest: Any,
    outputs: Mapping[str, Any],
    *,
    judge: Any,
    languages: Mapping[str, str] | Sequence[str] | None = None,
    text_join: str = "\n",
    chunk_size: int = 32,
    s_avg: Literal["scenarios", "components"] = "scenarios",
    **options: Any,
) -> ProtocolResult:
    """IMTBench from raw outputs: per-item records and Table 2 per system.

    Args:
        manifest: the benchmark manifest (JSONL path or list of dicts; see
            :mod:`transcreval.protocols.imtbench.inputs`).
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
        s_avg: the S cell of Table 2's S_avg row when components are missing: "scenarios"
            (default, the mean of the scenario rows' S) or "components" (the mean of the row's
            four component cells); see :func:`~transcreval.protocols.imtbench.tables.table2`.
        device: where LPIPS runs.

    ``comet`` to ``device`` are :class:`~transcreval.IMTBenchScore`'s options, one
    :class:`~transcreval.functional.judge.imtbench_score.IMTBenchOptions`.
    """
    opts = IMTBenchOptions.take({"judge": judge, **options}, "imtbench.evaluate")  # checked before any read
    check_choice("s_avg", s_avg, S_AVG_READINGS)
    if not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size < 1:
        raise InputError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if not isinstance(outputs, Mapping) or not outputs:
        raise InputError("outputs must be a non-empty {system name: outputs JSONL path or rows} mapping")
    items = read_manifest(manifest, languages=languages, text_join=text_join)
    per_system = {str(s): read_outputs(o, items, system=str(s), text_join=text_join) for s, o in outputs.items()}
    setup = opts.loaded
    records: list[ItemRecord] = []
    for system, outs in per_system.items():
        records += system_records(system, items, setup, outs, chunk_size)
    sig = opts.signature("IMTBenchScore", PACKAGES)
    recorded = {
        **{k: getattr(opts, k) for k in ("judge_call", "reference", "combine", "bg_mask", "ocr_dilate_px")},
        **{k: getattr(opts, k) for k in ("lpips_net", "lpips_mode", "resize")},
        "text_join": text_join,
        "s_avg": s_avg,
        "all_row": "plain mean of the scenario rows (S_avg), item-weighted row beside it",
        "comet_normalize": setup.comet.normalize,
    }
    return ProtocolResult(
        protocol="imtbench",
        records=tuple(records),
        tables={f"table2/{s}": table2(records, s, s_avg=s_avg) for s in per_system},
        signatures={"S_text": str(setup.comet.signature), "S": str(sig)},
        options=recorded,
        figures={"fig6_by_source": fig} if (fig := fig6_by_source(records)) is not None else {},
    )
