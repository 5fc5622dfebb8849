"""PosterIQ's box metrics (Supp. B, Eq. 4-7): text localisation IoU, recall rate, centre bias,
area ratio.

Boxes are ``[x0, y0, x1, y1]``, normalised to [0, 1] by default. ``coords`` says how the
predictions are given and ``target_coords`` how the ground truth is; ``"pixel"`` boxes are
divided by ``image_sizes=[(W, H), ...]``. PosterIQ's own data give the ground truth in pixels
with the image size: ``target_coords="pixel"`` with those sizes, in either mode. Boxes that
look like pixels where normalised coordinates are expected (or ground truth that looks
normalised where pixels are expected) are an error, never a silent number; so is an inverted
box (``x1 < x0`` or ``y1 < y0``) in paper mode.

Predictions may be boxes or the model's raw answer text (parsed by
:func:`transcreval.utils.parsing.parse_boxes`). An empty list ``[]`` is an answer: no boxes. An answer
that cannot be read (prose, None) is counted in ``n_unparsable``; for the IoU and the recall
rate ``on_unreadable="zero"`` (default) scores it 0, as PosterIQ's code does (its parser reads
it as no boxes), and ``"drop"`` leaves it out. Centre bias and area ratio average over paired
boxes only, so an unreadable answer adds no pair either way (the recall rate carries the
penalty). ``mode="posteriq-code"`` reproduces PosterIQ's script: its answer parser, pairing by
position without sorting, boxes pooled over images, and each predicted box read four ways
(``/[W, H]``, as is, ``/1024``, ``/1000``) keeping the best reading. ``per_item`` holds one
value per image (in code mode the mean of its boxes, whose pooled mean is the value).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

from transcreval.core.common import (
    Definition,
    MeanStats,
    Mode,
    OnUnreadable,
    check_choice,
    check_definition,
    check_on_unreadable,
    check_positive_int,
    definition_signature,
    mean_result,
)
from transcreval.core.options import MetricOptions, option, takes_options
from transcreval.core.result import MetricResult
from transcreval.errors import InputError
from transcreval.functional.layout.box_reading import (
    COORDS,
    Coords,
    box_area,
    box_center,
    box_iou,
    box_list,
    check_box_options,
    code_readings,
    pred_boxes,
    sized_items,
    target_boxes,
)
from transcreval.utils.parsing import Box

__all__ = [
    "BoxOptions",
    "BoxReadingOptions",
    "BoxRecallOptions",
    "TextLocalizationOptions",
    "area_ratio",
    "area_ratio_from_stats",
    "area_ratio_stats",
    "box_area",
    "box_iou",
    "box_recall_rate",
    "box_recall_rate_from_stats",
    "box_recall_rate_stats",
    "center_bias",
    "center_bias_from_stats",
    "center_bias_stats",
    "check_box_options",
    "text_localization_iou",
    "text_localization_iou_from_stats",
    "text_localization_iou_stats",
]

#: distributions whose versions change the numbers (none)
PACKAGES: tuple[str, ...] = ()
Sizes = Sequence[tuple[float, float]] | None


# ----------------------------------------------------------------------------- options
@dataclass(frozen=True)
class BoxReadingOptions(MetricOptions):
    """How answers are read: ``mode`` ("paper" or "posteriq-code") and ``coords`` of the
    predictions ("normalized" or "pixel")."""

    mode: Mode = "paper"
    coords: Coords = "normalized"

    def check(self) -> None:
        check_box_options(self.mode, self.coords, "normalized")


@dataclass(frozen=True)
class BoxOptions(BoxReadingOptions):
    """The options of :class:`~transcreval.CenterBias` and :class:`~transcreval.AreaRatio`:
    :class:`BoxReadingOptions` and ``target_coords`` (of the ground truth)."""

    target_coords: Coords = option("normalized", signature="target")

    def check(self) -> None:
        super().check()
        check_choice("target_coords", self.target_coords, COORDS)


@dataclass(frozen=True)
class BoxRecallOptions(BoxReadingOptions):
    """The options of :class:`~transcreval.BoxRecallRate`: :class:`BoxReadingOptions` and
    ``on_unreadable`` ("zero" or "drop")."""

    on_unreadable: OnUnreadable = option("zero", signature="unreadable")

    def check(self) -> None:
        super().check()
        check_on_unreadable(self.on_unreadable)


@dataclass(frozen=True)
class TextLocalizationOptions(BoxOptions):
    """The options of :class:`~transcreval.TextLocalizationIoU`: ``top_n`` (required),
    :class:`BoxOptions`, ``on_unreadable`` and ``definition`` ("supp-b": Eq. 4's pairing by
    position; "main-text": the best predicted box for each ground-truth box, the main text's
    "maximum IoU over predicted regions")."""

    top_n: int = option(kw_only=True, signature_order=-1)
    on_unreadable: OnUnreadable = option("zero", signature="unreadable")
    definition: Definition = option("supp-b", signature=definition_signature)

    def check(self) -> None:
        check_positive_int("top_n", self.top_n)
        super().check()
        check_on_unreadable(self.on_unreadable)
        check_definition(self.definition, self.mode)


def _mean(stats: dict[str, Any], options: MetricOptions, name: str) -> MetricResult:
    """The result of a mean of :class:`~transcreval.core.common.MeanStats` statistics, signed as ``name``."""
    return mean_result(stats, options.signature(name, PACKAGES), name)


# ----------------------------------------------------------------------------- text localisation
def text_localization_iou_stats(
    preds: Sequence[Any],
    target: Sequence[Sequence[Sequence[float]]],
    image_sizes: Sizes = None,
    *,
    options: TextLocalizationOptions,
) -> dict[str, Any]:
    """Per image IoU (paper) or per matched box IoU (code), plus the unreadable answers."""
    o, top_n = options, options.top_n
    agg = MeanStats()
    for pred, gt, size in sized_items(preds, target, image_sizes, "text_localization_iou"):
        g = target_boxes(gt, o.target_coords, size, o.mode)
        if not g:
            raise InputError("an image has no ground-truth boxes")
        p = pred_boxes(pred, o.mode, o.coords, size)
        if p is None:  # code mode: as the script reads an answer it cannot parse, no boxes
            agg.unreadable(o.on_unreadable, units=0 if o.mode == "posteriq-code" else 1)
            continue
        if o.mode == "posteriq-code":  # by position, no sorting, pooled over boxes
            agg.add_pooled(
                [max(box_iou(r, g[j]) for r in code_readings(p[j], size)) for j in range(min(len(g), len(p), top_n))]
            )
        else:
            order = sorted(range(len(g)), key=lambda i: -box_area(g[i]))  # largest ground truth first
            n = min(top_n, len(g))
            if o.definition == "main-text":  # each ground-truth box takes its best predicted box
                agg.add(sum(max((box_iou(b, g[i]) for b in p), default=0.0) for i in order[:n]) / n)
            else:
                agg.add(sum(box_iou(p[i], g[i]) if i < len(p) else 0.0 for i in order[:n]) / n)
    return agg.as_stats()


def text_localization_iou_from_stats(stats: dict[str, Any], options: TextLocalizationOptions) -> MetricResult:
    """The mean IoU (``per_item`` one value per image)."""
    return _mean(stats, options, "TextLocalizationIoU")


@takes_options(TextLocalizationOptions)
def text_localization_iou(
    preds: Sequence[Any],
    target: Sequence[Sequence[Sequence[float]]],
    image_sizes: Sizes = None,
    **options: Any,
) -> MetricResult:
    """Top-n text-localisation IoU (PosterIQ Eq. 4), in [0, 1], higher is better: what
    :class:`~transcreval.TextLocalizationIoU` computes on the same images.

    ``preds[i]`` answers image ``i``: a list of boxes (box ``j`` for queried text ``j``) or the
    raw answer text; ``target[i]`` the ground-truth boxes in query order.

    Paper: sort the (prediction, ground truth) pairs by ground-truth area, largest first, take
    the top ``n = min(top_n, #gt)`` and average their IoU, a missing prediction counting 0; the
    score is the mean over images. Code: pair the j-th predicted box with the j-th ground-truth
    box as given, for ``j < min(#gt, #pred, top_n)``; each box's IoU is the best of four
    coordinate readings; the IoUs of all matched boxes of all images are pooled. An
    unreadable answer scores 0 (``on_unreadable="zero"``) or is left out (``"drop"``).

    ``definition="main-text"`` (paper mode only) reads PosterIQ's main text instead of Eq. 4:
    "Top-1 IoU denotes the maximum IoU over predicted regions": each of the top ``n`` ground-truth
    boxes (largest first) takes the highest IoU of any predicted box, whatever its position (for
    ``top_n > 1`` our extension of that sentence; the main text defines Top-1 only).
    """
    opts = TextLocalizationOptions.take(options, "text_localization_iou")
    return text_localization_iou_from_stats(text_localization_iou_stats(preds, target, image_sizes, options=opts), opts)


# ----------------------------------------------------------------------------- recall rate
def _count(x: Any, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, Real) or not float(x).is_integer():
        raise InputError(f"{what} must be a box count (an integer), a list of boxes or an answer, got {x!r}")
    return int(float(x))


def box_recall_rate_stats(
    preds: Sequence[Any], target: Sequence[Any], image_sizes: Sizes = None, *, options: BoxRecallOptions
) -> dict[str, Any]:
    """Per item ``min(1, n_pred / n_query)``; an unreadable answer scores 0 or is left out."""
    agg = MeanStats()
    for pred, query, size in sized_items(preds, target, image_sizes, "box_recall_rate"):
        nq = _count(query, "target") if isinstance(query, Real) else len(box_list(query, "target", False))
        if isinstance(pred, Real):
            npred: int | None = _count(pred, "preds")
        else:
            boxes = pred_boxes(pred, options.mode, options.coords, size)
            npred = None if boxes is None else len(boxes)
        if nq <= 0 or (npred is not None and npred < 0):
            raise InputError(
                f"target (queried boxes) must be positive and preds (returned boxes) non-negative, got {npred} and {nq}"
            )
        if npred is None:
            agg.unreadable(options.on_unreadable)
        else:
            agg.add(min(1.0, npred / nq))
    return agg.as_stats()


def box_recall_rate_from_stats(stats: dict[str, Any], options: BoxRecallOptions) -> MetricResult:
    """The mean recall (``per_item`` one value per item)."""
    return _mean(stats, options, "BoxRecallRate")


@takes_options(BoxRecallOptions)
def box_recall_rate(
    preds: Sequence[Any],
    target: Sequence[Any],
    image_sizes: Sizes = None,
    **options: Any,
) -> MetricResult:
    """Recall rate (PosterIQ Eq. 5): mean of ``min(1, n_pred / n_query)`` over items, in [0, 1],
    higher is better (what :class:`~transcreval.BoxRecallRate` computes). ``preds[i]``: the
    number of boxes returned, the boxes, or the raw answer (parsed as
    :func:`text_localization_iou` parses it; ``[]`` is 0 boxes); ``target[i]``: the number of
    boxes asked for, or the ground-truth boxes. An unreadable answer scores 0
    (``on_unreadable="zero"``, as PosterIQ's code, whose parser reads it as no boxes) or is left
    out (``"drop"``)."""
    opts = BoxRecallOptions.take(options, "box_recall_rate")
    return box_recall_rate_from_stats(box_recall_rate_stats(preds, target, image_sizes, options=opts), opts)


# ----------------------------------------------------------------------------- centre bias, area ratio
def _per_pair_stats(
    preds: Sequence[Any],
    target: Sequence[Any],
    image_sizes: Sizes,
    options: BoxOptions,
    score: Callable[[list[Box], Box], float],
) -> dict[str, Any]:
    """``score(readings of a predicted box, its ground-truth box)`` for every paired element."""
    mode = options.mode
    agg = MeanStats()
    for pred, gt, size in sized_items(preds, target, image_sizes, "layout boxes"):
        g = target_boxes(gt, options.target_coords, size, mode)
        p = pred_boxes(pred, mode, options.coords, size)
        if p is None:  # no boxes: no pair to score, whatever on_unreadable says
            agg.unreadable("drop")
            continue
        agg.add_pooled(
            [score(code_readings(pb, size) if mode == "posteriq-code" else [pb], gb) for pb, gb in zip(p, g)]
        )
    return agg.as_stats()


def _distance(readings: list[Box], g: Box) -> float:
    return min(math.dist(box_center(r), box_center(g)) for r in readings)


def _ratio(readings: list[Box], g: Box) -> float:
    """GT area / predicted area of the reading closest to 1, folded to <= 1 (PosterIQ's rule;
    with the one reading of paper mode it is min(A_pred, A_gt) / max(A_pred, A_gt))."""
    ag = box_area(g)
    if ag <= 0:
        raise InputError(f"ground-truth box {g} has zero area")
    best: float | None = None
    for r in readings:
        # the product of the signed sides, as PosterIQ's code takes it: a box inverted on both
        # axes has a positive area there (paper mode never gets an inverted box)
        ap = (r[2] - r[0]) * (r[3] - r[1])
        q = ag / ap if ap > 0 else 0.0
        if best is None or abs(q - 1) < abs(best - 1):
            best = q
    assert best is not None
    return min(best, 1 / best) if best > 0 else 0.0


def center_bias_stats(
    preds: Sequence[Any], target: Sequence[Any], image_sizes: Sizes = None, *, options: BoxOptions
) -> dict[str, Any]:
    """Per paired element, the distance of the box centres."""
    return _per_pair_stats(preds, target, image_sizes, options, _distance)


def center_bias_from_stats(stats: dict[str, Any], options: BoxOptions) -> MetricResult:
    """The mean distance over all paired boxes (``per_item``: each image's mean)."""
    return _mean(stats, options, "CenterBias")


@takes_options(BoxOptions)
def center_bias(
    preds: Sequence[Any],
    target: Sequence[Any],
    image_sizes: Sizes = None,
    **options: Any,
) -> MetricResult:
    """Centre bias (PosterIQ Eq. 6): mean Euclidean distance of normalised box centres over all
    paired elements (box j with box j), in [0, sqrt(2)], lower is better (what
    :class:`~transcreval.CenterBias` computes).

    Code: each distance is the smallest over the four coordinate readings."""
    opts = BoxOptions.take(options, "center_bias")
    return center_bias_from_stats(center_bias_stats(preds, target, image_sizes, options=opts), opts)


def area_ratio_stats(
    preds: Sequence[Any], target: Sequence[Any], image_sizes: Sizes = None, *, options: BoxOptions
) -> dict[str, Any]:
    """Per paired element, ``min(A_pred, A_gt) / max(A_pred, A_gt)``."""
    return _per_pair_stats(preds, target, image_sizes, options, _ratio)


def area_ratio_from_stats(stats: dict[str, Any], options: BoxOptions) -> MetricResult:
    """The mean ratio over all paired boxes (``per_item``: each image's mean)."""
    return _mean(stats, options, "AreaRatio")


@takes_options(BoxOptions)
def area_ratio(
    preds: Sequence[Any],
    target: Sequence[Any],
    image_sizes: Sizes = None,
    **options: Any,
) -> MetricResult:
    """Area ratio (PosterIQ Eq. 7): mean of ``min(A_pred, A_gt) / max(A_pred, A_gt)`` over all
    paired elements, in [0, 1], higher is better (what :class:`~transcreval.AreaRatio`
    computes). A zero-area ground-truth box is an error; a zero-area prediction scores 0.
    Code: the reading whose ratio is closest to 1."""
    opts = BoxOptions.take(options, "area_ratio")
    return area_ratio_from_stats(area_ratio_stats(preds, target, image_sizes, options=opts), opts)
