"""Judge scores of aesthetics and target-market adaptation, 1-5 (MPTc-Bench §5.2, App. A.2).

A judge role-plays a film-marketing consultant and cinema-goer of the target market, sees the
source poster (SRC) and the system's output (TGT) and gives TGT an integer score from 1 to 5:

* ``aspect="aesthetic"``: visual quality (5 polished and professional ... 1 broken);
* ``aspect="adaptation"``: fit with the target market's conventions (language and script,
  type hierarchy, rating and legal marks, billing block, date format, layout density, genre
  imagery) while the film stays recognisable (5 fully localised ... 1 no real adaptation).

The value is the mean score over the items with a valid answer. One judge call per item and
aspect by default; ``template="mptc.aesthetic+adaptation"`` asks for both scores in one call,
which both aspects then share through the cache. Answers are read from the keys ``score`` or
``<aspect>_score`` (the paper's published prompt uses ``aesthetic_score`` /
``adaptation_score``); an integer outside 1-5 or any other answer is "unparsable".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from transcreval.errors import InputError
from transcreval.judge.catalog import MPTC_ADAPTATION, MPTC_AESTHETIC
from transcreval.judge.parse import read_int
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

Aspect = Literal["aesthetic", "adaptation"]
ASPECTS: dict[str, PromptTemplate] = {"aesthetic": MPTC_AESTHETIC, "adaptation": MPTC_ADAPTATION}
#: the text fields the metric fills
FIELDS = ("target_market", "source_market", "genre")

__all__ = ["ASPECTS", "FIELDS", "judge_score", "judge_score_from_stats", "judge_score_stats", "read_judge_score"]


def check_aspect(aspect: Any) -> Aspect:
    if aspect not in ASPECTS:
        raise InputError(f"aspect must be 'aesthetic' or 'adaptation', got {aspect!r}")
    return aspect


def read_judge_score(aspect: Aspect) -> Any:
    """The reader of one answer: an integer 1-5 under ``<aspect>_score`` or ``score``."""
    return json_reader(lambda obj: read_int(obj, (f"{aspect}_score", "score", aspect), 1, 5))


def judge_score_stats(
    preds: Any,
    target: Any,
    *,
    judge: Judge,
    aspect: Aspect = "aesthetic",
    target_market: str | Sequence[str] | None = None,
    source_market: str | Sequence[str] | None = None,
    genre: str | Sequence[str] | None = None,
    template: PromptTemplate | str | None = None,
    on_failure: str = "skip",
    input_range: Any = None,
) -> dict[str, Any]:
    """One batch: ask the judge about each (output, source) pair and tally the scores."""
    check_judge(judge, "JudgeScore")
    aspect = check_aspect(aspect)
    on_failure = check_on_failure(on_failure)
    tpl = resolve_template(template, ASPECTS[aspect], fields=FIELDS, what="JudgeScore")
    outs, srcs = image_parts(preds, "preds", input_range), image_parts(target, "target", input_range)
    if len(outs) != len(srcs):
        raise InputError(f"JudgeScore: {len(outs)} outputs (preds) but {len(srcs)} source posters (target)")
    n = len(outs)
    fields = {
        "target_market": text_field(target_market, n, "target_market"),
        "source_market": text_field(source_market, n, "source_market"),
        "genre": text_field(genre, n, "genre"),
    }
    rows = [
        ({"source": s, "output": o}, {k: v[i] for k, v in fields.items()}) for i, (o, s) in enumerate(zip(outs, srcs))
    ]
    requests = render_each(tpl, rows, {k: k for k in fields}, "JudgeScore")
    tally = JudgeTally()
    for v in ask(judge, requests, read_judge_score(aspect)):
        if v.ok:
            tally.add(v.value)
        else:
            tally.fail(v.status, v.detail)
    tally.failed.raise_if_any(f"JudgeScore({aspect})", on_failure)
    return tally.stats()


def judge_score_from_stats(stats: dict[str, Any], signature: Signature) -> MetricResult:
    """The mean score (1-5) over valid items; extras n_valid, n_failed, failures."""
    n = check_valid_count(stats, signature.name)
    return judge_result(float(stats["total"]) / n, stats, signature)


def judge_score(preds: Any, target: Any, *, judge: Judge, aspect: Aspect = "aesthetic", **options: Any) -> float:
    """Mean judge score (1-5, higher is better) of ``preds`` (system posters) given ``target``
    (the source posters); options as :func:`judge_score_stats`. See the module docstring."""
    stats = judge_score_stats(preds, target, judge=judge, aspect=aspect, **options)
    return judge_score_from_stats(stats, Signature.make("judge_score")).value
