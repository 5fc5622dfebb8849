"""Pure functions: every metric's functional twin, at the path that mirrors its class.

``transcreval.text.chrf.TitleChrF`` <-> ``transcreval.functional.text.chrf.title_chrf``; every
name is also importable from here (``from transcreval.functional import title_chrf``). Names
load lazily, so importing this package imports no metric module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from transcreval.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from transcreval.functional.choice.font_richness import font_richness as font_richness
    from transcreval.functional.choice.k_option import k_option_score as k_option_score
    from transcreval.functional.choice.point_score import point_score as point_score
    from transcreval.functional.choice.point_score import point_score_per_point as point_score_per_point
    from transcreval.functional.choice.style_score import style_score as style_score
    from transcreval.functional.image.dinov2_distance import dinov2_distance as dinov2_distance
    from transcreval.functional.image.edit_intensity import edit_intensity_split as edit_intensity_split
    from transcreval.functional.image.fid import fid as fid
    from transcreval.functional.image.frechet import frechet_distance as frechet_distance
    from transcreval.functional.image.hashing import hamming_distance as hamming_distance
    from transcreval.functional.image.hashing import phash as phash
    from transcreval.functional.image.hashing import phash_bits as phash_bits
    from transcreval.functional.image.hashing import phash_hex as phash_hex
    from transcreval.functional.image.lpips import lpips as lpips
    from transcreval.functional.image.lpips import lpips_per_pair as lpips_per_pair
    from transcreval.functional.image.masked_lpips import background_preservation as background_preservation
    from transcreval.functional.image.masked_lpips import (
        background_preservation_per_pair as background_preservation_per_pair,
    )
    from transcreval.functional.image.masked_lpips import masked_lpips as masked_lpips
    from transcreval.functional.image.masked_lpips import masked_lpips_per_pair as masked_lpips_per_pair
    from transcreval.functional.image.phash import phash_distance as phash_distance
    from transcreval.functional.image.phash import phash_distances as phash_distances
    from transcreval.functional.judge.csi_overlap import csi_overlap as csi_overlap
    from transcreval.functional.judge.imtbench import alignment_score as alignment_score
    from transcreval.functional.judge.imtbench import harmonization_score as harmonization_score
    from transcreval.functional.judge.imtbench_score import imtbench_score as imtbench_score
    from transcreval.functional.judge.judge_score import judge_score as judge_score
    from transcreval.functional.judge.posteriq import judged_font_richness as judged_font_richness
    from transcreval.functional.judge.posteriq import judged_point_score as judged_point_score
    from transcreval.functional.judge.posteriq import judged_style_score as judged_style_score
    from transcreval.functional.judge.quiz_hit_rate import quiz_hit_rate as quiz_hit_rate
    from transcreval.functional.judge.title_extraction import title_extraction as title_extraction
    from transcreval.functional.judge.transcreation_score import transcreation_score as transcreation_score
    from transcreval.functional.judge.win_rate import market_preference_rate as market_preference_rate
    from transcreval.functional.judge.win_rate import win_rate as win_rate
    from transcreval.functional.layout.boxes import area_ratio as area_ratio
    from transcreval.functional.layout.boxes import box_recall_rate as box_recall_rate
    from transcreval.functional.layout.boxes import center_bias as center_bias
    from transcreval.functional.layout.boxes import text_localization_iou as text_localization_iou
    from transcreval.functional.layout.patches import match_accuracy as match_accuracy
    from transcreval.functional.layout.patches import patch_iou as patch_iou
    from transcreval.functional.multimodal.embedding_similarity import clip_similarity as clip_similarity
    from transcreval.functional.multimodal.embedding_similarity import (
        cultural_relevance_delta as cultural_relevance_delta,
    )
    from transcreval.functional.multimodal.embedding_similarity import semantic_equivalence as semantic_equivalence
    from transcreval.functional.multimodal.embedding_similarity import visual_similarity as visual_similarity
    from transcreval.functional.ocr.mask_iou import ocr_mask_iou as ocr_mask_iou
    from transcreval.functional.ocr.mask_iou import ocr_mask_ious as ocr_mask_ious
    from transcreval.functional.stats.kappa import quadratic_weighted_kappa as quadratic_weighted_kappa
    from transcreval.functional.stats.kendall import kendall_tau_b as kendall_tau_b
    from transcreval.functional.stats.kendall import segment_kendall_tau as segment_kendall_tau
    from transcreval.functional.stats.rating_similarity import overall_rating_similarity as overall_rating_similarity
    from transcreval.functional.stats.separability import separability_auc as separability_auc
    from transcreval.functional.stats.separability import threshold_sweep as threshold_sweep
    from transcreval.functional.stats.spearman import spearman_rho as spearman_rho
    from transcreval.functional.text.chrf import corpus_chrf as corpus_chrf
    from transcreval.functional.text.chrf import plan_chrf as plan_chrf
    from transcreval.functional.text.chrf import sentence_chrf as sentence_chrf
    from transcreval.functional.text.chrf import title_chrf as title_chrf
    from transcreval.functional.text.comet import comet_score as comet_score
    from transcreval.functional.text.ocr_accuracy import ocr_accuracy as ocr_accuracy
    from transcreval.functional.text.word_recall import font_size_stability as font_size_stability
    from transcreval.functional.text.word_recall import ocr_robustness_gap as ocr_robustness_gap
    from transcreval.functional.text.word_recall import word_recall as word_recall

__all__, __getattr__, __dir__ = lazy_exports(globals())
