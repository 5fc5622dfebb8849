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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from transcreval.core.result import MetricResult
from transcreval.engines.judge.catalog import MPTC_ADAPTATION, MPTC_AESTHETIC
from transcreval.engines.judge.parse import read_int
from transcreval.engines.judge.pipeline import AspectOptions, JudgeSpec, judge_items
from transcreval.engines.judge.tally import judge_mean
from transcreval.engines.judge.templates import PromptTemplate
from transcreval.engines.judge.types import Judge
from transcreval.engines.judge.verdicts import json_reader

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
    "JudgeScoreOptions",
    "judge_score",
    "judge_score_from_stats",
    "judge_score_stats",
    "read_judge_score",
]


@dataclass(frozen=True, kw_only=True)
class JudgeScoreOptions(AspectOptions):
    """JudgeScore's options: the judge's (:class:`JudgeOptions`) and the ``aspect`` scored."""

    specs: ClassVar[Mapping[str, JudgeSpec]] = SPECS
    aspect: Aspect = "aesthetic"


def read_judge_score(aspect: Aspect) -> Any:
    """The reader of one answer: an integer 1-5 under ``<aspect>_score`` or ``score``."""
    return json_reader(lambda obj: read_int(obj, (f"{aspect}_score", "score", aspect), 1, 5))


def judge_score_stats(
    preds: Any,
    target: Any,
    *,
    target_market: str | Sequence[str] | None = None,
    source_market: str | Sequence[str] | None = None,
    genre: str | Sequence[str] | None = None,
    options: JudgeScoreOptions | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """One batch: ask the judge about each (output, source) pair and tally the scores; options
    as :class:`JudgeScoreOptions` (``options=`` or one by one)."""
    o = JudgeScoreOptions.of(options, kwargs, "judge_score_stats")
    fields = {"target_market": target_market, "source_market": source_market, "genre": genre}
    return judge_items(o.spec(), preds, target, fields, read_judge_score(o.aspect), o.on_failure, **o.engine())


def judge_score_from_stats(stats: dict[str, Any], options: JudgeScoreOptions) -> MetricResult:
    """The mean score (1-5) over valid items; extras n_valid, n_failed, failures."""
    return judge_mean(stats, options.result_signature())


def judge_score(
    preds: Any,
    target: Any,
    *,
    judge: Judge,
    target_market: str | Sequence[str] | None = None,
    source_market: str | Sequence[str] | None = None,
    genre: str | Sequence[str] | None = None,
    **options: Any,
) -> MetricResult:
    """Mean judge score (1-5, higher is better) of ``preds`` (system posters) given ``target``
    (the source posters); options as :class:`JudgeScoreOptions` (``aspect="aesthetic"``, ...).
    Returns what ``JudgeScore.compute()`` returns. See the module docstring."""
    opts = JudgeScoreOptions.take({"judge": judge, **options}, "judge_score")
    fields = {"target_market": target_market, "source_market": source_market, "genre": genre}
    return judge_score_from_stats(judge_score_stats(preds, target, **fields, options=opts), opts)
