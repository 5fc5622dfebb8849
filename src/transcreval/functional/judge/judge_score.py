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

from transcreval.engines.judge.catalog import MPTC_ADAPTATION, MPTC_AESTHETIC
from transcreval.engines.judge.parse import read_int
from transcreval.engines.judge.pipeline import JudgeSpec, judge_items
from transcreval.engines.judge.tally import judge_mean
from transcreval.engines.judge.templates import PromptTemplate
from transcreval.engines.judge.types import Judge
from transcreval.engines.judge.verdicts import json_reader
from transcreval.errors import InputError
from transcreval.result import MetricResult, Signature

Aspect = Literal["aesthetic", "adaptation"]
ASPECTS: dict[str, PromptTemplate] = {"aesthetic": MPTC_AESTHETIC, "adaptation": MPTC_ADAPTATION}
#: the text fields the metric fills
FIELDS = ("target_market", "source_market", "genre")
#: what each aspect asks
SPECS = {
    a: JudgeSpec(
        "JudgeScore",
        t,
        FIELDS,
        mismatch="{name}: {n} outputs (preds) but {m} source posters (target)",
        label=f"JudgeScore({a})",
    )
    for a, t in ASPECTS.items()
}

__all__ = [
    "ASPECTS",
    "FIELDS",
    "SPECS",
    "judge_score",
    "judge_score_from_stats",
    "judge_score_stats",
    "read_judge_score",
]


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
    aspect = check_aspect(aspect)
    fields = {"target_market": target_market, "source_market": source_market, "genre": genre}
    return judge_items(
        SPECS[aspect],
        preds,
        target,
        fields,
        read_judge_score(aspect),
        on_failure,
        judge=judge,
        template=template,
        input_range=input_range,
    )


def judge_score_from_stats(stats: dict[str, Any], signature: Signature) -> MetricResult:
    """The mean score (1-5) over valid items; extras n_valid, n_failed, failures."""
    return judge_mean(stats, signature)


def judge_score(preds: Any, target: Any, *, judge: Judge, aspect: Aspect = "aesthetic", **options: Any) -> float:
    """Mean judge score (1-5, higher is better) of ``preds`` (system posters) given ``target``
    (the source posters); options as :func:`judge_score_stats`. See the module docstring."""
    stats = judge_score_stats(preds, target, judge=judge, aspect=aspect, **options)
    return judge_score_from_stats(stats, Signature.make("judge_score")).value
