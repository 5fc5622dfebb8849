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
:func:`transcreval.parsing.parse_boxes`; unreadable answers are counted in ``n_unparsable`` and
left out). ``mode="posteriq-code"`` reproduces PosterIQ's script: its answer parser, pairing by
position without sorting, boxes pooled over images, and each predicted box read four ways
(``/[W, H]``, as is, ``/1024``, ``/1000``) keeping the best reading.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any, Literal

from transcreval.common import Aggregate, Mode, as_list, check_choice, check_mode, mean_from_stats, same_length
from transcreval.errors import InputError
from transcreval.parsing import Box, parse_boxes, posteriq_code_boxes

Coords = Literal["normalized", "pixel"]
COORDS = ("normalized", "pixel")

__all__ = [
    "area_ratio",
    "area_ratio_stats",
    "box_area",
    "box_iou",
    "box_recall_rate",
    "box_recall_rate_stats",
    "center_bias",
    "center_bias_stats",
    "check_box_options",
    "text_localization_iou",
    "text_localization_iou_stats",
]


def check_box_options(mode: Any, coords: Any, target_coords: Any) -> None:
    """Validate ``mode``, ``coords`` (predictions) and ``target_coords`` (ground truth)."""
    check_mode(mode)
    check_choice("coords", coords, COORDS)
    check_choice("target_coords", target_coords, COORDS)


def box_area(b: Box) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def box_iou(a: Box, b: Box) -> float:
    """Intersection over union of two boxes (0 when both have zero area)."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = box_area(a) + box_area(b) - inter
    return inter / union if union > 0 else 0.0


def _center(b: Box) -> tuple[float, float]:
    return (b[0] + b[2]) / 2, (b[1] + b[3]) / 2


def _code_readings(pred: Box, size: tuple[float, float] | None) -> list[Box]:
    """The four coordinate readings PosterIQ's code tries for every predicted box."""
    out = []
    if size is not None:
        w, h = size
        out.append((pred[0] / w, pred[1] / h, pred[2] / w, pred[3] / h))
    out.append(pred)
    for scale in (1024.0, 1000.0):
        out.append((pred[0] / scale, pred[1] / scale, pred[2] / scale, pred[3] / scale))
    return out


def _box_list(x: Any, what: str, check_order: bool) -> list[Box]:
    if isinstance(x, (str, bytes)) or not isinstance(x, Sequence):
        raise InputError(f"{what} must be a list of [x0, y0, x1, y1] boxes, got {type(x).__name__}")
    out = []
    for b in x:
        if isinstance(b, (str, bytes)) or not isinstance(b, Sequence) or len(b) != 4:
            raise InputError(f"{what}: every box needs 4 numbers [x0, y0, x1, y1], got {b!r}")
        try:
            vals = tuple(float(v) for v in b)
        except (TypeError, ValueError) as e:
            raise InputError(f"{what}: box {b!r} holds a value that is not a number") from e
        if not all(math.isfinite(v) for v in vals):
            raise InputError(f"{what}: box {b!r} has NaN or infinite coordinates")
        if check_order and (vals[2] < vals[0] or vals[3] < vals[1]):
            raise InputError(f"{what}: box {b!r} is inverted (x1 < x0 or y1 < y0); boxes are [x0, y0, x1, y1]")
        out.append(vals)
    return out  # type: ignore[return-value]


def _scale(boxes: list[Box], size: tuple[float, float] | None, what: str, option: str) -> list[Box]:
    if size is None:
        raise InputError(f"{option}='pixel' needs image_sizes=[(width, height), ...], one per image ({what})")
    w, h = size
    return [(b[0] / w, b[1] / h, b[2] / w, b[3] / h) for b in boxes]


def _check_normalized(boxes: list[Box], what: str, option: str, size: tuple[float, float] | None = None) -> None:
    """Normalised boxes must lie in [0, 1]; ``size`` is given when they were pixels scaled by it."""
    bad = [b for b in boxes if any(v < -1e-6 or v > 1 + 1e-6 for v in b)]
    if not bad:
        return
    if size is not None:
        w, h = size
        b = bad[0]
        px = (round(b[0] * w, 3), round(b[1] * h, 3), round(b[2] * w, 3), round(b[3] * h, 3))
        raise InputError(f"{what} box {px} goes past the {w:g}x{h:g} image ({option}='pixel')")
    raise InputError(
        f"{what} box coordinates must be normalised to [0, 1], got {bad[:2]}; for pixel boxes pass "
        f"{option}='pixel' and image_sizes=[(width, height), ...]"
    )


def _target_boxes(gt: Any, coords: str, size: tuple[float, float] | None, mode: Mode) -> list[Box]:
    g = _box_list(gt, "target", check_order=mode == "paper")
    if coords == "pixel":
        if g and size is not None and min(size) > 2 and max(v for b in g for v in b) <= 1:
            raise InputError(
                f"target_coords='pixel' but the ground-truth boxes {g[:2]} of a {size[0]:g}x{size[1]:g} image "
                "look normalised to [0, 1]: pass target_coords='normalized'"
            )
        g = _scale(g, size, "ground truth", "target_coords")
    _check_normalized(g, "ground-truth", "target_coords", size if coords == "pixel" else None)
    return g


def _pred_boxes(pred: Any, mode: Mode, coords: str, size: tuple[float, float] | None) -> list[Box] | None:
    """A prediction as boxes: parsed from text when it is a string (None when unreadable)."""
    if pred is None:
        return None
    if isinstance(pred, (str, bytes)):
        if mode == "posteriq-code":
            return posteriq_code_boxes(pred)
        if coords == "pixel" and size is None:
            raise InputError("coords='pixel' needs image_sizes=[(width, height), ...], one per image")
        parsed = parse_boxes(pred, coords=coords, image_size=size)  # type: ignore[arg-type]
        return parsed.value if parsed.ok else None
    boxes = _box_list(pred, "preds", check_order=mode == "paper")
    if mode == "paper":
        if coords == "pixel":
            boxes = _scale(boxes, size, "predictions", "coords")
        _check_normalized(boxes, "predicted", "coords", size if coords == "pixel" else None)
    return boxes


def _sizes(image_sizes: Any, n: int) -> list[tuple[float, float] | None]:
    if image_sizes is None:
        return [None] * n
    sizes = list(image_sizes.tolist()) if hasattr(image_sizes, "tolist") else as_list(image_sizes, "image_sizes")
    if len(sizes) != n:
        raise InputError(f"mismatched lengths: {n} items but {len(sizes)} image sizes")
    out: list[tuple[float, float] | None] = []
    for s in sizes:
        try:
            w, h = (float(v) for v in s)
        except (TypeError, ValueError) as e:
            raise InputError(f"image sizes are (width, height) pairs, got {s!r}") from e
        if not (w > 0 and h > 0 and math.isfinite(w) and math.isfinite(h)):
            raise InputError(f"image sizes must be positive, got {s!r}")
        out.append((w, h))
    return out


def _items(preds: Any, target: Any, image_sizes: Any, what: str) -> list[tuple[Any, Any, Any]]:
    p, t = as_list(preds, "preds"), as_list(target, "target")
    same_length(p, t, f"{what} (preds vs target)")
    return list(zip(p, t, _sizes(image_sizes, len(t))))


# ----------------------------------------------------------------------------- text localisation
def text_localization_iou_stats(
    preds: Sequence[Any],
    target: Sequence[Sequence[Sequence[float]]],
    *,
    top_n: int,
    mode: Mode = "paper",
    coords: Coords = "normalized",
    target_coords: Coords = "normalized",
    image_sizes: Sequence[tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """Per image IoU (paper) or per matched box IoU (code), plus the unreadable answers."""
    check_box_options(mode, coords, target_coords)
    if not isinstance(top_n, int) or isinstance(top_n, bool) or top_n < 1:
        raise InputError(f"top_n must be a positive integer, got {top_n!r}")
    agg = Aggregate()
    for pred, gt, size in _items(preds, target, image_sizes, "text_localization_iou"):
        g = _target_boxes(gt, target_coords, size, mode)
        if not g:
            raise InputError("an image has no ground-truth boxes")
        p = _pred_boxes(pred, mode, coords, size)
        if p is None:
            agg.unparsable += 1
            continue
        if mode == "posteriq-code":
            for j in range(min(len(g), len(p), top_n)):  # by position, no sorting, pooled over boxes
                agg.add(max(box_iou(r, g[j]) for r in _code_readings(p[j], size)))
        else:
            order = sorted(range(len(g)), key=lambda i: -box_area(g[i]))  # largest ground truth first
            n = min(top_n, len(g))
            agg.add(sum(box_iou(p[i], g[i]) if i < len(p) else 0.0 for i in order[:n]) / n)
    return agg.as_stats()


def text_localization_iou(
    preds: Sequence[Any],
    target: Sequence[Sequence[Sequence[float]]],
    *,
    top_n: int,
    mode: Mode = "paper",
    coords: Coords = "normalized",
    target_coords: Coords = "normalized",
    image_sizes: Sequence[tuple[float, float]] | None = None,
) -> float:
    """Top-n text-localisation IoU (PosterIQ Eq. 4), in [0, 1], higher is better.

    ``preds[i]`` answers image ``i``: a list of boxes (box ``j`` for queried text ``j``) or the
    raw answer text; ``target[i]`` the ground-truth boxes in query order.

    Paper: sort the (prediction, ground truth) pairs by ground-truth area, largest first, take
    the top ``n = min(top_n, #gt)`` and average their IoU, a missing prediction counting 0; the
    score is the mean over images. Code: pair the j-th predicted box with the j-th ground-truth
    box as given, for ``j < min(#gt, #pred, top_n)``; each box's IoU is the best of four
    coordinate readings; the IoUs of all matched boxes of all images are pooled.
    """
    stats = text_localization_iou_stats(
        preds,
        target,
        top_n=top_n,
        mode=mode,
        coords=coords,
        target_coords=target_coords,
        image_sizes=image_sizes,
    )
    return mean_from_stats(stats, "text_localization_iou")


# ----------------------------------------------------------------------------- recall rate
def box_recall_rate_stats(preds: Sequence[int], target: Sequence[int]) -> dict[str, Any]:
    """Per item ``min(1, n_pred / n_query)``."""
    p, q = as_list(preds, "preds"), as_list(target, "target")
    same_length(p, q, "box_recall_rate (preds vs target)")
    agg = Aggregate()
    for a, b in zip(p, q):
        if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, Real) or not isinstance(b, Real):
            raise InputError(f"box counts must be integers, got {a!r} and {b!r}")
        fa, fb = float(a), float(b)
        if not (fa.is_integer() and fb.is_integer()):
            raise InputError(f"box counts must be integers, got {a!r} and {b!r}")
        if fb <= 0 or fa < 0:
            raise InputError(
                f"target (queried boxes) must be positive and preds (returned boxes) non-negative, got {a} and {b}"
            )
        agg.add(min(1.0, fa / fb))
    return agg.as_stats()


def box_recall_rate(preds: Sequence[int], target: Sequence[int]) -> float:
    """Recall rate (PosterIQ Eq. 5): mean of ``min(1, n_pred / n_query)`` over items, in [0, 1],
    higher is better. ``preds``: boxes returned per item; ``target``: boxes asked for."""
    return mean_from_stats(box_recall_rate_stats(preds, target), "box_recall_rate")


# ----------------------------------------------------------------------------- centre bias, area ratio
def _per_pair_stats(
    preds: Sequence[Any],
    target: Sequence[Any],
    mode: Mode,
    coords: Coords,
    target_coords: Coords,
    image_sizes: Any,
    score: Callable[[list[Box], Box], float],
) -> dict[str, Any]:
    """``score(readings of a predicted box, its ground-truth box)`` for every paired element."""
    check_box_options(mode, coords, target_coords)
    agg = Aggregate()
    for pred, gt, size in _items(preds, target, image_sizes, "layout boxes"):
        p = _pred_boxes(pred, mode, coords, size)
        if p is None:
            agg.unparsable += 1
            continue
        g = _target_boxes(gt, target_coords, size, mode)
        for pb, gb in zip(p, g):
            agg.add(score(_code_readings(pb, size) if mode == "posteriq-code" else [pb], gb))
    return agg.as_stats()


def _distance(readings: list[Box], g: Box) -> float:
    return min(math.dist(_center(r), _center(g)) for r in readings)


def _ratio(readings: list[Box], g: Box) -> float:
    """GT area / predicted area of the reading closest to 1, folded to <= 1 (PosterIQ's rule;
    with the one reading of paper mode it is min(A_pred, A_gt) / max(A_pred, A_gt))."""
    ag = box_area(g)
    if ag <= 0:
        raise InputError(f"ground-truth box {g} has zero area")
    best: float | None = None
    for r in readings:
        ap = box_area(r)
        q = ag / ap if ap > 0 else 0.0
        if best is None or abs(q - 1) < abs(best - 1):
            best = q
    assert best is not None
    return min(best, 1 / best) if best > 0 else 0.0


def center_bias_stats(
    preds: Sequence[Any],
    target: Sequence[Any],
    *,
    mode: Mode = "paper",
    coords: Coords = "normalized",
    target_coords: Coords = "normalized",
    image_sizes: Sequence[tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """Per paired element, the distance of the box centres."""
    return _per_pair_stats(preds, target, mode, coords, target_coords, image_sizes, _distance)


def center_bias(
    preds: Sequence[Any],
    target: Sequence[Any],
    *,
    mode: Mode = "paper",
    coords: Coords = "normalized",
    target_coords: Coords = "normalized",
    image_sizes: Sequence[tuple[float, float]] | None = None,
) -> float:
    """Centre bias (PosterIQ Eq. 6): mean Euclidean distance of normalised box centres over all
    paired elements (box j with box j), in [0, sqrt(2)], lower is better.

    Code: each distance is the smallest over the four coordinate readings."""
    stats = center_bias_stats(
        preds, target, mode=mode, coords=coords, target_coords=target_coords, image_sizes=image_sizes
    )
    return mean_from_stats(stats, "center_bias")


def area_ratio_stats(
    preds: Sequence[Any],
    target: Sequence[Any],
    *,
    mode: Mode = "paper",
    coords: Coords = "normalized",
    target_coords: Coords = "normalized",
    image_sizes: Sequence[tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """Per paired element, ``min(A_pred, A_gt) / max(A_pred, A_gt)``."""
    return _per_pair_stats(preds, target, mode, coords, target_coords, image_sizes, _ratio)


def area_ratio(
    preds: Sequence[Any],
    target: Sequence[Any],
    *,
    mode: Mode = "paper",
    coords: Coords = "normalized",
    target_coords: Coords = "normalized",
    image_sizes: Sequence[tuple[float, float]] | None = None,
) -> float:
    """Area ratio (PosterIQ Eq. 7): mean of ``min(A_pred, A_gt) / max(A_pred, A_gt)`` over all
    paired elements, in [0, 1], higher is better. A zero-area ground-truth box is an error; a
    zero-area prediction scores 0. Code: the reading whose ratio is closest to 1."""
    stats = area_ratio_stats(
        preds, target, mode=mode, coords=coords, target_coords=target_coords, image_sizes=image_sizes
    )
    return mean_from_stats(stats, "area_ratio")
