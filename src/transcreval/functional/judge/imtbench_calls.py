"""IMTBench's judge calls, item by item: S_vis (Eq. 4) and S_align (Eq. 5).

The paper's judge prompt (App. A.3, "Prompt C") asks for the harmonization and the alignment
score in **one** call per image, so ``call="joint"`` (the default) sends one request per item
with the translated image, the reference image I_tgt (``reference=True``, Eq. 4) and the
system's translation text, and reads both scores from the one answer (template
``imtbench.joint-ref``; ``imtbench.joint`` without the reference). ``call="separate"`` asks
one call per score (``imtbench.harmonization-ref`` / ``imtbench.harmonization`` and
``imtbench.alignment``). An item without a translation text gets the harmonization call only;
its alignment is ``"missing_output"``.

Every item gets an :class:`ItemScore` for each score, in input order: ``"ok"`` with the value
(score / 10, in [0, 1]) or the failure status (``api_error``, ``refused``, ``timeout``,
``truncated``, ``unparsable``) with NaN. In a joint answer each score is read on its own: an
answer with a valid naturalness and an out-of-range alignment fails only the alignment.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from transcreval.core.common import check_choice
from transcreval.engines.judge.catalog import IMTBENCH_ALIGNMENT, IMTBENCH_JOINT, IMTBENCH_JOINT_REF
from transcreval.engines.judge.images import to_image_parts
from transcreval.engines.judge.parse import Read, looks_like_refusal
from transcreval.engines.judge.templates import PromptTemplate, is_missing, resolve_template
from transcreval.engines.judge.types import Judge
from transcreval.engines.judge.verdicts import ask, check_judge, render_each
from transcreval.errors import InputError
from transcreval.functional.judge.imtbench import (
    FIELDS,
    Combine,
    check_combine,
    harmonization_template,
    read_alignment,
    read_harmonization,
)

__all__ = ["JUDGE_CALLS", "ItemScore", "JudgeCall", "check_judge_templates", "judge_items"]

JudgeCall = Literal["joint", "separate"]
JUDGE_CALLS = ("joint", "separate")
ROLES = ("joint", "harmonization", "alignment")


@dataclass(frozen=True)
class ItemScore:
    """One item's score: ``status`` "ok" with ``value``, or why there is none (``value`` NaN)."""

    status: str
    value: float = math.nan
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


MISSING_TEXT = ItemScore("missing_output", detail="the system gave no translation text")


def _shows_reference(tpl: PromptTemplate) -> bool:
    return "reference" in (*tpl.images, *re.findall(r"\{image:(\w+)\}", tpl.user))


def check_judge_templates(templates: Mapping[str, Any] | None, *, reference: bool) -> dict[str, PromptTemplate]:
    """The three templates (``joint``, ``harmonization``, ``alignment``), defaults replaced by
    ``templates``; each checked against the slots the protocol fills."""
    given = dict(templates or {})
    unknown = sorted(set(given) - set(ROLES))
    if unknown:
        raise InputError(f"templates may replace {', '.join(ROLES)}; got {unknown}")
    joint_default = IMTBENCH_JOINT_REF if reference else IMTBENCH_JOINT
    joint = resolve_template(given.get("joint"), joint_default, fields=FIELDS, what="the IMTBench joint judge call")
    if reference and not _shows_reference(joint):
        raise InputError(
            f"the joint judge template {joint.ref} does not show the reference image; pass reference=False, or a "
            "template with an {image:reference} slot"
        )
    return {
        "joint": joint,
        "harmonization": harmonization_template(given.get("harmonization"), reference),
        "alignment": resolve_template(given.get("alignment"), IMTBENCH_ALIGNMENT, fields=FIELDS, what="S_align"),
    }


def _scored(read: Read[Any]) -> ItemScore:
    if not read.ok or read.value is None:
        return ItemScore("unparsable", detail=read.error)
    return ItemScore("ok", float(read.value) / 10.0)


def _safe(reader: Any, text: str) -> Read[Any]:
    try:
        got = reader(text)
    except Exception as e:  # a reader bug fails this score only
        return Read(None, f"the answer could not be read ({type(e).__name__}: {str(e)[:120]})")
    return got if isinstance(got, Read) else Read(None, f"the reader returned {type(got).__name__}")


def _ask_each(judge: Judge, requests: list[Any], readers: Sequence[Any]) -> list[list[ItemScore]]:
    """One batch of requests; per request, one ItemScore per reader (all read from the same answer)."""

    def both(text: str) -> Read[Any]:
        return Read(tuple(_safe(r, text) for r in readers))

    out: list[list[ItemScore]] = []
    for v in ask(judge, requests, both):
        if not v.ok:  # transport failures (api_error, timeout, truncated ...) fail every score of the call
            out.append([ItemScore(v.status, detail=v.detail)] * len(readers))
            continue
        text = v.reply.text if v.reply is not None else ""
        scores = []
        for read in v.value:
            got = _scored(read)
            if not got.ok and looks_like_refusal(text):
                got = ItemScore("refused", detail=f"the model declined: {(text or '')[:120]!r}")
            scores.append(got)
        out.append(scores)
    return out


def judge_items(
    preds: Any,
    target: Any,
    translations: Sequence[str | None],
    *,
    judge: Judge,
    call: JudgeCall = "joint",
    combine: Combine = "naturalness",
    reference: bool = True,
    templates: Mapping[str, Any] | None = None,
    input_range: Any = None,
) -> tuple[list[ItemScore], list[ItemScore]]:
    """``(S_vis, S_align)`` per item, each an :class:`ItemScore` in input order.

    ``preds``: the translated images; ``target``: the reference images I_tgt (used with
    ``reference=True``; may be None otherwise); ``translations``: the system's translation text
    per item (None: the system gave none); ``input_range``: the value range of float images
    (:mod:`transcreval.io`).
    """
    check_judge(judge, "IMTBench")
    check_choice("judge_call", call, JUDGE_CALLS)
    tpls = check_judge_templates(templates, reference=reference)
    vis_reader, align_reader = read_harmonization(check_combine(combine)), read_alignment
    images = to_image_parts(preds, what="preds", input_range=input_range)
    n = len(images)
    if isinstance(translations, str) or len(translations) != n:
        raise InputError(f"translations must be a list with one text (or None) per image: {n} images")
    texts = [None if is_missing(t) else str(t) for t in translations]
    refs: list[Any] = [None] * n
    if reference:
        if target is None:
            raise InputError("the S_vis judge call shows the reference images: pass target= (or reference=False)")
        refs = list(to_image_parts(target, what="target", input_range=input_range))
        if len(refs) != n:
            raise InputError(f"{len(refs)} reference images (target) for {n} translated images (preds)")

    def row(i: int) -> tuple[dict[str, Any], dict[str, Any]]:
        imgs = {"image": images[i], **({"reference": refs[i]} if reference else {})}
        return imgs, {"translation": texts[i]}

    with_text = [i for i in range(n) if texts[i] is not None]
    without_text = [i for i in range(n) if texts[i] is None]
    vis: list[ItemScore] = [MISSING_TEXT] * n
    align: list[ItemScore] = [MISSING_TEXT] * n
    if call == "joint":
        reqs = render_each(tpls["joint"], [row(i) for i in with_text], {"translation": "translations"}, "IMTBench")
        for i, (v, a) in zip(with_text, _ask_each(judge, reqs, (vis_reader, align_reader))):
            vis[i], align[i] = v, a
        vis_only = without_text
    else:
        reqs = render_each(tpls["alignment"], [({"image": images[i]}, row(i)[1]) for i in with_text], None, "S_align")
        for i, (a,) in zip(with_text, _ask_each(judge, reqs, (align_reader,))):
            align[i] = a
        vis_only = list(range(n))
    reqs = render_each(tpls["harmonization"], [row(i) for i in vis_only], {"translation": "translations"}, "S_vis")
    for i, (v,) in zip(vis_only, _ask_each(judge, reqs, (vis_reader,))):
        vis[i] = v
    return vis, align
