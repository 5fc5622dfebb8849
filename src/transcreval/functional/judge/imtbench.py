"""IMTBench's judge scores: harmonization S_vis (Eq. 4) and alignment S_align (Eq. 5).

**HarmonizationScore (S_vis).** The judge looks at the translated image (``preds``) beside the
reference image I_tgt (``target``), as Eq. 4 writes it, ``S_vis = g(I^_tgt, I_tgt) / 10``
(``reference=True``, template ``imtbench.harmonization-ref``); ``reference=False`` shows the
translated image alone (``imtbench.harmonization``). The judge gives two integers from 0 to 10
for the translated image: *naturalness* (0 = the scene looks wrong: distance, shadows,
lighting; 10 = entirely natural) and *artifacts* (0 = heavy distortion, watermarks,
scratches, blurred faces, malformed body parts, unblended subjects; 10 = none). Eq. 4 keeps
the naturalness: S_vis = S_nat / 10 (``combine="naturalness"``, the default);
``combine="min"`` takes min(naturalness, artifacts) / 10 as GEdit-Bench's quality score does,
and ``combine="mean"`` their mean / 10.

**AlignmentScore (S_align).** The judge compares the text rendered in the translated image
(``preds``) with the translation text the system produced (``translations``) and gives one
integer from 0 to 10 (exact key facts, coverage of prominent regions, meaning kept, consistent
terms, unreadable regions not held against it). S_align = score / 10.

Both values are means over items with a valid answer, in [0, 1], higher is better. The two
scores may come from one call, as in the paper: pass ``template="imtbench.joint"`` (and the
``translations``) to both metrics (HarmonizationScore with ``reference=False``) and the cache
answers the second from the first; the IMTBench protocol makes the joint call with the
reference image (``imtbench.joint-ref``) itself. Answers
are read from our keys (``naturalness``, ``artifacts``, ``alignment``) or the paper's
(``harmonization_score``, ``alignment_score``, also as one-element lists like ``[7]``, also
inside ``||V^=^V||`` delimiters).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

from transcreval.core.common import check_bool
from transcreval.core.options import option
from transcreval.core.result import MetricResult
from transcreval.engines.judge.catalog import IMTBENCH_ALIGNMENT, IMTBENCH_HARMONIZATION, IMTBENCH_HARMONIZATION_REF
from transcreval.engines.judge.parse import Read, read_int
from transcreval.engines.judge.pipeline import JudgeOptions, JudgeSpec, judge_items
from transcreval.engines.judge.tally import judge_mean
from transcreval.engines.judge.templates import PromptTemplate, resolve_template
from transcreval.engines.judge.types import Judge
from transcreval.engines.judge.verdicts import json_reader
from transcreval.errors import InputError

Combine = Literal["naturalness", "min", "mean"]
COMBINE = ("naturalness", "min", "mean")
#: the text field both metrics fill (the system's translation text)
FIELDS = ("translation",)
_NAT = ("naturalness", "naturalness_score", "harmonization_score", "harmonization")
_ART = ("artifacts", "artifact", "artifacts_score", "artifact_score")
_MISMATCH = "{m} reference images (target) for {n} translated images (preds)"
#: what each metric asks (HarmonizationScore's default prompt depends on ``reference``)
SPECS = {
    "HarmonizationScore": JudgeSpec(
        "HarmonizationScore",
        IMTBENCH_HARMONIZATION_REF,
        FIELDS,
        ("image", "reference"),
        {"translation": "translations"},
        _MISMATCH,
    ),
    "AlignmentScore": JudgeSpec(
        "AlignmentScore", IMTBENCH_ALIGNMENT, FIELDS, ("image",), {"translation": "translations"}
    ),
}

__all__ = [
    "FIELDS",
    "SPECS",
    "AlignmentScoreOptions",
    "HarmonizationScoreOptions",
    "alignment_score",
    "alignment_score_stats",
    "harmonization_score",
    "harmonization_score_stats",
    "harmonization_template",
    "imtbench_from_stats",
    "read_alignment",
    "read_harmonization",
]


def check_combine(combine: Any) -> Combine:
    if combine not in COMBINE:
        raise InputError(f"combine must be one of {', '.join(COMBINE)}, got {combine!r}")
    return combine


def read_harmonization(combine: Combine) -> Any:
    """The reader of one answer: S (0-10) combined from naturalness and artifacts."""

    def read(obj: Any) -> Read[float]:
        nat_raw = next((obj[k] for k in obj if str(k).lower() in _NAT), None)
        if isinstance(nat_raw, list) and len(nat_raw) == 2:  # GEdit-style [naturalness, artifacts]
            nat, art = (read_int({"v": x}, ("v",), 0, 10) for x in nat_raw)
        else:
            nat, art = read_int(obj, _NAT, 0, 10), read_int(obj, _ART, 0, 10)
        if not nat.ok:
            return Read(None, nat.error)
        if combine == "naturalness":
            return Read(float(nat.value))  # type: ignore[arg-type]
        if not art.ok:
            return Read(None, art.error)
        a, b = float(nat.value), float(art.value)  # type: ignore[arg-type]
        return Read(min(a, b) if combine == "min" else (a + b) / 2.0)

    return json_reader(read)


@dataclass(frozen=True, kw_only=True)
class HarmonizationScoreOptions(JudgeOptions):
    """HarmonizationScore's options: the judge's (:class:`JudgeOptions`), ``combine`` and
    ``reference`` (show I_tgt beside the output, Eq. 4)."""

    combine: Combine = "naturalness"
    reference: bool = option(True, signature="ref")

    def check_own(self) -> None:
        check_combine(self.combine)
        check_bool("reference", self.reference)

    def spec(self) -> JudgeSpec:
        spec = SPECS["HarmonizationScore"]
        return spec if self.reference else replace(spec, template=IMTBENCH_HARMONIZATION)

    def prompt(self) -> PromptTemplate:
        return harmonization_template(self.template, self.reference)


@dataclass(frozen=True, kw_only=True)
class AlignmentScoreOptions(JudgeOptions):
    """AlignmentScore's options: the judge's (:class:`JudgeOptions`)."""

    default_spec: ClassVar[JudgeSpec | None] = SPECS["AlignmentScore"]


read_alignment = json_reader(lambda obj: read_int(obj, ("alignment", "alignment_score", "score"), 0, 10))


def _texts(translations: Any) -> Any:
    if isinstance(translations, str):
        raise InputError("translations must be a list with the system's translation text per image, got one string")
    return translations


def harmonization_template(template: PromptTemplate | str | None, reference: bool) -> PromptTemplate:
    """The template S_vis uses: ``template`` (checked against the slots the metric fills) or the
    default, ``imtbench.harmonization-ref`` with the reference image, ``imtbench.harmonization``
    without. With ``reference=True`` the template must place the reference image."""
    if not isinstance(reference, bool):
        raise InputError(f"reference must be True (show I_tgt, Eq. 4) or False (the output alone), got {reference!r}")
    default = IMTBENCH_HARMONIZATION_REF if reference else IMTBENCH_HARMONIZATION
    tpl = resolve_template(template, default, fields=FIELDS, what="HarmonizationScore")
    if reference and "reference" not in (*tpl.images, *re.findall(r"\{image:(\w+)\}", tpl.user)):
        raise InputError(
            f"HarmonizationScore: template {tpl.ref} does not show the reference image; pass reference=False to "
            "score the output alone, or a template with an {image:reference} slot (e.g. 'imtbench.joint-ref')"
        )
    return tpl


def _score(
    o: JudgeOptions, preds: Any, references: Any, translations: Any, reader: Any, template: Any
) -> dict[str, Any]:
    fields = {"translation": _texts(translations)}
    engine, spec = {**o.engine(), "template": template}, o.spec()
    assert spec is not None
    return judge_items(spec, preds, references, fields, reader, o.on_failure, score=lambda v: v / 10.0, **engine)


def harmonization_score_stats(
    preds: Any,
    target: Any = None,
    translations: Sequence[str] | None = None,
    *,
    options: HarmonizationScoreOptions | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """One batch of translated images ``preds`` with their reference images ``target`` (I_tgt;
    with ``reference=True``, the default); ``translations`` only for templates that show them.
    Options as :class:`HarmonizationScoreOptions`."""
    o = HarmonizationScoreOptions.of(options, kwargs, "harmonization_score_stats")
    if o.reference and target is None:
        raise InputError(
            "HarmonizationScore needs the reference images (target=, I_tgt in IMTBench Eq. 4); "
            "pass reference=False to score the translated images alone"
        )
    if not o.reference and target is not None:
        raise InputError("HarmonizationScore(reference=False) shows the output alone: do not pass target=")
    return _score(o, preds, target, translations, read_harmonization(o.combine), o.prompt())


def alignment_score_stats(
    preds: Any, translations: Sequence[str], *, options: AlignmentScoreOptions | None = None, **kwargs: Any
) -> dict[str, Any]:
    """One batch of (translated image, translation text) pairs; options as :class:`AlignmentScoreOptions`."""
    o = AlignmentScoreOptions.of(options, kwargs, "alignment_score_stats")
    if translations is None:
        raise InputError("AlignmentScore needs translations: the system's translation text for each image")
    return _score(o, preds, None, translations, read_alignment, o.template)


def imtbench_from_stats(stats: dict[str, Any], options: JudgeOptions) -> MetricResult:
    """The mean of score/10 over valid items, in [0, 1] (the signature names ``options.metric``)."""
    return judge_mean(stats, options.result_signature())


def harmonization_score(
    preds: Any, target: Any = None, translations: Sequence[str] | None = None, *, judge: Judge, **options: Any
) -> MetricResult:
    """S_vis (IMTBench Eq. 4) of translated images ``preds`` judged beside their reference images
    ``target`` (``reference=False``: alone), in [0, 1], higher is better; options as
    :class:`HarmonizationScoreOptions`. Returns what ``HarmonizationScore.compute()`` returns."""
    opts = HarmonizationScoreOptions.take({"judge": judge, **options}, "harmonization_score")
    return imtbench_from_stats(harmonization_score_stats(preds, target, translations, options=opts), opts)


def alignment_score(preds: Any, translations: Sequence[str], *, judge: Judge, **options: Any) -> MetricResult:
    """S_align (IMTBench Eq. 5) of translated images and their translation texts, in [0, 1];
    returns what ``AlignmentScore.compute()`` returns."""
    opts = AlignmentScoreOptions.take({"judge": judge, **options}, "alignment_score")
    return imtbench_from_stats(alignment_score_stats(preds, translations, options=opts), opts)
