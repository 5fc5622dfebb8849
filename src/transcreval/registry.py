"""The metric registry: every public metric with the facts a user needs to pick and run it.

``list_metrics()`` returns :class:`MetricInfo` entries (filter by domain, paper, extra, needs or
a name pattern); ``transcreval list`` prints them as a table. Importing this module imports no
metric: entries name their class and functional twin by module path, and ``info.load()`` /
``info.load_functional()`` import them on demand. The docs page of each metric
(``docs/metrics/<Name>.md``) starts with a facts table generated from its entry
(:mod:`transcreval.metric_docs`), and the tests check that every public metric is registered,
that every entry imports, that the class attributes agree with the entry, and that every entry
has a page.
"""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DOMAINS = ("image", "text", "multimodal", "layout", "choice", "judge", "ocr", "stats")
PAPERS = {
    "MPTc-Bench": "Lin et al., MPTc-Bench: cross-market movie poster transcreation",
    "Khanuja et al.": "Khanuja et al. 2025, Towards Automatic Evaluation for Image Transcreation",
    "PosterIQ": "Feng et al., PosterIQ: poster understanding and generation benchmark",
    "IMTBench": "Lyu et al., IMTBench: in-image machine translation benchmark",
}
NEEDS = ("weights", "ocr", "judge")

__all__ = ["DOMAINS", "NEEDS", "PAPERS", "MetricInfo", "get_metric", "list_metrics"]


@dataclass(frozen=True)
class MetricInfo:
    """What the registry knows about one metric.

    Attributes:
        name: the class name (``from transcreval import <name>``).
        module: the class's module; the functional twin lives at the mirrored path
            (``transcreval.<domain>.<file>`` -> ``transcreval.functional.<domain>.<file>``).
        functional: the functional twin's name (``from transcreval.functional import <functional>``).
        domain: one of :data:`DOMAINS`.
        paper: a key of :data:`PAPERS`; ``section`` the place in it.
        higher_is_better: direction (None: neither, e.g. a signed gap reported as is).
        value_range: the range of the value.
        extra: the pip extra it needs beyond the core install (``pip install 'transcreval[<extra>]'``).
        needs: what it needs at run time besides inputs: "weights", "ocr", "judge".
        reference: what a test proves it agrees with; ``tolerance`` how closely.
        summary: one line on what it measures.
    """

    name: str
    module: str
    functional: str
    domain: str
    paper: str
    section: str
    higher_is_better: bool | None
    value_range: tuple[float, float]
    summary: str
    reference: str
    tolerance: str
    extra: str | None = None
    needs: tuple[str, ...] = ()

    @property
    def functional_module(self) -> str:
        return "transcreval.functional." + self.module.removeprefix("transcreval.")

    @property
    def doc_page(self) -> str:
        """The page's path relative to the repository root."""
        return f"docs/metrics/{self.name}.md"

    @property
    def install(self) -> str:
        return f"pip install 'transcreval[{self.extra}]'" if self.extra else "pip install transcreval"

    def load(self) -> type:
        """The metric class (imports its module)."""
        cls: type = getattr(importlib.import_module(self.module), self.name)
        return cls

    def load_functional(self) -> Callable[..., Any]:
        """The functional twin (imports its module)."""
        fn: Callable[..., Any] = getattr(importlib.import_module(self.functional_module), self.functional)
        return fn


def _m(
    name: str,
    module: str,
    functional: str,
    paper: str,
    section: str,
    hib: bool | None,
    rng: tuple[float, float],
    summary: str,
    reference: str,
    tolerance: str,
    extra: str | None = None,
    needs: tuple[str, ...] = (),
) -> MetricInfo:
    domain = module.split(".")[0]
    return MetricInfo(
        name,
        f"transcreval.{module}",
        functional,
        domain,
        paper,
        section,
        hib,
        rng,
        summary,
        reference,
        tolerance,
        extra,
        needs,
    )


_POSTERIQ_CODE = "PosterIQ's public evaluation code (mode='posteriq-code')"
# fmt: off
_METRICS: tuple[MetricInfo, ...] = (
    # image
    _m("PHashDistance", "image.phash", "phash_distance", "MPTc-Bench", "§3.2, App. B.2", False, (0.0, 64.0),
       "Hamming distance of 64-bit DCT perceptual hashes; surface/deep edit bands",
       "imagehash.phash (every bit) and imagehash's hash subtraction", "exact"),
    _m("LPIPS", "image.lpips", "lpips", "MPTc-Bench", "App. B.2 (LPIPS: Zhang et al. 2018)", False,
       (0.0, float("inf")), "learned perceptual distance between paired images (alex, vgg or squeeze trunk)",
       "lpips.LPIPS(net=...) on the same weights, per pair", "1e-5", "image", ("weights",)),
    _m("MaskedLPIPS", "image.masked_lpips", "masked_lpips", "IMTBench", "§4, Eq. 3", False, (0.0, float("inf")),
       "LPIPS averaged over the pixels a mask keeps, per layer at the layer's resolution",
       "lpips.LPIPS (all-ones mask, to 1e-6 of LPIPS); lpips' spatial=True map times the mask (mode='upsample')",
       "1e-5", "image", ("weights",)),
    _m("BackgroundPreservation", "image.masked_lpips", "background_preservation", "IMTBench", "§4, Eq. 3 (S_bg)",
       True, (float("-inf"), 1.0), "1 - masked LPIPS over the background (outside the text regions)",
       "1 - the masked average of lpips.LPIPS layer maps, written out from lpips' own outputs", "1e-5",
       "image", ("weights",)),
    _m("FID", "image.fid", "fid", "MPTc-Bench", "§5.3, Table 5 (FID_GT, FID_SRC)", False, (0.0, float("inf")),
       "Frechet distance of Inception-v3 pool features of two image sets (dataset level)",
       "torch_fidelity.calculate_metrics (same weights file, same images); Frechet formula vs scipy sqrtm",
       "1e-3 relative (formula 1e-6)", "image", ("weights",)),
    _m("DINOv2Distance", "image.dinov2_distance", "dinov2_distance", "MPTc-Bench", "App. B.2", False, (0.0, 2.0),
       "mean 1 - cosine of the DINOv2 CLS features of paired images",
       "timm's DINOv2 forward on the same weights file (torch hub or timm layout)", "1e-5", "image", ("weights",)),
    # multimodal
    _m("CLIPSimilarity", "multimodal.embedding_similarity", "clip_similarity", "MPTc-Bench", "§5.3, Table 5", True,
       (-100.0, 100.0), "100 x mean cosine of the CLIP image embeddings of each output and its target image",
       "open_clip encode_image on the same checkpoint", "1e-5 (cosine)", "multimodal", ("weights",)),
    _m("VisualSimilarity", "multimodal.embedding_similarity", "visual_similarity", "Khanuja et al.", "§5.2 (S_v-s)",
       None, (-1.0, 1.0), "mean cosine of the SigLIP image embeddings of each output and its source image",
       "open_clip encode_image on the same checkpoint", "1e-5 (cosine)", "multimodal", ("weights",)),
    _m("CulturalRelevanceDelta", "multimodal.embedding_similarity", "cultural_relevance_delta", "Khanuja et al.",
       "§5.2 (Delta S_c-r)", True, (-2.0, 2.0),
       "how much closer the output's embedding is to a culture prompt than the source's",
       "open_clip encode_image / encode_text on the same checkpoint", "1e-5 (cosine)", "multimodal", ("weights",)),
    _m("SemanticEquivalence", "multimodal.embedding_similarity", "semantic_equivalence", "Khanuja et al.",
       "§5.2 (S_s-e)", True, (-1.0, 1.0), "mean cosine of the output's image embedding and a category prompt",
       "open_clip encode_image / encode_text on the same checkpoint", "1e-5 (cosine)", "multimodal", ("weights",)),
    # text
    _m("TitleChrF", "text.chrf", "title_chrf", "MPTc-Bench", "§5.1, Table 4", True, (0.0, 100.0),
       "mean sentence chrF between the system's title and the reference title",
       "sacrebleu.metrics.CHRF sentence_score / corpus_score", "1e-9"),
    _m("PlanChrF", "text.chrf", "title_chrf", "MPTc-Bench", "§5.1, Fig. 6", True, (0.0, 100.0),
       "mean sentence chrF between the planner's proposed title and the reference title",
       "sacrebleu.metrics.CHRF sentence_score", "1e-9"),
    _m("COMETScore", "text.comet", "comet_score", "IMTBench", "§4, Eq. 2 (S_text)", True,
       (float("-inf"), float("inf")),
       "mean COMET segment score of the system's translations, given sources and references (COMET-22 DA by default)",
       "comet's own load_from_checkpoint + predict on the same checkpoint, any batching, 1/2/4 processes", "1e-6",
       "comet", ("weights",)),
    _m("WordRecall", "text.word_recall", "word_recall", "PosterIQ", "Supp. B, Eq. 2", True, (0.0, 1.0),
       "fraction of the ground truth's 5-character units found in the model's transcription",
       f"Eq. 2 written out independently; {_POSTERIQ_CODE}", "1e-12"),
    _m("OCRAccuracy", "text.ocr_accuracy", "ocr_accuracy", "PosterIQ", "Supp. B, Eq. 1; Table 1", True, (0.0, 1.0),
       "share of text instances (a logo, a poster's texts) transcribed exactly, invisible characters stripped",
       f"Eq. 1 written out independently; {_POSTERIQ_CODE}", "1e-12"),
    _m("OCRRobustnessGap", "text.word_recall", "ocr_robustness_gap", "PosterIQ", "Table 1", False, (-1.0, 1.0),
       "word recall on simple items minus word recall on hard (stylised) items",
       "Table 1's definition on Eq. 2 written out independently", "1e-12"),
    _m("FontSizeStability", "text.word_recall", "font_size_stability", "PosterIQ", "Table 1", False, (0.0, 1.0),
       "standard deviation of the mean word recall across font sizes",
       "statistics.stdev of the per-size means of Eq. 2", "1e-12"),
    # choice
    _m("KOptionScore", "choice.k_option", "k_option_score", "PosterIQ", "Supp. B", True, (0.0, 1.0),
       "chance-normalised multiple-choice accuracy max(0, (k a - 1) / (k - 1))",
       f"the formula; {_POSTERIQ_CODE} with clamp=False", "exact"),
    _m("PointScore", "choice.point_score", "point_score", "PosterIQ", "Eq. 10", True, (0.0, 1.0),
       "fraction of posters whose every annotated key point a judge found covered",
       f"Eq. 10; {_POSTERIQ_CODE}", "1e-12"),
    _m("StyleScore", "choice.style_score", "style_score", "PosterIQ", "Eq. 13", True, (0.0, 1.0),
       "accuracy of the judged style against the target style",
       f"Eq. 13; {_POSTERIQ_CODE}", "1e-12"),
    _m("FontRichness", "choice.font_richness", "font_richness", "PosterIQ", "Eq. 14-15", True, (0.0, 1.0),
       "mean over a font-attribute vocabulary of the fraction of posters showing each attribute",
       f"Eq. 14-15; {_POSTERIQ_CODE}", "exact"),
    # layout
    _m("TextLocalizationIoU", "layout.boxes", "text_localization_iou", "PosterIQ", "Supp. B, Eq. 4", True, (0.0, 1.0),
       "IoU of predicted text boxes with the top-n largest ground-truth boxes",
       f"Eq. 4 written out independently; {_POSTERIQ_CODE}", "1e-12"),
    _m("BoxRecallRate", "layout.boxes", "box_recall_rate", "PosterIQ", "Supp. B, Eq. 5", True, (0.0, 1.0),
       "mean of min(1, boxes returned / boxes asked for)", "Eq. 5", "1e-12"),
    _m("CenterBias", "layout.boxes", "center_bias", "PosterIQ", "Supp. B, Eq. 6", False, (0.0, 2**0.5),
       "mean distance between predicted and ground-truth box centres", f"Eq. 6; {_POSTERIQ_CODE}", "1e-12"),
    _m("AreaRatio", "layout.boxes", "area_ratio", "PosterIQ", "Supp. B, Eq. 7", True, (0.0, 1.0),
       "mean min/max ratio of predicted and ground-truth box areas", f"Eq. 7; {_POSTERIQ_CODE}", "1e-12"),
    _m("PatchIoU", "layout.patches", "patch_iou", "PosterIQ", "Supp. B, Eq. 8", True, (0.0, 1.0),
       "set IoU of predicted and true empty-space patches of a 7x7 grid", f"Eq. 8; {_POSTERIQ_CODE}", "1e-12"),
    _m("MatchAccuracy", "layout.patches", "match_accuracy", "PosterIQ", "Supp. B, Eq. 9", True, (0.0, 1.0),
       "fraction of answers naming as many patches as asked for", f"Eq. 9; {_POSTERIQ_CODE}", "1e-12"),
    # ocr
    _m("OCRMaskIoU", "ocr.mask_iou", "ocr_mask_iou", "MPTc-Bench", "App. B.5, Table 10", True, (0.0, 1.0),
       "IoU of the union masks of OCR-detected text in an output and in its source poster",
       "rapidocr called directly on the same images, polygons filled by shapely's exact point test", "1e-12",
       extra="ocr", needs=("ocr",)),
    # stats
    _m("OverallRatingSimilarity", "stats.rating_similarity", "overall_rating_similarity", "PosterIQ", "Eq. 11-12",
       True, (-1.0, 1.0), "cosine of the zero-mean model and human score vectors (Pearson r)",
       f"Pearson's r of the readable pairs; {_POSTERIQ_CODE}", "1e-12"),
    _m("SpearmanRho", "stats.spearman", "spearman_rho", "MPTc-Bench", "App. B.4", True, (-1.0, 1.0),
       "Spearman rank correlation, with an optional seeded bootstrap interval",
       "scipy.stats.spearmanr", "1e-12"),
    _m("QuadraticWeightedKappa", "stats.kappa", "quadratic_weighted_kappa", "MPTc-Bench", "App. B.3",
       True, (-1.0, 1.0), "Cohen's quadratic-weighted kappa between two raters' ordinal scores (annotator agreement)",
       "sklearn.metrics.cohen_kappa_score(weights='quadratic')", "1e-12"),
    _m("SeparabilityAUC", "stats.separability", "separability_auc", "MPTc-Bench", "App. B.2", True, (0.0, 1.0),
       "ROC AUC of a distance for telling deep from surface edits",
       "scipy.stats.mannwhitneyu U / (n1 n2) and sklearn.metrics.roc_auc_score", "1e-12"),
    _m("SegmentKendallTau", "stats.kendall", "segment_kendall_tau", "Khanuja et al.", "§5", True, (-1.0, 1.0),
       "per-image Kendall tau-b between a metric and human ratings, averaged per country",
       "scipy.stats.kendalltau (tau-b) per segment", "1e-12"),
    # judge (VLM/LLM judges: transcreval.judge)
    _m("TitleExtraction", "judge.title_extraction", "title_extraction", "MPTc-Bench", "§5.1, Table 4, App. A.2", True,
       (0.0, 100.0), "chrF between the titles a VLM judge reads off the system's and the human target-market posters",
       "sacrebleu.metrics.CHRF sentence_score / corpus_score on the titles a scripted judge reads", "1e-9",
       "judge", ("judge",)),
    _m("QuizHitRate", "judge.quiz_hit_rate", "quiz_hit_rate", "MPTc-Bench", "§5.1, Table 4, App. A.2", True,
       (0.0, 100.0), "a judge's hit rate (%) on shuffled multiple-choice genre or decade quizzes about the poster",
       "the hit rate of a scripted judge's intended answers, options shuffled and mapped back", "1e-12",
       "judge", ("judge",)),
    _m("JudgeScore", "judge.judge_score", "judge_score", "MPTc-Bench", "§5.2, Table 3, App. A.2", True, (1.0, 5.0),
       "a judge's 1-5 score of the system's poster for aesthetics or target-market adaptation",
       "the mean of a scripted judge's intended scores (failures left out)", "1e-12", "judge", ("judge",)),
    _m("WinRate", "judge.win_rate", "win_rate", "MPTc-Bench", "§5.2, Table 3, App. A.2", True, (0.0, 100.0),
       "rate (%) at which a judge prefers the system's poster to the human one (seeded order; both orders: ties)",
       "the rate of a scripted judge's intended preferences, in both presentation orders", "1e-12",
       "judge", ("judge",)),
    _m("MarketPreferenceRate", "judge.win_rate", "market_preference_rate", "MPTc-Bench", "§5.2, Fig. 4, App. A.2",
       True, (0.0, 100.0), "judge validation: rate (%) of preferring the target market's poster to another market's",
       "the rate of a scripted judge's intended preferences", "1e-12", "judge", ("judge",)),
    # direction None: higher is better for aspect="intent" and "cultural", neither for "creativity"
    _m("VLMTranscreationScore", "judge.transcreation_score", "transcreation_score", "Khanuja et al.",
       "§4.3, §5.3, App. A", None, (1.0, 5.0),
       "a VLM's 1-5 score of intent (same category), creativity (visual change) or cultural relevance",
       "the mean of a scripted judge's intended scores (failures left out)", "1e-12", "judge", ("judge",)),
    _m("CSIOverlap", "judge.csi_overlap", "csi_overlap", "Khanuja et al.", "§5.1, App. A", True, (0.0, 1.0),
       "share of the source's culture-specific items replaced validly (objects, replacements, matching by a judge)",
       "the per-image shares of a scripted judge's objects, replacements and matches", "1e-12",
       "judge", ("judge",)),
    _m("HarmonizationScore", "judge.imtbench", "harmonization_score", "IMTBench", "§4, Eq. 4, App. A.3", True,
       (0.0, 1.0), "S_vis: a judge's 0-10 naturalness of the translated image, / 10",
       "the mean of a scripted judge's intended scores / 10", "1e-12", "judge", ("judge",)),
    _m("AlignmentScore", "judge.imtbench", "alignment_score", "IMTBench", "§4, Eq. 5, App. A.3", True, (0.0, 1.0),
       "S_align: a judge's 0-10 agreement of the image's rendered text with the system's translation, / 10",
       "the mean of a scripted judge's intended scores / 10", "1e-12", "judge", ("judge",)),
    _m("IMTBenchScore", "judge.imtbench_score", "imtbench_score", "IMTBench", "§4, Eq. 6, Table 2", True,
       (float("-inf"), float("inf")),
       "S: per item the mean of S_text (COMET), S_bg (masked LPIPS), S_align and S_vis (judge) where all four exist",
       "Eq. 6 on per-item values from comet's predict, lpips-layout LPIPS maps and a scripted judge", "1e-6",
       "imtbench", ("weights", "ocr", "judge")),
    _m("JudgedPointScore", "judge.posteriq", "judged_point_score", "PosterIQ", "Eq. 10", True, (0.0, 1.0),
       "point score with a judge checking every key point of a poster (image) or of its description (text)",
       "transcreval.functional.point_score on a scripted judge's verdicts", "1e-12", "judge", ("judge",)),
    _m("JudgedStyleScore", "judge.posteriq", "judged_style_score", "PosterIQ", "Eq. 13", True, (0.0, 1.0),
       "style score with a judge classifying each poster into the style list",
       "transcreval.functional.style_score on a scripted judge's labels", "1e-12", "judge", ("judge",)),
    _m("JudgedFontRichness", "judge.posteriq", "judged_font_richness", "PosterIQ", "Eq. 14-15", True, (0.0, 1.0),
       "font richness with a judge naming each poster's font attributes from the vocabulary",
       "transcreval.functional.font_richness on a scripted judge's attributes", "1e-12", "judge", ("judge",)),
)
# fmt: on

_BY_NAME = {m.name: m for m in _METRICS}


def _check_registry() -> None:
    for m in _METRICS:
        if m.domain not in DOMAINS:
            raise AssertionError(f"{m.name}: unknown domain {m.domain!r}")
        if m.paper not in PAPERS:
            raise AssertionError(f"{m.name}: unknown paper {m.paper!r}")
        if not set(m.needs) <= set(NEEDS):
            raise AssertionError(f"{m.name}: unknown needs {m.needs}")
    if len(_BY_NAME) != len(_METRICS):
        raise AssertionError("two registry entries share a name")


_check_registry()


def get_metric(name: str) -> MetricInfo:
    """The entry of one metric by class name (KeyError naming the known ones otherwise)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no metric named {name!r}; known: {', '.join(sorted(_BY_NAME))}") from None


def list_metrics(
    *,
    domain: str | None = None,
    paper: str | None = None,
    extra: str | None = None,
    needs: str | None = None,
    name: str | None = None,
) -> list[MetricInfo]:
    """Registered metrics, optionally filtered.

    Args:
        domain: one of :data:`DOMAINS`.
        paper: a paper key (see :data:`PAPERS`), matched case-insensitively as a prefix.
        extra: the pip extra ("core" for metrics that need none).
        needs: "weights", "ocr", "judge", or "nothing" for metrics that need none of them.
        name: a shell pattern on the class name, e.g. ``"*chrf"`` (case-insensitive).
    """
    if domain is not None and domain not in DOMAINS:
        raise ValueError(f"domain must be one of {DOMAINS}, got {domain!r}")
    if needs is not None and needs not in (*NEEDS, "nothing"):
        raise ValueError(f"needs must be one of {(*NEEDS, 'nothing')}, got {needs!r}")
    out = []
    for m in _METRICS:
        if domain is not None and m.domain != domain:
            continue
        if paper is not None and not m.paper.lower().startswith(paper.lower()):
            continue
        if extra is not None and (m.extra or "core") != extra:
            continue
        if needs is not None and (needs not in m.needs if needs != "nothing" else bool(m.needs)):
            continue
        if name is not None and not fnmatch.fnmatchcase(m.name.lower(), name.lower()):
            continue
        out.append(m)
    return out
