"""Title extraction by a judge, scored with chrF: MPTc-Bench's "Title" column (§5.1, App. A.2).

The judge reads the main title off a poster and answers JSON ``{"title": "..."}``: copied as
printed (same language, script and spelling, no translation), the most prominent title when
there are several, an empty string when none is legible. The titles read from the system's
posters (``preds``) and from the human target-market posters (``target``) are compared with
sacrebleu's sentence chrF (:func:`transcreval.functional.sentence_chrf`, the same statistics as
``TitleChrF``), averaged over items, 0-100. Either side may be given as text instead of an
image (a known reference title, or the planner's proposed title for MPTc's "Plan" column):
text is used as it is, with no call. A string is a title unless it is the path of an existing
image file (then it is read as the poster); one that ends like an image file name but names no
file is an error (:mod:`transcreval.engines.judge.roles`). An item counts when both titles were read.

An empty title is a valid answer ("no title visible") and scores as sacrebleu scores it (0).
Titles are only stripped of surrounding whitespace; ``lowercase=True`` passes to chrF.
:func:`extract_titles` returns the titles themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from transcreval.core.common import check_bool, check_positive_int
from transcreval.core.options import option
from transcreval.core.result import MetricResult
from transcreval.engines.judge.catalog import MPTC_TITLE
from transcreval.engines.judge.items import check_judge, render_each
from transcreval.engines.judge.parse import read_str
from transcreval.engines.judge.pipeline import JudgeOptions, JudgeSpec
from transcreval.engines.judge.roles import image_or_text, item_list
from transcreval.engines.judge.tally import JudgeTally, check_valid_count, judge_mean
from transcreval.engines.judge.templates import PromptTemplate, resolve_template
from transcreval.engines.judge.types import ImagePart, Judge
from transcreval.engines.judge.verdicts import Verdict, ask, json_reader
from transcreval.errors import InputError

__all__ = [
    "TitleExtractionOptions",
    "extract_titles",
    "read_title",
    "title_extraction",
    "title_extraction_from_stats",
    "title_extraction_stats",
]


@dataclass(frozen=True, kw_only=True)
class TitleExtractionOptions(JudgeOptions):
    """TitleExtraction's options: the judge's (:class:`JudgeOptions`) and chrF's."""

    default_spec: ClassVar[JudgeSpec | None] = JudgeSpec("TitleExtraction", MPTC_TITLE)

    char_order: int = option(6, signature="nc")
    word_order: int = option(0, signature="nw")
    beta: float = option(2.0, signature="b")
    lowercase: bool = option(False, signature="lc")

    def check_own(self) -> None:
        check_positive_int("char_order", self.char_order, minimum=0)
        check_positive_int("word_order", self.word_order, minimum=0)
        check_bool("lowercase", self.lowercase)
        if self.char_order + self.word_order == 0 or not isinstance(self.beta, (int, float)) or self.beta <= 0:
            raise InputError("chrF needs char_order + word_order > 0 and beta > 0")
        self.set_checked("beta", float(self.beta))


read_title = json_reader(lambda obj: read_str(obj, ("title", "main_title")))


def _items(x: Any, what: str) -> list[Any]:
    return item_list(x, what, "a list of posters (images) or titles (strings)")


def _read_titles(
    items: Sequence[Any],
    names: Sequence[str],
    judge: Judge,
    template: PromptTemplate | str | None,
    input_range: Any = None,
) -> list[Verdict]:
    check_judge(judge, "TitleExtraction")
    tpl = resolve_template(template, MPTC_TITLE, what="TitleExtraction")
    read = [image_or_text(x, what, input_range) for x, what in zip(items, names)]  # the "image_or_text" role
    order = [i for i, x in enumerate(read) if isinstance(x, ImagePart)]
    asked = ask(judge, render_each(tpl, [({"poster": read[i]}, {}) for i in order], what="TitleExtraction"), read_title)
    out: list[Verdict] = [Verdict("ok", x.strip()) if isinstance(x, str) else Verdict("api_error") for x in read]
    for i, v in zip(order, asked):
        out[i] = v
    return out


def extract_titles(
    posters: Sequence[Any], *, judge: Judge, template: PromptTemplate | str | None = None, input_range: Any = None
) -> list[Verdict]:
    """The judge's reading of each poster's main title (a :class:`Verdict` each; ``value`` the
    title when ``status == "ok"``). Strings in ``posters`` are taken as titles already read,
    except paths of existing image files (see :mod:`transcreval.engines.judge.roles`); ``input_range``:
    the value range of float images (default (0, 1))."""
    items = _items(posters, "posters")
    return _read_titles(items, [f"posters[{i}]" for i in range(len(items))], judge, template, input_range)


def title_extraction_stats(
    preds: Sequence[Any], target: Sequence[Any], *, options: TitleExtractionOptions | None = None, **kwargs: Any
) -> dict[str, Any]:
    """One batch: read both titles of each item, then sentence chrF of the pairs read."""
    from transcreval.functional.text.chrf import chrf_statistics

    o = TitleExtractionOptions.of(options, kwargs, "title_extraction_stats")
    char_order, word_order = o.char_order, o.word_order
    p_items, t_items = _items(preds, "preds"), _items(target, "target")
    if len(p_items) != len(t_items):
        raise InputError(f"TitleExtraction: {len(p_items)} system posters (preds) but {len(t_items)} references")
    n = len(p_items)
    names = [f"preds[{i}]" for i in range(n)] + [f"target[{i}]" for i in range(n)]
    titles = _read_titles([*p_items, *t_items], names, o.judge, o.template, o.input_range)
    read = [i for i in range(n) if titles[i].ok and titles[n + i].ok]
    width = 3 * (char_order + word_order)
    ngrams = torch.zeros(width, dtype=torch.int64)
    scores: dict[int, float] = {}
    if read:
        stats, sentence = chrf_statistics(
            [titles[i].value for i in read],
            [titles[n + i].value for i in read],
            char_order=char_order,
            word_order=word_order,
            beta=o.beta,
            lowercase=o.lowercase,
        )
        ngrams = stats.sum(0)
        scores = dict(zip(read, sentence.tolist()))
    per_item = [
        Verdict("ok", scores[i]) if i in scores else next(v for v in (titles[i], titles[n + i]) if not v.ok)
        for i in range(n)
    ]
    return {**JudgeTally().take(per_item).finish("TitleExtraction", o.on_failure), "ngram_stats": ngrams}


def title_extraction_from_stats(stats: dict[str, Any], options: TitleExtractionOptions) -> MetricResult:
    """Mean sentence chrF (0-100) over items with both titles read; ``extras["corpus"]`` corpus chrF."""
    from transcreval.functional.text.chrf import chrf_from_statistics

    signature = options.result_signature()
    check_valid_count(stats, signature.name)
    corpus = chrf_from_statistics([int(x) for x in torch.as_tensor(stats["ngram_stats"]).tolist()], options.beta)
    return judge_mean(stats, signature, corpus=corpus)


def title_extraction(preds: Sequence[Any], target: Sequence[Any], *, judge: Judge, **options: Any) -> MetricResult:
    """Title chrF (0-100, higher is better) between the titles a judge reads off ``preds``
    (system posters) and ``target`` (reference posters, or reference titles as text); options
    as :class:`TitleExtractionOptions`. Returns what ``TitleExtraction.compute()`` returns."""
    opts = TitleExtractionOptions.take({"judge": judge, **options}, "title_extraction")
    return title_extraction_from_stats(title_extraction_stats(preds, target, options=opts), opts)
