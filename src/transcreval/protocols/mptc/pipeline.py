"""MPTc-Bench in one call: :func:`evaluate` runs every part the inputs and options allow."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.mptc.inputs import MPTcSet, load
from transcreval.protocols.records import ProtocolResult

__all__ = ["evaluate"]


def evaluate(
    items: Any,
    outputs: Any = (),
    *,
    judge: Any = None,
    judge_options: Mapping[str, Any] | None = None,
    similarity: Mapping[str, Any] | None = None,
    ocr: Mapping[str, Any] | None = None,
    temporal: Mapping[str, Any] | None = None,
    cross_cluster: bool = True,
    clusters: Mapping[str, str] | None = None,
    **load_options: Any,
) -> ProtocolResult:
    """Every MPTc-Bench table the inputs allow, as one :class:`ProtocolResult`.

    Args:
        items, outputs: the records (JSONL paths or lists; see :mod:`.schema`), or an
            :class:`MPTcSet` from :func:`load` as ``items`` (then ``outputs`` and
            ``load_options`` must be left out).
        judge: the judge; with it, Tables 3 and 4 and Fig. 6 (:func:`judge_tables`, options in
            ``judge_options``), and, from their records, Fig. 7 (``cross_cluster``, with
            ``clusters``) and Table 9 (when ``temporal`` is given: its options, e.g.
            ``{"fid_options": {"weights": ...}, "systems": [("GPT-4.1", "Gemini 3")]}``).
        similarity: options of :func:`similarity_table` (Table 5), e.g. ``{"fid_weights": ...}``;
            None skips Table 5 (it needs the CLIP and Inception weights).
        ocr: options of :func:`ocr_tables` (Table 10 and the OCR title baseline); None skips them.
        **load_options: :func:`load`'s options (``split_by``, ``surface_max``, ``deep_min``,
            ``planners``, ``editors``, ``root``).

    The error-type table (App. B.3) is added whenever an output carries ``error_labels``;
    ``figures`` holds Fig. 3, 8 and 9 from the items (:func:`~transcreval.protocols.mptc.figures.set_figures`).
    ``options["parts"]`` lists what ran.
    """
    from transcreval.protocols.mptc.analyses import cross_cluster_tables, error_type_table, temporal_table
    from transcreval.protocols.mptc.figures import set_figures
    from transcreval.protocols.mptc.ocr_tables import ocr_tables
    from transcreval.protocols.mptc.tables import judge_tables, merge_results, similarity_table

    if isinstance(items, MPTcSet):
        if (outputs != () and outputs is not None) or load_options:
            raise InputError("evaluate(MPTcSet, ...) takes no outputs or load options: they were applied by load()")
        data = items
    else:
        data = load(items, outputs, **load_options)
    parts: list[tuple[str, ProtocolResult]] = []
    judged = None
    if judge is not None:
        judged = judge_tables(data, judge=judge, **dict(judge_options or {}))
        parts.append(("judge_tables", judged))
    elif temporal is not None:
        raise InputError("temporal (Table 9) needs the title chrF of the judge tables: pass judge=")
    if similarity is not None:
        parts.append(("similarity_table", similarity_table(data, **dict(similarity))))
    if ocr is not None:
        opts = dict(ocr)
        if opts.get("title_reference") == "judge":
            opts.setdefault("judge", judge)
        parts.append(("ocr_tables", ocr_tables(data, **opts)))
    if any(o.error_labels for o in data.outputs):
        parts.append(("error_type_table", error_type_table(data)))
    if judged is not None and temporal is not None:
        parts.append(("temporal_table", temporal_table(data, judged, **dict(temporal))))
    if judged is not None and cross_cluster:
        parts.append(("cross_cluster_tables", cross_cluster_tables(data, judged, clusters=clusters)))
    if not parts:
        raise InputError("nothing to compute: pass judge=, similarity= or ocr= (or outputs with error_labels)")
    merged = merge_results([r for _, r in parts])
    figures = {**set_figures(data, clusters), **merged.figures}
    return ProtocolResult(
        "mptc",
        merged.records,
        merged.tables,
        merged.signatures,
        {**merged.options, "parts": [n for n, _ in parts]},
        figures=figures,
    )
