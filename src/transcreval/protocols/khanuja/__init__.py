"""Khanuja et al. (NAACL 2025) Table 3: segment-level Kendall tau of each metric against humans.

Inputs: one :class:`KhanujaItem` per (target country, image, system), holding the system's
output, the source image and the image's key ``source_category_object`` (the key of the
authors' human ratings), and the human ratings as the authors released them, read by
:func:`read_human_ratings`: ``<root>/<country>/human_eval.csv`` (ratings 1-5 per rating slot)
with ``labels.csv`` (which system is in which slot). :func:`meta_evaluate` builds the same
Table 3 from any metric's per-item scores.

:func:`evaluate` (also known as :func:`khanuja_table3`) scores every item with each configured
metric row of Table 3:

* Object-based: CSI-Overlap (§5.1) with ``object_judge``; its one value per item is correlated
  with each of the three human dimensions;
* Embedding-based: SigLIP's Delta S_c-r, S_s-e and S_v-s (§5.2) with the §4.3 prompts;
* VLM-based: one row per judge of ``vlm_judges``: the App. A 1-5 scores (cultural relevance of
  the output, intent, visual change).

Then, per (row, column, country), the segment-level Kendall tau-b (scipy's default variant;
:func:`~transcreval.functional.segment_kendall_tau`): per image, tau between the metric's values
and the human ratings of its systems; an image is skipped when a metric value is missing
(unreadable answer, no culture-specific item), when the metric gives every system the same value,
or when the humans do (tau undefined); the mean over images per country, then over countries.

Human "visual change" ratings grow with change (5 = high change), so each row's metric enters the
vis-sim column oriented as change: S_v-s (a similarity) negated, CSI-Overlap and the VLM's
visual-change score as they are (``visual_signs``). docs/protocols/khanuja.md lists every choice.

The package holds one idea per module: :mod:`.inputs` (items, image keys, rating sheets),
:mod:`.ratings` (the authors' rating files), :mod:`.options`, :mod:`.scoring` (a scorer per metric
row), :mod:`.tables` (Table 3 and Table 1 from per-item values), :mod:`.pipeline` (:func:`evaluate`),
:mod:`.runner` (``transcreval evaluate -p khanuja``: the same scorers and tables), and
:mod:`.meta` with :mod:`.score_rows` (:func:`meta_evaluate`, any metric's scores).
"""

from __future__ import annotations

from transcreval.protocols.khanuja.inputs import (
    COLUMNS,
    RATING_COLUMNS,
    ImageKey,
    KhanujaItem,
    RatingSheet,
    parse_image_key,
)
from transcreval.protocols.khanuja.meta import meta_evaluate
from transcreval.protocols.khanuja.options import check_options
from transcreval.protocols.khanuja.pipeline import evaluate, khanuja_table3
from transcreval.protocols.khanuja.ratings import read_human_ratings
from transcreval.protocols.khanuja.scoring import csi_scorer, embedding_scorer, vlm_scorer
from transcreval.protocols.khanuja.tables import VISUAL_SIGNS

__all__ = [
    "COLUMNS",
    "RATING_COLUMNS",
    "VISUAL_SIGNS",
    "ImageKey",
    "KhanujaItem",
    "RatingSheet",
    "check_options",
    "csi_scorer",
    "embedding_scorer",
    "evaluate",
    "khanuja_table3",
    "meta_evaluate",
    "parse_image_key",
    "read_human_ratings",
    "vlm_scorer",
]
