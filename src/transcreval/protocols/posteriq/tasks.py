"""PosterIQ's font, layout and understanding tasks (Tables 2-5), one system's items at a time.

Paper mode reads each answer (option letters, A/B, alignment and rotation labels, colours and
effects, style names: :mod:`transcreval.functional.choice.labels`); code mode applies PosterIQ's
script rules, its refusal filter included when ``refusal_filter`` is on.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from transcreval.errors import InputError, UndefinedValueError
from transcreval.functional.choice import labels as L
from transcreval.functional.choice.point_score import PointScoreOptions, point_score_stats
from transcreval.functional.choice.style_score import read_label
from transcreval.functional.layout.box_reading import answer_above_one
from transcreval.functional.layout.boxes import (
    BoxOptions,
    BoxRecallOptions,
    TextLocalizationOptions,
    area_ratio_stats,
    box_recall_rate_stats,
    center_bias_stats,
    text_localization_iou_stats,
)
from transcreval.functional.layout.patches import (
    MatchAccuracyOptions,
    PatchOptions,
    match_accuracy_stats,
    patch_iou_stats,
)
from transcreval.functional.stats.rating_similarity import (
    RatingSimilarityOptions,
    overall_rating_similarity_from_stats,
    overall_rating_similarity_stats,
    read_score,
)
from transcreval.protocols.posteriq.inputs import TaskItem
from transcreval.protocols.posteriq.scoring import (
    Outcome,
    ProtocolOptions,
    TaskOutput,
    choice_output,
    item_where,
    mean_cell,
    merged_stats,
    records_of,
)
from transcreval.protocols.records import Cell

__all__ = ["font_output", "layout_output", "understanding_output"]

_LETTERS = {"font_matching": "ABCDEFGHI", "font_attributes": "AB", "font_effect_1": "ABCD"}
_FONT_KEYS = {"font_matching": "font_matching", "font_attributes": "font_attributes", "font_effect_1": "font_effect1"}


def _letter_rule(task: str, opts: ProtocolOptions) -> Any:
    def score(it: TaskItem) -> Outcome:
        if not opts.code:
            got = L.read_letter(it.answer, _LETTERS[task])
            return None if got is None else float(got == it.target)
        if opts.refusal_filter and task != "font_effect_1" and L.posteriq_code_refused(it.answer):
            return "refused"
        rule = L.posteriq_code_font_matching if task == "font_matching" else L.posteriq_code_contains
        return float(rule(it.answer, it.target))

    return score


def font_output(items: Sequence[TaskItem], opts: ProtocolOptions) -> TaskOutput:
    """Font matching, attributes, effect 1 (K-option scores) and effect 2 (colour, effects)."""
    from transcreval.data.posteriq import font_colors, font_effects

    task, out = items[0].task, TaskOutput()
    if task in _LETTERS:
        key = _FONT_KEYS[task]
        by_subset = opts.code and task == "font_matching"
        recs, cell, bad = choice_output(
            items, opts, f"{key}_correct", _letter_rule(task, opts), opts.k[task], by_subset
        )
        out.records, out.cells[f"{key}_score"], out.unreadable = recs, cell, bad
        return out
    colors, effects = font_colors(), font_effects()

    def read(it: TaskItem) -> tuple[Any, Any]:
        tgt = it.target
        if opts.code:
            hit, share = L.posteriq_code_effects(it.answer, tgt["color"], tgt["effects"])
            return float(hit), ("undefined" if share is None else share)
        # a target label outside the options (a ground-truth defect, noted) is read like an option
        extra_colors = () if tgt["color"] in colors else (tgt["color"],)
        extra_effects = tuple(e for e in tgt["effects"] if e not in effects)
        color, named = L.read_color_effects(it.answer, colors + extra_colors, effects + extra_effects)
        got_color = None if color is None else float(color == tgt["color"])
        if not tgt["effects"]:
            return got_color, "undefined"
        wanted = set(tgt["effects"])  # a label listed twice (a ground-truth defect, noted) counts once
        return got_color, (None if named is None else len(set(named) & wanted) / len(wanted))

    k = opts.k
    recs, cell, bad = choice_output(
        items, opts, "font_effect2_color_correct", lambda it: read(it)[0], k["font_effect_2_color"]
    )
    recs2, cell2, bad2 = choice_output(
        items, opts, "font_effect2_effect_recall", lambda it: read(it)[1], k["font_effect_2_effect"]
    )
    out.records = recs + recs2
    out.cells["font_effect2_color_score"], out.cells["font_effect2_effect_score"] = cell, cell2
    out.unreadable = max(bad, bad2)
    return out


def _sizes(items: Sequence[TaskItem]) -> bool:
    have = [("size" in it.extra) for it in items]
    if any(have) and not all(have):
        raise InputError(f"{item_where(items[have.index(False)])}: give 'size' for every item of the task or none")
    return all(have)


def layout_output(items: Sequence[TaskItem], opts: ProtocolOptions) -> TaskOutput:
    """Text localisation, alignment, rotation, empty space, layout comparison and generation."""
    task, out = items[0].task, TaskOutput()
    mode, unread = opts.mode, opts.on_unreadable
    if task in ("text_localization", "layout_generation"):
        sized = _sizes(items)
        items, off = _units_off(items, opts)
        if off:
            rule = "scored 0" if unread == "zero" else "left out"
            out.notes.append(
                f"{items[0].system}, {task}: {off} answer(s) give box coordinates above 1 (pixels? a 0-1000 grid?) "
                f"where normalised boxes were asked for: unreadable, {rule}; coords='pixel' reads answers in pixels, "
                "mode='posteriq-code' tries the four readings of PosterIQ's script"
            )

        def kw(it: TaskItem) -> dict[str, Any]:
            return {"image_sizes": [it.extra["size"]]} if sized else {}

        boxes = BoxOptions(mode=mode, coords=opts.coords, target_coords=opts.target_coords)

        runs: dict[str, Any] = {}
        if task == "text_localization":
            deepest = max(len(it.target) for it in items)
            top_mean = opts.mean_iou_top_n or (30 if opts.code else deepest)
            for name, n in (("top1", 1), ("top3", 3), ("mean", top_mean)):
                top = TextLocalizationOptions(
                    top_n=n, on_unreadable=unread, definition=opts.definition, **boxes.as_kwargs()
                )
                runs[f"text_localization_{name}_iou"] = lambda it, top=top: text_localization_iou_stats(
                    [it.answer], [it.target], **kw(it), options=top
                )
        else:
            runs["layout_generation_center_bias"] = lambda it: center_bias_stats(
                [it.answer], [it.target], **kw(it), options=boxes
            )
            runs["layout_generation_area_ratio"] = lambda it: area_ratio_stats(
                [it.answer], [it.target], **kw(it), options=boxes
            )
        recall = BoxRecallOptions(mode=mode, coords=opts.coords, on_unreadable=unread)
        runs[f"{task}_recall"] = lambda it: box_recall_rate_stats([it.answer], [it.target], **kw(it), options=recall)
        for key, fn in runs.items():
            st = merged_stats(items, fn)
            out.records += records_of(items, key, st["values"], st["status"])
            out.cells[key] = mean_cell(st)
            out.unreadable = max(out.unreadable, int(st["unparsable"]) - off)  # those noted above
        return out
    if task == "empty_space":
        patches = PatchOptions(mode=mode, on_unreadable=unread)
        matching = MatchAccuracyOptions(mode=mode, on_unreadable=unread, definition=opts.definition)
        main_text = opts.definition == "main-text"  # the answer must be the target set itself
        iou = merged_stats(items, lambda it: patch_iou_stats([it.answer], [it.target], options=patches))
        acc = merged_stats(
            items,
            lambda it: match_accuracy_stats(
                [it.answer],
                [it.target if main_text else it.extra.get("n_requested", len(it.target))],
                options=matching,
            ),
        )
        out.records = records_of(items, "empty_space_iou", iou["values"], iou["status"])
        out.records += records_of(items, "empty_space_match_acc", acc["values"], acc["status"])
        out.cells["empty_space_iou"], out.cells["empty_space_match_acc"] = mean_cell(iou), mean_cell(acc)
        out.unreadable = int(iou["unparsable"])
        return out
    rules: dict[str, tuple[Callable[[TaskItem], Outcome], Callable[[TaskItem], Outcome]]] = {
        "alignment": (
            lambda it: [float(h) for h in L.posteriq_code_alignment(it.answer, it.target)],
            lambda it: _float_or_none(L.read_alignment(it.answer), lambda g: g in it.target),
        ),
        "rotation": (
            lambda it: float(L.posteriq_code_rotation(it.answer, it.target)),
            lambda it: _float_or_none(L.read_rotation(it.answer), lambda g: g == it.target),
        ),
        "layout_comparison": (
            lambda it: _float_or_none(L.posteriq_code_layout_comparison(it.answer, it.target), bool),
            lambda it: _float_or_none(L.read_ab(it.answer), lambda g: g == it.target),
        ),
    }
    code_rule, paper_rule = rules[task]
    metric = f"{task}_correct"
    recs, cell, bad = choice_output(items, opts, metric, code_rule if opts.code else paper_rule, opts.k[task])
    out.records, out.cells[f"{task}_score"], out.unreadable = recs, cell, bad
    return out


def _units_off(items: Sequence[TaskItem], opts: ProtocolOptions) -> tuple[list[TaskItem], int]:
    """Paper mode with normalised coordinates: an answer whose boxes go above 1 (a model answering
    in pixels or on a 0-1000 grid) is that item's unreadable answer, marked ``meta["box_units"]``,
    never the end of the run (the metric alone raises :class:`BoxUnitsError` for it)."""
    if opts.code or opts.coords != "normalized":
        return list(items), 0
    out, off = [], 0
    for it in items:
        if answer_above_one(it.answer):
            off += 1
            it = replace(it, answer=None, meta={**it.meta, "box_units": "above 1"})
        out.append(it)
    return out, off


def _float_or_none(got: Any, right: Any) -> float | None:
    return None if got is None else float(bool(right(got)))


def understanding_output(
    items: Sequence[TaskItem], opts: ProtocolOptions, judge: Any = None, template: Any = None
) -> TaskOutput:
    """Style understanding (K-option), composition/intention (point score), overall rating."""
    from transcreval.functional.choice.style_score import POSTERIQ_STYLES

    task, out = items[0].task, TaskOutput()
    if task == "style_understanding":

        def style(it: TaskItem) -> Outcome:
            if opts.code:
                return float(L.posteriq_code_style(it.answer, it.target))
            return _float_or_none(read_label(it.answer, POSTERIQ_STYLES), lambda g: g == it.target)

        recs, cell, bad = choice_output(items, opts, "style_understanding_correct", style, opts.k[task])
        out.records, out.cells["style_understanding_score"], out.unreadable = recs, cell, bad
        return out
    if task == "overall_rating":
        return _rating(items, opts)
    key = "composition_point" if task == "composition_understanding" else "intention_point"
    verdicts = _verdicts(items, judge, template)
    answered = [it for it in items if it.answer is not None]
    st = point_score_stats(
        [verdicts[it.row] for it in answered],
        options=PointScoreOptions(mode=opts.mode, code_yes="substring", on_unreadable=opts.on_unreadable),
    )
    by_row = {it.row: (float(v), int(c)) for it, v, c in zip(answered, st["values"], st["status"])}
    zero = 0.0 if opts.on_unreadable == "zero" else math.nan
    vals = [by_row.get(it.row, (zero, 1))[0] for it in items]
    codes = [by_row.get(it.row, (zero, 1))[1] for it in items]
    out.records = records_of(items, key, vals, codes, n_points=lambda it: len(it.target))
    finite = [v for v in vals if math.isfinite(v)]
    out.cells[f"{key}_score"] = Cell(
        sum(finite) / len(finite) if finite else math.nan, len(finite), len(vals) - len(finite)
    )
    out.unreadable = sum(c == 1 for c in codes)
    return out


def _verdicts(items: Sequence[TaskItem], judge: Any, template: Any) -> dict[int, list[Any]]:
    """Per row, the verdict on each key point: given in the record, or asked of the judge."""
    out = {it.row: list(it.extra["verdicts"]) for it in items if it.answer is not None and "verdicts" in it.extra}
    todo = [it for it in items if it.answer is not None and "verdicts" not in it.extra]
    if todo and judge is None:
        raise InputError(
            f"{item_where(todo[0])}: no 'verdicts' for the key points: pass judge=... to evaluate() or give "
            "each record the judge's verdicts"
        )
    if todo:
        from transcreval.functional.judge.posteriq import judge_point_verdicts

        asked = judge_point_verdicts(
            [it.answer for it in todo], [it.target for it in todo], judge=judge, template=template
        )
        for it, vs in zip(todo, asked):
            out[it.row] = [bool(v.value) if v.ok else None for v in vs]
    return out


def _rating(items: Sequence[TaskItem], opts: ProtocolOptions) -> TaskOutput:
    out = TaskOutput()
    scores = [read_score(it.answer, opts.mode) for it in items]
    vals = [math.nan if s is None else s for s in scores]
    out.records = records_of(
        items, "overall_rating_score", vals, [0 if s is not None else 1 for s in scores], human=lambda it: it.target
    )
    rating = RatingSimilarityOptions(mode=opts.mode)
    st = overall_rating_similarity_stats([it.answer for it in items], [it.target for it in items], options=rating)
    n = len(st["preds"])
    try:
        res = overall_rating_similarity_from_stats(st, rating)
        out.cells["overall_rating_similarity"] = Cell(float(res.value), n, len(items) - n)
    except (UndefinedValueError, InputError) as e:
        out.cells["overall_rating_similarity"] = Cell(math.nan, 0, len(items))
        out.notes.append(f"{items[0].system}: overall rating similarity undefined: {e}")
    out.unreadable = int(st["unparsable"])
    return out
