"""Khanuja et al.'s Table 3 in one Python call: :func:`evaluate` scores the items with each
configured metric row (:mod:`~transcreval.protocols.khanuja.scoring`) and builds the tables
(:func:`~transcreval.protocols.khanuja.tables.table3_result`). The runner adapter
(:mod:`~transcreval.protocols.khanuja.runner`) runs the same scorers per unit and the same table
builder on the stored values.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from transcreval.errors import InputError
from transcreval.protocols.khanuja.inputs import KhanujaItem, RatingSheet, check_items, country_prompt_names
from transcreval.protocols.khanuja.options import check_options
from transcreval.protocols.khanuja.ratings import item_ratings
from transcreval.protocols.khanuja.scoring import Scorer, Scores, csi_scorer, embedding_scorer, vlm_scorer
from transcreval.protocols.khanuja.tables import TableRow, embedding_row, object_row, table3_result, vlm_row
from transcreval.protocols.records import ProtocolResult

__all__ = ["evaluate", "khanuja_table3"]


def evaluate(
    items: Sequence[KhanujaItem],
    ratings: Mapping[str, Mapping[str, RatingSheet]] | str | os.PathLike[str],
    *,
    embedding: bool | Mapping[str, Any] = True,
    vlm_judges: Mapping[str, Any] | None = None,
    object_judge: Any = None,
    object_label: str = "Gemini-1.5-Pro",
    embedding_label: str = "SigLIP",
    culture_template: str = "paper",
    category_template: str = "paper",
    vlm_templates: Mapping[str, Any] | None = None,
    csi_templates: Mapping[str, Any] | None = None,
    csi_matching: str = "judge",
    vlm_cultural: str = "output",
    visual_signs: Mapping[str, int] | None = None,
    average: str = "countries",
    country_names: Mapping[str, str] | None = None,
    allow_blank: bool = True,
    bootstrap: int = 0,
    seed: int = 0,
    chunk_size: int = 64,
) -> ProtocolResult:
    """Khanuja et al. Table 3 per country and averaged over countries (see the module docstring).

    Args:
        items: one :class:`KhanujaItem` per (country, image, system).
        ratings: ``{country: {column: RatingSheet}}`` (:func:`read_human_ratings`) or the folder
            it reads (the authors' ``human_evaluation/part-1``).
        embedding: the embedding row: True (SigLIP ``ViT-B-16-SigLIP``), a mapping of encoder
            options (``model``, ``pretrained``, ``tokenizer``, ``preprocess``, ``batch_size``...),
            or False (no row).
        vlm_judges: ``{row label: judge}``, one VLM-based row each, in this order.
        object_judge: the judge of CSI-Overlap's three steps (None: no object-based row).
        culture_template / category_template: the embedding prompts (a preset or a text).
        vlm_templates / csi_templates: prompt overrides by aspect / CSI step.
        csi_matching: CSI-Overlap's third step, "judge" (the paper) or "exact".
        vlm_cultural: "output" (the output's cultural score) or "delta" (output minus source).
        visual_signs: ``{"object"|"embedding"|"vlm": 1 or -1}`` over :data:`VISUAL_SIGNS`.
        average: "countries" (per country, then over countries) or "segments" (pooled).
        country_names: the name the prompts use per country (default: ``country.capitalize()``,
            as the authors' scripts did).
        allow_blank: where ``ratings`` is a folder: a blank rating cell leaves that system out of
            the image's segment (default); False makes it an error.
        bootstrap, seed: a percentile interval per cell (``Cell.ci``) from resampled images.
        chunk_size: items per network / judge batch.

    Returns:
        A :class:`ProtocolResult`: records per item x system x metric (and the human ratings as
        ``human_<question>``), tables ``table3`` (the average, the paper's layout),
        ``table3_<country>``, ``table3_by_category`` (footnote 5) and ``table1`` (images per country).
    """
    o = dict(locals())
    signs = check_options(o)
    items = list(items)
    cats = check_items(items)
    vlm = dict(vlm_judges or {})
    if not vlm and object_judge is None and embedding is False:
        raise InputError("no metric row: pass object_judge=, vlm_judges= or keep embedding")
    human = item_ratings(items, ratings, allow_blank=allow_blank)  # a missing rating stops it before any call
    names = country_prompt_names(sorted({it.country for it in items}), country_names)

    # every option is checked (and every model and template built) before the first call
    rows: list[TableRow] = []
    scorers: list[Scorer] = []
    if object_judge is not None:
        scorers.append(csi_scorer(object_judge, items, cats, names, o))
        rows.append(object_row(object_label))
    if embedding is not False:
        scorers.append(embedding_scorer(items, cats, names, o))
        rows.append(embedding_row(embedding_label))
    for label, judge in vlm.items():
        scorers.append(vlm_scorer(judge, label, items, cats, names, o))
        rows.append(vlm_row(label))
    scores: Scores = {}
    signatures: dict[str, str] = {}
    for run, sigs in scorers:
        scores.update(run())
        signatures.update(sigs)
    return table3_result(items, cats, human, scores, signatures, rows, o, signs)


#: the name this entry had before every protocol's was ``evaluate``; the same function
khanuja_table3 = evaluate
