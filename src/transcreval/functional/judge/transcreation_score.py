"""VLM scores of a transcreated image, 1-5 (Khanuja et al. 2025, §4.3 and App. A).

The judge sees the source image (``target``) and the transcreated one (``preds``), reasons
step by step and gives integer scores from 1 to 5:

* ``aspect="intent"`` (semantic equivalence): does the output belong to the source's
  ``category``? 1 = a different category, 5 = the same category.
* ``aspect="creativity"`` (visual change): how much the output changed visually. 1 = no
  change, 5 = extensive change. Neither direction is "better": it depends on the application.
* ``aspect="cultural"`` (cultural relevance to ``country``): both images are scored in one call
  (``first_score`` for the source, ``second_score`` for the output). The value is the output's
  mean score; ``extras["source_mean"]`` and ``extras["delta"]`` (output minus source) go with it.

The value is the mean over items with a valid answer; an item with any score missing or
outside 1-5 is "unparsable", and is never scored (the paper's own scripts wrote 0 for it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from transcreval.core.result import MetricResult
from transcreval.engines.judge.catalog import KHANUJA_CREATIVITY, KHANUJA_CULTURAL, KHANUJA_INTENT
from transcreval.engines.judge.parse import Read, read_int
from transcreval.engines.judge.pipeline import AspectOptions, JudgeSpec, judge_items
from transcreval.engines.judge.tally import check_valid_count, judge_mean
from transcreval.engines.judge.templates import PromptTemplate
from transcreval.engines.judge.types import Judge
from transcreval.engines.judge.verdicts import json_reader

Aspect = Literal["intent", "creativity", "cultural"]
ASPECTS: dict[str, PromptTemplate] = {
    "intent": KHANUJA_INTENT,
    "creativity": KHANUJA_CREATIVITY,
    "cultural": KHANUJA_CULTURAL,
}
DIRECTION: dict[str, bool | None] = {"intent": True, "creativity": None, "cultural": True}
#: the text fields the metric fills
FIELDS = ("category", "country")
#: what each aspect asks ("source_total": the source's scores, cultural aspect only)
SPECS = {
    a: JudgeSpec("VLMTranscreationScore", t, FIELDS, label=f"VLMTranscreationScore({a})", side={"source_total": 0.0})
    for a, t in ASPECTS.items()
}

__all__ = [
    "ASPECTS",
    "DIRECTION",
    "FIELDS",
    "SPECS",
    "VLMTranscreationScoreOptions",
    "read_transcreation_score",
    "transcreation_score",
    "transcreation_score_from_stats",
    "transcreation_score_stats",
]


@dataclass(frozen=True, kw_only=True)
class VLMTranscreationScoreOptions(AspectOptions):
    """VLMTranscreationScore's options: the judge's (:class:`JudgeOptions`) and the ``aspect``."""

    specs: ClassVar[Mapping[str, JudgeSpec]] = SPECS
    aspect: Aspect = "cultural"


def _read_pair(obj: Any) -> Read[tuple[int, int]]:
    first = read_int(obj, ("first_score", "source_score"), 1, 5)
    second = read_int(obj, ("second_score", "target_score", "output_score"), 1, 5)
    if not first.ok:
        return Read(None, first.error)
    if not second.ok:
        return Read(None, second.error)
    return Read((first.value, second.value))  # type: ignore[arg-type]


def read_transcreation_score(aspect: Aspect) -> Any:
    """The reader of one answer: ``score`` (intent, creativity) or the two cultural scores."""
    if aspect == "cultural":
        return json_reader(_read_pair)
    return json_reader(lambda obj: read_int(obj, ("score",), 1, 5))


def transcreation_score_stats(
    preds: Any,
    target: Any,
    *,
    category: str | Sequence[str] | None = None,
    country: str | Sequence[str] | None = None,
    options: VLMTranscreationScoreOptions | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """One batch of (output, source) image pairs; options as :class:`VLMTranscreationScoreOptions`."""
    o = VLMTranscreationScoreOptions.of(options, kwargs, "transcreation_score_stats")
    return judge_items(
        o.spec(),
        preds,
        target,
        {"category": category, "country": country},
        read_transcreation_score(o.aspect),
        o.on_failure,
        score=(lambda v: (v[1], {"source_total": v[0]})) if o.aspect == "cultural" else None,
        **o.engine(),
    )


def transcreation_score_from_stats(stats: dict[str, Any], options: VLMTranscreationScoreOptions) -> MetricResult:
    """Mean score (1-5) over valid items; for "cultural" also the source mean and the delta."""
    signature = options.result_signature()
    if options.aspect != "cultural":
        return judge_mean(stats, signature)
    n = check_valid_count(stats, signature.name)
    value, source_mean = float(stats["total"]) / n, float(stats["source_total"]) / n
    return judge_mean(stats, signature, source_mean=source_mean, delta=value - source_mean)


def transcreation_score(
    preds: Any,
    target: Any,
    *,
    judge: Judge,
    category: str | Sequence[str] | None = None,
    country: str | Sequence[str] | None = None,
    **options: Any,
) -> MetricResult:
    """Mean VLM score (1-5) of ``preds`` (transcreated images) against ``target`` (sources);
    options as :class:`VLMTranscreationScoreOptions`. Returns what
    ``VLMTranscreationScore.compute()`` returns."""
    opts = VLMTranscreationScoreOptions.take({"judge": judge, **options}, "transcreation_score")
    stats = transcreation_score_stats(preds, target, category=category, country=country, options=opts)
    return transcreation_score_from_stats(stats, opts)
