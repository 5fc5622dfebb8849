"""The metric registry: every public metric with the facts a user needs to pick and run it.

``list_metrics()`` returns :class:`MetricInfo` entries (filter by domain, paper, extra, needs or
a name pattern); ``transcreval list`` prints them as a table. Importing this module imports no
metric: entries name their class and functional twin by module path, and ``info.load()`` /
``info.load_functional()`` import them on demand. The docs page of each metric
(``docs/metrics/<Name>.md``) starts with a facts table generated from its entry
(:mod:`transcreval.core.metric_docs`), and the tests check that every public metric is registered,
that every entry imports, and that every entry has a page. A metric's direction and range are
written here only: :class:`~transcreval.core.metric.Metric` sets the class attributes
``higher_is_better`` and ``value_range`` of a registered class from its entry.
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

__all__ = ["DOMAINS", "NEEDS", "PAPERS", "MetricInfo", "get_metric", "list_metrics", "take_registry_facts"]


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
        differentiable: its per-item values are a differentiable function of float image inputs
            (autograd reaches ``preds`` through the functional per-item values; the class's
            accumulated states and results are plain numbers either way).
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
    differentiable: bool = False

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


def _m(*, module: str, **fields: Any) -> MetricInfo:
    """An entry; ``module`` is relative to ``transcreval`` and names the domain (``"image.phash"``)."""
    return MetricInfo(module=f"transcreval.{module}", domain=module.split(".")[0], **fields)


_POSTERIQ_CODE = "PosterIQ's public evaluation code (mode='posteriq-code')"
# fmt: off
_METRICS: tuple[MetricInfo, ...] = (
    # image
    _m(name="PHashDistance", module="image.phash", functional="phash_distance", paper="MPTc-Bench",
       section="§3.2, App. B.2", higher_is_better=False, value_range=(0.0, 64.0),
       summary="Hamming distance of 64-bit DCT perceptual hashes; surface/deep edit bands",
       reference="imagehash.phash (every bit) and imagehash's hash subtraction", tolerance="exact"),
    _m(name="LPIPS", module="image.lpips", functional="lpips", paper="MPTc-Bench",
       section="App. B.2 (LPIPS: Zhang et al. 2018)", higher_is_better=False, value_range=(0.0, float("inf")),
       summary="learned perceptual distance between paired images (alex, vgg or squeeze trunk)",
       reference="lpips.LPIPS(net=...) on the same weights, per pair", tolerance="1e-5", extra="image",
       needs=("weights",), differentiable=True),
    _m(name="MaskedLPIPS", module="image.masked_lpips", functional="masked_lpips", paper="IMTBench",
       section="§4, Eq. 3", higher_is_better=False, value_range=(0.0, float("inf")),
       summary="LPIPS averaged over the pixels a mask keeps, per layer at the layer's resolution",
       reference="lpips.LPIPS (all-ones mask, to 1e-6 of LPIPS); lpips' spatial=True map times the mask "
                 "(mode='upsample')",
       tolerance="1e-5", extra="image", needs=("weights",), differentiable=True),
    _m(name="BackgroundPreservation", module="image.masked_lpips", functional="background_preservation",
       paper="IMTBench", section="§4, Eq. 3 (S_bg)", higher_is_better=True, value_range=(float("-inf"), 1.0),
       summary="1 - masked LPIPS over the background (outside the text regions)",
       reference="1 - the masked average of lpips.LPIPS layer maps, written out from lpips' own outputs",
       tolerance="1e-5", extra="image", needs=("weights",), differentiable=True),
    _m(name="FID", module="image.fid", functional="fid", paper="MPTc-Bench", section="§5.3, Table 5 (FID_GT, FID_SRC)",
       higher_is_better=False, value_range=(0.0, float("inf")),
       summary="Frechet distance of Inception-v3 pool features of two image sets (dataset level)",
       reference="torch_fidelity.calculate_metrics (same weights file, same images); Frechet formula vs scipy sqrtm",
       tolerance="1e-3 relative (formula 1e-6)", extra="image", needs=("weights",)),
    _m(name="DINOv2Distance", module="image.dinov2_distance", functional="dinov2_distance", paper="MPTc-Bench",
       section="App. B.2", higher_is_better=False, value_range=(0.0, 2.0),
       summary="mean 1 - cosine of the DINOv2 CLS features of paired images",
       reference="timm's DINOv2 forward on the same weights file (torch hub or timm layout)", tolerance="1e-5",
       extra="image", needs=("weights",)),
    # multimodal
    _m(name="CLIPSimilarity", module="multimodal.embedding_similarity", functional="clip_similarity",
       paper="MPTc-Bench", section="§5.3, Table 5", higher_is_better=True, value_range=(-100.0, 100.0),
       summary="100 x mean cosine of the CLIP image embeddings of each output and its target image",
       reference="open_clip encode_image on the same checkpoint", tolerance="1e-5 (cosine)", extra="multimodal",
       needs=("weights",)),
    _m(name="VisualSimilarity", module="multimodal.embedding_similarity", functional="visual_similarity",
       paper="Khanuja et al.", section="§5.2 (S_v-s)", higher_is_better=None, value_range=(-1.0, 1.0),
       summary="mean cosine of the SigLIP image embeddings of each output and its source image",
       reference="open_clip encode_image on the same checkpoint", tolerance="1e-5 (cosine)", extra="multimodal",
       needs=("weights",)),
    _m(name="CulturalRelevanceDelta", module="multimodal.embedding_similarity", functional="cultural_relevance_delta",
       paper="Khanuja et al.", section="§5.2 (Delta S_c-r)", higher_is_better=True, value_range=(-2.0, 2.0),
       summary="how much closer the output's embedding is to a culture prompt than the source's",
       reference="open_clip encode_image / encode_text on the same checkpoint", tolerance="1e-5 (cosine)",
       extra="multimodal", needs=("weights",)),
    _m(name="SemanticEquivalence", module="multimodal.embedding_similarity", functional="semantic_equivalence",
       paper="Khanuja et al.", section="§5.2 (S_s-e)", higher_is_better=True, value_range=(-1.0, 1.0),
       summary="mean cosine of the output's image embedding and a category prompt",
       reference="open_clip encode_image / encode_text on the same checkpoint", tolerance="1e-5 (cosine)",
       extra="multimodal", needs=("weights",)),
    # text
    _m(name="TitleChrF", module="text.chrf", functional="title_chrf", paper="MPTc-Bench", section="§5.1, Table 4",
       higher_is_better=True, value_range=(0.0, 100.0),
       summary="mean sentence chrF between the system's title and the reference title",
       reference="sacrebleu.metrics.CHRF sentence_score / corpus_score", tolerance="1e-9"),
    _m(name="PlanChrF", module="text.chrf", functional="plan_chrf", paper="MPTc-Bench", section="§5.1, Fig. 6",
       higher_is_better=True, value_range=(0.0, 100.0),
       summary="mean sentence chrF between the planner's proposed title and the reference title",
       reference="sacrebleu.metrics.CHRF sentence_score", tolerance="1e-9"),
    _m(name="COMETScore", module="text.comet", functional="comet_score", paper="IMTBench",
       section="§4, Eq. 2 (S_text)", higher_is_better=True, value_range=(float("-inf"), float("inf")),
       summary="mean COMET segment score of the system's translations, given sources and references "
               "(COMET-22 DA by default)",
       reference="comet's own load_from_checkpoint + predict on the same checkpoint, any batching, 1/2/4 processes",
       tolerance="1e-6", extra="comet", needs=("weights",)),
    _m(name="WordRecall", module="text.word_recall", functional="word_recall", paper="PosterIQ",
       section="Supp. B, Eq. 2", higher_is_better=True, value_range=(0.0, 1.0),
       summary="fraction of the ground truth's 5-character units found in the model's transcription",
       reference=f"Eq. 2 written out independently; {_POSTERIQ_CODE}", tolerance="1e-12"),
    _m(name="OCRAccuracy", module="text.ocr_accuracy", functional="ocr_accuracy", paper="PosterIQ",
       section="Supp. B, Eq. 1; Table 1", higher_is_better=True, value_range=(0.0, 1.0),
       summary="share of text instances (a logo, a poster's texts) transcribed exactly, invisible characters stripped",
       reference=f"Eq. 1 written out independently; {_POSTERIQ_CODE}", tolerance="1e-12"),
    _m(name="OCRRobustnessGap", module="text.word_recall", functional="ocr_robustness_gap", paper="PosterIQ",
       section="Table 1", higher_is_better=False, value_range=(-1.0, 1.0),
       summary="word recall on simple items minus word recall on hard (stylised) items",
       reference="Table 1's definition on Eq. 2 written out independently", tolerance="1e-12"),
    _m(name="FontSizeStability", module="text.word_recall", functional="font_size_stability", paper="PosterIQ",
       section="Table 1", higher_is_better=False, value_range=(0.0, 1.0),
       summary="standard deviation of the mean word recall across font sizes",
       reference="statistics.stdev of the per-size means of Eq. 2", tolerance="1e-12"),
    # choice
    _m(name="KOptionScore", module="choice.k_option", functional="k_option_score", paper="PosterIQ", section="Supp. B",
       higher_is_better=True, value_range=(0.0, 1.0),
       summary="chance-normalised multiple-choice accuracy max(0, (k a - 1) / (k - 1))",
       reference=f"the formula; {_POSTERIQ_CODE} with clamp=False", tolerance="exact"),
    _m(name="PointScore", module="choice.point_score", functional="point_score", paper="PosterIQ", section="Eq. 10",
       higher_is_better=True, value_range=(0.0, 1.0),
       summary="fraction of posters whose every annotated key point a judge found covered",
       reference=f"Eq. 10; {_POSTERIQ_CODE}", tolerance="1e-12"),
    _m(name="StyleScore", module="choice.style_score", functional="style_score", paper="PosterIQ", section="Eq. 13",
       higher_is_better=True, value_range=(0.0, 1.0), summary="accuracy of the judged style against the target style",
       reference=f"Eq. 13; {_POSTERIQ_CODE}", tolerance="1e-12"),
    _m(name="FontRichness", module="choice.font_richness", functional="font_richness", paper="PosterIQ",
       section="Eq. 14-15", higher_is_better=True, value_range=(0.0, 1.0),
       summary="mean over a font-attribute vocabulary of the fraction of posters showing each attribute",
       reference=f"Eq. 14-15; {_POSTERIQ_CODE}", tolerance="exact"),
    # layout
    _m(name="TextLocalizationIoU", module="layout.boxes", functional="text_localization_iou", paper="PosterIQ",
       section="Supp. B, Eq. 4", higher_is_better=True, value_range=(0.0, 1.0),
       summary="IoU of predicted text boxes with the top-n largest ground-truth boxes",
       reference=f"Eq. 4 written out independently; {_POSTERIQ_CODE}", tolerance="1e-12"),
    _m(name="BoxRecallRate", module="layout.boxes", functional="box_recall_rate", paper="PosterIQ",
       section="Supp. B, Eq. 5", higher_is_better=True, value_range=(0.0, 1.0),
       summary="mean of min(1, boxes returned / boxes asked for)", reference="Eq. 5", tolerance="1e-12"),
    _m(name="CenterBias", module="layout.boxes", functional="center_bias", paper="PosterIQ", section="Supp. B, Eq. 6",
       higher_is_better=False, value_range=(0.0, 2**0.5),
       summary="mean distance between predicted and ground-truth box centres", reference=f"Eq. 6; {_POSTERIQ_CODE}",
       tolerance="1e-12"),
    _m(name="AreaRatio", module="layout.boxes", functional="area_ratio", paper="PosterIQ", section="Supp. B, Eq. 7",
       higher_is_better=True, value_range=(0.0, 1.0),
       summary="mean min/max ratio of predicted and ground-truth box areas", reference=f"Eq. 7; {_POSTERIQ_CODE}",
       tolerance="1e-12"),
    _m(name="PatchIoU", module="layout.patches", functional="patch_iou", paper="PosterIQ", section="Supp. B, Eq. 8",
       higher_is_better=True, value_range=(0.0, 1.0),
       summary="set IoU of predicted and true empty-space patches of a 7x7 grid", reference=f"Eq. 8; {_POSTERIQ_CODE}",
       tolerance="1e-12"),
    _m(name="MatchAccuracy", module="layout.patches", functional="match_accuracy", paper="PosterIQ",
       section="Supp. B, Eq. 9", higher_is_better=True, value_range=(0.0, 1.0),
       summary="fraction of answers naming as many patches as asked for", reference=f"Eq. 9; {_POSTERIQ_CODE}",
       tolerance="1e-12"),
    # ocr
    _m(name="OCRMaskIoU", module="ocr.mask_iou", functional="ocr_mask_iou", paper="MPTc-Bench",
       section="App. B.5, Table 10", higher_is_better=True, value_range=(0.0, 1.0),
       summary="IoU of the union masks of OCR-detected text in an output and in its source poster",
       reference="rapidocr called directly on the same images, polygons filled by shapely's exact point test",
       tolerance="1e-12", extra="ocr", needs=("ocr",)),
    # stats
    _m(name="OverallRatingSimilarity", module="stats.rating_similarity", functional="overall_rating_similarity",
       paper="PosterIQ", section="Eq. 11-12", higher_is_better=True, value_range=(-1.0, 1.0),
       summary="cosine of the zero-mean model and human score vectors (Pearson r)",
       reference=f"Pearson's r of the readable pairs; {_POSTERIQ_CODE}", tolerance="1e-12"),
    _m(name="SpearmanRho", module="stats.spearman", functional="spearman_rho", paper="MPTc-Bench", section="App. B.4",
       higher_is_better=True, value_range=(-1.0, 1.0),
       summary="Spearman rank correlation, with an optional seeded bootstrap interval",
       reference="scipy.stats.spearmanr", tolerance="1e-12"),
    _m(name="QuadraticWeightedKappa", module="stats.kappa", functional="quadratic_weighted_kappa", paper="MPTc-Bench",
       section="App. B.3", higher_is_better=True, value_range=(-1.0, 1.0),
       summary="Cohen's quadratic-weighted kappa between two raters' ordinal scores (annotator agreement)",
       reference="sklearn.metrics.cohen_kappa_score(weights='quadratic')", tolerance="1e-12"),
    _m(name="SeparabilityAUC", module="stats.separability", functional="separability_auc", paper="MPTc-Bench",
       section="App. B.2", higher_is_better=True, value_range=(0.0, 1.0),
       summary="ROC AUC of a distance for telling deep from surface edits",
       reference="scipy.stats.mannwhitneyu U / (n1 n2) and sklearn.metrics.roc_auc_score", tolerance="1e-12"),
    _m(name="SegmentKendallTau", module="stats.kendall", functional="segment_kendall_tau", paper="Khanuja et al.",
       section="§5", higher_is_better=True, value_range=(-1.0, 1.0),
       summary="per-image Kendall tau-b between a metric and human ratings, averaged per country",
       reference="scipy.stats.kendalltau (tau-b) per segment", tolerance="1e-12"),
    # judge (VLM/LLM judges: transcreval.judge)
    _m(name="TitleExtraction", module="judge.title_extraction", functional="title_extraction", paper="MPTc-Bench",
       section="§5.1, Table 4, App. A.2", higher_is_better=True, value_range=(0.0, 100.0),
       summary="chrF between the titles a VLM judge reads off the system's and the human target-market posters",
       reference="sacrebleu.metrics.CHRF sentence_score / corpus_score on the titles a scripted judge reads",
       tolerance="1e-9", extra="judge", needs=("judge",)),
    _m(name="QuizHitRate", module="judge.quiz_hit_rate", functional="quiz_hit_rate", paper="MPTc-Bench",
       section="§5.1, Table 4, App. A.2", higher_is_better=True, value_range=(0.0, 100.0),
       summary="a judge's hit rate (%) on shuffled multiple-choice genre or decade quizzes about the poster",
       reference="the hit rate of a scripted judge's intended answers, options shuffled and mapped back",
       tolerance="1e-12", extra="judge", needs=("judge",)),
    _m(name="JudgeScore", module="judge.judge_score", functional="judge_score", paper="MPTc-Bench",
       section="§5.2, Table 3, App. A.2", higher_is_better=True, value_range=(1.0, 5.0),
       summary="a judge's 1-5 score of the system's poster for aesthetics or target-market adaptation",
       reference="the mean of a scripted judge's intended scores (failures left out)", tolerance="1e-12", extra="judge",
       needs=("judge",)),
    _m(name="WinRate", module="judge.win_rate", functional="win_rate", paper="MPTc-Bench",
       section="§5.2, Table 3, App. A.2", higher_is_better=True, value_range=(0.0, 100.0),
       summary="rate (%) at which a judge prefers the system's poster to the human one (seeded order; both orders: "
               "ties)",
       reference="the rate of a scripted judge's intended preferences, in both presentation orders", tolerance="1e-12",
       extra="judge", needs=("judge",)),
    _m(name="MarketPreferenceRate", module="judge.win_rate", functional="market_preference_rate", paper="MPTc-Bench",
       section="§5.2, Fig. 4, App. A.2", higher_is_better=True, value_range=(0.0, 100.0),
       summary="judge validation: rate (%) of preferring the target market's poster to another market's",
       reference="the rate of a scripted judge's intended preferences", tolerance="1e-12", extra="judge",
       needs=("judge",)),
    # direction None: higher is better for aspect="intent" and "cultural", neither for "creativity"
    _m(name="VLMTranscreationScore", module="judge.transcreation_score", functional="transcreation_score",
       paper="Khanuja et al.", section="§4.3, §5.3, App. A", higher_is_better=None, value_range=(1.0, 5.0),
       summary="a VLM's 1-5 score of intent (same category), creativity (visual change) or cultural relevance",
       reference="the mean of a scripted judge's intended scores (failures left out)", tolerance="1e-12", extra="judge",
       needs=("judge",)),
    _m(name="CSIOverlap", module="judge.csi_overlap", functional="csi_overlap", paper="Khanuja et al.",
       section="§5.1, App. A", higher_is_better=True, value_range=(0.0, 1.0),
       summary="share of the source's culture-specific items replaced validly (objects, replacements, matching by a "
               "judge)",
       reference="the per-image shares of a scripted judge's objects, replacements and matches", tolerance="1e-12",
       extra="judge", needs=("judge",)),
    _m(name="HarmonizationScore", module="judge.imtbench", functional="harmonization_score", paper="IMTBench",
       section="§4, Eq. 4, App. A.3", higher_is_better=True, value_range=(0.0, 1.0),
       summary="S_vis: a judge's 0-10 naturalness of the translated image, / 10",
       reference="the mean of a scripted judge's intended scores / 10", tolerance="1e-12", extra="judge",
       needs=("judge",)),
    _m(name="AlignmentScore", module="judge.imtbench", functional="alignment_score", paper="IMTBench",
       section="§4, Eq. 5, App. A.3", higher_is_better=True, value_range=(0.0, 1.0),
       summary="S_align: a judge's 0-10 agreement of the image's rendered text with the system's translation, / 10",
       reference="the mean of a scripted judge's intended scores / 10", tolerance="1e-12", extra="judge",
       needs=("judge",)),
    _m(name="IMTBenchScore", module="judge.imtbench_score", functional="imtbench_score", paper="IMTBench",
       section="§4, Eq. 6, Table 2", higher_is_better=True, value_range=(float("-inf"), float("inf")),
       summary="S: per item the mean of S_text (COMET), S_bg (masked LPIPS), S_align and S_vis (judge) where all "
               "four exist",
       reference="Eq. 6 on per-item values from comet's predict, lpips-layout LPIPS maps and a scripted judge",
       tolerance="1e-6", extra="imtbench", needs=("weights", "ocr", "judge")),
    _m(name="JudgedPointScore", module="judge.posteriq", functional="judged_point_score", paper="PosterIQ",
       section="Eq. 10", higher_is_better=True, value_range=(0.0, 1.0),
       summary="point score with a judge checking every key point of a poster (image) or of its description (text)",
       reference="transcreval.functional.point_score on a scripted judge's verdicts", tolerance="1e-12", extra="judge",
       needs=("judge",)),
    _m(name="JudgedStyleScore", module="judge.posteriq", functional="judged_style_score", paper="PosterIQ",
       section="Eq. 13", higher_is_better=True, value_range=(0.0, 1.0),
       summary="style score with a judge classifying each poster into the style list",
       reference="transcreval.functional.style_score on a scripted judge's labels", tolerance="1e-12", extra="judge",
       needs=("judge",)),
    _m(name="JudgedFontRichness", module="judge.posteriq", functional="judged_font_richness", paper="PosterIQ",
       section="Eq. 14-15", higher_is_better=True, value_range=(0.0, 1.0),
       summary="font richness with a judge naming each poster's font attributes from the vocabulary",
       reference="transcreval.functional.font_richness on a scripted judge's attributes", tolerance="1e-12",
       extra="judge", needs=("judge",)),
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


def take_registry_facts(cls: Any) -> None:
    """Give a registered metric class its entry's direction and range (called by ``Metric``).

    A class whose name and module match an entry must not declare them itself.
    """
    m = _BY_NAME.get(cls.__name__)
    if m is None or m.module != cls.__module__:
        return
    if declared := [a for a in ("higher_is_better", "value_range") if a in vars(cls)]:
        raise TypeError(f"{m.name} declares {declared}: they are written in its registry entry only")
    cls.higher_is_better, cls.value_range = m.higher_is_better, m.value_range


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
