"""Reading boxes for PosterIQ's box metrics: ground truth, predictions (boxes or raw answers),
image sizes, and PosterIQ code's four coordinate readings.

Boxes are ``[x0, y0, x1, y1]``; ``coords`` says how predictions are given and ``target_coords``
how the ground truth is (``"normalized"`` to [0, 1], or ``"pixel"`` with ``image_sizes``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

from transcreval.core.common import Mode, as_list, check_choice, check_mode, same_length
from transcreval.errors import InputError
from transcreval.utils.parsing import Box, parse_boxes, posteriq_code_boxes

Coords = Literal["normalized", "pixel"]
COORDS = ("normalized", "pixel")

__all__ = [
    "COORDS",
    "BoxUnitsError",
    "Coords",
    "answer_above_one",
    "box_area",
    "box_center",
    "box_iou",
    "box_list",
    "check_box_options",
    "code_readings",
    "pred_boxes",
    "sized_items",
    "target_boxes",
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


def box_center(b: Box) -> tuple[float, float]:
    return (b[0] + b[2]) / 2, (b[1] + b[3]) / 2


def code_readings(pred: Box, size: tuple[float, float] | None) -> list[Box]:
    """The four coordinate readings PosterIQ's code tries for every predicted box."""
    out = []
    if size is not None:
        w, h = size
        out.append((pred[0] / w, pred[1] / h, pred[2] / w, pred[3] / h))
    out.append(pred)
    for scale in (1024.0, 1000.0):
        out.append((pred[0] / scale, pred[1] / scale, pred[2] / scale, pred[3] / scale))
    return out


def box_list(x: Any, what: str, check_order: bool) -> list[Box]:
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


class BoxUnitsError(InputError):
    """An answer's boxes are in other units than the ones stated (coordinates above 1 where
    normalised boxes are expected): the caller's setting, or a model answering in pixels or on a
    0-1000 grid. A protocol scoring many models' answers catches it per answer."""


def _above_one(answer: str | bytes) -> list[Box]:
    raw = parse_boxes(answer, tolerance=math.inf)
    return [b for b in raw.value or () if max(b) > 1 + 1e-6]


def answer_above_one(answer: Any) -> bool:
    """Whether a text answer gives box coordinates above 1 (pixels, a 0-1000 grid)."""
    return isinstance(answer, (str, bytes)) and bool(_above_one(answer))


def _check_answer_units(answer: str | bytes) -> None:
    """An answer whose boxes go above 1 where normalised boxes are expected is in other units
    (pixels, a 0-1000 grid): an error naming the fix, never an unreadable answer scored 0."""
    over = _above_one(answer)
    if over:
        text = answer.decode("utf-8", "replace") if isinstance(answer, bytes) else answer
        raise BoxUnitsError(
            f"the answer {text[:80]!r} gives box coordinates above 1 ({over[:2]}) where normalised boxes are "
            "expected: for answers in pixels pass coords='pixel' and image_sizes=[(width, height), ...] "
            "(mode='posteriq-code' tries the four readings PosterIQ's script tries)"
        )


def target_boxes(gt: Any, coords: str, size: tuple[float, float] | None, mode: Mode) -> list[Box]:
    g = box_list(gt, "target", check_order=mode == "paper")
    if coords == "pixel":
        if g and size is not None and min(size) > 2 and max(v for b in g for v in b) <= 1:
            raise InputError(
                f"target_coords='pixel' but the ground-truth boxes {g[:2]} of a {size[0]:g}x{size[1]:g} image "
                "look normalised to [0, 1]: pass target_coords='normalized'"
            )
        g = _scale(g, size, "ground truth", "target_coords")
    _check_normalized(g, "ground-truth", "target_coords", size if coords == "pixel" else None)
    return g


def pred_boxes(pred: Any, mode: Mode, coords: str, size: tuple[float, float] | None) -> list[Box] | None:
    """A prediction as boxes: parsed from text when it is a string (None when unreadable)."""
    if pred is None:
        return None
    if isinstance(pred, (str, bytes)):
        if mode == "posteriq-code":
            return posteriq_code_boxes(pred)
        if coords == "pixel" and size is None:
            raise InputError("coords='pixel' needs image_sizes=[(width, height), ...], one per image")
        parsed = parse_boxes(pred, coords=coords, image_size=size)  # type: ignore[arg-type]
        if parsed.status == "out_of_range" and coords == "normalized":
            _check_answer_units(pred)
        return parsed.value if parsed.ok else None
    boxes = box_list(pred, "preds", check_order=mode == "paper")
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


def sized_items(preds: Any, target: Any, image_sizes: Any, what: str) -> list[tuple[Any, Any, Any]]:
    p, t = as_list(preds, "preds"), as_list(target, "target")
    same_length(p, t, f"{what} (preds vs target)")
    return list(zip(p, t, _sizes(image_sizes, len(t))))
