"""PosterIQ generation's scores per item and per task, in both modes.

Every item's value comes from the project's functional metrics on the judge's replies:
:func:`~transcreval.functional.choice.point_score.point_score_stats` (dense, composition,
intention), :func:`~transcreval.functional.choice.style_score.style_score_stats` (style) and
:func:`~transcreval.functional.choice.font_richness.font_richness_stats` (font, over PosterIQ's 37
attributes). A task's cell is the sum of the counted items' values over its denominator.

``mode="posteriq-code"`` is ``gen_metric.py``'s ``compute_yes_score``, ``compute_style_score`` and
``compute_font_score``: a point item's value is the share of its replies equal to "yes" in any case
(a reply "Yes." is not), a style reply must equal the target in any case, a font attribute counts
when it is a substring of the reply (both lowered); ``"error"`` is a reply like any other (it
scores 0 and counts); the denominator is the images present.

``mode="paper"``: a point item counts 1 when every key point is judged covered (Eq. 10 as Supp. B
states it for generation), replies read as yes/no (``"Yes."`` is yes); the style is read against
the 17 styles (Eq. 13); font attributes are matched as whole words (Eq. 14-15). An ``"error"``
reply is a failed judge call: left out and counted, never a score. The denominator is every
prompt of the task: a prompt with no image scores 0 (``denominator="present"`` leaves it out).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from transcreval.core.common import Mode, OnUnreadable, check_choice, check_mode, check_on_unreadable, status_names
from transcreval.data.posteriq import font_attributes
from transcreval.errors import InputError
from transcreval.functional.choice.font_richness import FontRichnessOptions, font_richness_stats
from transcreval.functional.choice.point_score import PointScoreOptions, point_score_stats
from transcreval.functional.choice.style_score import POSTERIQ_STYLES, StyleScoreOptions, style_score_stats
from transcreval.protocols.posteriq.generation.inputs import POINT_TASKS, GenItem
from transcreval.protocols.records import Cell

__all__ = [
    "DENOMINATORS",
    "METRIC_OF",
    "GenOptions",
    "ItemScore",
    "gen_options",
    "is_error_reply",
    "score_task",
    "task_cell",
]

Denominator = Literal["prompts", "present"]
#: "prompts": every prompt of the task (a missing image scores 0); "present": the images present
DENOMINATORS: tuple[str, ...] = ("prompts", "present")
#: the record metric of each task
METRIC_OF: dict[str, str] = {
    "dense": "dense_point",
    "font": "font_richness",
    "style": "style_correct",
    "composition": "composition_point",
    "intention": "intention_point",
}
_ERROR = "error"  # what gen_metric.py writes when a judge call failed


@dataclass(frozen=True)
class GenOptions:
    """The generation protocol's options (see :func:`gen_options`)."""

    mode: Mode
    denominator: Denominator
    on_unreadable: OnUnreadable

    @property
    def code(self) -> bool:
        return self.mode == "posteriq-code"

    def as_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "denominator": self.denominator, "on_unreadable": self.on_unreadable}


def gen_options(mode: Any = "paper", denominator: Any = None, on_unreadable: Any = "zero") -> GenOptions:
    """Checked options; ``denominator`` None: "prompts" in paper mode, "present" in code mode."""
    check_mode(mode)
    check_on_unreadable(on_unreadable)
    if denominator is None:
        denominator = "present" if mode == "posteriq-code" else "prompts"
    check_choice("denominator", denominator, DENOMINATORS)
    return GenOptions(mode, denominator, on_unreadable)


@dataclass(frozen=True)
class ItemScore:
    """One item's value (NaN where it is not counted), status ("ok", "unparsable",
    "judge_error", "no_replies", ...), whether the cell counts it, and what about its replies
    the reader should know (None when nothing)."""

    value: float
    status: str
    counted: bool
    quirk: str | None = None


def is_error_reply(judge: Any) -> bool:
    """Whether ``judge`` is the reply ``gen_metric.py`` writes for a failed call (``"error"``)."""
    return isinstance(judge, str) and judge.strip().lower() == _ERROR


def _replies(judge: Any) -> tuple[list[Any], str | None]:
    """A point item's replies as a list (None for a reply that is not text) and the quirk."""
    if isinstance(judge, list):
        bad = [i + 1 for i, x in enumerate(judge) if not isinstance(x, str)]
        quirk = f"reply {bad[0]} of {len(judge)} is not text, read as no reply" if bad else None
        return [x if isinstance(x, str) else None for x in judge], quirk
    if isinstance(judge, str):
        quirk = None if is_error_reply(judge) else "one reply (a string) for all key points, read as one reply"
        return [judge], quirk
    return [None], f"the judge field is {type(judge).__name__}, read as one reply that is no answer"


def _point_scores(items: Sequence[GenItem], opts: GenOptions) -> list[ItemScore]:
    out: list[ItemScore | None] = [None] * len(items)
    lists: list[list[Any]] = []
    owner: list[tuple[int, str | None]] = []
    for i, it in enumerate(items):
        if not opts.code and is_error_reply(it.judge):
            out[i] = ItemScore(math.nan, "judge_error", False)
            continue
        replies, quirk = _replies(it.judge)
        n_points = len(it.prompt.target)
        if not replies:  # gen_metric.py would divide by zero here
            out[i] = ItemScore(0.0, "no_replies", True, "no replies (an empty list), scored 0")
            continue
        if isinstance(it.judge, list) and len(replies) != n_points:
            more = f"{len(replies)} replies for {n_points} key points, scored on the replies"
            quirk = f"{quirk}; {more}" if quirk else more
        lists.append(replies)
        owner.append((i, quirk))
    if lists:
        stats = point_score_stats(
            lists, options=PointScoreOptions(mode=opts.mode, code_yes="exact", on_unreadable=opts.on_unreadable)
        )
        for (i, quirk), value, status in zip(owner, stats["values"].tolist(), status_names(stats["status"])):
            counted = not math.isnan(value)
            out[i] = ItemScore(float(value), status, counted, quirk)
    return [x for x in out if x is not None]


def _style_scores(items: Sequence[GenItem], opts: GenOptions) -> list[ItemScore]:
    targets = [str(it.prompt.target) for it in items]
    foreign = [t for t in dict.fromkeys(targets) if t not in POSTERIQ_STYLES]
    options = StyleScoreOptions(labels=(*POSTERIQ_STYLES, *foreign), mode=opts.mode, on_unreadable=opts.on_unreadable)
    out: list[ItemScore] = []
    for it, target in zip(items, targets):
        if not opts.code and is_error_reply(it.judge):
            out.append(ItemScore(math.nan, "judge_error", False))
            continue
        quirk = (
            f"target style {target!r} is not one of PosterIQ's 17; read as one more label"
            if target in foreign
            else None
        )
        replies = it.judge if isinstance(it.judge, list) else [it.judge]
        if isinstance(it.judge, list):
            more = f"{len(replies)} style replies, scored as their share of right ones (as gen_metric.py)"
            quirk = f"{quirk}; {more}" if quirk else more
        if not replies:
            out.append(ItemScore(0.0, "no_replies", True, "no replies (an empty list), scored 0"))
            continue
        texts = [r if isinstance(r, str) else None for r in replies]
        stats = style_score_stats(texts, [target] * len(texts), options=options)
        values = [v for v in stats["values"].tolist() if not math.isnan(v)]
        status = "unparsable" if stats["unparsable"] else "ok"
        value = math.fsum(values) / len(values) if values else math.nan
        out.append(ItemScore(value, status, bool(values), quirk))
    return out


def _font_scores(items: Sequence[GenItem], opts: GenOptions) -> list[ItemScore]:
    vocab = font_attributes()
    options = FontRichnessOptions(vocabulary=vocab, mode=opts.mode)
    out: list[ItemScore] = []
    for it in items:
        if not opts.code and is_error_reply(it.judge):
            out.append(ItemScore(math.nan, "judge_error", False))
            continue
        reply, quirk = it.judge, None
        if isinstance(reply, list):
            if not all(isinstance(x, str) for x in reply):
                reply, quirk = [x for x in reply if isinstance(x, str)], "a reply list with entries that are not text"
            quirk = quirk or "a list of attributes instead of one reply: read as attribute names"
        elif not isinstance(reply, str):
            reply, quirk = "", f"the judge field is {type(it.judge).__name__}, read as an empty reply"
        stats = font_richness_stats([reply], options=options)
        out.append(ItemScore(sum(stats["attribute_counts"]) / len(vocab), "ok", True, quirk))
    return out


def score_task(task: str, items: Sequence[GenItem], opts: GenOptions) -> list[ItemScore]:
    """The score of each item of one task (items whose image is present and has replies)."""
    if task in POINT_TASKS:
        return _point_scores(items, opts)
    if task == "style":
        return _style_scores(items, opts)
    if task == "font":
        return _font_scores(items, opts)
    raise InputError(f"unknown generation task {task!r}")


def task_cell(scores: Sequence[ItemScore], n_missing_images: int, n_failed: int, opts: GenOptions) -> Cell:
    """The task's cell: the counted values' sum over the denominator (plus the prompts without an
    image under ``denominator="prompts"``, each scoring 0); ``n_missing`` the prompts and items
    left out of it (images missing under "present", judge failures, dropped replies)."""
    counted = [s.value for s in scores if s.counted]
    left_out = sum(not s.counted for s in scores) + n_failed
    n = len(counted)
    if opts.denominator == "prompts":
        n += n_missing_images
    else:
        left_out += n_missing_images
    if n == 0:
        return Cell(math.nan, 0, left_out)
    return Cell(math.fsum(counted) / n, n, left_out)
