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
from typing import Any, Literal

from transcreval.errors import InputError
from transcreval.judge.catalog import IMTBENCH_ALIGNMENT, IMTBENCH_HARMONIZATION, IMTBENCH_HARMONIZATION_REF
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

Combine = Literal["naturalness", "min", "mean"]
COMBINE = ("naturalness", "min", "mean")
#: the text field both metrics fill (the system's translation text)
FIELDS = ("translation",)
_NAT = ("naturalness", "naturalness_score", "harmonization_score", "harmonization")
_ART = ("artifacts", "artifact", "artifacts_score", "artifact_score")

__all__ = [
    "FIELDS",
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


read_alignment = json_reader(lambda obj: read_int(obj, ("alignment", "alignment_score", "score"), 0, 10))


def _texts(translations: Any, n: int) -> list[str | None]:
    if isinstance(translations, str):
        raise InputError("translations must be a list with the system's translation text per image, got one string")
    return text_field(translations, n, "translations")


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
    preds: Any,
    translations: Any,
    *,
    judge: Judge,
    default: PromptTemplate,
    reader: Any,
    what: str,
    template: PromptTemplate | str | None,
    on_failure: str,
    references: Any = None,
    input_range: Any = None,
) -> dict[str, Any]:
    check_judge(judge, what)
    on_failure = check_on_failure(on_failure)
    tpl = resolve_template(template, default, fields=FIELDS, what=what)
    images = image_parts(preds, "preds", input_range)
    texts = _texts(translations, len(images))
    if references is None:
        rows = [({"image": im}, {"translation": t}) for im, t in zip(images, texts)]
    else:
        refs = image_parts(references, "target", input_range)
        if len(refs) != len(images):
            raise InputError(f"{len(refs)} reference images (target) for {len(images)} translated images (preds)")
        rows = [({"image": im, "reference": r}, {"translation": t}) for im, r, t in zip(images, refs, texts)]
    requests = render_each(tpl, rows, {"translation": "translations"}, what)
    tally = JudgeTally()
    for v in ask(judge, requests, reader):
        if v.ok:
            tally.add(v.value / 10.0)
        else:
            tally.fail(v.status, v.detail)
    tally.failed.raise_if_any(what, on_failure)
    return tally.stats()


def harmonization_score_stats(
    preds: Any,
    target: Any = None,
    translations: Sequence[str] | None = None,
    *,
    judge: Judge,
    combine: Combine = "naturalness",
    reference: bool = True,
    template: PromptTemplate | str | None = None,
    on_failure: str = "skip",
    input_range: Any = None,
) -> dict[str, Any]:
    """One batch of translated images ``preds`` with their reference images ``target`` (I_tgt;
    with ``reference=True``, the default); ``translations`` only for templates that show them."""
    reader = read_harmonization(check_combine(combine))
    tpl = harmonization_template(template, reference)
    if reference and target is None:
        raise InputError(
            "HarmonizationScore needs the reference images (target=, I_tgt in IMTBench Eq. 4); "
            "pass reference=False to score the translated images alone"
        )
    if not reference and target is not None:
        raise InputError("HarmonizationScore(reference=False) shows the output alone: do not pass target=")
    return _score(
        preds,
        translations,
        judge=judge,
        default=tpl,
        reader=reader,
        what="HarmonizationScore",
        template=tpl,
        on_failure=on_failure,
        references=target if reference else None,
        input_range=input_range,
    )


def alignment_score_stats(
    preds: Any,
    translations: Sequence[str],
    *,
    judge: Judge,
    template: PromptTemplate | str | None = None,
    on_failure: str = "skip",
    input_range: Any = None,
) -> dict[str, Any]:
    """One batch of (translated image, translation text) pairs."""
    if translations is None:
        raise InputError("AlignmentScore needs translations: the system's translation text for each image")
    return _score(
        preds,
        translations,
        judge=judge,
        default=IMTBENCH_ALIGNMENT,
        reader=read_alignment,
        what="AlignmentScore",
        template=template,
        on_failure=on_failure,
        input_range=input_range,
    )


def imtbench_from_stats(stats: dict[str, Any], signature: Signature) -> MetricResult:
    """The mean of score/10 over valid items, in [0, 1]."""
    n = check_valid_count(stats, signature.name)
    return judge_result(float(stats["total"]) / n, stats, signature)


def harmonization_score(
    preds: Any, target: Any = None, translations: Sequence[str] | None = None, *, judge: Judge, **options: Any
) -> float:
    """S_vis (IMTBench Eq. 4) of translated images ``preds`` judged beside their reference images
    ``target`` (``reference=False``: alone), in [0, 1], higher is better."""
    stats = harmonization_score_stats(preds, target, translations, judge=judge, **options)
    return imtbench_from_stats(stats, Signature.make("harmonization_score")).value


def alignment_score(preds: Any, translations: Sequence[str], *, judge: Judge, **options: Any) -> float:
    """S_align (IMTBench Eq. 5) of translated images and their translation texts, in [0, 1]."""
    stats = alignment_score_stats(preds, translations, judge=judge, **options)
    return imtbench_from_stats(stats, Signature.make("alignment_score")).value
