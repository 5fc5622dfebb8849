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

from collections.abc import Sequence
from typing import Any, Literal

from transcreval.errors import InputError
from transcreval.judge.catalog import KHANUJA_CREATIVITY, KHANUJA_CULTURAL, KHANUJA_INTENT
from transcreval.judge.parse import Read, read_int
from transcreval.judge.roles import image_parts, text_field
from transcreval.judge.templates import PromptTemplate, resolve_template
from transcreval.judge.types import Judge
from transcreval.judge.verdicts import (
    JudgeTally,
    ask,
    check_judge,
    check_on_failure,
    check_valid_count,
    json_reader,
    judge_result,
    render_each,
)
from transcreval.result import MetricResult, Signature

Aspect = Literal["intent", "creativity", "cultural"]
ASPECTS: dict[str, PromptTemplate] = {
    "intent": KHANUJA_INTENT,
    "creativity": KHANUJA_CREATIVITY,
    "cultural": KHANUJA_CULTURAL,
}
DIRECTION: dict[str, bool | None] = {"intent": True, "creativity": None, "cultural": True}
#: the text fields the metric fills
FIELDS = ("category", "country")

__all__ = [
    "ASPECTS",
    "DIRECTION",
    "FIELDS",
    "read_transcreation_score",
    "transcreation_score",
    "transcreation_score_from_stats",
    "transcreation_score_stats",
]


def check_aspect(aspect: Any) -> Aspect:
    if aspect not in ASPECTS:
        raise InputError(f"aspect must be one of {sorted(ASPECTS)}, got {aspect!r}")
    return aspect


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
    judge: Judge,
    aspect: Aspect = "cultural",
    category: str | Sequence[str] | None = None,
    country: str | Sequence[str] | None = None,
    template: PromptTemplate | str | None = None,
    on_failure: str = "skip",
    input_range: Any = None,
) -> dict[str, Any]:
    """One batch of (output, source) image pairs."""
    check_judge(judge, "VLMTranscreationScore")
    aspect = check_aspect(aspect)
    on_failure = check_on_failure(on_failure)
    tpl = resolve_template(template, ASPECTS[aspect], fields=FIELDS, what="VLMTranscreationScore")
    outs, srcs = image_parts(preds, "preds", input_range), image_parts(target, "target", input_range)
    if len(outs) != len(srcs):
        raise InputError(f"VLMTranscreationScore: {len(outs)} outputs (preds) but {len(srcs)} sources (target)")
    n = len(outs)
    fields = {
        "category": text_field(category, n, "category"),
        "country": text_field(country, n, "country"),
    }
    rows = [
        ({"source": s, "output": o}, {k: v[i] for k, v in fields.items()}) for i, (o, s) in enumerate(zip(outs, srcs))
    ]
    requests = render_each(tpl, rows, {k: k for k in fields}, "VLMTranscreationScore")
    tally = JudgeTally()
    source_total = 0.0
    for v in ask(judge, requests, read_transcreation_score(aspect)):
        if not v.ok:
            tally.fail(v.status, v.detail)
        elif aspect == "cultural":
            source_total += v.value[0]
            tally.add(v.value[1])
        else:
            tally.add(v.value)
    tally.failed.raise_if_any(f"VLMTranscreationScore({aspect})", on_failure)
    return {**tally.stats(), "source_total": source_total}


def transcreation_score_from_stats(stats: dict[str, Any], signature: Signature, aspect: Aspect) -> MetricResult:
    """Mean score (1-5) over valid items; for "cultural" also the source mean and the delta."""
    n = check_valid_count(stats, signature.name)
    value = float(stats["total"]) / n
    if aspect != "cultural":
        return judge_result(value, stats, signature)
    source_mean = float(stats["source_total"]) / n
    return judge_result(value, stats, signature, source_mean=source_mean, delta=value - source_mean)


def transcreation_score(preds: Any, target: Any, *, judge: Judge, aspect: Aspect = "cultural", **options: Any) -> float:
    """Mean VLM score (1-5) of ``preds`` (transcreated images) against ``target`` (sources)."""
    stats = transcreation_score_stats(preds, target, judge=judge, aspect=aspect, **options)
    return transcreation_score_from_stats(stats, Signature.make("transcreation_score"), aspect).value
