"""PosterIQ's judge-driven scores: point score (Eq. 10), style score (Eq. 13), font richness (Eq. 14-15).

The judge produces the verdicts that PosterIQ's scores consume; the scores are then exactly
those of :func:`transcreval.functional.point_score`, :func:`~transcreval.functional.style_score`
and :func:`~transcreval.functional.font_richness` on those verdicts (the tests check it), with
the judge's failures counted instead of scored.

* **Point score.** For each poster (an image: generation tasks) or each model description of a
  poster (a string: understanding tasks) and each annotated key point, the judge answers
  ``{"covered": true | false}`` (an answer that is only "yes" or "no" is read too), one call per
  key point. A poster counts as covered when every
  point is; the value is the fraction of covered posters (``mode="posteriq-code"``: the mean
  covered fraction). A poster with any failed verdict is a failure.
* **Style score.** The judge classifies each poster into one of ``labels`` (default PosterIQ's
  17 styles, :data:`~transcreval.functional.choice.style_score.POSTERIQ_STYLES`),
  ``{"style": "<label>"}``; the value is the accuracy against ``target``. The answer must be
  the label itself (:func:`label_of`: case, spacing and a trailing "style" aside); a style
  outside the labels, or a label inside a longer answer ("definitely not Minimalist"), is
  "unparsable".
* **Font richness.** The judge lists the font attributes of each poster from ``vocabulary``
  (37 in PosterIQ), ``{"attributes": [...]}``; attributes outside the vocabulary are ignored
  (counted in ``extras["n_out_of_vocabulary"]``), and an answer naming attributes none of which
  is in the vocabulary is "unparsable" (an empty list is a valid answer: no attribute fits).
  The value is the mean over the vocabulary of
  the fraction of posters showing each attribute.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from transcreval.core.common import Mode, check_mode, check_text
from transcreval.core.options import option
from transcreval.core.result import MetricResult
from transcreval.core.state_checks import list_digest
from transcreval.engines.judge.catalog import POSTERIQ_FONT, POSTERIQ_POINT_IMAGE, POSTERIQ_POINT_TEXT, POSTERIQ_STYLE
from transcreval.engines.judge.items import check_judge, render_each
from transcreval.engines.judge.parse import Read, extract_json, read_bare, read_bool, read_str, read_str_list
from transcreval.engines.judge.pipeline import JudgeOptions, JudgeSpec
from transcreval.engines.judge.roles import image_or_text, image_part, item_list, text_list
from transcreval.engines.judge.tally import JudgeTally, check_valid_count, judge_mean, judge_result
from transcreval.engines.judge.templates import PromptTemplate, resolve_template
from transcreval.engines.judge.types import Judge
from transcreval.engines.judge.verdicts import Verdict, ask, json_reader
from transcreval.errors import InputError
from transcreval.functional.choice.style_score import POSTERIQ_STYLES

#: the text fields JudgedPointScore fills (``description`` only for descriptions given as text)
POINT_FIELDS = ("point", "description")

__all__ = [
    "POINT_FIELDS",
    "JudgedFontRichnessOptions",
    "JudgedPointScoreOptions",
    "JudgedStyleScoreOptions",
    "judge_font_attributes",
    "judge_point_verdicts",
    "judge_styles",
    "judged_font_richness",
    "judged_font_richness_from_stats",
    "judged_font_richness_stats",
    "judged_point_score",
    "judged_point_score_from_stats",
    "judged_point_score_stats",
    "judged_style_score",
    "judged_style_score_from_stats",
    "judged_style_score_stats",
    "label_of",
    "normalise_label",
    "read_covered",
]

_read_covered_json = json_reader(lambda obj: read_bool(obj, ("covered", "present", "answer", "verdict")))
_YES_NO = {"yes": True, "true": True, "no": False, "false": False}


def read_covered(text: str) -> Read[bool]:
    """A key-point verdict: JSON ``{"covered": true | false}``, else an answer that is only
    yes/no/true/false (a template asking for a plain "Yes" or "No"); prose is unparsable."""
    got = _read_covered_json(text)
    if got.ok or extract_json(text).ok:
        return got
    bare = read_bare(text, _YES_NO, prefixes=("answer",))
    return bare if bare.ok else Read(None, f"{got.error}; {bare.error}")


def label_of(answer: str, labels: Sequence[str]) -> str | None:
    """The label an answer names: the whole answer is the label (case, spaces, hyphens, quotes and
    a final period aside, and a trailing word "style" on either side); None otherwise.

    Unlike a free-text reader this never looks for a label inside a longer answer: "definitely
    not Minimalist" names no label.
    """

    def bare(x: str) -> str:
        return normalise_label(x.strip().strip("\"'`*").rstrip(".").strip())

    def core(x: str) -> str:
        return bare(x).removesuffix(" style").strip()

    got = bare(answer)
    for key in (bare, core):
        table: dict[str, list[str]] = {}
        for lab in labels:
            table.setdefault(key(lab), []).append(lab)
        hit = table.get(got if key is bare else core(answer))
        if hit is not None:
            return hit[0] if len(hit) == 1 else None
    return None


def normalise_label(s: str) -> str:
    return " ".join(s.casefold().replace("_", " ").replace("-", " ").split())


@dataclass(frozen=True, kw_only=True)
class JudgedPointScoreOptions(JudgeOptions):
    """JudgedPointScore's options: the judge's and ``mode`` ("paper" or "posteriq-code")."""

    default_spec: ClassVar[JudgeSpec | None] = JudgeSpec("JudgedPointScore", POSTERIQ_POINT_IMAGE, POINT_FIELDS)
    mode: Mode = "paper"

    def check_own(self) -> None:
        check_mode(self.mode)


@dataclass(frozen=True, kw_only=True)
class JudgedStyleScoreOptions(JudgeOptions):
    """JudgedStyleScore's options: the judge's and the style ``labels`` (PosterIQ's 17)."""

    default_spec: ClassVar[JudgeSpec | None] = JudgeSpec("JudgedStyleScore", POSTERIQ_STYLE)
    labels: Sequence[str] = option(
        POSTERIQ_STYLES,
        signature=lambda o: {"labels": "posteriq17" if o.labels == POSTERIQ_STYLES else list_digest(list(o.labels))},
    )

    def check_own(self) -> None:
        if self.labels is None or isinstance(self.labels, str) or len(list(self.labels)) < 2:
            raise InputError("labels must list the style names the judge chooses from (default: PosterIQ's 17)")
        self.set_checked("labels", tuple(_check_labels(self.labels, "labels")))


@dataclass(frozen=True, kw_only=True)
class JudgedFontRichnessOptions(JudgeOptions):
    """JudgedFontRichness's options: the judge's and the font-attribute ``vocabulary`` (required)."""

    default_spec: ClassVar[JudgeSpec | None] = JudgeSpec("JudgedFontRichness", POSTERIQ_FONT)
    vocabulary: Sequence[str] = option(signature=lambda o: {"attrs": list_digest(list(o.vocabulary))})

    def check_own(self) -> None:
        if self.vocabulary is None or isinstance(self.vocabulary, str) or not list(self.vocabulary):
            raise InputError("vocabulary must list the font attributes (PosterIQ: 37)")
        self.set_checked("vocabulary", tuple(_check_labels(self.vocabulary, "vocabulary")))


def _list(x: Any, what: str) -> list[Any]:
    return item_list(x, what, "a list with one entry per poster")


def _ask_posters(
    what: str, judge: Judge, tpl: PromptTemplate, preds: Any, fields: dict[str, str], reader: Any, input_range: Any
) -> list[Verdict]:
    """One call per poster image of ``preds``, the same ``fields`` in every prompt."""
    rows = [
        ({"poster": image_part(x, f"preds[{i}]", input_range)}, fields) for i, x in enumerate(_list(preds, "preds"))
    ]
    return ask(judge, render_each(tpl, rows, what=what), reader)


# ---------------------------------------------------------------------- point score
def judge_point_verdicts(
    preds: Sequence[Any],
    target: Sequence[Sequence[str]],
    *,
    judge: Judge,
    template: PromptTemplate | str | None = None,
    input_range: Any = None,
) -> list[list[Verdict]]:
    """Per poster, the judge's verdict on each key point (``value``: True/False when ok).

    ``preds[i]``: a poster image (generation) or a model's description of a poster (a string,
    understanding); ``target[i]``: the key points of poster ``i``; ``input_range``: the value
    range of float images (default (0, 1)).
    """
    check_judge(judge, "JudgedPointScore")
    items, points = _list(preds, "preds"), _list(target, "target")
    if len(items) != len(points):
        raise InputError(f"JudgedPointScore: {len(items)} posters (preds) but {len(points)} key-point lists (target)")
    read = [image_or_text(x, f"preds[{i}]", input_range) for i, x in enumerate(items)]  # the "image_or_text" role
    text_mode = {isinstance(x, str) for x in read}
    if len(text_mode) > 1:
        raise InputError("preds mixes descriptions (strings) and images: judge them in separate updates")
    as_text = text_mode == {True}
    tpl = resolve_template(
        template,
        POSTERIQ_POINT_TEXT if as_text else POSTERIQ_POINT_IMAGE,
        fields=POINT_FIELDS,
        what="JudgedPointScore",
    )
    rows, owner = [], []
    for i, (x, pts) in enumerate(zip(read, points)):
        pts = text_list(pts, f"target[{i}]")
        if not all(p.strip() for p in pts):
            raise InputError(f"target[{i}] must be a non-empty list of key points (non-empty strings)")
        for p in pts:
            rows.append(({} if as_text else {"poster": x}, {"point": p, "description": x if as_text else None}))
            owner.append(i)
    verdicts = ask(judge, render_each(tpl, rows, what="JudgedPointScore"), read_covered)
    out: list[list[Verdict]] = [[] for _ in items]
    for i, v in zip(owner, verdicts):
        out[i].append(v)
    return out


def judged_point_score_stats(
    preds: Sequence[Any],
    target: Sequence[Sequence[str]],
    *,
    options: JudgedPointScoreOptions | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """One batch; item value 1 when every key point is covered, else 0."""
    o = JudgedPointScoreOptions.of(options, kwargs, "judged_point_score_stats")
    tally = JudgeTally(covered_fraction=0.0)
    for vs in judge_point_verdicts(preds, target, **o.engine()):
        bad = next((v for v in vs if not v.ok), None)
        if bad is not None:
            tally.fail(bad.status, bad.detail)
        else:
            tally.add(float(all(v.value for v in vs)), covered_fraction=sum(bool(v.value) for v in vs) / len(vs))
    return tally.finish("JudgedPointScore", o.on_failure)


def judged_point_score_from_stats(stats: dict[str, Any], options: JudgedPointScoreOptions) -> MetricResult:
    """Paper: the fraction of posters with every point covered; code: the mean covered fraction."""
    signature = options.result_signature()
    per_point = float(stats["covered_fraction"]) / check_valid_count(stats, signature.name)
    if options.mode == "posteriq-code":
        return judge_mean({**stats, "total": stats["covered_fraction"]}, signature, per_point=per_point)
    return judge_mean(stats, signature, per_point=per_point)


def judged_point_score(
    preds: Sequence[Any], target: Sequence[Sequence[str]], *, judge: Judge, **options: Any
) -> MetricResult:
    """PosterIQ point score (Eq. 10) with a judge's verdicts, in [0, 1], higher is better;
    options as :class:`JudgedPointScoreOptions`. Returns what ``JudgedPointScore.compute()`` returns."""
    opts = JudgedPointScoreOptions.take({"judge": judge, **options}, "judged_point_score")
    return judged_point_score_from_stats(judged_point_score_stats(preds, target, options=opts), opts)


# ---------------------------------------------------------------------- style score
def _check_labels(labels: Any, what: str) -> list[str]:
    if labels is None or isinstance(labels, str) or not all(isinstance(x, str) and x.strip() for x in labels):
        raise InputError(f"{what} must be a list of label strings")
    out = list(labels)
    if not out or len({normalise_label(x) for x in out}) != len(out):
        raise InputError(f"{what} must be a non-empty list of distinct labels")
    return out


def judge_styles(
    preds: Sequence[Any],
    *,
    judge: Judge,
    labels: Sequence[str] = POSTERIQ_STYLES,
    template: PromptTemplate | str | None = None,
    input_range: Any = None,
) -> list[Verdict]:
    """The judge's style label for each poster (``value``: one of ``labels`` when ok)."""
    check_judge(judge, "JudgedStyleScore")
    labs = _check_labels(labels, "labels")

    def read(obj: Any) -> Read[str]:
        got = read_str(obj, ("style", "label", "answer"), allow_empty=False)
        if not got.ok or got.value is None:
            return got
        label = label_of(got.value, labs)
        return Read(label) if label is not None else Read(None, f"style {got.value!r} is not one of the labels")

    tpl = resolve_template(template, POSTERIQ_STYLE, what="JudgedStyleScore")
    return _ask_posters(
        "JudgedStyleScore", judge, tpl, preds, {"styles": ", ".join(labs)}, json_reader(read), input_range
    )


def judged_style_score_stats(
    preds: Sequence[Any], target: Sequence[str], *, options: JudgedStyleScoreOptions | None = None, **kwargs: Any
) -> dict[str, Any]:
    """One batch; item value 1 when the judged style is the target style."""
    o = JudgedStyleScoreOptions.of(options, kwargs, "judged_style_score_stats")
    labs = list(o.labels)
    targets = _list(target, "target")
    items = _list(preds, "preds")
    if len(items) != len(targets):
        raise InputError(f"JudgedStyleScore: {len(items)} posters but {len(targets)} target styles")
    for i, t in enumerate(targets):
        if check_text(t, f"target[{i}]") not in labs:
            raise InputError(f"target[{i}]: style {t!r} is not one of the labels")
    verdicts = judge_styles(items, labels=labs, **o.engine())
    tally = JudgeTally().take_items(verdicts, lambda i, style: float(style == targets[i]))
    return tally.finish("JudgedStyleScore", o.on_failure)


def judged_style_score_from_stats(stats: dict[str, Any], options: JudgedStyleScoreOptions) -> MetricResult:
    return judge_mean(stats, options.result_signature())


def judged_style_score(preds: Sequence[Any], target: Sequence[str], *, judge: Judge, **options: Any) -> MetricResult:
    """PosterIQ style score (Eq. 13) with a judge's classification, in [0, 1], higher is better;
    options as :class:`JudgedStyleScoreOptions`. Returns what ``JudgedStyleScore.compute()`` returns."""
    opts = JudgedStyleScoreOptions.take({"judge": judge, **options}, "judged_style_score")
    return judged_style_score_from_stats(judged_style_score_stats(preds, target, options=opts), opts)


# ---------------------------------------------------------------------- font richness
def judge_font_attributes(
    preds: Sequence[Any],
    *,
    judge: Judge,
    vocabulary: Sequence[str],
    template: PromptTemplate | str | None = None,
    input_range: Any = None,
) -> list[Verdict]:
    """The judge's font attributes for each poster (``value``: ``(in_vocabulary, n_outside)``)."""
    check_judge(judge, "JudgedFontRichness")
    vocab = _check_labels(vocabulary, "vocabulary")
    by_norm = {normalise_label(x): x for x in vocab}

    def read(obj: Any) -> Read[tuple[list[str], int]]:
        got = read_str_list(obj, ("attributes", "font_attributes"))
        if not got.ok:
            return Read(None, got.error)
        listed: list[str] = got.value  # type: ignore[assignment]
        known = [by_norm[normalise_label(a)] for a in listed if normalise_label(a) in by_norm]
        if listed and not known:
            return Read(None, f"none of the {len(listed)} attributes named is in the vocabulary: {listed[:3]!r}")
        return Read((list(dict.fromkeys(known)), len(listed) - len(known)))

    tpl = resolve_template(template, POSTERIQ_FONT, what="JudgedFontRichness")
    return _ask_posters(
        "JudgedFontRichness", judge, tpl, preds, {"vocabulary": ", ".join(vocab)}, json_reader(read), input_range
    )


def judged_font_richness_stats(
    preds: Sequence[Any], *, options: JudgedFontRichnessOptions | None = None, **kwargs: Any
) -> dict[str, Any]:
    """One batch: per-attribute poster counts; item value = share of the vocabulary shown."""
    o = JudgedFontRichnessOptions.of(options, kwargs, "judged_font_richness_stats")
    vocab = list(o.vocabulary)
    counts = torch.zeros(len(vocab), dtype=torch.int64)

    def score(value: tuple[list[str], int]) -> tuple[float, dict[str, int]]:
        attrs, n_out = value
        for a in attrs:
            counts[vocab.index(a)] += 1
        return len(attrs) / len(vocab), {"out_of_vocabulary": n_out}

    verdicts = judge_font_attributes(preds, vocabulary=vocab, **o.engine())
    stats = JudgeTally(out_of_vocabulary=0).take(verdicts, score).finish("JudgedFontRichness", o.on_failure)
    return {**stats, "attribute_counts": counts}


def judged_font_richness_from_stats(stats: dict[str, Any], options: JudgedFontRichnessOptions) -> MetricResult:
    """Mean coverage over the vocabulary; ``extras["coverage"]`` maps each attribute to R_a."""
    signature = options.result_signature()
    n = check_valid_count(stats, signature.name)
    counts = torch.as_tensor(stats["attribute_counts"]).tolist()
    coverage = {a: c / n for a, c in zip(options.vocabulary, counts)}
    return judge_result(
        sum(counts) / (n * len(counts)),
        stats,
        signature,
        coverage=coverage,
        n_out_of_vocabulary=int(stats["out_of_vocabulary"]),
    )


def judged_font_richness(
    preds: Sequence[Any], *, judge: Judge, vocabulary: Sequence[str], **options: Any
) -> MetricResult:
    """PosterIQ font richness (Eq. 14-15) with a judge's attributes, in [0, 1], higher is better;
    options as :class:`JudgedFontRichnessOptions`. Returns what ``JudgedFontRichness.compute()`` returns."""
    opts = JudgedFontRichnessOptions.take({"judge": judge, "vocabulary": vocabulary, **options}, "judged_font_richness")
    return judged_font_richness_from_stats(judged_font_richness_stats(preds, options=opts), opts)
