"""MPTc-Bench (Lin et al.): every table of the paper from a system's raw outputs.

Inputs are two lists of records (JSONL-friendly; the format is in
:mod:`transcreval.protocols.mptc.schema` and ``docs/protocols/mptc.md``): one per benchmark
item (SRC and GT posters, markets, genre, release year) and one per system output (item id,
planner, editor, the MTc poster, the plan text, optional human error labels). :func:`load`
checks them once and splits the items into Surface and Deep by the pHash distance of SRC and
GT; every table function takes its :class:`MPTcSet`.

Entry points (each returns a :class:`~transcreval.protocols.records.ProtocolResult`):

* :func:`judge_tables`: Tables 3 and 4 (and Fig. 6's plan-to-render loss) with the GT reference
  row: quiz hit rates, title and plan chrF, aesthetic and adaptation scores, win rate; one joint
  judge call for both scores by default (``judge_call="separate"``: one call per score).
* :func:`similarity_table`: Table 5 (CLIP, FID_GT, FID_SRC).
* :func:`ocr_tables`: Table 10 (OCR text-mask IoU) and the OCR title baseline.
* :func:`error_type_table`: App. B.3's error-type rates per task from human labels.
* :func:`temporal_table`: App. B.4's Table 9 (release year vs title chrF and per-year FID_GT).
* :func:`cross_cluster_tables`: §7.4 / Fig. 7 (GLOBE transfer directions).
* :func:`human_table`: App. B.3's Table 8 (human means, win rate, annotation counts) and its
  agreement figures (inter-annotator QWK, human-judge Spearman rho) from a ratings file.
* :func:`market_validation`: §5.2's judge validation (Fig. 4 and a summary table) from a file of
  market-preference pairs (:func:`read_market_pairs`: a target-market and a distractor poster).
* :func:`evaluate`: all of the above that the items and outputs allow (not the two that read
  files of their own, ratings and pairs), in one result, with Fig. 3, 8 and 9 in
  ``result.figures`` (:mod:`~transcreval.protocols.mptc.figures`: also Fig. 4 from
  market-preference records and Fig. 11 from :func:`edit_intensity_study`).

The building blocks: :func:`edit_intensity_study` (App. B.2), :func:`similarity_metrics` (the
Table 5 collection), :func:`plan_to_render_loss` (Fig. 6), :func:`ocr_iou_table` (Table 10 from
aligned lists), :func:`plan_title`, :func:`globe_cluster` and :func:`transfer_direction`.

Layout: inputs (``inputs``, ``schema``, ``globe``), per-item scoring (``judged``: the judge's
answers; ``ocr_iou``: the OCR text masks; ``study``: the similarity collection), tables
(``tables``, ``ocr_tables``, ``analyses``), :mod:`~transcreval.protocols.mptc.pipeline`
(:func:`evaluate`) and :mod:`~transcreval.protocols.mptc.runner` (the adapter of ``transcreval
evaluate --protocol mptc``, whose units and tables call the same scoring and table builders).
"""

from __future__ import annotations

from transcreval.protocols.mptc.analyses import cross_cluster_tables, error_type_table, temporal_table
from transcreval.protocols.mptc.figures import (
    fig3_phash_hist,
    fig4_market_preference,
    fig8_globe_transitions,
    fig9_phash_by_direction,
    fig11_distributions,
    set_figures,
)
from transcreval.protocols.mptc.globe import DIRECTIONS, GLOBE_CLUSTERS, globe_cluster, transfer_direction
from transcreval.protocols.mptc.human_eval import human_table
from transcreval.protocols.mptc.inputs import (
    ERROR_TYPES,
    MPTcItem,
    MPTcOutput,
    MPTcSet,
    load,
    plan_title,
    read_items,
    read_outputs,
    system_name,
)
from transcreval.protocols.mptc.market import market_table, market_validation
from transcreval.protocols.mptc.market_pairs import PAIR_FIELDS, MarketPair, read_market_pairs
from transcreval.protocols.mptc.ocr_tables import ocr_tables
from transcreval.protocols.mptc.pipeline import evaluate
from transcreval.protocols.mptc.ratings import RATING_FIELDS, HumanRating, read_ratings
from transcreval.protocols.mptc.scoring.judged import judge_records
from transcreval.protocols.mptc.scoring.ocr_iou import OCRIoURow, format_ocr_iou_table, ocr_iou_table
from transcreval.protocols.mptc.scoring.study import (
    EditIntensityStudy,
    edit_intensity_study,
    format_edit_intensity,
    plan_to_render_loss,
    similarity_metrics,
)
from transcreval.protocols.mptc.tables import judge_tables, merge_results, similarity_table

__all__ = [
    "DIRECTIONS",
    "ERROR_TYPES",
    "GLOBE_CLUSTERS",
    "PAIR_FIELDS",
    "RATING_FIELDS",
    "EditIntensityStudy",
    "HumanRating",
    "MPTcItem",
    "MPTcOutput",
    "MPTcSet",
    "MarketPair",
    "OCRIoURow",
    "cross_cluster_tables",
    "edit_intensity_study",
    "error_type_table",
    "evaluate",
    "fig3_phash_hist",
    "fig4_market_preference",
    "fig8_globe_transitions",
    "fig9_phash_by_direction",
    "fig11_distributions",
    "format_edit_intensity",
    "format_ocr_iou_table",
    "globe_cluster",
    "human_table",
    "judge_records",
    "judge_tables",
    "load",
    "market_table",
    "market_validation",
    "merge_results",
    "ocr_iou_table",
    "ocr_tables",
    "plan_title",
    "plan_to_render_loss",
    "read_items",
    "read_market_pairs",
    "read_outputs",
    "read_ratings",
    "set_figures",
    "similarity_metrics",
    "similarity_table",
    "system_name",
    "temporal_table",
    "transfer_direction",
]
