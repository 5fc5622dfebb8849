"""Pure functions: every metric's functional twin, at the path that mirrors its class.

``transcreval.text.chrf.TitleChrF`` <-> ``transcreval.functional.text.chrf.title_chrf``; every
name is also importable from here (``from transcreval.functional import title_chrf``). Names
load lazily, so importing this package imports no metric module.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from transcreval.registry import list_metrics as _list_metrics

_HELPERS: dict[str, str] = {
    "phash": "image.phash",
    "phash_bits": "image.phash",
    "phash_hex": "image.phash",
    "hamming_distance": "image.phash",
    "edit_intensity_split": "image.phash",
    "sentence_chrf": "text.chrf",
    "corpus_chrf": "text.chrf",
    "point_score_per_point": "choice.point_score",
    "kendall_tau_b": "stats.kendall",
    "threshold_sweep": "stats.separability",
    "frechet_distance": "image.frechet",
}
_LAZY: dict[str, str] = {
    **{m.functional: m.functional_module for m in _list_metrics()},
    **{k: f"transcreval.functional.{v}" for k, v in _HELPERS.items()},
    "posteriq_summary": "transcreval.protocols.posteriq",
    "edit_intensity_study": "transcreval.protocols.mptc",
}

__all__ = [
    "alignment_score",
    "area_ratio",
    "background_preservation",
    "box_recall_rate",
    "center_bias",
    "clip_similarity",
    "comet_score",
    "corpus_chrf",
    "csi_overlap",
    "cultural_relevance_delta",
    "dinov2_distance",
    "edit_intensity_split",
    "edit_intensity_study",
    "fid",
    "font_richness",
    "font_size_stability",
    "frechet_distance",
    "hamming_distance",
    "harmonization_score",
    "imtbench_score",
    "judge_score",
    "judged_font_richness",
    "judged_point_score",
    "judged_style_score",
    "k_option_score",
    "kendall_tau_b",
    "lpips",
    "market_preference_rate",
    "masked_lpips",
    "match_accuracy",
    "ocr_accuracy",
    "ocr_mask_iou",
    "ocr_robustness_gap",
    "overall_rating_similarity",
    "patch_iou",
    "phash",
    "phash_bits",
    "phash_distance",
    "phash_hex",
    "point_score",
    "point_score_per_point",
    "posteriq_summary",
    "quadratic_weighted_kappa",
    "quiz_hit_rate",
    "segment_kendall_tau",
    "semantic_equivalence",
    "sentence_chrf",
    "separability_auc",
    "spearman_rho",
    "style_score",
    "text_localization_iou",
    "threshold_sweep",
    "title_chrf",
    "title_extraction",
    "transcreation_score",
    "visual_similarity",
    "win_rate",
    "word_recall",
]

if TYPE_CHECKING:
    from transcreval.functional.choice.font_richness import font_richness
    from transcreval.functional.choice.k_option import k_option_score
    from transcreval.functional.choice.point_score import point_score, point_score_per_point
    from transcreval.functional.choice.style_score import style_score
    from transcreval.functional.image.dinov2_distance import dinov2_distance
    from transcreval.functional.image.fid import fid
    from transcreval.functional.image.frechet import frechet_distance
    from transcreval.functional.image.lpips import lpips
    from transcreval.functional.image.masked_lpips import background_preservation, masked_lpips
    from transcreval.functional.image.phash import (
        edit_intensity_split,
        hamming_distance,
        phash,
        phash_bits,
        phash_distance,
        phash_hex,
    )
    from transcreval.functional.judge.csi_overlap import csi_overlap
    from transcreval.functional.judge.imtbench import alignment_score, harmonization_score
    from transcreval.functional.judge.imtbench_score import imtbench_score
    from transcreval.functional.judge.judge_score import judge_score
    from transcreval.functional.judge.posteriq import judged_font_richness, judged_point_score, judged_style_score
    from transcreval.functional.judge.quiz_hit_rate import quiz_hit_rate
    from transcreval.functional.judge.title_extraction import title_extraction
    from transcreval.functional.judge.transcreation_score import transcreation_score
    from transcreval.functional.judge.win_rate import market_preference_rate, win_rate
    from transcreval.functional.layout.boxes import area_ratio, box_recall_rate, center_bias, text_localization_iou
    from transcreval.functional.layout.patches import match_accuracy, patch_iou
    from transcreval.functional.multimodal.embedding_similarity import (
        clip_similarity,
        cultural_relevance_delta,
        semantic_equivalence,
        visual_similarity,
    )
    from transcreval.functional.ocr.mask_iou import ocr_mask_iou
    from transcreval.functional.stats.kappa import quadratic_weighted_kappa
    from transcreval.functional.stats.kendall import kendall_tau_b, segment_kendall_tau
    from transcreval.functional.stats.rating_similarity import overall_rating_similarity
    from transcreval.functional.stats.separability import separability_auc, threshold_sweep
    from transcreval.functional.stats.spearman import spearman_rho
    from transcreval.functional.text.chrf import corpus_chrf, sentence_chrf, title_chrf
    from transcreval.functional.text.comet import comet_score
    from transcreval.functional.text.ocr_accuracy import ocr_accuracy
    from transcreval.functional.text.word_recall import font_size_stability, ocr_robustness_gap, word_recall
    from transcreval.protocols.mptc import edit_intensity_study
    from transcreval.protocols.posteriq import posteriq_summary


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'transcreval.functional' has no attribute {name!r}")


def __dir__() -> list[str]:
    return list(__all__)
